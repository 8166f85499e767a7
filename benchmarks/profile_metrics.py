"""Where the time of each metric goes, against a lower bound for the same bytes (issue 13).

Usage: ``python benchmarks/profile_metrics.py [--write docs/profiles.md]``

For each text metric on one WMT17 system (3,004 segments, 0.74 MB with the reference) the
script times, warm and in-process (best of 5): the whole public call; validation and the other
Python work around the native call; receiving the strings in Rust (``_native.receive_text``: the
Python-to-Rust conversion alone); the native statistics call (conversion + tokenisation + counting;
for BLEU the native tokeniser alone is timed too); and scoring the statistics. The lower bound is
one pass over the same bytes at memory speed (NumPy counting the spaces of the UTF-8 text,
already encoded): no metric can read its input faster. Classification is profiled on 10M labels
against ``np.bincount`` of the combined label codes (the counting it cannot avoid).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import wmt17_systems  # noqa: E402
from run import machine  # noqa: E402


def best(run: Callable[[], object], repeat: int = 5) -> float:
    """Best-of-``repeat`` seconds (after one warm-up call)."""
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def text_profiles() -> list[tuple[str, list[tuple[str, float]], float]]:
    import nlpeval
    from nlpeval import _native
    from nlpeval.core.validation import validate_text
    from nlpeval.metrics.rouge import make_rouge
    from nlpeval.metrics.wer.metric import EditRate

    reference, systems = wmt17_systems()
    hyps = systems["online-B.0"]
    refs = [[r] for r in reference]
    data = ("\n".join(hyps) + "\n".join(reference)).encode("utf-8")
    raw = np.frombuffer(data, dtype=np.uint8)
    bound = best(lambda: int(np.count_nonzero(raw == 32)), repeat=20)
    receive = best(lambda: _native.receive_text(hyps, refs))
    validate = best(lambda: validate_text(hyps, reference))

    def native_call(metric, name: str) -> Callable[[], object]:
        """The native call ``metric`` makes, with the arguments it passes (captured once)."""
        function = getattr(_native, name)
        seen: list[tuple] = []

        def spy(*args, **kwargs):
            seen.append((args, kwargs))
            return function(*args, **kwargs)

        setattr(_native, name, spy)
        try:
            metric.segment_stats(hyps, reference)
        finally:
            setattr(_native, name, function)
        args, kwargs = seen[0]
        return lambda: function(*args, **kwargs)

    def stages(metric, native: str, extra: list[tuple[str, float]] | None = None):
        stats = metric.segment_stats(hyps, reference)
        native = native_call(metric, native)
        total = best(lambda: metric(hyps, reference))
        seg = best(lambda: metric.segment_stats(hyps, reference))
        kernel = best(native)
        score = best(lambda: metric.score_from_stats(stats))
        rows = [
            ("whole call", total),
            ("validation", validate),
            ("other Python around the native call", max(seg - kernel - validate, 0.0)),
            ("Python-to-Rust conversion of the strings", receive),
            *(extra or []),
            ("native statistics call (conversion + tokenisation + counting)", kernel),
            ("scoring the statistics", score),
        ]
        return rows

    out = []
    tokenize = best(lambda: _native.tokenize(hyps + reference, "13a"))
    out.append(
        (
            "BLEU (sacreBLEU flavor, 13a)",
            stages(
                nlpeval.BLEU(),
                "bleu_stats",
                [("native 13a tokeniser alone (with its conversion both ways)", tokenize)],
            ),
            bound,
        )
    )
    chrf = nlpeval.CHRF()
    out.append(("chrF", stages(chrf, "chrf_stats"), bound))
    chrfpp = nlpeval.CHRF(word_order=2)
    out.append(("chrF++", stages(chrfpp, "chrf_stats"), bound))
    ter = nlpeval.TER()
    hyp_tok, ref_tok = ter._tokenizers

    def ter_tokens() -> object:
        return [hyp_tok(h) for h in hyps], [ref_tok(r) for r in reference]

    tokens = [("Python tokenisation before the native call", best(ter_tokens))]
    out.append(("TER", stages(ter, "ter_stats", tokens), bound))
    rouge = make_rouge("rougeL", stemmer=True)
    out.append(
        (
            "ROUGE-L + stemming (rouge-score flavor)",
            stages(rouge, "rouge_stats_text"),
            bound,
        )
    )
    wer = EditRate()
    out.append(("WER", stages(wer, "edit_stats"), bound))
    return out


def classification_profile() -> tuple[str, list[tuple[str, float]], float]:
    from nlpeval.classification import confusion_matrix
    from nlpeval.classification._targets import check_targets

    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 10, size=10_000_000)
    y_pred = np.where(rng.random(10_000_000) < 0.8, y_true, rng.integers(0, 10, size=10_000_000))
    bound = best(lambda: np.bincount(y_true * 10 + y_pred, minlength=100), repeat=3)
    rows = [
        ("whole call: confusion_matrix", best(lambda: confusion_matrix(y_true, y_pred), repeat=3)),
        ("validation and label encoding (check_targets)", best(lambda: check_targets(y_true, y_pred), repeat=3)),
    ]
    return "classification, 10M labels, 10 classes", rows, bound


#: What the tables say and what issue 13 changed (the tables below are re-measured on every run).
FINDINGS = [
    "## Findings",
    "",
    "- **Text metrics spend their time in the native kernels**, not in Python: the conversion of "
    "0.74 MB of strings into Rust takes about 1 ms, validation 0.5 ms and scoring the statistics "
    "0.1 ms, while the statistics call takes 10-70 ms. A memory-speed pass over the same bytes takes "
    "well under 0.1 ms, so every text metric is still 100-1000x above the byte-scan bound: the cost is "
    "in tokenisation (BLEU: the 13a rewrite rules and one `String` per segment and reference are over "
    "half of the statistics call) and in per-segment hashing of n-grams (chrF/chrF++: character "
    "n-grams of 6 orders, plus 2 word orders for chrF++), the TER shift search, the ROUGE LCS and the "
    "edit-distance table of WER. None of them is bound by reading the input.",
    "- **Token ids** were bound by Python: 90% of a 20,000-pair call was per-row validation. They now "
    "go to Rust as one buffer (a padded array or tensor is checked once with NumPy, lists of int "
    "lists are read natively in one pass, `pad_id`/`eos_id` are applied natively) and the kernel packs "
    "ids below 65,535 straight into n-gram keys in a reused open-addressing table, counting only "
    "n-grams whose ids occur on the other side (the number of hypothesis n-grams follows from the "
    "length). See the token-id rows of BENCHMARKS.md.",
    "- **Small batches** (a training loop's 8-16 segments) paid for the thread pool: handing a few "
    "segments to rayon and waiting for them cost milliseconds on a loaded machine. Batches under 64 "
    "segments now run on the calling thread; schemas and signatures are cached; merge rules run as "
    "one ufunc per column run; the one-row BLEU and chrF formulas use Python floats (the same IEEE "
    "operations in the same order, tested bit for bit against the array path) and the array paths "
    "compute all orders at once. What remains per sentence-level call is the NumPy formula over the "
    "segment rows (about 20 small array operations) and building the `Score`.",
    "- **Classification** at 10M labels is within about 2x of `np.bincount` on the combined codes; "
    "validation and label encoding (one pass each over the labels) are half of the call.",
]


def render(profiles: list[tuple[str, list[tuple[str, float]], float]]) -> str:
    lines = [
        "# Where the time goes",
        "",
        f"Produced by `python benchmarks/profile_metrics.py --write docs/profiles.md` on "
        f"{datetime.date.today().isoformat()}, {machine()}; load average "
        f"{os.getloadavg()[0]:.1f} (other processes share the machine, so absolute times are inflated; "
        "compare rows within a table). Warm, in-process, best of 5. The stages overlap where stated "
        "(the native call includes the conversion of its arguments).",
        "",
        *FINDINGS,
        "",
    ]
    for name, rows, bound in profiles:
        total = rows[0][1]
        lines += [f"## {name}", "", "| stage | ms | share of the whole call |", "|---|---|---|"]
        lines += [f"| {stage} | {seconds * 1e3:.2f} | {seconds / total:.0%} |" for stage, seconds in rows]
        lines += [
            f"| lower bound: one pass over the same bytes / labels | {bound * 1e3:.2f} | {bound / total:.0%} |",
            "",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", metavar="FILE", help="also write the Markdown to FILE")
    args = parser.parse_args()
    text = render([*text_profiles(), classification_profile()])
    print(text)
    if args.write:
        Path(args.write).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
