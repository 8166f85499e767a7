"""Shared resamples: one draw of bootstrap indices / randomization swaps, reused by every system and pair.

The draws are the generator calls of :mod:`nlpeval.significance` (same seed, same resamples), so a
report's p-values equal :func:`nlpeval.paired_bootstrap` / :func:`nlpeval.approximate_randomization`
run pair by pair; here the resampled totals are one BLAS product per system instead of one per pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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
        """Draw ``n_resamples`` resamples of ``n_segments`` segments (sacreBLEU's generator call); inside
        :func:`shared_draws`, a seeded draw is made once and reused."""
        shared = _SHARED.get()
        if shared is None or seed is None:
            return cls._draw(n_segments, n_resamples, seed)
        known = shared.get((n_segments, seed))
        if known is None or len(known.indices) < n_resamples:
            known = shared[(n_segments, seed)] = cls._draw(n_segments, n_resamples, seed)
        if len(known.indices) == n_resamples:
            return known
        # the first rows of a longer draw are the shorter draw (the generator's stream is the same)
        return cls(known.indices[:n_resamples], known.counts[:n_resamples])

    @classmethod
    def _draw(cls, n_segments: int, n_resamples: int, seed: int | None) -> Resamples:
        indices = resample_indices(n_segments, n_resamples, seed)
        offsets = (np.arange(n_resamples, dtype=indices.dtype) * n_segments)[:, None]
        indices += offsets  # row r's indices moved to r * n: one bincount counts every row (no copy)
        counts = np.bincount(indices.ravel(), minlength=n_resamples * n_segments).reshape(n_resamples, n_segments)
        indices -= offsets
        return cls(indices, counts.astype(np.float64))

    def totals(self, stats: Stats) -> np.ndarray:
        """Resampled totals ``(k, width)`` of ``stats`` (exact: integer counts stay integers)."""
        return weighted_totals(stats, self.counts, self.indices)


#: the draws of the current :func:`shared_draws` block: (n_segments, seed) -> the longest draw so far
_SHARED: ContextVar[dict[tuple[int, int], Resamples] | None] = ContextVar("nlpeval_shared_draws", default=None)


@contextmanager
def shared_draws() -> Iterator[None]:
    """Within the block, :meth:`Resamples.draw` draws each seeded ``(n_segments, seed)`` once: the
    leaderboard, the word tables and the bucket tables of one report resample the same way anyway,
    so the draw (and its count matrix) is shared instead of repeated. Results are unchanged.

    Examples
    --------
    >>> with shared_draws():
    ...     a = Resamples.draw(10, 50, 1)
    ...     b = Resamples.draw(10, 20, 1)
    >>> bool((b.indices == Resamples.draw(10, 20, 1).indices).all()), b.indices.base is a.indices
    (True, True)
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def weighted_totals(stats: Stats, weights: np.ndarray, indices: np.ndarray | None = None) -> np.ndarray:
    """Resampled totals: ``weights @ rows`` on the summed fields (integers stay integers); a field
    merged by min/max/last that is constant over the rows (e.g. the number of references) keeps its
    value; any other field is merged resample by resample from ``indices``."""
    rows = stats.rows
    summed = np.array([rule == "sum" for rule in stats.schema.merge])
    integer = np.issubdtype(rows.dtype, np.integer)
    out = np.empty((weights.shape[0], rows.shape[1]), dtype=np.int64 if integer else np.float64)
    product = weights @ rows[:, summed].astype(np.float64)
    out[:, summed] = np.rint(product).astype(np.int64) if integer else product
    for column in np.flatnonzero(~summed):
        values = rows[:, column]
        if len(values) and np.all(values == values[0]):
            out[:, column] = values[0]
        else:
            if indices is None:
                raise ValueError("statistics with varying non-summed fields need resample indices")
            out[:, column] = stats.schema.resampled_totals(rows, indices)[:, column]
    return out


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
