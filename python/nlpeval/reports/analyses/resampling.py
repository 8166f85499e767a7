"""Shared resamples: one draw of bootstrap indices / randomization swaps, reused by every system and pair.

The draws are the generator calls of :mod:`nlpeval.significance` (same seed, same resamples), so a
report's p-values equal :func:`nlpeval.paired_bootstrap` / :func:`nlpeval.approximate_randomization`
run pair by pair; here the resampled totals are one BLAS product per system instead of one per pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nlpeval.core.stats import Stats
from nlpeval.significance.bootstrap import resample_indices


@dataclass(frozen=True)
class Resamples:
    """Bootstrap indices ``(k, n)`` and their count matrix (how often each segment is drawn)."""

    indices: np.ndarray
    counts: np.ndarray

    @classmethod
    def draw(cls, n_segments: int, n_resamples: int, seed: int | None) -> Resamples:
        """Draw ``n_resamples`` resamples of ``n_segments`` segments (sacreBLEU's generator call)."""
        indices = resample_indices(n_segments, n_resamples, seed)
        flat = (indices + (np.arange(n_resamples) * n_segments)[:, None]).ravel()
        counts = np.bincount(flat, minlength=n_resamples * n_segments).reshape(n_resamples, n_segments)
        counts = counts.astype(np.float64)
        return cls(indices, counts)

    def totals(self, stats: Stats) -> np.ndarray:
        """Resampled totals ``(k, width)`` of ``stats`` (exact: integer counts stay integers)."""
        return weighted_totals(stats, self.counts, self.indices)


def weighted_totals(stats: Stats, weights: np.ndarray, indices: np.ndarray | None = None) -> np.ndarray:
    """``weights @ rows`` for summed schemas (as integers when the rows are); else merge row subsets."""
    rows = stats.rows
    if all(rule == "sum" for rule in stats.schema.merge):
        product = weights @ rows.astype(np.float64)
        if np.issubdtype(rows.dtype, np.integer):
            return np.rint(product).astype(np.int64)
        return product
    if indices is None:
        raise ValueError("statistics with non-summed fields need resample indices")
    return stats.schema.resampled_totals(rows, indices)


def randomization_swaps(n_segments: int, n_trials: int, seed: int | None) -> np.ndarray:
    """``(n_trials, n)`` swap masks as :func:`nlpeval.approximate_randomization` draws them."""
    return np.random.default_rng(seed).integers(2, size=(n_trials, n_segments), dtype=bool)


def smoothed_p(null: np.ndarray, observed: float) -> float:
    """sacreBLEU's add-one p-value: ``(count(null > observed) + 1) / (n + 1)``.

    An observed difference of exactly 0 gets ``p = 1`` (nothing to test; sacreBLEU's rule would give
    ``1 / (n + 1)`` and mark two identical systems as different).

    Examples
    --------
    >>> smoothed_p(np.array([0.1, 0.5, 0.0]), 0.2), smoothed_p(np.zeros(3), 0.0)
    (0.5, 1.0)
    """
    if observed == 0.0:
        return 1.0
    return float((np.sum(null > observed) + 1) / (len(null) + 1))
