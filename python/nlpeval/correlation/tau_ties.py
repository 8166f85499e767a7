"""Kendall variants with metric ties (tau-b, tau-c, tau_23, acc_23) and the tie-threshold search (acc_eq).

These follow mt-metrics-eval's ``stats.KendallVariants`` and ``tau_optimization``
(Deutsch et al., 2023, "Ties Matter"): a metric difference ``|m_i - m_j| <= epsilon``
counts as a tie, and ``acc_23 = (concordant + tied in both) / pairs``. The threshold
search tries every metric difference as ``epsilon`` and keeps the best average.

Scores are systems x items matrices with NaN where humans gave no score; groups are
the whole matrix (``average_by="none"``), its rows (``"sys"``) or its columns
(``"item"``), as in ``stats._Reshape``.

Examples
--------
>>> res = tie_threshold_search([[1, 1, 1, 4]], [[0, 2, 6, 8]], average_by="sys")
>>> res.epsilon, round(res.statistic, 4)
(4.0, 0.6667)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nlpeval.core.errors import InputError

AVERAGE_BY = ("none", "sys", "item")
VARIANTS = ("b", "c", "23", "acc23")

# pair categories (tau sufficient statistics)
CON, DIS, TIE_METRIC, TIE_HUMAN, TIE_BOTH = range(5)

#: pairs enumerated at once when counting large groups
_PAIR_BLOCK = 4_000_000


def check_average_by(average_by: str) -> str:
    if average_by not in AVERAGE_BY:
        raise ValueError(f"average_by must be 'none', 'sys' or 'item'; got {average_by!r}")
    return average_by


def as_matrix(scores: object, side: str) -> np.ndarray:
    """A float systems x items matrix (1-D input is one system's row)."""
    try:
        array = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("expected numbers (systems x items, NaN for missing)", side=side) from None
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise InputError(f"expected systems x items; got shape {array.shape}", side=side)
    return array


def groups(matrix: np.ndarray, average_by: str) -> np.ndarray:
    """The rows that are correlated: the flattened matrix, its rows or its columns (``stats._Reshape``)."""
    if average_by == "none":
        return matrix.reshape(1, -1)
    if average_by == "sys":
        return matrix
    return matrix.T


def check_judged_metric(human: np.ndarray, metric: np.ndarray) -> None:
    """A metric score must exist wherever humans judged (names the system and item)."""
    if human.shape != metric.shape:
        raise InputError(f"shape {metric.shape} differs from human_scores' {human.shape}", side="metric_scores")
    bad = np.isnan(metric) & ~np.isnan(human)
    if bad.any():
        system, item = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"system {system}, item {item}: metric score missing where humans judged", side="metric_scores"
        )
    if np.isinf(metric).any() or np.isinf(human).any():
        side = "metric_scores" if np.isinf(metric).any() else "human_scores"
        where = np.argwhere(np.isinf(metric if side == "metric_scores" else human))[0]
        raise InputError(f"system {int(where[0])}, item {int(where[1])}: score is infinite", side=side)


def pair_categories(dh: np.ndarray, dm: np.ndarray, epsilon: float) -> np.ndarray:
    """Category of each pair from human and metric differences (metric ties: ``|dm| <= epsilon``)."""
    h_tie = dh == 0
    m_tie = np.abs(dm) <= epsilon
    con = ((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0))
    out = np.full(dh.shape, DIS, dtype=np.int8)
    out[con & ~m_tie] = CON
    out[m_tie & ~h_tie] = TIE_METRIC
    out[h_tie & ~m_tie] = TIE_HUMAN
    out[h_tie & m_tie] = TIE_BOTH
    return out


