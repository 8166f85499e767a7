"""Compare many metrics at once: correlations with humans, PERM-BOTH significance, clusters and ranks.

:func:`compare_metrics` is mt-metrics-eval's ``data.CompareMetrics`` (and its SPA and
pairwise-accuracy variants): metrics are ordered by decreasing statistic (name breaks
ties), a permutation test runs between every pair in that order, and ``AssignRanks``
cuts the order into significance clusters: a metric starts a new rank when a metric of
the current rank beats it significantly. :func:`average_ranks` weights the ranks of
several tasks (language pairs x levels) as ``tasks.TaskSetResults.AverageRanks``, and
:func:`wmt_tasks` lists the WMT23 / WMT24 task sets with their weights.

Examples
--------
>>> human = [[1, 2, 3, 4], [2, 2, 4, 5], [0, 1, 1, 2]]
>>> metrics = {"good": [[1, 2, 3, 4], [2, 3, 4, 5], [0, 1, 1, 2]], "noisy": [[4, 1, 3, 2], [1, 5, 2, 4], [3, 0, 2, 1]]}
>>> cmp = compare_metrics(metrics, human, level="segment", method="pearson", group_by=None, k=200, seed=1)
>>> cmp.metrics, cmp.ranks
(('good', 'noisy'), {'good': 1, 'noisy': 2})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.signature import Signature
from nlpeval.correlation.permutation import (
    PermutationResult,
    Statistic,
    pairwise_permutation_sig_diff,
    permutation_sig_diff,
)

METHODS = ("pearson", "spearman", "kendall", "kendall_b", "kendall_c", "acc_eq", "spa", "pairwise_accuracy")
_AVERAGE_BY = {"item": "item", "system": "sys", None: "none"}


def assign_ranks(sig_matrix: np.ndarray, pval: float = 0.05) -> list[int]:
    """Significance-cluster ranks from an upper-triangular p-value matrix (``data.AssignRanks``).

    ``sig_matrix[i, j]`` (``i < j``, metrics in decreasing order) is the p-value that
    metric ``j`` is as good as metric ``i``. A metric starts a new rank when some metric
    of the current rank beats it with ``p <= pval``.

    Examples
    --------
    >>> assign_ranks(np.array([[0, 0.3, 0.01], [0, 0, 0.2], [0, 0, 0]]))
    [1, 1, 2]
    """
    matrix = np.asarray(sig_matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"sig_matrix must be square; got shape {matrix.shape}")
    ranks, current, start = [], 1, 0
    for i in range(matrix.shape[0]):
        if np.any(matrix[start:i, i] <= pval):
            current += 1
            start = i
        ranks.append(current)
    return ranks


@dataclass(frozen=True)
class MetricComparison:
    """Metrics compared on one task.

    Attributes
    ----------
    metrics : tuple of str
        Best first (decreasing statistic, then name).
    statistics : dict
        Metric -> statistic (SPA, acc_eq, correlation ...).
    ranks : dict
        Metric -> significance cluster (1 = best cluster).
    pvalues : numpy.ndarray
        ``[i, j]`` (``i < j``, in ``metrics`` order): p-value that metric ``j`` is as good as ``i``.
    n_draws : numpy.ndarray
        Resamples run per pair (``[i, j]``, ``i < j``; fewer than ``k`` after early stopping).
    draws : dict
        ``(metric_i, metric_j)`` -> ``(n, 2)`` resampled statistics of the pair.
    epsilons : dict or None
        ``acc_eq``: each metric's searched (or given) tie threshold.
    williams : numpy.ndarray or None
        Williams' test p-values ``[i, j]`` that metric ``i`` beats ``j`` (Pearson-type methods only).
    """

    metrics: tuple[str, ...]
    statistics: dict[str, float]
    ranks: dict[str, int]
    pvalues: np.ndarray
    n_draws: np.ndarray
    level: str
    method: str
    group_by: str | None
    pval: float
    signature: str
    draws: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    epsilons: dict[str, float] | None = None
    williams: np.ndarray | None = field(default=None, compare=False)

    def significant(self, better: str, worse: str) -> bool:
        """Whether ``better`` beats ``worse`` (p < pval), ``better`` ranked above ``worse``."""
        i, j = self.metrics.index(better), self.metrics.index(worse)
        if i >= j:
            raise ValueError(f"{better!r} is not ranked above {worse!r}")
        return bool(self.pvalues[i, j] < self.pval)

    def to_dict(self) -> dict[str, Any]:
        n = len(self.metrics)
        out: dict[str, Any] = {
            "level": self.level,
            "method": self.method,
            "group_by": self.group_by,
            "pval": self.pval,
            "signature": self.signature,
            "metrics": [
                {
                    "metric": m,
                    "statistic": self.statistics[m],
                    "rank": self.ranks[m],
                    **({"epsilon": self.epsilons[m]} if self.epsilons else {}),
                }
                for m in self.metrics
            ],
            "pvalues": [[float(self.pvalues[i, j]) if j > i else None for j in range(n)] for i in range(n)],
        }
        if self.williams is not None:
            out["williams"] = [[float(self.williams[i, j]) if j > i else None for j in range(n)] for i in range(n)]
        return out

    def __str__(self) -> str:
        """One line per metric: name, rank, statistic, then '>' (significantly better) or '=' per lower metric."""
        width = max((len(m) for m in self.metrics), default=0)
        lines = []
        for i, m in enumerate(self.metrics):
            marks = " ".join(["."] * (i + 1))
            rest = " ".join(">" if p < self.pval else "=" for p in self.pvalues[i][i + 1 :])
            lines.append(f"{m:<{width}} {self.ranks[m]:>2} {self.statistics[m]:10.7f}  {marks} {rest}".rstrip())
        return "\n".join(lines)


def _system_scores(scores: Any, side: str) -> tuple[list[str] | None, np.ndarray]:
    """System names (for mappings) and one score per system: given, or the mean of judged items."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            if isinstance(scores, Mapping):
                values = [float(np.nanmean(np.atleast_1d(np.asarray(v, dtype=np.float64)))) for v in scores.values()]
                return [str(k) for k in scores], np.asarray(values)
            array = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("expected numbers: one per system, or systems x items", side=side) from None
        if array.ndim not in (1, 2):
            raise InputError(f"expected one score per system or systems x items; got shape {array.shape}", side=side)
        return None, array if array.ndim == 1 else np.nanmean(array, axis=1)


