"""A bound on the work of one hypothesis-reference pair of the edit-distance metrics (WER family, TER).

Levenshtein alignment (WER, CER) takes time in proportion to the product of the two
token counts (bit-parallel, about 0.3-1 ns per cell on a 2-core Xeon; memory stays
linear in the lengths), so a single pair of a few million characters a side would run
for hours. TER's shift search is bounded by sacreBLEU's own limits (beam, block size
and distance, 1,000 evaluated shifts per pair) but still grows with the pair's length.
Pairs whose token-count product exceeds ``max_cells`` (default :data:`MAX_CELLS`, ten
billion: seconds of work; natural segments are far below it) are refused before any
work with an :class:`~nlpeval.core.errors.InputError` naming the segment. Identical
texts are never refused (their alignment is read off in linear time). ``None`` lifts
the bound; a bound never changes a value, only whether one is computed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from nlpeval.core.errors import InputError

#: Default bound on ``tokens(hypothesis) * tokens(reference)`` of one pair.
MAX_CELLS = 10_000_000_000

_JIWER_RUNS = re.compile(r"\s\s+")


def jiwer_word_count(text: str) -> int:
    """Number of words of jiwer's default transform (as the native ``jiwer_words``).

    Examples
    --------
    >>> jiwer_word_count("  a  b\\tc "), jiwer_word_count(" "), jiwer_word_count("a b")
    (2, 0, 2)
    """
    text = _JIWER_RUNS.sub(" ", text).strip()
    return text.count(" ") + 1 if text else 0


def jiwer_char_count(text: str) -> int:
    """Number of characters of jiwer's default character transform (the stripped text).

    Examples
    --------
    >>> jiwer_char_count(" a b\\t")
    3
    """
    return len(text.strip())


def whitespace_word_count(text: str) -> int:
    """Number of words of ``text.split()`` (TER's tokens after the Tercom tokenizer).

    Examples
    --------
    >>> whitespace_word_count(" a  b ")
    2
    """
    return len(text.split())


def check_max_cells(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    max_cells: int | None,
    count: Callable[[str], int],
    *,
    unit: str,
    metric: str,
) -> None:
    """Raise :class:`InputError` for the first pair with more than ``max_cells`` token pairs.

    ``count`` gives the tokens of a text. Text lengths bound token counts from
    above, so only pairs whose length product exceeds the bound are counted exactly.

    Examples
    --------
    >>> check_max_cells(["a b c"], [["a b"]], 6, jiwer_word_count, unit="word", metric="wer")
    >>> check_max_cells(["a b c"], [["x", "a b"]], 5, jiwer_word_count, unit="word", metric="wer")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: segment 0: reference 1: 3 x 2 words = 6 cells, ...
    """
    if max_cells is None:
        return
    n = len(hyps)
    hyp_len = np.fromiter(map(len, hyps), dtype=np.int64, count=n)
    longest_ref = np.fromiter((max(map(len, seg), default=0) for seg in refs), dtype=np.int64, count=n)
    # float: products of two lengths may exceed int64 only in theory, never silently wrap
    for segment in np.flatnonzero(hyp_len.astype(np.float64) * longest_ref > max_cells).tolist():
        hyp = hyps[segment]
        n_hyp = count(hyp)
        for k, ref in enumerate(refs[segment]):
            if len(hyp) * len(ref) <= max_cells or ref == hyp:
                continue
            n_ref = count(ref)
            if n_hyp * n_ref > max_cells:
                raise InputError(
                    f"reference {k}: {n_hyp:,} x {n_ref:,} {unit}s = {n_hyp * n_ref:,} cells, more than "
                    f"max_cells={max_cells:,} ({metric}'s alignment takes time in proportion to the "
                    "product of the lengths); pass a larger max_cells, or None for no bound",
                    segment=segment,
                    side="hypotheses",
                )
