"""Paired tests on a score that is a sum of per-segment contributions, vectorised for simulation.

For such a score the project's tests (:func:`~nlpeval.significance.paired.approximate_randomization`
and :func:`~nlpeval.significance.paired.paired_bootstrap`) reduce to sums of the contributions
``e`` (system minus baseline per segment, so that the observed difference is ``e.sum()``):

* randomization: swapping the systems on a set ``S`` of segments gives the difference
  ``observed - 2 * e[S].sum()``; the null statistics are its absolute values;
* bootstrap: a resample ``idx`` gives the difference ``e[idx].sum()``; the null statistics are the
  absolute differences minus their mean.

Both then use the project's p-value, ``(count(null > |observed|) + 1) / (n + 1)``. The swap sets are
drawn as random bytes, 8 segments a byte, and summed through a table of the 256 partial sums of
each group of 8 contributions: one gather per 8 segments instead of 8 multiply-adds (bits past the
last segment meet the zero padding of the table and swap nothing).
"""

from __future__ import annotations

import math

import numpy as np

#: BITS[j, v] = bit j of v: a group's 8 contributions times BITS are the 256 partial sums
_BITS = ((np.arange(256)[None, :] >> np.arange(8)[:, None]) & 1).astype(np.float64)
#: table look-ups per block of randomizations: 128 KiB of indices and of values, which stay in the CPU cache
#: next to the 512 KiB table (larger blocks were twice as slow on a busy machine)
_BLOCK_CELLS = 1 << 14


def project_p_value(null: np.ndarray, observed: float) -> float:
    """The p-value of :mod:`nlpeval.significance.paired`: ``(count(null > observed) + 1) / (n + 1)``.

    Examples
    --------
    >>> project_p_value(np.array([0.1, 0.5, 0.9]), 0.6)
    0.5
    """
    return float((np.count_nonzero(null > observed) + 1) / (len(null) + 1))


