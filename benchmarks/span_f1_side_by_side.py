"""Span F1 on 100,000 sentences: two nlpeval trees and seqeval 1.2.2 side by side, alternating, in one run.

Usage: ``python benchmarks/span_f1_side_by_side.py OLD/python NEW/python [--rounds 2]``

Each round times, for each case (lenient and strict IOB2), nlpeval from OLD, nlpeval from NEW and seqeval, each in
its own child process on the same generated sentences (``bench_span_f1.conll_like``), warm (one call first), best of
3 (seqeval best of 2). The machine is shared: read the ratios, with the load averages printed at start and end.
"""

from __future__ import annotations

import argparse
import os

from harness import child_timing

SETUP = r"""
import warnings
from bench_span_f1 import conll_like
warnings.simplefilter("ignore")
hyps, refs = conll_like(100_000)
case = {case!r}
if {tool!r} == "seqeval":
    from seqeval.metrics import f1_score
    from seqeval.metrics.v1 import precision_recall_fscore_support
    from seqeval.scheme import IOB2
    if case == "lenient":
        call = lambda: f1_score(refs, hyps)
    else:
        call = lambda: precision_recall_fscore_support(refs, hyps, average="micro", scheme=IOB2)[2]
else:
    import nlpeval
    options = dict(mode="strict", scheme="IOB2") if case == "strict" else dict()
    call = lambda: nlpeval.span_f1(hyps, refs, **options).score
    call()
"""


def run(case: str, tool: str, path: str | None) -> dict[str, float]:
    return child_timing(SETUP.format(case=case, tool=tool), path, repeats=2 if tool == "seqeval" else 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    best: dict[tuple[str, str], float] = {}
    for round_ in range(args.rounds):
        for case in ("lenient", "strict"):
            results = {
                "old": run(case, "nlpeval", args.old),
                "new": run(case, "nlpeval", args.new),
                "seqeval": run(case, "seqeval", None),
            }
            assert abs(results["old"]["value"] - results["new"]["value"]) < 1e-12
            assert abs(results["new"]["value"] - results["seqeval"]["value"]) < 1e-12
            for tool, result in results.items():
                best[case, tool] = min(best.get((case, tool), float("inf")), result["seconds"])
            print(f"round {round_ + 1} {case}: " + ", ".join(f"{k} {v['seconds']:.4f} s" for k, v in results.items()))
    print(f"load average at end: {os.getloadavg()}")
    print("| case | seqeval / before | seqeval / after | before / after |")
    print("|---|---|---|---|")
    for case in ("lenient", "strict"):
        ref, old, new = best[case, "seqeval"], best[case, "old"], best[case, "new"]
        print(f"| span F1 ({case}), 100,000 sentences | {ref / old:.1f}x | {ref / new:.1f}x | {old / new:.2f}x |")


if __name__ == "__main__":
    main()
