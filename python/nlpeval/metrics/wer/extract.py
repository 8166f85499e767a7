"""Turning WER/CER input into edit statistics rows (hits, substitutions, deletions, insertions, lengths).

Policy for the input (the jiwer flavor), applied to every WER-family metric:

* one hypothesis per segment and one reference, or a list of references, per segment;
  a count mismatch, a non-str item or a segment without references raises
  :class:`~nlpeval.InputError` naming the segment;
* an empty or whitespace-only hypothesis is valid: every reference word is a deletion;
* an empty or whitespace-only reference is valid: it has no words, and every
  hypothesis word is an insertion (see :func:`jiwer_measures` for the rates);
* with several references, each segment is scored against the reference that needs
  the fewest edits (substitutions + deletions + insertions), the first one on ties;
* text that is not valid Unicode (a lone surrogate, e.g. from ``surrogateescape``
  decoding) raises :class:`~nlpeval.InputError` naming the segment, where jiwer would
  compare the code units.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.stats import StatsSchema
from nlpeval.core.validation import reference_counts, unicode_checked, validate_text
from nlpeval.metrics.wer.bound import MAX_CELLS, check_max_cells, jiwer_char_count, jiwer_word_count
from nlpeval.metrics.wer.normalize import Normalizer

#: Columns of the native kernel's rows.
EDIT_FIELDS = ("hits", "substitutions", "deletions", "insertions", "ref_len", "hyp_len")

#: The statistics of every WER-family metric: six summed counts and the reference counts.
EDIT_SCHEMA = StatsSchema.of(*EDIT_FIELDS, nrefs_min="min", nrefs_max="max")


def flatten_pairs(hyps: list[str], refs: list[list[str]]) -> tuple[list[str], list[str], np.ndarray]:
    """One (hypothesis, reference) pair per reference, and each segment's first pair index."""
    counts = reference_counts(refs)
    if counts.size and counts.max() == 1:
        return hyps, [seg[0] for seg in refs], np.arange(len(hyps), dtype=np.int64)
    pair_hyps = [hyp for hyp, seg in zip(hyps, refs, strict=True) for _ in seg]
    pair_refs = [ref for seg in refs for ref in seg]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) if counts.size else counts
    return pair_hyps, pair_refs, starts


def best_pairs(rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Index of the chosen pair of each segment: fewest edits, first on ties."""
    if rows.shape[0] == starts.shape[0]:
        return np.arange(rows.shape[0])
    errors = rows[:, 1] + rows[:, 2] + rows[:, 3]
    lowest = np.minimum.reduceat(errors, starts)
    sizes = np.diff(np.append(starts, rows.shape[0]))
    candidates = np.flatnonzero(errors == np.repeat(lowest, sizes))
    return candidates[np.searchsorted(candidates, starts)]


def native_pairs(function: Any, hyps: list[str], refs: list[list[str]], *args: Any) -> tuple[Any, np.ndarray]:
    """A native edit kernel's result on every (hypothesis, reference) pair, and each
    segment's first pair index; undecodable text is reported by segment."""
    pair_hyps, pair_refs, starts = flatten_pairs(hyps, refs)
    with unicode_checked(hyps, refs):
        return function(pair_hyps, pair_refs, *args), starts


def prepare(
    hypotheses: Sequence[Any], references: Sequence[Any], normalizer: Normalizer
) -> tuple[list[str], list[list[str]]]:
    """Validated, normalised text: hypotheses and one list of references per segment."""
    hyps, refs = validate_text(hypotheses, references)
    if not normalizer.is_identity:
        hyps = normalizer.apply(hyps)
        refs = [normalizer.apply(seg) for seg in refs]
    return hyps, refs


def check_edit_cells(hyps: list[str], refs: list[list[str]], unit: str, max_cells: int | None, metric: str) -> None:
    """Refuse a pair above ``max_cells`` (see :mod:`nlpeval.metrics.wer.bound`)."""
    count = jiwer_word_count if unit == "word" else jiwer_char_count
    check_max_cells(hyps, refs, max_cells, count, unit=unit if unit == "word" else "character", metric=metric)


def edit_rows(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    normalizer: Normalizer,
    unit: str,
    max_cells: int | None = MAX_CELLS,
    metric: str = "wer",
) -> tuple[np.ndarray, np.ndarray]:
    """Statistics rows (``EDIT_SCHEMA``) and the index of the chosen reference per segment."""
    hyps, refs = prepare(hypotheses, references, normalizer)
    check_edit_cells(hyps, refs, unit, max_cells, metric)
    rows, starts = native_pairs(_native.edit_stats, hyps, refs, unit)
    chosen = best_pairs(rows, starts)
    counts = reference_counts(refs)
    table = np.column_stack([rows[chosen], counts, counts]) if len(hyps) else np.empty((0, EDIT_SCHEMA.width))
    return table.astype(np.int64, copy=False), chosen - starts


def jiwer_measures(totals: np.ndarray) -> dict[str, np.ndarray]:
    """WER, MER, WIL and WIP of statistics (vectorised over leading axes), as jiwer 4.

    With reference words (N > 0): ``wer = (S + D + I) / N``, ``mer = (S + D + I) /
    (H + S + D + I)``, ``wip = (H / N) * (H / P)`` (0 when the hypotheses have no words,
    P = 0) and ``wil = 1 - wip``. Without reference words (N = 0) jiwer defines
    ``wer = I`` (the number of inserted words, so 0 when both sides are empty),
    ``mer = 1`` and ``wip = 0`` if anything was inserted, else ``mer = 0`` and ``wip = 1``.

    Examples
    --------
    >>> m = jiwer_measures(np.array([[2, 1, 0, 0, 3, 3, 1, 1], [0, 0, 0, 2, 0, 2, 1, 1]]))
    >>> m["wer"].tolist(), m["mer"].tolist(), m["wip"].tolist()
    ([0.3333333333333333, 2.0], [0.3333333333333333, 1.0], [0.4444444444444444, 0.0])
    """
    t = np.asarray(totals)
    hits, subs, dels, ins, ref_len, hyp_len = (t[..., k] for k in range(6))
    errors = subs + dels + ins
    no_ref = ref_len == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        wer = np.where(no_ref, ins, np.float64(errors) / np.float64(hits + subs + dels))
        mer = np.where(no_ref, np.where(hyp_len == 0, 0.0, 1.0), np.float64(errors) / np.float64(errors + hits))
        wip_rate = (np.float64(hits) / np.float64(ref_len)) * (np.float64(hits) / np.float64(hyp_len))
        wip = np.where(no_ref, np.where(hyp_len == 0, 1.0, 0.0), np.where(hyp_len >= 1, wip_rate, 0.0))
    return {
        "wer": np.asarray(wer, dtype=np.float64),
        "mer": np.asarray(mer, dtype=np.float64),
        "wil": 1.0 - np.asarray(wip, dtype=np.float64),
        "wip": np.asarray(wip, dtype=np.float64),
    }