def _pair_blocks(n: int):
    """Index pairs ``i < j`` of ``n`` members in lexicographic order, in blocks of whole ``i`` rows."""
    start = 0
    while start < n - 1:
        stop, size = start, 0
        while stop < n - 1 and (size == 0 or size + (n - 1 - stop) <= _PAIR_BLOCK):
            size += n - 1 - stop
            stop += 1
        first = np.repeat(np.arange(start, stop), np.arange(n - 1 - start, n - 1 - stop, -1))
        offsets = np.r_[0, np.cumsum(np.arange(n - 1 - start, n - 1 - stop, -1))]
        second = np.arange(size) - np.repeat(offsets[:-1], np.diff(offsets)) + first + 1
        yield first, second
        start = stop


def group_counts(human: np.ndarray, metric: np.ndarray, epsilon: float = 0.0) -> np.ndarray:
    """Tau sufficient statistics per group row: ``(groups, 5)`` counts (con, dis, t_metric, t_human, t_both).

    NaN human cells (unjudged) are left out, like ``filter_gold_nones``.
    """
    n_groups, n = human.shape
    counts = np.zeros((n_groups, 5), dtype=np.int64)
    if n < 2:
        return counts
    present = ~np.isnan(human)
    for first, second in _pair_blocks(n):
        rows_per = max(1, _PAIR_BLOCK // max(len(first), 1))
        for lo in range(0, n_groups, rows_per):
            h, m, ok = human[lo : lo + rows_per], metric[lo : lo + rows_per], present[lo : lo + rows_per]
            valid = ok[:, first] & ok[:, second]
            with np.errstate(invalid="ignore"):
                cat = pair_categories(h[:, first] - h[:, second], m[:, first] - m[:, second], epsilon)
            rows = np.broadcast_to(np.arange(len(h))[:, None], cat.shape)
            index = (rows[valid].astype(np.int64) * 5) + cat[valid]
            counts[lo : lo + len(h)] += np.bincount(index, minlength=len(h) * 5).reshape(len(h), 5)
    return counts


def distinct_counts(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Distinct present values per row."""
    filled = np.where(present, values, np.inf)
    ordered = np.sort(filled, axis=1)
    fresh = np.ones(ordered.shape, dtype=bool)
    fresh[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    return (fresh & np.isfinite(ordered)).sum(axis=1)


def tau_from_counts(
    counts: np.ndarray,
    variant: str,
    sizes: np.ndarray | None = None,
    min_classes: np.ndarray | None = None,
) -> np.ndarray:
    """Kendall variant per row of counts, as ``stats.KendallVariants`` (NaN where b/c are undefined)."""
    con, dis, t_m, t_h, t_b = (counts[..., i].astype(np.float64) for i in range(5))
    total = con + dis + t_m + t_h + t_b
    x_tie, y_tie = t_m + t_b, t_h + t_b
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "acc23":
            return (con + t_b) / total
        if variant == "23":
            return (con + t_b - dis - t_h - t_m) / total
        undefined = (x_tie == total) | (y_tie == total)
        if variant == "b":
            tau = (con - dis) / np.sqrt(total - x_tie) / np.sqrt(total - y_tie)
        elif variant == "c":
            assert sizes is not None and min_classes is not None
            tau = 2 * (con - dis) / (sizes.astype(np.float64) ** 2 * (min_classes - 1) / min_classes)
        else:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return np.where(undefined, np.nan, tau)


def kendall_variant_groups(human: np.ndarray, metric: np.ndarray, variant: str, epsilon: float = 0.0) -> np.ndarray:
    """The Kendall variant of every group row (NaN for rows with fewer than two judged cells)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative")
    if epsilon > 0 and variant == "c":
        raise ValueError("a non-zero epsilon is not defined for tau-c")
    present = ~np.isnan(human)
    sizes = present.sum(axis=1)
    counts = group_counts(human, metric, epsilon)
    classes = None
    if variant == "c":
        classes = np.minimum(distinct_counts(metric, present), distinct_counts(human, present)).astype(np.float64)
    values = tau_from_counts(counts, variant, sizes, classes)
    return np.where(sizes >= 2, values, np.nan)


@dataclass(frozen=True)
class TieSearch:
    """The result of the tie-threshold search (``tau_optimization``).

    Attributes
    ----------
    statistic : float
        The best average of the variant over groups with at least one pair.
    epsilon : float
        The metric difference at or below which pairs count as ties (the first best).
    thresholds, values : numpy.ndarray
        Every candidate threshold (0 first) and the average it gives.
    n_pairs : int
        Pairs searched (after sampling).
    n_groups : int
        Groups with at least one pair.
    """

    statistic: float
    epsilon: float
    thresholds: np.ndarray
    values: np.ndarray
    n_pairs: int
    n_groups: int


def _sequential_totals(start: float, olds: np.ndarray, news: np.ndarray) -> np.ndarray:
    """Running total updated pair by pair: subtract the group's old value, then add its new one.

    ``np.add.accumulate`` adds strictly left to right, so accumulating
    ``[start, -old_1, new_1, -old_2, new_2, ...]`` rounds exactly as the oracle's loop
    ``total -= old; total += new`` does.
    """
    steps = np.empty(2 * len(olds) + 1)
    steps[0] = start
    steps[1::2] = -olds
    steps[2::2] = news
    return np.add.accumulate(steps)[2::2]


def tie_threshold_search(
    human_scores: object,
    metric_scores: object,
    *,
    variant: str = "acc23",
    average_by: str = "item",
    sample_rate: float = 1.0,
    random_state: np.random.RandomState | int | None = None,
) -> TieSearch:
    """Search the metric tie threshold that maximises tau_23 or acc_23 (``KendallWithTiesOpt``).

    Parameters
    ----------
    human_scores, metric_scores : array_like
        Systems x items; NaN human (or metric) cells are left out.
    variant : {"acc23", "23"}
    average_by : {"item", "sys", "none"}
        Groups whose values are averaged (WMT23-25: ``"item"``).
    sample_rate : float
        Share of pairs searched, in (0, 1]; below 1 each pair is kept when a uniform
        draw is ``<= sample_rate``, one legacy ``np.random`` draw per pair in order,
        as mt-metrics-eval does (so ``np.random.seed(s)`` there equals ``random_state=s`` here).
    random_state : numpy.random.RandomState, int or None
        The draws' source (only used when ``sample_rate < 1``).

    Returns
    -------
    TieSearch

    Examples
    --------
    >>> res = tie_threshold_search([[1, 2, 3, 4]], [[0, 2, 6, 8]], average_by="sys")
    >>> res.epsilon, res.statistic, res.thresholds.tolist()
    (0.0, 1.0, [0.0, 2.0, 4.0, 6.0, 8.0])
    """
    if variant not in ("acc23", "23"):
        raise ValueError("only the '23' and 'acc23' variants support the tie-threshold search")
    if not 0 < sample_rate <= 1:
        raise ValueError(f"sample_rate must be in (0, 1]; got {sample_rate}")
    check_average_by(average_by)
    human = groups(as_matrix(human_scores, "human_scores"), average_by)
    metric = groups(as_matrix(metric_scores, "metric_scores"), average_by)
    if human.shape != metric.shape:
        raise InputError(f"shape {metric.shape} differs from human_scores' {human.shape}", side="metric_scores")
    present = ~np.isnan(human) & ~np.isnan(metric)
    n_groups, n = human.shape
    h_parts, m_parts, r_parts = [], [], []
    complete = bool(present.all())
    for first, second in _pair_blocks(n):
        if complete:  # every pair of every group: no masks, same group-major order
            r_parts.append(np.repeat(np.arange(n_groups), len(first)))
            h_parts.append((human[:, first].ravel(), human[:, second].ravel()))
            m_parts.append((metric[:, first].ravel(), metric[:, second].ravel()))
            continue
        valid = present[:, first] & present[:, second]
        rows = np.broadcast_to(np.arange(n_groups)[:, None], valid.shape)
        r_parts.append(rows[valid])
        h_parts.append((human[:, first][valid], human[:, second][valid]))
        m_parts.append((metric[:, first][valid], metric[:, second][valid]))
    if len(r_parts) > 1:
        # blocks split by member rows; restore group-major order (stable on the enumeration order)
        row = np.concatenate(r_parts)
        order = np.argsort(row, kind="stable")
        row = row[order]
        h1 = np.concatenate([p[0] for p in h_parts])[order]
        h2 = np.concatenate([p[1] for p in h_parts])[order]
        m1 = np.concatenate([p[0] for p in m_parts])[order]
        m2 = np.concatenate([p[1] for p in m_parts])[order]
    elif r_parts:
        row = r_parts[0]
        (h1, h2), (m1, m2) = h_parts[0], m_parts[0]
    else:
        row = np.zeros(0, dtype=np.int64)
        h1 = h2 = m1 = m2 = np.zeros(0)
    if sample_rate < 1.0 and len(row):
        rs = random_state if isinstance(random_state, np.random.RandomState) else np.random.RandomState(random_state)
        keep = rs.random_sample(len(row)) <= sample_rate
        row, h1, h2, m1, m2 = row[keep], h1[keep], h2[keep], m1[keep], m2[keep]
    if not len(row):
        raise InputError("no pair of judged scores to compare", side="human_scores")
    diff = np.abs(m1 - m2)
    cat = pair_categories(h1 - h2, m1 - m2, 0.0)
    h_tie = h1 == h2
    if variant == "acc23":
        before = ((cat == CON) | (cat == TIE_BOTH)).astype(np.int64)
        after = h_tie.astype(np.int64)
    else:
        before = np.where((cat == CON) | (cat == TIE_BOTH), 1, -1).astype(np.int64)
        after = np.where(h_tie, 1, -1).astype(np.int64)
    n_pairs_row = np.bincount(row, minlength=n_groups)
    numer0 = np.bincount(row, weights=before, minlength=n_groups).astype(np.int64)
    # the oracle sums its rows in the iteration order of a set filled in increasing row order
    rows_used = list(set(np.flatnonzero(n_pairs_row).tolist()))
    with np.errstate(invalid="ignore", divide="ignore"):
        row_values = (numer0 / n_pairs_row).tolist()
    start = sum(row_values[r] for r in rows_used)
    n_rows = len(rows_used)

    order = np.argsort(diff, kind="stable")
    d_sorted, r_sorted = diff[order], row[order]
    delta = (after - before)[order]
    # running numerator of each pair's group just after the pair flips to a tie (a stable
    # sort by group: a radix sort when the group ids fit 16 bits)
    by_row = np.argsort(r_sorted.astype(np.uint16) if n_groups <= 1 << 16 else r_sorted, kind="stable")
    cum = np.cumsum(delta[by_row])
    group_start = np.r_[0, np.flatnonzero(np.diff(r_sorted[by_row])) + 1]
    offsets = np.repeat(cum[group_start] - delta[by_row][group_start], np.diff(np.r_[group_start, len(by_row)]))
    after_flip = np.empty(len(order), dtype=np.int64)
    after_flip[by_row] = numer0[r_sorted[by_row]] + cum - offsets
    denom = n_pairs_row[r_sorted]
    news = after_flip / denom
    olds = (after_flip - delta) / denom
    totals = _sequential_totals(start, olds, news) / n_rows

    last_of_run = np.r_[d_sorted[1:] != d_sorted[:-1], True]
    thresholds = d_sorted[last_of_run]
    values = totals[last_of_run]
    if d_sorted[0] != 0.0:
        thresholds = np.r_[0.0, thresholds]
        values = np.r_[start / n_rows, values]
    best = int(np.nanargmax(values))
    return TieSearch(
        statistic=float(values[best]),
        epsilon=float(thresholds[best]),
        thresholds=thresholds,
        values=values,
        n_pairs=len(row),
        n_groups=n_rows,
    )
