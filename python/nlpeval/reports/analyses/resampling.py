"""Shared resamples: one draw of bootstrap indices / randomization swaps, reused by every system and pair.

The draws are the generator calls of :mod:`nlpeval.significance` (same seed, same resamples), so a
report's p-values equal :func:`nlpeval.paired_bootstrap` / :func:`nlpeval.approximate_randomization`
run pair by pair; here the resampled totals are one native pass per system instead of one per pair.
A seeded draw is made natively (:func:`seeded_indices`, :func:`randomization_swaps`): NumPy's
``default_rng(seed)`` generator (SeedSequence, PCG64 and its bounded-integer and coin draws)
reproduced number for number, without importing ``numpy.random``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from nlpeval.core.stats import Stats

#: NumPy draws bounded integers from 32-bit outputs below this bound (the native draws' range)
_NATIVE_BOUND = 2**32


def _entropy(seed: object) -> list[int] | None:
    """The 32-bit words of a non-negative integer seed, least significant first (the entropy
    NumPy's ``SeedSequence`` mixes); ``None`` for any other seed (drawn by NumPy itself)."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        return None
    value = int(seed)
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if not value:
            return words


def seeded_indices(n_segments: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """``(n_resamples, n_segments)`` int64 bootstrap indices: exactly
    :func:`nlpeval.significance.bootstrap.resample_indices` (sacreBLEU's generator call), drawn
    natively for a non-negative integer seed.

    Examples
    --------
    >>> import numpy as np
    >>> bool((seeded_indices(7, 3, 12345) == np.random.default_rng(12345).choice(7, size=(3, 7))).all())
    True
    """
    entropy = _entropy(seed)
    if entropy is None or not 1 <= n_segments < _NATIVE_BOUND:
        from nlpeval.significance.bootstrap import resample_indices

        return np.ascontiguousarray(resample_indices(n_segments, n_resamples, seed), dtype=np.int64)
    from nlpeval import _native

    return _native.report_seeded_indices(entropy, n_segments, n_resamples)


@dataclass(frozen=True)
class _Seeded:
    """A native draw not written out: the seed's words and the generator's state at the start of
    each resample (``(k, 3)``), from which any resample's draws are made again."""

    entropy: list[int]
    n_segments: int
    states: np.ndarray


class Resamples:
    """Bootstrap indices ``(k, n)``; their count matrix (how often each segment is drawn) on demand.

    A seeded draw (:meth:`draw`) keeps only the generator's state at the start of each resample:
    :meth:`sums` makes the draws again inside the native pass (in parallel, nothing written out),
    and :attr:`indices` writes them out on first use.
    """

    def __init__(self, indices: np.ndarray | None = None, *, seeded: _Seeded | None = None) -> None:
        if (indices is None) == (seeded is None):
            raise ValueError("give the indices or a seeded draw")
        self._indices = indices
        self._seeded = seeded

    def __len__(self) -> int:
        """The number of resamples."""
        if self._seeded is not None:
            return len(self._seeded.states)
        assert self._indices is not None
        return len(self._indices)

    @classmethod
    def draw(cls, n_segments: int, n_resamples: int, seed: int | None) -> Resamples:
        """Draw ``n_resamples`` resamples of ``n_segments`` segments (sacreBLEU's generator call); inside
        :func:`shared_draws`, a seeded draw is made once and reused."""
        shared = _SHARED.get()
        if shared is None or seed is None:
            return cls._draw(n_segments, n_resamples, seed)
        known = shared.get((n_segments, seed))
        if known is None or len(known) < n_resamples:
            known = shared[(n_segments, seed)] = cls._draw(n_segments, n_resamples, seed)
        if len(known) == n_resamples:
            return known
        # the first rows of a longer draw are the shorter draw (the generator's stream is the same)
        return known.head(n_resamples)

    @classmethod
    def _draw(cls, n_segments: int, n_resamples: int, seed: int | None) -> Resamples:
        entropy = _entropy(seed)
        if entropy is None or not 1 <= n_segments < _NATIVE_BOUND:
            return cls(seeded_indices(n_segments, n_resamples, seed))
        from nlpeval import _native

        states = _native.report_seeded_states(entropy, n_segments, n_resamples)
        return cls(seeded=_Seeded(entropy, n_segments, states))

    def head(self, n_resamples: int) -> Resamples:
        """The first ``n_resamples`` resamples (the draw of that many)."""
        if self._seeded is not None:
            seeded = self._seeded
            return Resamples(seeded=_Seeded(seeded.entropy, seeded.n_segments, seeded.states[:n_resamples]))
        assert self._indices is not None
        return Resamples(self._indices[:n_resamples])

    @functools.cached_property
    def indices(self) -> np.ndarray:
        """``(k, n)`` int64: the segments resample ``r`` draws."""
        if self._indices is not None:
            return self._indices
        from nlpeval import _native

        seeded = self._seeded
        assert seeded is not None
        return _native.report_seeded_rows(seeded.entropy, seeded.states, seeded.n_segments)

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """``(k, n)`` float64: how often resample ``r`` draws segment ``i`` (for weighted products)."""
        from nlpeval import _native

        return _native.report_resample_counts(self.indices)

    def sums(self, rows: np.ndarray) -> np.ndarray:
        """``(k, w)`` exact sums of the integer ``(n, w)`` rows each resample draws (one native pass,
        no count matrix): ``counts @ rows`` in integers."""
        from nlpeval import _native

        rows = np.ascontiguousarray(rows, dtype=np.int64)
        seeded = self._seeded
        if seeded is not None:
            return _native.report_seeded_sums(seeded.entropy, seeded.states, seeded.n_segments, rows)
        return _native.report_resampled_sums(self.indices, rows)

    def totals(self, stats: Stats) -> np.ndarray:
        """Resampled totals ``(k, width)`` of ``stats`` (exact: integer counts stay integers)."""
        return weighted_totals(stats, self, None)


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
    ...     c = Resamples.draw(10, 50, 1)
    >>> bool((b.indices == Resamples.draw(10, 20, 1).indices).all()), len(b), c is a
    (True, 20, True)
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def weighted_totals(stats: Stats, weights: np.ndarray | Resamples, indices: np.ndarray | None = None) -> np.ndarray:
    """Resampled totals: ``weights @ rows`` on the summed fields (integers stay integers; ``weights`` a
    :class:`Resamples` sums integer rows natively); a field merged by min/max/last that is constant over
    the rows (e.g. the number of references) keeps its value; any other field is merged resample by
    resample from ``indices``."""
    rows = stats.rows
    summed = np.array([rule == "sum" for rule in stats.schema.merge])
    integer = np.issubdtype(rows.dtype, np.integer)
    if isinstance(weights, Resamples):
        columns = rows[:, summed]
        product = weights.sums(columns) if integer else weights.counts @ columns.astype(np.float64)
        k = len(weights)
    else:
        product = weights @ rows[:, summed].astype(np.float64)
        if integer:
            product = np.rint(product).astype(np.int64)
        k = weights.shape[0]
    out = np.empty((k, rows.shape[1]), dtype=np.int64 if integer else np.float64)
    out[:, summed] = product
    for column in np.flatnonzero(~summed):
        values = rows[:, column]
        if len(values) and np.all(values == values[0]):
            out[:, column] = values[0]
        else:
            if indices is None and isinstance(weights, Resamples):
                indices = weights.indices
            if indices is None:
                raise ValueError("statistics with varying non-summed fields need resample indices")
            out[:, column] = stats.schema.resampled_totals(rows, indices)[:, column]
    return out


def batched_totals(resamples: Resamples, subsets: Mapping[str, Stats]) -> dict[str, np.ndarray]:
    """Resampled totals of every system: one pass over the draws for all systems when
    their statistics are whole numbers (exact, the numbers of :meth:`Resamples.totals`, with the counts
    read once instead of once per system), else system by system. Fields merged by min/max must be
    constant (e.g. the number of references), as :func:`weighted_totals` keeps them."""
    parts = list(subsets.values())
    batched = bool(parts) and all(
        _whole(p.rows)
        and p.rows.dtype == parts[0].rows.dtype
        and p.schema.merge == parts[0].schema.merge
        and all(
            rule == "sum" or len(p.rows) == 0 or np.all(p.rows[:, c] == p.rows[0, c])
            for c, rule in enumerate(p.schema.merge)
        )
        for p in parts
    )
    if not batched or len(parts[0].rows) == 0:
        return {s: resamples.totals(p) for s, p in subsets.items()}
    summed = np.array([rule == "sum" for rule in parts[0].schema.merge])
    stacked = np.hstack([p.rows[:, summed] for p in parts])
    if np.issubdtype(stacked.dtype, np.integer):
        product = resamples.sums(stacked)
    else:
        product = np.rint(resamples.counts @ stacked.astype(np.float64))
    width = int(summed.sum())
    out = {}
    for k, (s, p) in enumerate(subsets.items()):
        integer = np.issubdtype(p.rows.dtype, np.integer)
        totals = np.empty((len(product), p.rows.shape[1]), dtype=np.int64 if integer else np.float64)
        totals[:, summed] = product[:, k * width : (k + 1) * width]
        totals[:, ~summed] = p.rows[0, ~summed]
        out[s] = totals
    return out


def _whole(rows: np.ndarray) -> bool:
    """Integers, or floats that are all whole numbers small enough for exact sums in float64."""
    if np.issubdtype(rows.dtype, np.integer):
        return True
    return bool(np.all(np.isfinite(rows)) and np.all(rows == np.rint(rows)) and np.all(np.abs(rows) < 2.0**40))


def masked_sums(masks: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``masks @ rows`` for a boolean ``(k, n)`` mask and integer ``(n, w)`` rows, exactly (one native pass).

    Examples
    --------
    >>> masked_sums(np.array([[True, False], [True, True]]), np.array([[1, 2], [3, 4]])).tolist()
    [[1, 2], [4, 6]]
    """
    from nlpeval import _native

    return _native.report_masked_sums(
        np.ascontiguousarray(masks, dtype=bool), np.ascontiguousarray(rows, dtype=np.int64)
    )


def randomization_swaps(n_segments: int, n_trials: int, seed: int | None) -> np.ndarray:
    """``(n_trials, n)`` swap masks as :func:`nlpeval.approximate_randomization` draws them
    (``default_rng(seed).integers(2, size=(n_trials, n), dtype=bool)``; natively for an integer seed).

    Examples
    --------
    >>> import numpy as np
    >>> expected = np.random.default_rng(3).integers(2, size=(4, 9), dtype=bool)
    >>> bool((randomization_swaps(9, 4, 3) == expected).all())
    True
    """
    entropy = _entropy(seed)
    if entropy is None:
        return np.random.default_rng(seed).integers(2, size=(n_trials, n_segments), dtype=bool)
    from nlpeval import _native

    return _native.report_seeded_coins(entropy, n_trials, n_segments)


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
