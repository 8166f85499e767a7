"""ROUGE-1.5.5's reported averages: the mean of its bootstrap resample means.

The Perl prints, as ``Average_R/P/F``, the mean over ``-r`` resamples (default
1,000) of the mean of each resample, and the ``-c`` confidence interval from the
same resamples. Resample ``i`` is drawn after ``srand(i)`` with Perl's own
``drand48`` (48-bit linear congruential generator), so it is reproduced here draw
for draw, with the sums taken in the Perl's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_MULTIPLIER = np.uint64(0x5DEECE66D)
_INCREMENT = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)


def perl_resample_indices(n_items: int, seeds: np.ndarray) -> np.ndarray:
    """``int(rand(n_items))`` drawn ``n_items`` times after ``srand(seed)``, for each seed.

    Examples
    --------
    >>> perl_resample_indices(10, np.array([0, 1]))[:, :3].tolist()
    [[1, 7, 0], [0, 4, 8]]
    """
    state = (seeds.astype(np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((seeds.shape[0], n_items), dtype=np.int64)
    with np.errstate(over="ignore"):
        for k in range(n_items):
            state = (state * _MULTIPLIER + _INCREMENT) & _MASK
            out[:, k] = (state.astype(np.float64) / 2.0**48 * n_items).astype(np.int64)
    return out


@dataclass(frozen=True)
class PerlAverages:
    """What ROUGE-1.5.5 prints for one measure set: averages and interval bounds (R, P, F order)."""

    average: tuple[float, float, float]
    low: tuple[float, float, float]
    high: tuple[float, float, float]


def _round5(value: float) -> float:
    return float(f"{value:7.5f}")


def _round5_rpf(values: np.ndarray) -> tuple[float, float, float]:
    """:func:`_round5` of the three values (R, P, F) of one row."""
    recall, precision, f = values
    return _round5(recall), _round5(precision), _round5(f)


def perl_averages(
    scores: np.ndarray,
    *,
    n_resamples: int = 1000,
    confidence: float = 95.0,
    micro: bool = False,
    alpha: float = 0.5,
    chunk: int = 100,
) -> PerlAverages:
    """``computeAverages`` of ROUGE-1.5.5 on per-evaluation rows in its (sorted) order.

    ``scores`` is ``(n, 3)``: recall, precision, F per evaluation (``micro=False``,
    the default ``-t 0``) or model count, peer count, hits (``micro=True``, ``-t 1``).
    """
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.shape[0]
    resampled = np.empty((n_resamples, 3))
    for start in range(0, n_resamples, chunk):
        seeds = np.arange(start, min(start + chunk, n_resamples))
        if n == 0:
            resampled[seeds] = 0.0
            continue
        draws = scores[perl_resample_indices(n, seeds)]  # (k, n, 3)
        sums = np.cumsum(draws, axis=1)[:, -1, :]  # the Perl adds in draw order
        if not micro:
            resampled[seeds] = sums / n
            continue
        model, peer, hits = sums[:, 0], sums[:, 1], sums[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = np.where(model > 0, hits / model, 0.0)
            precision = np.where(peer > 0, hits / peer, 0.0)
            den = (1 - alpha) * precision + alpha * recall
            f = np.where(den > 0, (recall * precision) / den, 0.0)
        resampled[seeds] = np.column_stack([recall, precision, f])
    ranked = np.sort(resampled, axis=0)
    average = np.cumsum(ranked, axis=0)[-1] / n_resamples
    delta = n_resamples * ((100 - confidence) / 2.0) / 100.0
    upper_a = int(n_resamples - delta - 1)
    lower_a = int(delta)
    ratio = n_resamples - delta - 1 - upper_a

    def bound(a: int) -> np.ndarray:
        b = min(a + 1, n_resamples - 1)
        return ranked[a] + (ranked[b] - ranked[a]) * ratio

    low, high = bound(lower_a), bound(upper_a)
    return PerlAverages(_round5_rpf(average), _round5_rpf(low), _round5_rpf(high))
