"""Meta-evaluation: how well a metric agrees with human judgements, at system and segment level."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nlpeval.agreement._resample import check_bootstrap, percentile_interval, weight_blocks
from nlpeval.core.errors import InputError, UndefinedMetricWarning
from nlpeval.core.score import ConfidenceInterval
from nlpeval.core.signature import Signature
from nlpeval.correlation._groups import STATISTICS, kendall_from_counts
from nlpeval.correlation.pairs import TIES, group_pair_counts, tau_from_counts

CORRELATIONS = ("pearson", "spearman", "kendall", "kendall_b", "kendall_c")
PAIR_METHODS = ("pairwise_accuracy", "kendall_like")
#: WMT23-25 statistics, computed as mt-metrics-eval does (see :mod:`nlpeval.correlation.wmt_meta`)
WMT_METHODS = ("acc_eq", "spa")
METHODS = CORRELATIONS + PAIR_METHODS + WMT_METHODS
LEVELS = ("system", "segment")
GROUPS = ("item", "system", None)

#: values held at once when resampled data are expanded
_EXPANDED_CELLS = 4_000_000


class _DefaultSeed:
    """``seed``'s default: 12345 for the bootstrap, 4 for SPA's permutations (as ``pce.py``)."""

    def __repr__(self) -> str:
        return "default"


DEFAULT_SEED = _DefaultSeed()


@dataclass(frozen=True)
class MetaEvaluation:
    """The agreement of a metric with human judgements.

    Attributes
    ----------
    statistic : float
        The correlation (or accuracy, or Kendall-like tau).
    pvalue : float
        Two-sided p-value of a single correlation; NaN for averages over groups
        and for the pair-based methods (no test is implied).
    n : int
        Observations correlated (systems, or judged segments), or pairs for
        the pair-based methods.
    n_groups : int
        Groups averaged (1 without grouping).
    level, method : str
        What was correlated and how.
    group_by : str or None
        ``"item"``, ``"system"`` or ``None`` (flattened).
    signature : str
        Reproducibility signature.
    ci : ConfidenceInterval or None
        Percentile bootstrap interval over items.
    epsilon : float or None
        ``acc_eq``: the metric tie threshold (searched, or given).
    pvalues : dict or None
        ``spa``: the pairwise permutation p-values, ``{"human": ..., "metric": ...}``
        (systems x systems arrays, ``[i, j]`` for ``i < j`` the p-value that system ``i``
        beats ``j``; NaN elsewhere).
    """

    statistic: float
    pvalue: float
    n: int
    n_groups: int
    level: str
    method: str
    group_by: str | None
    signature: str
    ci: ConfidenceInterval | None = field(default=None)
    epsilon: float | None = field(default=None)
    pvalues: dict[str, np.ndarray] | None = field(default=None, compare=False)

    def __float__(self) -> float:
        return self.statistic

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "level": self.level,
            "method": self.method,
            "group_by": self.group_by,
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "n": self.n,
            "n_groups": self.n_groups,
            "signature": self.signature,
        }
        if self.ci is not None:
            out["ci"] = self.ci.to_dict()
        if self.epsilon is not None:
            out["epsilon"] = self.epsilon
        if self.pvalues is not None:
            out["pvalues"] = {
                side: [[None if math.isnan(v) else float(v) for v in row] for row in matrix]
                for side, matrix in self.pvalues.items()
            }
        return out

    def __str__(self) -> str:
        text = f"{self.level} {self.method} = {self.statistic:.4f}"
        if self.ci is not None:
            text += f" [{self.ci.low:.4f}, {self.ci.high:.4f}]"
        return f"{text} [{self.signature}]"


def _as_scores(scores: Any, side: str, systems: list[str] | None) -> tuple[list[str] | None, np.ndarray]:
    """System names (for mappings) and a float array (1-D per system, or systems x items)."""
    names = None
    if isinstance(scores, Mapping):
        names = [str(k) for k in scores]
        if systems is not None:
            missing = [s for s in systems if s not in names]
            if missing or len(names) != len(systems):
                raise InputError(
                    f"systems differ from metric_scores' (missing: {missing or 'none'}; "
                    f"extra: {[n for n in names if n not in systems] or 'none'})",
                    side=side,
                )
            lookup = {str(k): v for k, v in scores.items()}
            scores, names = [lookup[s] for s in systems], list(systems)
        else:
            scores = list(scores.values())
    try:
        array = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("expected numbers: one per system, or systems x items (NaN for missing)", side=side) from None
    if array.ndim not in (1, 2):
        raise InputError(f"expected 1-D (systems) or 2-D (systems x items); got shape {array.shape}", side=side)
    if np.isinf(array).any():
        position = tuple(int(i) for i in np.argwhere(np.isinf(array))[0])
        raise InputError(f"score at {position} is infinite", side=side)
    return names, array + 0.0


def _check_options(level: str, method: str, group_by: str | None, ties: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level must be 'system' or 'segment'; got {level!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if group_by not in GROUPS:
        raise ValueError(f"group_by must be 'item', 'system' or None; got {group_by!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be 'discordant' or 'exclude'; got {ties!r}")
    if level == "system" and group_by is not None:
        raise ValueError("group_by applies to segment-level meta-evaluation; use group_by=None at system level")
    if method == "kendall_like" and (level != "segment" or group_by != "item"):
        raise ValueError("kendall_like compares translations of the same item: use level='segment', group_by='item'")
    if method == "pairwise_accuracy" and level == "segment" and group_by != "item":
        raise ValueError("segment-level pairwise_accuracy compares systems on each item: use group_by='item'")
    if method == "acc_eq" and level != "segment":
        raise ValueError("acc_eq is a segment-level statistic: use level='segment' (WMT23-25: group_by='item')")
    if method == "spa" and level != "system":
        raise ValueError("spa is a system-level statistic (from systems x items matrices): use level='system'")
    return "kendall_b" if method == "kendall" else method


def _single(method: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """A correlation and its p-value, via the public functions (warnings about constants silenced)."""
    from nlpeval.correlation import coefficients

    if len(x) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if method == "pearson":
            result = coefficients.pearson(x, y)
        elif method == "spearman":
            result = coefficients.spearman(x, y)
        else:
            result = coefficients.kendall(x, y, variant=method[-1])
    return result.statistic, result.pvalue


def _group_statistics(method: str, x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Correlation per group, NaN for groups with fewer than two observations or constant values."""
    sizes = np.diff(offsets)
    values = STATISTICS[method](x, y, offsets) if len(x) else np.full(len(sizes), np.nan)
    return np.where(sizes >= 2, values, np.nan)


