"""BLEU flavor ``nltk``: NLTK's corpus_bleu and a sentence_bleu loop against nlpeval on TED data.

NLTK gets its input already split into tokens (its own format, split outside the
timing); nlpeval gets the raw lines and splits them itself, so the ratios are
conservative. The issue sets no target ratio for this flavor.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from harness import Case, read_lines


def cases(data: Path) -> list[Case]:
    import nltk
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu

    import nlpeval

    folder = data / "compare-mt"
    hyps = read_lines(folder / "ted.sys1.eng")
    refs = read_lines(folder / "ted.ref.eng")
    hyp_tokens = [h.split() for h in hyps]
    ref_tokens = [[r.split()] for r in refs]
    tool = f"nltk {nltk.__version__}"
    method1 = SmoothingFunction().method1

    def corpus_ref() -> None:
        corpus_bleu(ref_tokens, hyp_tokens)

    def corpus_ours() -> None:
        nlpeval.bleu(hyps, refs, flavor="nltk")

    def sentence_ref() -> None:
        for ref, hyp in zip(ref_tokens, hyp_tokens, strict=True):
            sentence_bleu(ref, hyp, smoothing_function=method1)

    def sentence_ours() -> None:
        nlpeval.bleu(hyps, refs, flavor="nltk", smooth="method1", segments=True)

    def quiet(run):
        def wrapped() -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()

        return wrapped

    n = len(hyps)
    return [
        Case(f"NLTK corpus_bleu, TED ({n:,} segments)", tool, quiet(corpus_ref), corpus_ours),
        Case(f"NLTK sentence_bleu method1, TED ({n:,} pairs)", tool, quiet(sentence_ref), sentence_ours),
    ]
