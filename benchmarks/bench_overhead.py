"""Per-call overhead of small batches (issue 13): a training loop's accumulator ``update`` of 8
segments and sentence-level calls on 16, for text and token ids.

The reference side calls the native kernels alone on the same batches (the work itself); the
nlpeval side makes the public calls. The row reports the difference per call.

Run as a script (``PYTHONPATH=<tree>/python python benchmarks/bench_overhead.py``), it prints the
same differences in CPU time (``time.process_time``, the best of ``--repeat`` alternating rounds),
which is steadier than wall time on a loaded machine; running it for two trees compares them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from harness import Case, wmt17_systems
from nlpeval import _native
from token_id_data import PAD, token_id_pairs


def batches(items: list, size: int) -> list:
    return [items[i : i + size] for i in range(0, len(items) - size + 1, size)]


def cases(data: Path) -> list[Case]:
    import nlpeval
    from nlpeval.metrics.bleu import TokenIdBLEU

    reference, systems = wmt17_systems()
    hyp = systems["online-B.0"]
    text8 = list(zip(batches(hyp, 8), batches(reference, 8), strict=True))
    text16 = list(zip(batches(hyp, 16), batches(reference, 16), strict=True))
    _, _, hyp_array, ref_array = token_id_pairs()
    ids8 = [(hyp_array[i : i + 8], ref_array[i : i + 8]) for i in range(0, 3000, 8)]
    ids16 = [(hyp_array[i : i + 16], ref_array[i : i + 16]) for i in range(0, 3008, 16)]

    def text_kernel(pairs: list, chrf: bool = False):
        def run() -> None:
            for h, r in pairs:
                refs = [[x] for x in r]
                if chrf:
                    _native.chrf_stats(h, refs, 6, 0, False, 4.0, False)
                else:
                    _native.bleu_stats(h, refs, "13a", 4)

        return run

    def id_kernel(pairs: list):
        def run() -> None:
            for h, r in pairs:
                n, width = h.shape
                lens, ones = np.full(n, width, dtype=np.int64), np.ones(n, dtype=np.int64)
                hyp_ids, hyp_lens = _native.trim_ids(h.reshape(-1), lens, PAD, None)
                ref_ids, ref_lens = _native.trim_ids(r.reshape(-1), lens, PAD, None)
                _native.bleu_stats_flat(hyp_ids, hyp_lens, ref_ids, ref_lens, ones, 4)

        return run

    def update_text() -> None:
        acc = nlpeval.BLEU().accumulator()
        for h, r in text8:
            acc.update(h, r)

    def update_ids() -> None:
        acc = TokenIdBLEU(pad_id=PAD).accumulator()
        for h, r in ids8:
            acc.update(h, r)

    def sentence_bleu() -> None:
        for h, r in text16:
            nlpeval.bleu(h, r, segments=True)

    def sentence_chrf() -> None:
        for h, r in text16:
            nlpeval.chrf(h, r, segments=True)

    def sentence_ids() -> None:
        for h, r in ids16:
            nlpeval.bleu(h, r, pad_id=PAD, segments=True)

    kernels = "native kernels alone, same batches"
    limit = 50e-6
    return [
        Case(
            f"per call: BLEU accumulator update, {len(text8)} batches of 8 WMT17 segments",
            kernels,
            text_kernel(text8),
            update_text,
            overhead=limit,
            calls=len(text8),
        ),
        Case(
            f"per call: BLEU accumulator update, {len(ids8)} padded id batches of 8",
            kernels,
            id_kernel(ids8),
            update_ids,
            overhead=limit,
            calls=len(ids8),
        ),
        Case(
            f"per call: sentence BLEU (segments=True), {len(text16)} calls of 16 WMT17 segments",
            kernels,
            text_kernel(text16),
            sentence_bleu,
            overhead=limit,
            calls=len(text16),
        ),
        Case(
            f"per call: sentence chrF (segments=True), {len(text16)} calls of 16 WMT17 segments",
            kernels,
            text_kernel(text16, chrf=True),
            sentence_chrf,
            overhead=limit,
            calls=len(text16),
        ),
        Case(
            f"per call: sentence BLEU of padded ids, {len(ids16)} calls of 16",
            kernels,
            id_kernel(ids16),
            sentence_ids,
            overhead=limit,
            calls=len(ids16),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description="per-call overhead in CPU time")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    import nlpeval

    rows = cases(Path("."))
    best = [[float("inf"), float("inf")] for _ in rows]
    for _ in range(args.repeat):
        for i, case in enumerate(rows):
            for side, run in enumerate((case.run_reference, case.run_nlpeval)):
                start = time.process_time()
                run()
                best[i][side] = min(best[i][side], time.process_time() - start)
    print(f"nlpeval from {Path(nlpeval.__file__).parent}; CPU time, best of {args.repeat}")
    for case, (kernels, ours) in zip(rows, best, strict=True):
        extra = (ours - kernels) / case.calls * 1e6
        print(f"| {case.name} | {kernels:.4f} s | {ours:.4f} s | +{extra:.0f} us/call |")


if __name__ == "__main__":
    main()
