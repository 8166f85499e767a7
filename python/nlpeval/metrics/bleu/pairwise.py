"""Pairwise sentence BLEU: every hypothesis against every candidate (MBR decoding)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nlpeval import _native
from nlpeval.core.validation import unicode_checked, validate_segments
from nlpeval.metrics.bleu.sacrebleu import SMOOTH_DEFAULTS
from nlpeval.tokenizers import resolve_tokenizer


def pairwise_bleu(
    hypotheses: Sequence[str],
    candidates: Sequence[str],
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    spm_model: str | None = None,
) -> np.ndarray:
    """Sentence BLEU of every hypothesis against every candidate as its single reference.

    Equals ``sacrebleu.sentence_bleu(hypotheses[i], [candidates[j]])`` (divided by
    100) for every pair, but extracts each sentence's n-grams once, so an
    ``n x m`` matrix costs one sorted merge per pair; the sentence scores are
    computed natively next to the counts (the same formula as
    :func:`~nlpeval.metrics.bleu.sacrebleu.sacrebleu_values`, pinned by tests).

    Parameters
    ----------
    hypotheses : sequence of str
        Rows of the matrix.
    candidates : sequence of str
        Columns: each is used as the reference.
    tokenize, lowercase, smooth, smooth_value, max_order, spm_model
        As for :func:`nlpeval.bleu`.

    Returns
    -------
    numpy.ndarray
        ``(len(hypotheses), len(candidates))`` float array on the 0–1 scale.

    Examples
    --------
    >>> m = pairwise_bleu(["a b c d", "a b"], ["a b c d", "x"])
    >>> m.shape, round(float(m[0, 0]), 12), round(float(m[1, 1]), 12)
    ((2, 2), 1.0, 0.0)
    """
    if smooth not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth {smooth!r}; choose one of {', '.join(SMOOTH_DEFAULTS)}")
    spec = resolve_tokenizer(tokenize, spm_model=spm_model)
    hyps = validate_segments(hypotheses, "hypotheses")
    cands = validate_segments(candidates, "candidates")
    if lowercase:
        hyps = [h.lower() for h in hyps]
        cands = [c.lower() for c in cands]
    if spec.python is not None:
        hyps = [spec.python(h.rstrip()) for h in hyps]
        cands = [spec.python(c.rstrip()) for c in cands]
    with unicode_checked(hyps), unicode_checked(cands, side="candidates"):
        return _native.bleu_pairwise_scores(hyps, cands, spec.native, max_order, smooth, smooth_value)
