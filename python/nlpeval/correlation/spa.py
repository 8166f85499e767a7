"""Soft pairwise accuracy (SPA = 1 - pairwise confidence error; Thompson et al., 2024).

For every pair of systems, a paired permutation test over items gives the p-value
that system ``i`` is better than ``j``, once from human scores and once from metric
scores; SPA is one minus the mean absolute difference of the two p-values over pairs.
The permutations follow mt-metrics-eval's ``pce.compute_pairwise_p_values`` draw for
draw: ``numpy.random.default_rng(seed)`` float32 uniforms rounded to signs, single
precision sums, ``seed=4`` by default.

Examples
--------
>>> human = [[1, 2, 3], [2, 3, 4], [0, 1, 1]]
>>> metric = [[0.5, 0.6, 0.9], [0.7, 0.8, 0.9], [0.1, 0.2, 0.2]]
>>> round(soft_pairwise_accuracy(human, metric), 4)
1.0
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from nlpeval.core.errors import InputError


@lru_cache(maxsize=8)
def _signs(seed: int | None, n_permutations: int, n_items: int) -> np.ndarray:
    """The ``(permutations, items)`` matrix of +1/-1 (read-only; cached per seed and shape)."""
    signs = _signs_from_bits(np.random.default_rng(seed), n_permutations * n_items)
    if signs is None:  # a NumPy whose float32 draws are not the bits read below: pce.py's operations
        rng = np.random.default_rng(seed)
        signs = rng.random(size=(n_permutations, n_items), dtype=np.float32)
        np.rint(signs, out=signs, casting="same_kind")
        signs *= 2.0
        signs -= 1.0
    signs = signs.reshape(n_permutations, n_items)
    signs.flags.writeable = False
    return signs


_BITS_MATCH: bool | None = None
#: ``rint(u)`` of a float32 uniform ``(w >> 8) / 2**24`` is 1 exactly when the 32-bit word ``w`` is at least this
#: (``u > 0.5``; ``u == 0.5`` rounds half to even, to 0)
_ONE_FROM = np.uint32((1 << 31) + (1 << 8))


def _signs_from_bits(rng: np.random.Generator, size: int) -> np.ndarray | None:
    """pce.py's +1/-1 signs from the generator's raw 32-bit words, without the float32 uniforms.

    ``Generator.random(dtype=float32)`` takes one 32-bit word per value (PCG64's 64-bit outputs,
    low half first) and keeps its top 24 bits; ``rint`` then gives 1 exactly for words from
    ``_ONE_FROM`` on. Reading the words with ``random_raw`` skips the float conversion and the
    rounding; checked once per process against the float path (None when they differ).
    """
    global _BITS_MATCH
    if _BITS_MATCH is None:
        probe = np.random.default_rng(20240601).random(size=4097, dtype=np.float32)
        ref = np.rint(probe) * 2 - 1
        bits = _raw_words(np.random.default_rng(20240601), 4097)
        _BITS_MATCH = bool(np.array_equal(ref, (bits >= _ONE_FROM) * 2.0 - 1.0))
    if not _BITS_MATCH:
        return None
    signs = (_raw_words(rng, size) >= _ONE_FROM).astype(np.float32)
    signs *= 2.0
    signs -= 1.0
    return signs


def _raw_words(rng: np.random.Generator, size: int) -> np.ndarray:
    """The next ``size`` 32-bit words of a PCG64 generator, in the order ``random(dtype=float32)`` takes them."""
    raw = rng.bit_generator.random_raw((size + 1) // 2)
    return np.ascontiguousarray(raw).view(np.uint32)[:size] if np.little_endian else _split_big(raw)[:size]


def _split_big(raw: np.ndarray) -> np.ndarray:
    words = np.empty(2 * len(raw), dtype=np.uint32)
    words[0::2] = raw & 0xFFFFFFFF
    words[1::2] = raw >> 32
    return words


def sign_matrix(n_permutations: int, n_items: int, seed: int | None = 4) -> np.ndarray:
    """The permutations' +1/-1 choices of ``pce.compute_pairwise_p_values`` (float32)."""
    if seed is None:
        return _signs.__wrapped__(None, n_permutations, n_items)
    return _signs(int(seed), n_permutations, n_items)