class SwapTable:
    """The 256 partial sums of each group of 8 contributions, for summing many swap sets.

    The look-up index of byte ``k`` is ``256 * k + byte``: the index buffer holds the ``256 * k`` once,
    and each block of random bytes is written into the low byte of its entries (little-endian), so no
    index arithmetic is done per swap set.

    Examples
    --------
    >>> e = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0])
    >>> SwapTable(e).sums(np.array([[5, 1], [0, 0], [255, 0]], dtype=np.uint8)).tolist()
    [261.0, 0.0, 255.0]
    """

    def __init__(self, contributions: np.ndarray) -> None:
        self.groups = (len(contributions) + 7) // 8
        padded = np.zeros(self.groups * 8)
        padded[: len(contributions)] = contributions
        self.table = (padded.reshape(self.groups, 8) @ _BITS).ravel()
        # a multiple of 8 rows: each block's bytes are whole 64-bit draws, so the blocks together draw
        # the same bytes as one call for all rows (the results do not depend on the block size)
        self.block_rows = max(8, _BLOCK_CELLS // self.groups // 8 * 8)
        self._index = np.empty((self.block_rows, self.groups), dtype="<i8")
        self._index[:] = np.arange(0, 256 * self.groups, 256)
        self._low_bytes = self._index.view(np.uint8)[:, ::8]
        self._values = np.empty((self.block_rows, self.groups))

    def sums(self, swap_bytes: np.ndarray) -> np.ndarray:
        """``e[S_r].sum()`` for every row ``r`` of ``swap_bytes`` (at most :attr:`block_rows` rows; bit
        ``j`` of byte ``k`` swaps segment ``8k + j``)."""
        rows = len(swap_bytes)
        self._low_bytes[:rows] = swap_bytes
        values = self._values[:rows]
        self.table.take(self._index[:rows], out=values)
        return values.sum(axis=1)


def random_bytes(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` random bytes: the generator's raw 64-bit outputs, little-endian, the last one cut short.

    Examples
    --------
    >>> random_bytes(np.random.default_rng(0), 3).shape
    (3,)
    """
    words = rng.bit_generator.random_raw((count + 7) // 8)
    return words.astype("<u8", copy=False).view(np.uint8)[:count]


def randomization_null(contributions: np.ndarray, swap_bytes: np.ndarray, observed: float) -> np.ndarray:
    """The randomization null statistics ``|observed - 2 * e[S_r].sum()|`` for the swap sets of ``swap_bytes``.

    Examples
    --------
    >>> e = np.array([0.5, 0.25, -0.25])
    >>> randomization_null(e, np.array([[0], [1], [7]], dtype=np.uint8), 0.5).tolist()
    [0.5, 0.5, 0.5]
    """
    table = SwapTable(contributions)
    null = np.empty(len(swap_bytes))
    for start in range(0, len(swap_bytes), table.block_rows):
        block = swap_bytes[start : start + table.block_rows]
        null[start : start + len(block)] = np.abs(observed - 2 * table.sums(block))
    return null


def _exceedances(
    contributions: np.ndarray, n_randomizations: int, rng: np.random.Generator, observed: float, limit: float
) -> int:
    """Null statistics above ``|observed|``, counted until the count passes ``limit`` (then the remaining
    swap sets are still drawn, so that the generator moves on exactly as with a full count)."""
    table = SwapTable(contributions)
    exceed = 0
    for start in range(0, n_randomizations, table.block_rows):
        rows = min(table.block_rows, n_randomizations - start)
        raw = random_bytes(rng, rows * table.groups)
        if exceed > limit:
            continue
        swaps = raw.reshape(rows, table.groups)
        null = np.abs(observed - 2 * table.sums(swaps))
        exceed += int(np.count_nonzero(null > abs(observed)))
    return exceed


def randomization_p_value(
    contributions: np.ndarray, n_randomizations: int, rng: np.random.Generator, *, observed: float | None = None
) -> float:
    """p-value of the approximate randomization test with swap sets drawn from ``rng`` (random bytes).

    Examples
    --------
    >>> e = np.full(40, 0.5)
    >>> randomization_p_value(e, 99, np.random.default_rng(0))
    0.01
    """
    diff = float(contributions.sum()) if observed is None else observed
    exceed = _exceedances(contributions, n_randomizations, rng, diff, math.inf)
    return (exceed + 1) / (n_randomizations + 1)


def randomization_rejects(
    contributions: np.ndarray, n_randomizations: int, rng: np.random.Generator, alpha: float, observed: float
) -> bool:
    """Whether :func:`randomization_p_value` would be at most ``alpha``, with the same draws; once the
    count of larger null statistics rules that out, the remaining swap sets are drawn but not summed.

    Examples
    --------
    >>> e = np.full(40, 0.5)
    >>> randomization_rejects(e, 99, np.random.default_rng(0), 0.05, 20.0)
    True
    """
    limit = alpha * (n_randomizations + 1) - 1  # p <= alpha  <=>  exceed <= limit
    return _exceedances(contributions, n_randomizations, rng, observed, limit) <= limit


def bootstrap_p_value(contributions: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    """p-value of the paired bootstrap test with resamples drawn from ``rng``.

    Examples
    --------
    >>> e = np.full(40, 0.5)
    >>> bootstrap_p_value(e, 99, np.random.default_rng(0))
    0.01
    """
    n = len(contributions)
    block = max(1, _BLOCK_CELLS // n)
    sums = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        sums[start : start + rows] = contributions.take(rng.integers(n, size=(rows, n))).sum(axis=1)
    return bootstrap_p_value_of_sums(sums, float(contributions.sum()))


def bootstrap_p_value_of_sums(resampled: np.ndarray, observed: float) -> float:
    """The paired bootstrap's p-value from resampled differences: their absolute values, centred on their
    mean, against the absolute observed difference.

    Examples
    --------
    >>> bootstrap_p_value_of_sums(np.array([1.0, 2.0, 3.0]), 0.5)
    0.5
    """
    differences = np.abs(resampled)
    return project_p_value(differences - differences.mean(), abs(observed))
