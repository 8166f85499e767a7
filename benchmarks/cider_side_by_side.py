"""CIDEr-D on 5,000 images x 5 references: two nlpeval trees and pycocoevalcap 1.2 side by side, alternating.

Usage: ``python benchmarks/cider_side_by_side.py OLD/python NEW/python [--rounds 2]``

Each round times, for each caption set of ``bench_captioning`` (headline captions, WMT17 German sentences),
pycocoevalcap as ``COCOEvalCap`` runs it (its ``PTBTokenizer`` in Java on the references, then on the
hypotheses, then ``Cider().compute_score``), nlpeval from OLD and nlpeval from NEW (``nlpeval.cider`` on the raw
captions), each in its own child process on the same captions, warm (one call first), best of 3 (pycocoevalcap
best of 2). The machine is shared: read the ratios, with the load averages printed at start and end.
"""

from __future__ import annotations

import argparse
import os

from harness import child_timing

SETUP = r"""
from harness import DATA
import bench_captioning
case = {case!r}
hyps, refs = bench_captioning.headline_captions(DATA) if case == "headlines" else bench_captioning.wmt_captions()
if {tool!r} == "pycocoevalcap":
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    gts = {{i: [{{"caption": r}} for r in seg] for i, seg in enumerate(refs)}}
    res = {{i: [{{"caption": h}}] for i, h in enumerate(hyps)}}
    def call():
        tokenizer = PTBTokenizer()
        return Cider().compute_score(tokenizer.tokenize(gts), tokenizer.tokenize(res))[0]
else:
    import nlpeval
    call = lambda: nlpeval.cider(hyps, refs).score
    call()
"""

CASES = {
    "headlines": "CIDEr-D, 5,000 images x 5 refs, headline captions (tokenizer included)",
    "wmt": "CIDEr-D, 5,000 images x 5 refs, WMT17 German sentences (tokenizer included)",
}


def run(case: str, tool: str, path: str | None) -> dict[str, float]:
    setup = SETUP.format(case=case, tool=tool)
    return child_timing(setup, path, repeats=2 if tool == "pycocoevalcap" else 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old", help="the python/ folder of the tree before the change")
    parser.add_argument("new", help="the python/ folder of the tree after it")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}", flush=True)
    rows: dict[str, dict[str, float]] = {case: {} for case in CASES}
    for number in range(args.rounds):
        for case in CASES:
            order = [("pycocoevalcap", None), ("old", args.old), ("new", args.new)]
            if number % 2:
                order.reverse()
            for tool, path in order:
                got = run(case, "pycocoevalcap" if tool == "pycocoevalcap" else "nlpeval", path)
                best = rows[case].get(tool)
                rows[case][tool] = got["seconds"] if best is None else min(best, got["seconds"])
                rows[case][f"{tool}_value"] = got["value"]
                print(f"{case} {tool}: {got['seconds']:.4f} s (CIDEr {got['value']!r})", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    print()
    print("| case | pycocoevalcap s | nlpeval before s | nlpeval after s | before | after | target | met |")
    print("|---|---|---|---|---|---|---|---|")
    for case, name in CASES.items():
        ref, old, new = rows[case]["pycocoevalcap"], rows[case]["old"], rows[case]["new"]
        met = "yes" if ref / new >= 20 else "NO"
        print(f"| {name} | {ref:.3f} | {old:.4f} | {new:.4f} | {ref / old:.1f}x | {ref / new:.1f}x | >= 20x | {met} |")
        same = rows[case]["old_value"] == rows[case]["new_value"] == rows[case]["pycocoevalcap_value"]
        print(f"<!-- {case}: CIDEr {rows[case]['new_value']!r}, the three values equal: {same} -->")


if __name__ == "__main__":
    main()