def _pairwise_accuracy(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Share of system pairs ordered alike (rows are resamples; NaN rows stay NaN)."""
    first, second = np.triu_indices(metric.shape[-1], 1)
    agree = np.sign(metric[..., first] - metric[..., second]) == np.sign(human[..., first] - human[..., second])
    out = agree.mean(axis=-1) if len(first) else np.full(metric.shape[:-1], np.nan)
    undefined = np.isnan(metric).any(axis=-1) | np.isnan(human).any(axis=-1)
    return np.where(undefined, np.nan, out)


def _system_level(
    method: str, metric: np.ndarray, human: np.ndarray
) -> tuple[Callable[[], tuple[float, float, int]], Callable[[np.ndarray], np.ndarray] | None]:
    """The system-level statistic, and its resampled version over items (None if nothing to resample).

    A systems x items matrix gives each system the mean of its present (non-NaN) scores.
    """
    n_systems = metric.shape[0]

    def parts(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if scores.ndim == 1:
            return None
        present = ~np.isnan(scores)
        return np.where(present, scores, 0.0), present.astype(np.float64)

    metric_parts, human_parts = parts(metric), parts(human)

    def means(
        scores: np.ndarray, split: tuple[np.ndarray, np.ndarray] | None, weights: np.ndarray | None
    ) -> np.ndarray:
        if split is None:
            return scores if weights is None else np.broadcast_to(scores, (len(weights), n_systems))
        filled, present = split
        with np.errstate(invalid="ignore", divide="ignore"):
            if weights is None:
                return filled.sum(axis=1) / present.sum(axis=1)
            return (weights @ filled.T) / (weights @ present.T)

    def full() -> tuple[float, float, int]:
        m, h = means(metric, metric_parts, None), means(human, human_parts, None)
        if method == "pairwise_accuracy":
            return float(_pairwise_accuracy(m, h)), math.nan, n_systems
        statistic, pvalue = _single(method, m, h)
        return statistic, pvalue, n_systems

    def resampled(weights: np.ndarray) -> np.ndarray:
        m, h = means(metric, metric_parts, weights), means(human, human_parts, weights)
        if method == "pairwise_accuracy":
            return _pairwise_accuracy(m, h)
        offsets = np.arange(len(weights) + 1) * n_systems
        undefined = np.isnan(m).any(axis=1) | np.isnan(h).any(axis=1)
        x, y = np.where(np.isnan(m), 0.0, m), np.where(np.isnan(h), 0.0, h)
        values = _group_statistics(method, np.ascontiguousarray(x).ravel(), np.ascontiguousarray(y).ravel(), offsets)
        return np.where(undefined, np.nan, values)

    has_items = metric_parts is not None or human_parts is not None
    return full, (resampled if has_items else None)


def _item_groups(
    method: str, metric: np.ndarray, human: np.ndarray, judged: np.ndarray, threshold: float, ties: str
) -> tuple[np.ndarray, np.ndarray]:
    """Per-item values: ``(stat, n)`` for correlations, ``(counts, n)`` for pair methods."""
    # items are columns; gather each item's judged systems contiguously
    order_items, order_systems = np.nonzero(judged.T)
    x, y = metric[order_systems, order_items], human[order_systems, order_items]
    sizes = judged.sum(axis=0)
    offsets = np.r_[0, np.cumsum(sizes)]
    if method == "kendall_like":
        return group_pair_counts(x, y, offsets, kind="kendall_like", threshold=threshold, ties=ties), sizes
    if method == "pairwise_accuracy":
        return group_pair_counts(x, y, offsets, kind="accuracy"), sizes
    return _group_statistics(method, x, y, offsets), sizes


def _spearman_weighted_statistic(
    metric: np.ndarray, human: np.ndarray, judged: np.ndarray, group_by: str | None
) -> Callable[[np.ndarray], np.ndarray]:
    """Resampled Spearman's rho over items without expanding the data.

    A resample draws item ``j`` ``w_j`` times, so every judged cell of item ``j``
    counts ``w_j`` times: a cell's average rank among the resampled observations is
    (weight of smaller values) + (weight of its ties + 1) / 2, and rho is the
    weighted Pearson r of those ranks. Sorting happens once, not per resample.
    """
    systems, items = np.nonzero(judged)  # row-major: cells grouped by system
    if group_by == "system":
        # systems without a judged item form no group (reduceat needs non-empty groups)
        groups = np.searchsorted(np.unique(systems), systems)
    else:
        groups = np.zeros(len(items), dtype=np.int64)
    n_groups = int(groups.max()) + 1
    starts = np.searchsorted(groups, np.arange(n_groups))
    x, y = metric[systems, items], human[systems, items]

    def rank_plan(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        order = np.lexsort((values, groups))
        sorted_values, sorted_groups = values[order], groups[order]
        new_run = np.r_[True, (sorted_values[1:] != sorted_values[:-1]) | (sorted_groups[1:] != sorted_groups[:-1])]
        run_of_sorted = np.cumsum(new_run) - 1
        run_starts = np.flatnonzero(new_run)
        run_of_cell = np.empty(len(values), dtype=np.int64)
        run_of_cell[order] = run_of_sorted
        return order, run_starts, run_of_cell

    plans = [rank_plan(x), rank_plan(y)]
    group_of_sorted = [groups[plan[0]] for plan in plans]

    def ranks(weights: np.ndarray, which: int) -> np.ndarray:
        order, run_starts, run_of_cell = plans[which]
        sorted_weights = weights[:, order]
        before = np.cumsum(sorted_weights, axis=1) - sorted_weights
        # weight of smaller values in the same group: subtract what precedes the group
        group_first = starts[group_of_sorted[which]]
        before -= before[:, group_first]
        run_totals = np.add.reduceat(sorted_weights, run_starts, axis=1)
        run_ranks = before[:, run_starts] + (run_totals + 1.0) / 2.0
        return run_ranks[:, run_of_cell]

    def statistic(draws: np.ndarray) -> np.ndarray:
        weights = draws[:, items]
        a, b = ranks(weights, 0), ranks(weights, 1)

        def group_sum(values: np.ndarray) -> np.ndarray:
            return np.add.reduceat(values, starts, axis=1)

        n = group_sum(weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            ma, mb = group_sum(weights * a) / n, group_sum(weights * b) / n
            da = a - np.repeat(ma, np.diff(np.r_[starts, len(items)]), axis=1)
            db = b - np.repeat(mb, np.diff(np.r_[starts, len(items)]), axis=1)
            sab = group_sum(weights * da * db)
            saa = group_sum(weights * da * da)
            sbb = group_sum(weights * db * db)
            r = np.clip(sab / (np.sqrt(saa) * np.sqrt(sbb)), -1.0, 1.0)
        drawn = weights > 0
        constant = np.zeros(r.shape, dtype=bool)
        for values in (a, b):
            high = np.maximum.reduceat(np.where(drawn, values, -np.inf), starts, axis=1)
            low = np.minimum.reduceat(np.where(drawn, values, np.inf), starts, axis=1)
            constant |= ~(high > low)
        r = np.where(constant | (n < 2), np.nan, r)
        if group_by == "system":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(r, axis=1)
        return r[:, 0]

    return statistic


def _pearson_sums_statistic(
    metric: np.ndarray, human: np.ndarray, judged: np.ndarray, group_by: str | None
) -> Callable[[np.ndarray], np.ndarray]:
    """Resampled Pearson's r over items from per-item sums (one matrix product per block of resamples).

    Values are centred per group on the full data first, so the sums formula loses
    no precision to a large mean. A resample whose drawn values are all equal is
    undefined (found exactly, from per-item minima and maxima).
    """
    n_systems, n_items = metric.shape
    rows = np.arange(n_systems)[:, None] if group_by == "system" else np.zeros((n_systems, 1), dtype=np.int64)
    n_groups = n_systems if group_by == "system" else 1
    group_of = np.broadcast_to(rows, judged.shape)
    count = np.zeros((n_items, n_groups))
    np.add.at(count, (np.nonzero(judged)[1], group_of[judged]), 1.0)

    def per_item(values: np.ndarray, reducer: Any, fill: float) -> np.ndarray:
        out = np.full((n_items, n_groups), fill)
        reducer.at(out, (np.nonzero(judged)[1], group_of[judged]), values[judged])
        return out

    with np.errstate(invalid="ignore", divide="ignore"):
        sums_x = per_item(metric, np.add, 0.0)
        sums_y = per_item(human, np.add, 0.0)
        mean_x = sums_x.sum(axis=0) / count.sum(axis=0)
        mean_y = sums_y.sum(axis=0) / count.sum(axis=0)
    x = np.where(judged, metric - mean_x[group_of], 0.0)
    y = np.where(judged, human - mean_y[group_of], 0.0)
    parts = np.concatenate(
        [count, per_item(x, np.add, 0.0), per_item(y, np.add, 0.0)]
        + [per_item(a * b, np.add, 0.0) for a, b in ((x, x), (y, y), (x, y))],
        axis=1,
    )
    bounds = [
        per_item(metric, np.minimum, np.inf),
        per_item(metric, np.maximum, -np.inf),
        per_item(human, np.minimum, np.inf),
        per_item(human, np.maximum, -np.inf),
    ]

    def statistic(draws: np.ndarray) -> np.ndarray:
        totals = (draws @ parts).reshape(len(draws), 6, n_groups)
        n, sx, sy, sxx, syy, sxy = (totals[:, k] for k in range(6))
        with np.errstate(invalid="ignore", divide="ignore"):
            cxy = sxy - sx * sy / n
            cxx = sxx - sx * sx / n
            cyy = syy - sy * sy / n
            r = np.clip(cxy / (np.sqrt(cxx) * np.sqrt(cyy)), -1.0, 1.0)
        drawn = (draws > 0)[:, :, None]
        constant = np.zeros(r.shape, dtype=bool)
        for low, high in ((bounds[0], bounds[1]), (bounds[2], bounds[3])):
            lowest = np.where(drawn, low[None], np.inf).min(axis=1)
            highest = np.where(drawn, high[None], -np.inf).max(axis=1)
            constant |= ~(highest > lowest)
        r = np.where(constant | (n < 2), np.nan, r)
        if group_by == "system":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(r, axis=1)
        return r[:, 0]

    return statistic


def _kendall_weighted_statistic(
    method: str, metric: np.ndarray, human: np.ndarray, judged: np.ndarray, group_by: str | None
) -> Callable[[np.ndarray], np.ndarray]:
    """Resampled Kendall's tau over items: each judged cell weighted by its item's draws.

    The native kernel sorts each group once and counts weighted discordant pairs and
    ties per resample, which equals counting on the expanded resample.
    """
    from nlpeval import _native

    n_systems = metric.shape[0]
    systems, items = np.nonzero(judged)  # row-major: cells grouped by system
    x, y = metric[systems, items], human[systems, items]
    offsets = np.searchsorted(systems, np.arange(n_systems + 1)) if group_by == "system" else np.array([0, len(items)])
    variant = method[-1]

    def statistic(draws: np.ndarray) -> np.ndarray:
        weights = np.ascontiguousarray(draws[:, items], dtype=np.float64)
        stats = _native.kendall_weighted_stats(x, y, offsets.astype(np.int64), weights)
        tau = kendall_from_counts(stats[..., :6], stats[..., 6], variant)[0]
        if group_by == "system":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(tau, axis=1)
        return tau[:, 0]

    return statistic


def _in_chunks(statistic: Callable[[np.ndarray], np.ndarray], cells: int) -> Callable[[np.ndarray], np.ndarray]:
    """``statistic`` applied to row chunks of the draws so that rows x cells stays bounded."""
    rows = max(1, _EXPANDED_CELLS // max(cells, 1))

    def chunked(draws: np.ndarray) -> np.ndarray:
        return np.concatenate([statistic(draws[start : start + rows]) for start in range(0, len(draws), rows)])

    return chunked


def _resampler(
    method: str, metric: np.ndarray, human: np.ndarray, judged: np.ndarray, group_by: str | None
) -> Callable[[np.ndarray], np.ndarray]:
    """The resampled statistic (of item draw counts) for flattened or per-system correlations."""
    if method == "pearson":
        return _pearson_sums_statistic(metric, human, judged, group_by)
    cells = int(judged.sum())
    if method == "spearman":
        return _in_chunks(_spearman_weighted_statistic(metric, human, judged, group_by), cells)
    return _in_chunks(_kendall_weighted_statistic(method, metric, human, judged, group_by), cells)


def meta_evaluate(
    metric_scores: Any,
    human_scores: Any,
    *,
    level: str = "system",
    method: str = "pearson",
    group_by: str | None = None,
    threshold: float = 25.0,
    ties: str = "discordant",
    n_bootstrap: int = 0,
    seed: int | _DefaultSeed | None = DEFAULT_SEED,
    confidence: float = 0.95,
    epsilon: float | None = None,
    sample_rate: float = 1.0,
    n_permutations: int = 1000,
) -> MetaEvaluation:
    """Correlate a metric's scores with human scores (WMT-style meta-evaluation).

    Scores are systems x items matrices (items are segments, or documents), or
    mappings from system name to per-item scores; NaN in ``human_scores`` marks
    an item a system was not judged on, and such cells are left out.

    * ``level="system"``: one score per system — the mean over items (human: over
      judged items), or given directly as 1-D / name -> float — correlated across
      systems. ``method="pairwise_accuracy"`` is the share of system pairs the
      metric orders as the humans do (Kocmi et al., 2021; ties agree when both tie).
    * ``level="segment"``: ``group_by=None`` correlates all judged cells at once;
      ``group_by="item"`` correlates the systems' scores on each item and averages
      over items; ``group_by="system"`` correlates each system's scores across items
      and averages over systems. Groups with fewer than two observations, or where
      a correlation is undefined (constant scores), are left out of the average
      (as in mt-metrics-eval). ``method="kendall_like"`` (``group_by="item"``) is
      WMT's daRR Kendall-like tau: relative-ranking pairs of systems whose human
      scores on an item differ by at least ``threshold``, pooled over items;
      ``method="pairwise_accuracy"`` (``group_by="item"``) pools all system pairs of
      every item.
    * ``method="acc_eq"`` (``level="segment"``): tie-calibrated pairwise accuracy
      (Deutsch et al., 2023; mt-metrics-eval's ``KendallWithTiesOpt``, variant
      ``acc23``): pairs of cells in a group count when the metric orders them as the
      humans do, or ties them (``|difference| <= epsilon``) when humans tie; averaged
      over groups: ``group_by="item"`` (WMT23-25), ``"system"``, or None (one group).
    * ``method="spa"`` (``level="system"``): soft pairwise accuracy (Thompson et al.,
      2024; ``1 - PCE``) from systems x items matrices: for every pair of systems, a
      paired permutation test on human scores and one on metric scores; SPA is one
      minus the mean absolute difference of their p-values. Items without a human
      score for every system are left out (``n`` counts the items used).

    Parameters
    ----------
    metric_scores, human_scores : array_like or mapping
        Systems x items (or, at system level, one value per system).
    level : {"system", "segment"}
    method : str
        ``"pearson"``, ``"spearman"``, ``"kendall"`` (tau-b), ``"kendall_b"``, ``"kendall_c"``,
        ``"pairwise_accuracy"``, ``"kendall_like"``, ``"acc_eq"`` or ``"spa"``.
    group_by : {"item", "system", None}
        Segment-level grouping (see above).
    threshold : float
        Minimum human score difference of a ``kendall_like`` pair (25 on WMT's 0–100 DA scale).
    ties : {"discordant", "exclude"}
        How ``kendall_like`` counts metric ties.
    n_bootstrap : int
        Resamples of items (columns) for a percentile confidence interval (0: none).
    seed : int or None
        Bootstrap seed (default 12345); for ``spa``, the permutations' seed
        (default 4, as mt-metrics-eval's ``pce.py``; the same seed gives the same draws);
        for ``acc_eq`` with ``sample_rate < 1``, the legacy ``np.random`` seed of the
        pair sampling.
    confidence : float
        Confidence level.
    epsilon : float or None
        ``acc_eq``: the metric tie threshold; None searches it on the data as
        ``KendallWithTiesOpt`` does (the result carries it in ``.epsilon``).
    sample_rate : float
        ``acc_eq`` search: share of pairs searched (mt-metrics-eval's default for
        ``KendallWithTiesOpt`` is 0.1; WMT23-25 use 1.0, the default here).
    n_permutations : int
        ``spa``: permutations of each pairwise test (1000, as ``pce.py``).

    Returns
    -------
    MetaEvaluation

    Raises
    ------
    InputError
        Shapes or system names that do not match, a missing or infinite metric
        score where humans judged, a system no human judged (system level),
        nothing left to correlate.

    Examples
    --------
    >>> metric = [[0.1, 0.4, 0.3], [0.5, 0.6, 0.2], [0.9, 0.7, 0.8]]
    >>> human = [[10, 30, 40], [50, 70, 20], [90, 60, 80]]
    >>> round(meta_evaluate(metric, human).statistic, 4)
    0.9952
    >>> round(meta_evaluate(metric, human, level="segment", method="kendall", group_by="item").statistic, 4)
    0.7778
    >>> res = meta_evaluate(metric, human, level="segment", method="kendall_like", group_by="item", threshold=25)
    >>> res.statistic, res.n
    (1.0, 7)
    >>> res = meta_evaluate(metric, human, level="segment", method="acc_eq", group_by="item")
    >>> round(res.statistic, 4), res.epsilon
    (0.8889, 0.0)
    >>> round(meta_evaluate(metric, human, method="spa").statistic, 4)
    0.9547
    """
    canonical = _check_options(level, method, group_by, ties)
    check_bootstrap(n_bootstrap, confidence)
    if method in WMT_METHODS:
        from nlpeval.correlation.wmt_meta import wmt_meta_evaluate

        if n_bootstrap:
            raise ValueError(f"{method} has no bootstrap interval here (use compare_metrics for significance)")
        return wmt_meta_evaluate(
            metric_scores,
            human_scores,
            method=method,
            group_by=group_by,
            epsilon=epsilon,
            sample_rate=sample_rate,
            n_permutations=n_permutations,
            seed=None if seed is None else (4 if isinstance(seed, _DefaultSeed) else seed),
        )
    if isinstance(seed, _DefaultSeed):  # DEFAULT_SEED, the only instance
        seed = 12345
    systems, metric = _as_scores(metric_scores, "metric_scores", None)
    _, human = _as_scores(human_scores, "human_scores", systems)
    if metric.shape[0] != human.shape[0]:
        raise InputError(f"{metric.shape[0]} systems in metric_scores but {human.shape[0]} here", side="human_scores")
    if level == "segment" and (metric.ndim != 2 or human.ndim != 2):
        raise InputError("segment level needs systems x items matrices for both scores", side="human_scores")
    if metric.ndim == 2 and human.ndim == 2 and metric.shape != human.shape:
        raise InputError(f"shape {human.shape} differs from metric_scores' {metric.shape}", side="human_scores")
    judged = ~np.isnan(human) if human.ndim == 2 else None
    if level == "segment":
        assert judged is not None  # both are matrices at segment level (checked above)
        if not judged.any():
            raise InputError("no judged item to correlate", side="human_scores")
        missing_metric = np.isnan(metric) & judged  # unjudged cells are never used
        if missing_metric.any():
            position = tuple(int(i) for i in np.argwhere(missing_metric)[0])
            raise InputError(f"metric score at {position} is missing where humans judged", side="metric_scores")
    else:
        for side, scores in (("metric_scores", metric), ("human_scores", human)):
            absent = np.isnan(scores) if scores.ndim == 1 else np.isnan(scores).all(axis=1)
            if absent.any():
                raise InputError(f"system {int(np.flatnonzero(absent)[0])} has no score", side=side)
    n_systems = metric.shape[0]
    if level == "system" and n_systems < 2:
        raise InputError("system-level meta-evaluation needs at least two systems", side="metric_scores")

    n_groups = 1
    resampled: Callable[[np.ndarray], np.ndarray] | None = None
    if level == "system":
        full, resampled = _system_level(canonical, metric, human)
        statistic, pvalue, n = full()
        n_items = metric.shape[1] if metric.ndim == 2 else (human.shape[1] if human.ndim == 2 else 0)
    else:
        assert judged is not None  # segment level: both are matrices
        n_items = metric.shape[1]
        if group_by == "item":
            values, sizes = _item_groups(canonical, metric, human, judged, threshold, ties)
            pvalue = math.nan
            if canonical in PAIR_METHODS:
                totals = values.sum(axis=0)
                if canonical == "kendall_like":
                    statistic = float(tau_from_counts(totals[0], totals[1]))
                    n = int(totals[0] + totals[1])

                    def resampled(weights: np.ndarray) -> np.ndarray:
                        sums = weights @ values
                        return tau_from_counts(sums[:, 0], sums[:, 1])
                else:
                    statistic = float(totals[0] / totals[1]) if totals[1] else math.nan
                    n = int(totals[1])

                    def resampled(weights: np.ndarray) -> np.ndarray:
                        sums = weights @ values
                        with np.errstate(invalid="ignore", divide="ignore"):
                            return sums[:, 0] / sums[:, 1]

                n_groups = int(np.count_nonzero(sizes >= 2))
            else:
                defined = ~np.isnan(values)
                statistic = float(values[defined].mean()) if defined.any() else math.nan
                n = int(sizes[defined].sum())
                n_groups = int(defined.sum())
                filled = np.where(defined, values, 0.0)

                def resampled(weights: np.ndarray) -> np.ndarray:
                    with np.errstate(invalid="ignore", divide="ignore"):
                        return (weights @ filled) / (weights @ defined.astype(np.float64))
        elif group_by == "system":
            offsets = np.r_[0, np.cumsum(judged.sum(axis=1))]
            values = _group_statistics(canonical, metric[judged], human[judged], offsets)
            defined = ~np.isnan(values)
            statistic = float(values[defined].mean()) if defined.any() else math.nan
            pvalue = math.nan
            n = int(np.diff(offsets)[defined].sum())
            n_groups = int(defined.sum())
            resampled = _resampler(canonical, metric, human, judged, "system")
        else:
            statistic, pvalue = _single(canonical, metric[judged], human[judged])
            n = int(judged.sum())
            resampled = _resampler(canonical, metric, human, judged, None)
        if n == 0:
            raise InputError("no judged item to correlate", side="human_scores")
    if math.isnan(statistic):
        warnings.warn(
            f"{level}-level {method} is undefined (constant scores or too few observations); returning nan",
            UndefinedMetricWarning,
            stacklevel=2,
        )

    fields: dict[str, object] = {"level": level, "method": method, "group": group_by or "none"}
    if method == "kendall_like":
        fields.update(threshold=f"{threshold:g}", ties=ties)
    ci = None
    if n_bootstrap:
        if resampled is None or n_items == 0:
            raise ValueError("a bootstrap over items needs per-item scores (systems x items)")
        ci = _bootstrap(resampled, n_items, n_bootstrap, seed, confidence)
        fields.update(bs=n_bootstrap, rs=seed)
    return MetaEvaluation(
        statistic=float(statistic),
        pvalue=float(pvalue),
        n=int(n),
        n_groups=n_groups,
        level=level,
        method=method,
        group_by=group_by,
        signature=str(Signature.build(**fields)),
        ci=ci,
    )


def _bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n_items: int,
    n_resamples: int,
    seed: int | None,
    confidence: float,
) -> ConfidenceInterval:
    """Percentile interval over item resamples; ``statistic`` takes ``(rows, n_items)`` draw counts."""
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        with np.errstate(invalid="ignore", divide="ignore"):
            for weights in weight_blocks(n_items, n_resamples, seed):
                values.append(statistic(weights))
    return percentile_interval(np.concatenate(values), confidence=confidence, n_resamples=n_resamples, seed=seed)