def _system_level(name: str, scores: Any, human_scores: Any) -> tuple[np.ndarray, np.ndarray]:
    metric_names, metric = _system_scores(scores, "metric_scores")
    human_names, human = _system_scores(human_scores, "human_scores")
    if metric_names is not None and human_names is not None:
        missing = [n for n in human_names if n not in metric_names]
        extra = [n for n in metric_names if n not in human_names]
        if missing or extra:
            which = (
                f"system {missing[0]!r} has human scores but no {name!r} score"
                if missing
                else (f"system {extra[0]!r} has a {name!r} score but no human scores")
            )
            raise InputError(which, side="metric_scores" if missing else "human_scores")
        lookup = dict(zip(metric_names, metric.tolist(), strict=True))
        metric = np.asarray([lookup[n] for n in human_names])
    if len(metric) != len(human):
        raise InputError(f"metric {name!r}: {len(metric)} systems, human scores {len(human)}", side="metric_scores")
    for side, vector in (("metric_scores", metric), ("human_scores", human)):
        if not np.isfinite(vector).all():
            bad = int(np.flatnonzero(~np.isfinite(vector))[0])
            label = human_names[bad] if human_names else bad
            raise InputError(f"metric {name!r}: system {label!r} has no finite score", side=side)
    return metric[:, None], human[:, None]


