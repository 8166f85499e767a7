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
    rng = np.random.default_rng(seed)
    signs = rng.random(size=(n_permutations, n_items), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    signs.flags.writeable = False
    return signs


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


def pairwise_p_values_many(matrices: list[np.ndarray], signs: np.ndarray) -> list[np.ndarray]:
    """:func:`pairwise_p_values_from_signs` of several systems x items matrices with one matrix product.

    Each output column of the product is the same dot product as in a product of one
    matrix alone (the tests check it bit for bit against pce.py), so stacking only saves
    the per-call cost of the BLAS routine.
    """
    if not matrices:
        return []
    # C order as the oracle's reshaped rows: BLAS rounds a transposed operand differently
    rows = [np.ascontiguousarray(m, dtype=np.float64).astype(np.float32) for m in matrices]
    stacked = np.ascontiguousarray(np.vstack(rows)) if len(rows) > 1 else rows[0]
    partial_all = np.matmul(signs, stacked.T)
    out, start = [], 0
    for seg in rows:
        n_systems = seg.shape[0]
        totals = np.sum(seg, axis=1)
        partial = partial_all[:, start : start + n_systems]
        start += n_systems
        first, second = np.triu_indices(n_systems, 1)
        null = partial[:, first] - partial[:, second]
        observed = totals[first] - totals[second]
        p = np.full((n_systems, n_systems), np.nan)
        p[first, second] = np.sum(null >= observed, axis=0) / signs.shape[0]
        out.append(p)
    return out


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


def spa_from_p_values(human_p: np.ndarray, metric_p: np.ndarray) -> float:
    """``1 - mean |human_p - metric_p|`` over the upper triangle (``pce.compute_one_minus_pce``)."""
    first, second = np.triu_indices(human_p.shape[0], 1)
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
    human_p, metric_p = pairwise_p_values_many([human, metric], signs)
    return spa_from_p_values(human_p, metric_p)
