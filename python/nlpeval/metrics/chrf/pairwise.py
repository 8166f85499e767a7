"""Pairwise sentence chrF: every hypothesis against every candidate (MBR decoding)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nlpeval import _native
from nlpeval.core.validation import unicode_checked, validate_segments
from nlpeval.metrics.chrf.fields import DEFAULT_BETA, check_options


def _texts(values: Sequence[str], side: str, lowercase: bool) -> list[str]:
    items = validate_segments(values, side)
    return [item.lower() for item in items] if lowercase else items


def pairwise_chrf(
    hypotheses: Sequence[str],
    candidates: Sequence[str],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = DEFAULT_BETA,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> np.ndarray:
    """Sentence chrF of every hypothesis against every candidate as its single reference.

    Equals ``sacrebleu.sentence_chrf(hypotheses[i], [candidates[j]], ...)`` (divided
    by 100) for every pair, but extracts each sentence's character and word
    n-grams once, so an ``n x m`` matrix costs one sorted merge per pair.

    Parameters
    ----------
    hypotheses : sequence of str
        Rows of the matrix.
    candidates : sequence of str
        Columns: each is used as the reference.
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        As for :func:`nlpeval.chrf`.

    Returns
    -------
    numpy.ndarray
        ``(len(hypotheses), len(candidates))`` float array on the 0–1 scale.

    Examples
    --------
    >>> m = pairwise_chrf(["the cat sat", "a dog"], ["the cat sat", "the dog", "x"])
    >>> m.shape, float(m[0, 0]), float(m[1, 2])
    ((2, 3), 1.0, 0.0)
    """
    check_options(char_order, word_order, beta)
    hyps = _texts(hypotheses, "hypotheses", lowercase)
    cands = _texts(candidates, "candidates", lowercase)
    with unicode_checked(hyps), unicode_checked(cands, side="candidates"):
        scores = _native.chrf_pairwise_scores(
            hyps, cands, char_order, word_order, whitespace, float(beta**2), eps_smoothing
        )
    return scores / 100.0


__all__ = ["pairwise_chrf"]
