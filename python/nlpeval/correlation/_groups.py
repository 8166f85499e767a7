"""Correlation statistics of many groups at once (groups are slices ``offsets[g]:offsets[g + 1]``).

One group is a plain correlation; groups serve per-item / per-system averages and
bootstrap resamples without a Python loop per group.
"""

from __future__ import annotations

import numpy as np


def group_ids(offsets: np.ndarray) -> np.ndarray:
    """Group index of every element."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def _group_sum(values: np.ndarray, ids: np.ndarray, n_groups: int) -> np.ndarray:
    return np.bincount(ids, weights=values, minlength=n_groups)


def constant_groups(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """True for groups whose values are all equal (or that are empty)."""
    ids = group_ids(offsets)
    n_groups = len(offsets) - 1
    sizes = np.diff(offsets)
    first = values[np.minimum(offsets[:-1], max(len(values) - 1, 0))] if len(values) else np.zeros(n_groups)
    differs = np.bincount(ids, weights=(values != first[ids]).astype(np.float64), minlength=n_groups)
    return (differs == 0) | (sizes == 0)


def pearson_groups(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Pearson's r of each group (NaN where x or y is constant), clipped to [-1, 1]."""
    n_groups = len(offsets) - 1
    sizes = np.diff(offsets).astype(np.float64)
    if n_groups == 1:
        return np.array([_pearson_like_scipy(x, y)])
    else:
        ids = group_ids(offsets)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = _group_sum(x, ids, n_groups) / sizes
            my = _group_sum(y, ids, n_groups) / sizes
        dx, dy = x - mx[ids], y - my[ids]
        sxy = _group_sum(dx * dy, ids, n_groups)
        sxx = _group_sum(dx * dx, ids, n_groups)
        syy = _group_sum(dy * dy, ids, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / (np.sqrt(sxx) * np.sqrt(syy))
    r = np.clip(r, -1.0, 1.0)
    undefined = constant_groups(x, offsets) | constant_groups(y, offsets)
    return np.where(undefined, np.nan, r)


def _pearson_like_scipy(x: np.ndarray, y: np.ndarray) -> float:
    """One Pearson r with SciPy's order of floating-point operations.

    Near |r| = 1 the p-value is ill-conditioned (r = 1 - 2e-16 with n = 3 gives
    p = 1e-8, r = 1 gives 0), so the single correlation follows
    ``scipy.stats.pearsonr`` step by step: centre, scale by the largest deviation,
    normalise, dot.
    """
    if len(x) == 0 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    xm, ym = x - x.mean(), y - y.mean()
    xmax, ymax = np.abs(xm).max(), np.abs(ym).max()
    xs, ys = xm / xmax, ym / ymax
    normxm = xmax * np.sqrt(np.add.reduce(xs * xs))
    normym = ymax * np.sqrt(np.add.reduce(ys * ys))
    vecdot = getattr(np, "vecdot", np.dot)
    r = float(vecdot(xm / normxm, ym / normym))
    return min(1.0, max(-1.0, r))


def average_ranks(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """1-based ranks within each group, ties given their average rank (SciPy's ``rankdata``)."""
    n = len(values)
    if n == 0:
        return np.empty(0)
    ids = group_ids(offsets)
    if len(offsets) == 2:
        order = np.argsort(values)
        sorted_values, sorted_ids = values[order], ids
        new_run = np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    else:
        order = np.lexsort((values, ids))
        sorted_values, sorted_ids = values[order], ids[order]
        new_run = np.r_[True, (sorted_values[1:] != sorted_values[:-1]) | (sorted_ids[1:] != sorted_ids[:-1])]
    run = np.cumsum(new_run) - 1
    starts = np.flatnonzero(new_run)
    ends = np.r_[starts[1:], n]
    position = np.arange(n) - offsets[:-1][sorted_ids]
    first = position[starts]
    average = first + (ends - starts - 1) / 2.0 + 1.0
    ranks = np.empty(n)
    ranks[order] = average[run]
    return ranks


def spearman_groups(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Spearman's rho of each group: Pearson's r of the average ranks.

    A single group uses ``numpy.corrcoef`` of the ranks, as ``scipy.stats.spearmanr``
    does (same rounding, which matters for the p-value near |rho| = 1).
    """
    rx, ry = average_ranks(x, offsets), average_ranks(y, offsets)
    if len(offsets) == 2:
        if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
            return np.array([np.nan])
        return np.array([float(np.clip(np.corrcoef(rx, ry)[0, 1], -1.0, 1.0))])
    return pearson_groups(rx, ry, offsets)


def kendall_counts(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Native Kendall statistics per group: ``(counts, tie_sums)``.

    ``counts`` columns: discordant, x-tied pairs, y-tied pairs, xy-tied pairs,
    distinct x, distinct y; ``tie_sums``: x0, x1, y0, y1 of the variance.
    """
    from nlpeval import _native

    return _native.kendall_group_stats(
        np.ascontiguousarray(x, dtype=np.float64),
        np.ascontiguousarray(y, dtype=np.float64),
        np.ascontiguousarray(offsets, dtype=np.int64),
    )


def kendall_from_counts(counts: np.ndarray, sizes: np.ndarray, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """``(tau, concordant - discordant)`` per group from :func:`kendall_counts` (NaN when x or y is constant).

    ``counts`` has the six counts in its last axis; ``sizes`` (pairs' group sizes) broadcasts against the rest.
    """
    dis, x_tied, y_tied, xy_tied, distinct_x, distinct_y = (counts[..., i].astype(np.float64) for i in range(6))
    total = sizes * (sizes - 1.0) / 2.0
    con_minus_dis = total - x_tied - y_tied + xy_tied - 2.0 * dis
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            tau = con_minus_dis / np.sqrt(total - x_tied) / np.sqrt(total - y_tied)
        else:
            classes = np.minimum(distinct_x, distinct_y)
            tau = 2.0 * con_minus_dis / (sizes * sizes * (classes - 1.0) / classes)
    tau = np.clip(tau, -1.0, 1.0)
    undefined = (x_tied == total) | (y_tied == total)
    return np.where(undefined, np.nan, tau), con_minus_dis


def kendall_groups(x: np.ndarray, y: np.ndarray, offsets: np.ndarray, variant: str = "b") -> np.ndarray:
    """Kendall's tau-b or tau-c of each group."""
    counts, _ = kendall_counts(x, y, offsets)
    return kendall_from_counts(counts, np.diff(offsets).astype(np.float64), variant)[0]


STATISTICS = {
    "pearson": pearson_groups,
    "spearman": spearman_groups,
    "kendall": kendall_groups,
    "kendall_b": kendall_groups,
    "kendall_c": lambda x, y, offsets: kendall_groups(x, y, offsets, "c"),
}