def _prepare(
    metric_scores: Mapping[str, Any], human_scores: Any, level: str, method: str
) -> tuple[list[str], dict[str, np.ndarray], np.ndarray]:
    """Metric name -> checked matrix (systems x items, or systems x 1 at system level), and the human matrix."""
    from nlpeval.correlation.wmt_meta import aligned_matrices

    if not isinstance(metric_scores, Mapping) or not metric_scores:
        raise InputError("metric_scores must map each metric's name to its scores", side="metric_scores")
    names = [str(n) for n in metric_scores]
    matrices: dict[str, np.ndarray] = {}
    human_out: np.ndarray | None = None
    for name, scores in zip(names, metric_scores.values(), strict=True):
        if level == "system" and method != "spa":
            matrices[name], human_out = _system_level(name, scores, human_scores)
            continue
        try:
            _, metric, human = aligned_matrices(scores, human_scores)
        except InputError as err:
            raise InputError(f"metric {name!r}: {err.message}", side=err.side) from None
        if method == "spa":
            complete = ~np.isnan(human).any(axis=0)
            if not complete.any():
                raise InputError("no item has human scores for every system", side="human_scores")
            metric, human = np.ascontiguousarray(metric[:, complete]), np.ascontiguousarray(human[:, complete])
        matrices[name] = metric
        human_out = human
    assert human_out is not None
    if human_out.shape[0] < 2:
        raise InputError("comparing metrics needs at least two systems", side="human_scores")
    return names, matrices, human_out


def _statistic(
    method: str, level: str, group_by: str | None, epsilon: float | None, sample_rate: float, replace_nans: bool
) -> Statistic:
    average_by = "none" if level == "system" else _AVERAGE_BY[group_by]
    if method in ("pearson", "spearman"):
        return Statistic(method, average_by, replace_nans_with_zeros=replace_nans)
    if method in ("kendall", "kendall_b", "kendall_c"):
        return Statistic(
            "kendall", average_by, variant="c" if method == "kendall_c" else "b", replace_nans_with_zeros=replace_nans
        )
    if method == "acc_eq":
        if epsilon is None:
            return Statistic("acc_eq", average_by, variant="acc23", sample_rate=sample_rate)
        return Statistic(
            "kendall_variants",
            average_by,
            variant="acc23",
            epsilon=float(epsilon),
            replace_nans_with_zeros=replace_nans,
        )
    return Statistic(method)


def _value(
    statistic: Statistic, human: np.ndarray, metric: np.ndarray, rs: np.random.RandomState
) -> tuple[float, float | None]:
    """The metric's statistic as ``CompareMetrics`` orders by (``AverageCorrelation`` or the SPA/accuracy wrapper)."""
    from nlpeval.correlation.average import average_correlation
    from nlpeval.correlation.spa import soft_pairwise_accuracy
    from nlpeval.correlation.tau_ties import tie_threshold_search

    fn = statistic.function
    if fn == "spa":
        return soft_pairwise_accuracy(human, metric), None
    if fn == "pairwise_accuracy":
        h, m = human.ravel(), metric.ravel()
        i, j = np.triu_indices(len(h), 1)
        agree = int((np.sign(h[i] - h[j]) == np.sign(m[i] - m[j])).sum())
        return agree / len(i), None
    if fn == "acc_eq":
        search = tie_threshold_search(
            human,
            metric,
            variant=statistic.variant,
            average_by=statistic.average_by,
            sample_rate=statistic.sample_rate,
            random_state=rs,
        )
        return search.statistic, search.epsilon
    if fn == "kendall_variants":
        res = average_correlation(
            human,
            metric,
            "kendall_variants",
            average_by=statistic.average_by,
            variant=statistic.variant,
            epsilon=statistic.epsilon,
            replace_nans_with_zeros=statistic.replace_nans_with_zeros,
        )
        return res.statistic, statistic.epsilon
    res = average_correlation(
        human,
        metric,
        fn,
        average_by=statistic.average_by,
        variant=statistic.variant,
        replace_nans_with_zeros=statistic.replace_nans_with_zeros,
    )
    return res.statistic, None