def _check(scores: object, side: str) -> np.ndarray:
    try:
        array = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("expected a systems x items matrix of numbers", side=side) from None
    if array.ndim != 2:
        raise InputError(f"expected systems x items; got shape {array.shape}", side=side)
    if not np.isfinite(array).all():
        system, item = (int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise InputError(f"system {system}, item {item}: score is missing or infinite", side=side)
    return array


@lru_cache(maxsize=32)
def _upper(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n_systems, 1)`` (read-only; cached: the call costs more than a small product)."""
    first, second = np.triu_indices(n_systems, 1)
    first.flags.writeable = False
    second.flags.writeable = False
    return first, second


def _native_counts(partial: np.ndarray, totals: np.ndarray) -> np.ndarray | None:
    """:func:`_counts` of ``(matrices, systems)`` totals by the core (``matrices x pairs``; None without it)."""
    from nlpeval import _native

    kernel = getattr(_native, "spa_pair_counts", None)
    if kernel is None:
        return None
    counts: np.ndarray = kernel(
        np.ascontiguousarray(partial, dtype=np.float32), np.ascontiguousarray(totals, dtype=np.float32)
    )
    return counts


def _counts(partial: np.ndarray, totals: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per pair ``i < j``: permutations whose ``partial[:, i] - partial[:, j]`` reaches ``totals[i] - totals[j]``
    (float32 throughout, as pce.py), from the transposed sums (one system's permutations contiguous)."""
    native = _native_counts(partial, totals.reshape(1, -1))
    if native is not None:
        return native[0]
    sums = np.ascontiguousarray(partial.T)
    null = sums[first]
    null -= sums[second]
    return np.count_nonzero(null >= (totals[first] - totals[second])[:, None], axis=1)


def pairwise_p_values_many(matrices: list[np.ndarray], signs: np.ndarray) -> list[np.ndarray]:
    """:func:`pairwise_p_values_from_signs` of several systems x items matrices.

    One matrix product per matrix, of the same shape as pce.py's: BLAS may round a
    product of another shape (more columns, or another thread split) differently, and
    the p-values compare sums to the last bit.
    """
    out = []
    for scores in matrices:
        # C order as the oracle's reshaped rows: BLAS rounds a transposed operand differently
        seg = np.ascontiguousarray(scores, dtype=np.float64).astype(np.float32)
        n_systems = seg.shape[0]
        first, second = _upper(n_systems)
        counts = _counts(np.matmul(signs, seg.T), np.sum(seg, axis=1), first, second)
        p = np.full((n_systems, n_systems), np.nan)
        p[first, second] = counts / signs.shape[0]
        out.append(p)
    return out


def pairwise_p_value_rows(stack: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Upper-triangle p-values (``np.triu_indices`` order) of many systems x items matrices.

    ``stack`` is ``(matrices, systems, items)``. The matrices share one matrix product with
    the signs, their systems side by side as columns: OpenBLAS computes each column of a
    product the same way whatever the number of columns (same kernel, same order over items,
    for the same thread setting), so each matrix gets the bits of pce.py's own product. That is
    checked on every call (the first matrix is also multiplied alone, with pce.py's shape);
    when the bits differ, every matrix gets its own product. The pairs' null differences are
    taken from the transposed sums (one system's permutations contiguous).
    """
    n_mats, n_systems, n_items = stack.shape
    first, second = _upper(n_systems)
    seg = np.ascontiguousarray(stack, dtype=np.float64).astype(np.float32).reshape(n_mats * n_systems, n_items)
    totals = np.sum(seg, axis=1).reshape(n_mats, n_systems)
    observed = (totals[:, first] - totals[:, second])[:, :, None]
    alone = np.matmul(signs, seg[:n_systems].T)
    partial = np.matmul(signs, seg.T) if n_mats > 1 else alone
    if not np.array_equal(partial[:, :n_systems], alone):
        partial = np.concatenate([np.matmul(signs, seg[i : i + n_systems].T) for i in range(0, len(seg), n_systems)], 1)
    n_perm = signs.shape[0]
    native = _native_counts(partial, totals)
    if native is not None:
        return native / n_perm
    sums_all = np.ascontiguousarray(partial.T)  # (matrices x systems, permutations)
    null = np.empty((len(first), n_perm), dtype=np.float32)
    above = np.empty((len(first), n_perm), dtype=bool)
    counts = np.empty((n_mats, len(first)), dtype=np.int64)
    for m in range(n_mats):
        sums = sums_all[m * n_systems : (m + 1) * n_systems]
        np.subtract(sums[first], sums[second], out=null)
        np.greater_equal(null, observed[m], out=above)
        counts[m] = np.count_nonzero(above, axis=1)
    return counts / n_perm


def pairwise_p_values_from_signs(scores: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Upper-triangle p-values (NaN elsewhere) for ``system i > system j`` given the permutations' signs."""
    return pairwise_p_values_many([scores], signs)[0]


def pairwise_p_values(scores: object, *, n_permutations: int = 1000, seed: int | None = 4) -> np.ndarray:
    """P-values of paired permutation tests between every pair of systems.

    Parameters
    ----------
    scores : array_like
        Systems x items.
    n_permutations : int
    seed : int or None
        ``numpy.random.default_rng`` seed (pce.py's default 4).

    Returns
    -------
    numpy.ndarray
        Systems x systems; ``[i, j]`` (``i < j``) is the share of permutations whose
        difference is at least the observed one; NaN on and below the diagonal.

    Examples
    --------
    >>> p = pairwise_p_values([[3, 3, 3, 3], [0, 0, 0, 0]], n_permutations=100)
    >>> float(p[0, 1])
    0.06
    """
    array = _check(scores, "scores")
    if n_permutations < 1:
        raise ValueError("n_permutations must be at least 1")
    return pairwise_p_values_from_signs(array, sign_matrix(n_permutations, array.shape[1], seed))


_REFERENCE_P: dict[tuple[object, ...], np.ndarray] = {}


def reference_p_values(scores: np.ndarray, signs: np.ndarray, seed: int | None) -> np.ndarray:
    """:func:`pairwise_p_values_from_signs` of human scores, kept for the next metric compared with them.

    The key is the scores' bytes and shape with the permutations' seed and number (an
    unseeded run is never reused); the last 8 are kept.
    """
    import hashlib

    if seed is None:
        return pairwise_p_values_from_signs(scores, signs)
    array = np.ascontiguousarray(scores, dtype=np.float64)
    key = (int(seed), signs.shape, array.shape, hashlib.blake2b(array.tobytes(), digest_size=16).digest())
    cached = _REFERENCE_P.get(key)
    if cached is None:
        cached = pairwise_p_values_from_signs(array, signs)
        cached.flags.writeable = False
        if len(_REFERENCE_P) >= 8:
            _REFERENCE_P.pop(next(iter(_REFERENCE_P)))
        _REFERENCE_P[key] = cached
    return cached


def spa_from_p_values(human_p: np.ndarray, metric_p: np.ndarray) -> float:
    """``1 - mean |human_p - metric_p|`` over the upper triangle (``pce.compute_one_minus_pce``)."""
    first, second = _upper(human_p.shape[0])
    return float(1.0 - np.mean(np.abs(human_p - metric_p)[first, second]))


def soft_pairwise_accuracy(
    human_scores: object, metric_scores: object, *, n_permutations: int = 1000, seed: int | None = 4
) -> float:
    """Soft pairwise accuracy of a metric against human scores (complete systems x items matrices).

    Examples
    --------
    >>> round(soft_pairwise_accuracy([[1, 2], [0, 0]], [[0.2, 0.1], [0.3, 0.0]], n_permutations=50), 4)
    0.52
    """
    human = _check(human_scores, "human_scores")
    metric = _check(metric_scores, "metric_scores")
    if human.shape != metric.shape:
        raise InputError(f"shape {metric.shape} differs from human_scores' {human.shape}", side="metric_scores")
    if human.shape[0] < 2:
        raise InputError("soft pairwise accuracy needs at least two systems", side="human_scores")
    signs = sign_matrix(n_permutations, human.shape[1], seed)
    human_p = reference_p_values(human, signs, seed)
    return spa_from_p_values(human_p, pairwise_p_values_from_signs(metric, signs))
