"""Precision, recall and F of ROUGE co-occurrence counts, and the ways to combine references.

Counts come from the native kernels as ``[hits, hypothesis count, reference count]``
per hypothesis/reference pair. ROUGE-W compares weighted counts (``count ** w``)
and maps the ratio back with ``** (1 / w)`` (Lin 2004, section 3.3); every other
type uses the plain ratios.
"""

from __future__ import annotations

import numpy as np

from nlpeval.core.zero_division import ZeroDivision, safe_divide
from nlpeval.metrics.rouge.types import RougeType

#: Ways to combine the references of a segment.
MULTI_REF = ("max", "average", "best")


def fmeasure(precision: np.ndarray, recall: np.ndarray, alpha: float) -> np.ndarray:
    """F of precision and recall; 0 where both are 0.

    With ``alpha = 0.5`` this is rouge-score's ``2 * p * r / (p + r)`` evaluated
    in the same order (so values agree to the last bit); otherwise van
    Rijsbergen's ``p * r / ((1 - alpha) * p + alpha * r)`` as in ROUGE-1.5.5
    (``alpha`` near 1 favours precision).

    Examples
    --------
    >>> fmeasure(np.array([0.5, 0.0]), np.array([0.25, 0.0]), 0.5).tolist()
    [0.3333333333333333, 0.0]
    """
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if alpha == 0.5:
            return np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
        den = (1 - alpha) * p + alpha * r
        return np.where(den > 0, (p * r) / den, 0.0)


def weighted(counts: np.ndarray, rtype: RougeType) -> np.ndarray:
    """The counts a type compares: ``count ** w`` for ROUGE-W, else the counts."""
    counts = np.asarray(counts, dtype=np.float64)
    return counts**rtype.weight if rtype.family == "w" else counts


def ratio(hits: np.ndarray, counts: np.ndarray, rtype: RougeType, zero_division: ZeroDivision, what: str) -> np.ndarray:
    """``hits / counts`` (mapped back by ``** (1 / w)`` for ROUGE-W), 0/0 by policy."""
    value = safe_divide(hits, counts, zero_division, what=what)
    if rtype.family == "w":
        with np.errstate(invalid="ignore"):
            value = value ** (1 / rtype.weight)
    return value


def group_starts(ref_counts: np.ndarray) -> np.ndarray:
    """Index of the first pair of every segment."""
    return np.concatenate([[0], np.cumsum(ref_counts)[:-1]]).astype(np.int64)


def first_argmax(values: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
    """Per segment, the index (into the pairs) of the first maximal value.

    Examples
    --------
    >>> first_argmax(np.array([0.5, 0.7, 0.7, 0.2]), np.array([3, 1])).tolist()
    [1, 3]
    """
    n_pairs = values.shape[0]
    n = ref_counts.shape[0]
    if n and n_pairs % n == 0 and not np.isnan(values).any():
        k = n_pairs // n
        if (ref_counts == k).all():
            # the same number of references everywhere: argmax picks the first maximum
            return values.reshape(n, k).argmax(axis=1) + np.arange(0, n_pairs, k)
    group = np.repeat(np.arange(n), ref_counts)
    order = np.lexsort((np.arange(n_pairs), -values, group))
    return order[group_starts(ref_counts)]


def combine_references(
    pairs: np.ndarray,
    ref_counts: np.ndarray,
    rtype: RougeType,
    *,
    multi_ref: str,
    alpha: float,
    zero_division: ZeroDivision,
    extra: int = 0,
) -> np.ndarray:
    """Per-segment ``[precision, recall, fmeasure, hits, hyp, ref]`` from pair counts
    (followed by ``extra`` uninitialised columns for the caller to fill).

    ``pairs`` is ``(n_pairs, 3)``: hits, hypothesis count, reference count;
    ``ref_counts`` the number of references of each segment. ``multi_ref``:

    * ``"max"`` — rouge-score's ``score_multi``: the reference with the highest F
      (the first one on ties);
    * ``"average"`` — ROUGE-1.5.5's ``-f A``: hits and counts pooled over the
      references;
    * ``"best"`` — ROUGE-1.5.5's ``-f B``: the reference with the highest recall
      (the first one on ties).

    The ``hyp`` and ``ref`` columns hold (weighted) counts for micro averaging.
    """
    columns = reference_columns(pairs, ref_counts, rtype, multi_ref=multi_ref, alpha=alpha, zero_division=zero_division)
    out = np.empty((ref_counts.shape[0], len(columns) + extra))
    for index, col in enumerate(columns):
        out[:, index] = col
    return out


def reference_columns(
    pairs: np.ndarray,
    ref_counts: np.ndarray,
    rtype: RougeType,
    *,
    multi_ref: str,
    alpha: float,
    zero_division: ZeroDivision,
) -> tuple[np.ndarray, ...]:
    """The columns of :func:`combine_references` as six contiguous float arrays of one
    value per segment: precision, recall, F, hits, hypothesis and reference counts.

    Examples
    --------
    >>> from nlpeval.metrics.rouge.types import RougeType
    >>> pairs = np.array([[1.0, 2.0, 4.0], [2.0, 2.0, 2.0], [0.0, 3.0, 1.0]])
    >>> columns = reference_columns(pairs, np.array([2, 1]), RougeType.parse("rouge1"),
    ...                             multi_ref="max", alpha=0.5, zero_division=0.0)
    >>> [c.tolist() for c in columns[:3]]
    [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    """
    hits, hyp, ref = (np.ascontiguousarray(pairs[:, k], dtype=np.float64) for k in range(3))
    hyp = weighted(hyp, rtype)
    ref = weighted(ref, rtype)
    if multi_ref == "average":
        starts = group_starts(ref_counts)
        hits, hyp, ref = (np.add.reduceat(col, starts) for col in (hits, hyp, ref))
    precision = ratio(hits, hyp, rtype, zero_division, "ROUGE precision (empty hypothesis)")
    recall = ratio(hits, ref, rtype, zero_division, "ROUGE recall (empty reference)")
    f = fmeasure(precision, recall, alpha)
    columns = (precision, recall, f, hits, hyp, ref)
    if multi_ref in ("max", "best") and pairs.shape[0] != ref_counts.shape[0]:
        pick = first_argmax(f if multi_ref == "max" else recall, ref_counts)
        return tuple(np.take(col, pick) for col in columns)
    return columns  # pooled, or one reference per segment: nothing to pick


def micro_values(totals: np.ndarray, rtype: RougeType, alpha: float) -> np.ndarray:
    """``[precision, recall, fmeasure]`` of summed ``[.., hits, hyp, ref, ..]`` columns 3..5."""
    totals = np.asarray(totals, dtype=np.float64)
    hits, hyp, ref = totals[..., 3], totals[..., 4], totals[..., 5]
    precision = ratio(hits, hyp, rtype, 0.0, "micro precision")
    recall = ratio(hits, ref, rtype, 0.0, "micro recall")
    return np.stack([precision, recall, fmeasure(precision, recall, alpha)], axis=-1)