def compare_metrics(
    metric_scores: Mapping[str, Any],
    human_scores: Any,
    *,
    level: str = "segment",
    method: str = "acc_eq",
    group_by: str | None = "item",
    k: int = 1000,
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    pval: float = 0.05,
    perm_test: str | None = None,
    epsilon: float | None = None,
    sample_rate: float = 1.0,
    replace_nans_with_zeros: bool = False,
    williams: bool = False,
    seed: int | None = 12345,
) -> MetricComparison:
    """Rank metrics by agreement with humans, with PERM-BOTH significance clusters (``data.CompareMetrics``).

    Parameters
    ----------
    metric_scores : mapping
        Metric name -> its scores: systems x items (or system name -> per-item scores);
        at system level for correlations also one score per system (a systems x items
        matrix is averaged per system, human scores over judged items).
    human_scores : array_like or mapping
        Systems x items, NaN where not judged.
    level, method, group_by
        As :func:`~nlpeval.correlation.meta_evaluate`: ``method`` is ``"acc_eq"``
        (segment; WMT23-25 with ``group_by="item"``), ``"spa"`` (system; WMT24-25),
        ``"pairwise_accuracy"`` (system; WMT22-23), ``"pearson"``, ``"spearman"``,
        ``"kendall"``/``"kendall_b"``/``"kendall_c"``.
    k, block_size, early_min, early_max : int, int, float, float
        Resamples per pair and early stopping (``PermutationSigDiffParams``; WMT tasks use
        ``block_size=100``). ``k=0`` ranks without tests (every metric its own rank).
    pval : float
        Significance level of the clusters.
    perm_test : {"scores", "pairs"} or None
        ``"scores"``: PERM-BOTH over metric scores (``PermutationSigDiff``); ``"pairs"``:
        swap pairwise comparisons (``PairwisePermutationSigDiff``, acc_eq only). None:
        ``"pairs"`` for acc_eq (as the WMT23-25 tasks), else ``"scores"``.
    epsilon : float or None
        acc_eq's metric tie threshold; None searches it per metric (and, with
        ``perm_test="scores"``, per resample, as ``KendallWithTiesOpt`` does).
    sample_rate : float
        acc_eq's threshold search over a share of pairs (mt-metrics-eval's default is 0.1; WMT: 1.0).
    replace_nans_with_zeros : bool
        Count undefined group values as 0 instead of dropping them.
    williams : bool
        Also Williams' test between every pair (Pearson/Spearman/Kendall methods).
    seed : int or None
        Legacy ``np.random.RandomState`` seed of every draw (mt-metrics-eval's
        ``np.random.seed``); the same seed gives the same draws, pair after pair.

    Returns
    -------
    MetricComparison

    Examples
    --------
    >>> human = [[-1, -3, 0, -5], [-2, -1, -4, -6], [-8, -9, -3, -7]]
    >>> a = [[0.6, 0.4, 0.7, 0.3], [0.5, 0.7, 0.3, 0.2], [0.2, 0.1, 0.4, 0.3]]
    >>> b = [[0.1, 0.4, 0.2, 0.3], [0.5, 0.1, 0.3, 0.2], [0.2, 0.6, 0.4, 0.3]]
    >>> cmp = compare_metrics({"a": a, "b": b}, human, k=100)
    >>> cmp.metrics, [round(cmp.statistics[m], 4) for m in cmp.metrics]
    (('a', 'b'), [0.8333, 0.25])
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if level not in ("system", "segment"):
        raise ValueError(f"level must be 'system' or 'segment'; got {level!r}")
    if method == "acc_eq" and level != "segment":
        raise ValueError("acc_eq is a segment-level statistic: use level='segment'")
    if method in ("spa", "pairwise_accuracy") and level != "system":
        raise ValueError(f"{method} is a system-level statistic: use level='system'")
    if group_by not in _AVERAGE_BY:
        raise ValueError(f"group_by must be 'item', 'system' or None; got {group_by!r}")
    if perm_test is None:
        perm_test = "pairs" if method == "acc_eq" else "scores"
    if perm_test not in ("scores", "pairs"):
        raise ValueError(f"perm_test must be 'scores' or 'pairs'; got {perm_test!r}")
    if perm_test == "pairs" and method != "acc_eq":
        raise ValueError("perm_test='pairs' swaps pairwise comparisons: only for method='acc_eq'")
    if k < 0:
        raise ValueError("k must be >= 0")
    names, matrices, human = _prepare(metric_scores, human_scores, level, method)
    statistic = _statistic(method, level, group_by, epsilon, sample_rate, replace_nans_with_zeros)
    rs = np.random.RandomState(seed)

    values: dict[str, float] = {}
    epsilons: dict[str, float] = {}
    for name in names:
        value, eps = _value(statistic, human, matrices[name], rs)
        values[name] = float(value)
        if eps is not None:
            epsilons[name] = float(eps)
    order = [m for m, _ in sorted(values.items(), key=lambda item: (-item[1], item[0]))]
    n = len(order)
    sig = np.zeros((n, n))
    n_draws = np.zeros((n, n), dtype=np.int64)
    draws: dict[tuple[str, str], np.ndarray] = {}
    if k:
        average_by = statistic.average_by
        for i in range(n):
            for j in range(i + 1, n):
                # the oracle tests "metric i beats metric j": corr1 = metric j, corr2 = metric i
                better, worse = matrices[order[i]], matrices[order[j]]
                res: PermutationResult
                if perm_test == "pairs":
                    res = pairwise_permutation_sig_diff(
                        human,
                        worse,
                        better,
                        variant="acc23",
                        average_by=average_by,
                        k=k,
                        block_size=block_size,
                        early_min=early_min,
                        early_max=early_max,
                        # with every pair searched (no draws), each metric's epsilon is the one found above
                        epsilon1=epsilon if epsilon is not None or sample_rate < 1 else epsilons[order[j]],
                        epsilon2=epsilon if epsilon is not None or sample_rate < 1 else epsilons[order[i]],
                        sample_rate=sample_rate,
                        replace_nans_with_zeros=replace_nans_with_zeros,
                        random_state=rs,
                    )
                else:
                    res = permutation_sig_diff(
                        human,
                        worse,
                        better,
                        statistic,
                        k=k,
                        block_size=block_size,
                        early_min=early_min,
                        early_max=early_max,
                        random_state=rs,
                    )
                sig[i, j] = res.pvalue
                n_draws[i, j] = res.n_draws
                draws[(order[i], order[j])] = res.draws
    ranks = assign_ranks(sig, pval)
    williams_matrix = None
    if williams:
        if statistic.function not in ("pearson", "spearman", "kendall"):
            raise ValueError("williams=True needs a correlation method (pearson, spearman, kendall)")
        from nlpeval.correlation.average import williams_sig_diff

        williams_matrix = np.full((n, n), np.nan)
        function = statistic.function
        for i in range(n):
            for j in range(i + 1, n):
                williams_matrix[i, j] = williams_sig_diff(
                    human, matrices[order[i]], matrices[order[j]], function, average_by=statistic.average_by
                )[0]
    fields: dict[str, object] = {"level": level, "method": method, "group": group_by or "none", "k": k}
    if k:
        fields.update(test=perm_test, block=block_size, rs=seed)
    return MetricComparison(
        metrics=tuple(order),
        statistics={m: values[m] for m in order},
        ranks=dict(zip(order, ranks, strict=True)),
        pvalues=sig,
        n_draws=n_draws,
        level=level,
        method=method,
        group_by=group_by,
        pval=pval,
        signature=str(Signature.build(**fields)),
        draws=draws,
        epsilons={m: epsilons[m] for m in order} if epsilons else None,
        williams=williams_matrix,
    )


@dataclass(frozen=True)
class Task:
    """One task of a WMT task set: a language pair, a level, a statistic, and its weight."""

    lang: str
    level: str
    method: str
    group_by: str | None
    weight: float


def wmt_tasks(preset: str = "wmt24", langs: Sequence[str] | None = None) -> list[Task]:
    """The tasks of mt-metrics-eval's WMT23 / WMT24 task sets (``tasks.WMT23``, ``tasks.WMT24``), with weights.

    WMT23: system-level pairwise accuracy over all language pairs (weight: the number of
    pairs), then per pair system Pearson, segment Pearson (no grouping) and segment acc_eq
    (by item), weight 1 each; normalised. WMT24 (and WMT25): per pair system SPA and
    segment acc_eq (by item), equal weights. Pairs are sorted.

    Examples
    --------
    >>> [(t.lang, t.method, round(t.weight, 4)) for t in wmt_tasks("wmt24", ["en-de", "ja-zh"])]
    [('en-de', 'spa', 0.25), ('en-de', 'acc_eq', 0.25), ('ja-zh', 'spa', 0.25), ('ja-zh', 'acc_eq', 0.25)]
    """
    if preset == "wmt23":
        langs = sorted(langs or ["en-de", "he-en", "zh-en"])
        tasks = [Task(",".join(langs), "system", "pairwise_accuracy", None, float(len(langs)))]
        for lang in langs:
            tasks.append(Task(lang, "system", "pearson", None, 1.0))
            tasks.append(Task(lang, "segment", "pearson", None, 1.0))
            tasks.append(Task(lang, "segment", "acc_eq", "item", 1.0))
    elif preset in ("wmt24", "wmt25"):
        default = ["en-de", "en-es", "ja-zh"] if preset == "wmt24" else None
        if langs is None and default is None:
            raise ValueError("wmt25: give the language pairs")
        langs = sorted(langs or default or [])
        tasks = []
        for lang in langs:
            tasks.append(Task(lang, "system", "spa", None, 1.0))
            tasks.append(Task(lang, "segment", "acc_eq", "item", 1.0))
    else:
        raise ValueError(f"preset must be 'wmt23', 'wmt24' or 'wmt25'; got {preset!r}")
    total = sum(t.weight for t in tasks)
    return [Task(t.lang, t.level, t.method, t.group_by, t.weight / total) for t in tasks]


def average_ranks(comparisons: Sequence[MetricComparison], weights: Sequence[float] | None = None) -> dict[str, float]:
    """Weighted average cluster rank of the metrics present in every task (``TaskSetResults.AverageRanks``).

    Parameters
    ----------
    comparisons : sequence of MetricComparison
        One per task.
    weights : sequence of float or None
        One per task (e.g. from :func:`wmt_tasks`); None weights tasks equally.

    Returns
    -------
    dict
        Metric -> average rank, best (lowest) first; ties keep first-seen order.

    Examples
    --------
    >>> a = compare_metrics({"x": [1, 2, 3], "y": [3, 1, 2]}, [1, 2, 3], level="system", method="pearson", k=0)
    >>> average_ranks([a, a])
    {'x': 1.0, 'y': 2.0}
    """
    if not comparisons:
        raise ValueError("average_ranks needs at least one comparison")
    if weights is None:
        weights = [1 / len(comparisons)] * len(comparisons)
    if len(weights) != len(comparisons):
        raise ValueError(f"{len(weights)} weights for {len(comparisons)} comparisons")
    collected: dict[str, list[float]] = {}
    for comparison, weight in zip(comparisons, weights, strict=True):
        for metric in comparison.metrics:
            collected.setdefault(metric, []).append(comparison.ranks[metric] * weight)
    totals = {m: sum(v) for m, v in collected.items() if len(v) == len(comparisons)}
    if not totals:
        return {}
    return dict(sorted(totals.items(), key=lambda item: item[1]))


__all__ = ["MetricComparison", "Task", "assign_ranks", "average_ranks", "compare_metrics", "wmt_tasks"]
