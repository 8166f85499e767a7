"""ROUGE 1/2/L/Lsum + stemming against rouge-score-rs in CPU seconds (``time.process_time``, all
threads summed, best of 5): a load-independent companion to bench_rouge.py's wall-clock rows.

Usage: ``RAYON_NUM_THREADS=1 python benchmarks/rouge_cpu_ratio.py`` (one thread: what one core does).
Prints, in CPU milliseconds, the whole ``nlpeval.rouge`` call, its native statistics call alone,
rouge-score-rs's ``score_batch`` (one reference) and its ``score_multi`` loop (two references), and
the two ratios.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import DATA, read_lines

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
KERNELS = [("n", 1.0), ("n", 2.0), ("l", 0.0), ("lsum", 0.0)]


def cpu_ms(call: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best * 1e3


def main() -> None:
    import rouge_score_rs

    import nlpeval
    from nlpeval import _native

    folder = DATA / "compare-mt"
    hyps = read_lines(folder / "sum.sys1.eng") * 10
    refs = read_lines(folder / "sum.ref.eng") * 10
    two = [[r, refs[(k + 1) % len(refs)]] for k, r in enumerate(refs)]
    rs = rouge_score_rs.RougeScorer(TYPES, use_stemmer=True)

    def multi_rs() -> None:
        for hyp, targets in zip(hyps, two, strict=True):
            rs.score_multi(targets, hyp)

    res = {
        "whole": cpu_ms(lambda: nlpeval.rouge(hyps, refs, types=TYPES, stemmer=True, segments=True)),
        "native": cpu_ms(lambda: _native.rouge_stats_text(hyps, refs, "unicode", True, KERNELS, True)),
        "rs": cpu_ms(lambda: rs.score_batch(refs, hyps)),
        "whole2": cpu_ms(
            lambda: nlpeval.rouge(hyps, two, types=TYPES, stemmer=True, flavor="rouge-score", segments=True)
        ),
        "native2": cpu_ms(lambda: _native.rouge_stats_text(hyps, two, "rouge-score", True, KERNELS, True)),
        "rs2": cpu_ms(multi_rs, 3),
    }
    print({k: round(v, 1) for k, v in res.items()})
    print(f"one reference: {res['rs'] / res['whole']:.2f}x; two references: {res['rs2'] / res['whole2']:.2f}x")


if __name__ == "__main__":
    main()
