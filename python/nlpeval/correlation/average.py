"""Correlations averaged over groups, pairwise agreement and Williams' test, as mt-metrics-eval computes them.

:func:`average_correlation` is ``stats.AverageCorrelation``: the scores (systems x
items, NaN for unjudged human cells) are correlated as one flattened vector
(``average_by="none"``), per system (``"sys"``) or per item (``"item"``), and the
group values averaged. Groups with fewer than two judged cells are skipped; a NaN
group value (constant scores) is dropped, or counted as 0 with
``replace_nans_with_zeros``; ``macro=False`` weights groups by their size.

Examples
--------
>>> round(average_correlation([[1, 2, 3], [4, 5, 6]], [[2, 1, 4], [3, 3, 7]], "pearson").statistic, 3)
0.776
>>> average_correlation([[1, 2, 3], [4, 5, 6]], [[2, 1, 4], [3, 3, 7]], "kendall", average_by="item").statistic
1.0
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.correlation.tau_ties import (
    as_matrix,
    check_average_by,
    groups,
    kendall_variant_groups,
    tie_threshold_search,
)

#: correlation functions of ``average_correlation`` (scipy's and mt-metrics-eval's Kendall variants)
FUNCTIONS = ("pearson", "spearman", "kendall", "kendall_variants", "acc_eq")


@dataclass(frozen=True)
class AveragedCorrelation:
    """An averaged correlation.

    Attributes
    ----------
    statistic : float
        The (weighted) average over groups; 0 when no group counts (as mt-metrics-eval).
    pvalue : float
        The same average of the groups' p-values (0 for the Kendall variants).
    n : float
        The averaging denominator: groups counted (or cells, with ``macro=False``).
    epsilon : float or None
        The metric tie threshold used by the Kendall variants / acc_eq.
    """

    statistic: float
    pvalue: float
    n: float
    epsilon: float | None = None

    def __iter__(self):
        return iter((self.statistic, self.pvalue, self.n))


def _scipy_value(function: str, x: np.ndarray, y: np.ndarray, variant: str) -> tuple[float, float]:
    import scipy.stats

    if function in ("pearson", "spearman") and (np.all(x == x[0]) or np.all(y == y[0])):
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if function == "pearson":
            result = scipy.stats.pearsonr(x, y)
        elif function == "spearman":
            result = scipy.stats.spearmanr(x, y)
        else:
            result = scipy.stats.kendalltau(x, y, variant=variant)
    return float(result[0]), float(result[1])


def average_correlation(
    human_scores: object,
    metric_scores: object,
    function: str = "pearson",
    *,
    average_by: str = "none",
    variant: str = "b",
    epsilon: float | None = 0.0,
    replace_nans_with_zeros: bool = False,
    macro: bool = True,
    sample_rate: float = 1.0,
    random_state: np.random.RandomState | int | None = None,
) -> AveragedCorrelation:
    """A correlation of metric with human scores, averaged over groups (``stats.AverageCorrelation``).

    Parameters
    ----------
    human_scores, metric_scores : array_like
        Systems x items (NaN: not judged); a 1-D vector is one row.
    function : {"pearson", "spearman", "kendall", "kendall_variants", "acc_eq"}
        SciPy's ``pearsonr``/``spearmanr``/``kendalltau`` (with ``variant`` "b"/"c"),
        ``stats.KendallVariants`` (``variant`` b/c/23/acc23 with a metric tie ``epsilon``),
        or ``stats.KendallWithTiesOpt`` (``"acc_eq"``: ``variant`` "acc23" or "23",
        ``epsilon=None`` searches the tie threshold, with ``sample_rate``).
    average_by : {"none", "sys", "item"}
    replace_nans_with_zeros, macro : bool
        As mt-metrics-eval (see the module notes).

    Returns
    -------
    AveragedCorrelation

    Examples
    --------
    >>> res = average_correlation([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], "kendall_variants", variant="acc23", epsilon=2)
    >>> res.statistic
    0.4
    >>> average_correlation([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], "acc_eq", variant="acc23", epsilon=None).statistic
    0.7
    """
    if function not in FUNCTIONS:
        raise ValueError(f"function must be one of {', '.join(FUNCTIONS)}; got {function!r}")
    check_average_by(average_by)
    human = as_matrix(human_scores, "human_scores")
    metric = as_matrix(metric_scores, "metric_scores")
    if human.shape != metric.shape:
        raise InputError(f"shape {metric.shape} differs from human_scores' {human.shape}", side="metric_scores")
    if function == "acc_eq":
        acc_variant = variant if variant in ("acc23", "23") else "acc23"
        if epsilon is None:
            search = tie_threshold_search(
                human,
                metric,
                variant=acc_variant,
                average_by=average_by,
                sample_rate=sample_rate,
                random_state=random_state,
            )
            return AveragedCorrelation(search.statistic, 0.0, float(groups(human, average_by).shape[0]), search.epsilon)
        function, variant = "kendall_variants", acc_variant
    h, m = groups(human, average_by), groups(metric, average_by)
    sizes = (~np.isnan(h)).sum(axis=1)
    if function == "kendall_variants":
        eps = 0.0 if epsilon is None else float(epsilon)
        values = kendall_variant_groups(h, m, variant, eps)
        pvalues = np.zeros(len(values))
    else:
        eps = None
        values = np.full(len(h), np.nan)
        pvalues = np.full(len(h), np.nan)
        for row in np.flatnonzero(sizes >= 2):
            keep = ~np.isnan(h[row])
            values[row], pvalues[row] = _scipy_value(function, h[row][keep], m[row][keep], variant)
    used = sizes >= 2
    weights = np.ones(len(values)) if macro else sizes.astype(np.float64)
    total_corr, total_p, n = 0.0, 0.0, 0.0
    for g in np.flatnonzero(used).tolist():
        k = 1 if macro else int(weights[g])
        value = float(values[g])
        if not math.isnan(value):
            total_corr += k * value
            total_p += k * float(pvalues[g])
            n += k
        elif replace_nans_with_zeros:
            n += k
    if not n:
        return AveragedCorrelation(0.0, 0.0, 0.0, eps)
    return AveragedCorrelation(total_corr / n, total_p / n, n, eps)


def agreement(human_scores: object, metric_scores: object) -> tuple[int, int]:
    """Pairs ordered alike by human and metric scores, and pairs compared (``stats.Agreement``).

    Pairs with a NaN human score are skipped; a pair agrees when the signs of the two
    differences are equal (both tied counts as agreement).

    Examples
    --------
    >>> agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2])
    (5, 10)
    """
    human = np.asarray(human_scores, dtype=np.float64).ravel()
    metric = np.asarray(metric_scores, dtype=np.float64).ravel()
    if human.shape != metric.shape:
        raise InputError(f"{len(metric)} metric scores for {len(human)} human scores", side="metric_scores")
    keep = ~np.isnan(human)
    h, m = human[keep], metric[keep]
    first, second = np.triu_indices(len(h), 1)
    same = np.sign(h[first] - h[second]) == np.sign(m[first] - m[second])
    return int(same.sum()), len(first)


def williams_test(r12: float, r13: float, r23: float, n: int, *, one_sided: bool = True) -> float:
    """Williams' test p-value for the difference of two dependent correlations (``stats.WilliamsTest``).

    ``r12``, ``r13``: each metric's correlation with humans; ``r23``: the metrics'
    correlation with each other; ``n``: observations.

    Examples
    --------
    >>> round(williams_test(0.999, 0.987, 0.99, 5), 3)
    0.053
    """
    import scipy.stats

    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar**2 * (1 - r23) ** 3)
    p = scipy.stats.t.sf(np.abs(tnum / tden), n - 3)
    return float(p if one_sided else 2 * p)


def williams_sig_diff(
    human_scores: object,
    metric1_scores: object,
    metric2_scores: object,
    function: str = "pearson",
    *,
    average_by: str = "none",
    one_sided: bool = True,
) -> tuple[float, float, float]:
    """``(p, r1, r2)``: Williams' test that metric 1 and metric 2 correlate differently (``stats.WilliamsSigDiff``).

    ``n`` is the number of cells (judged or not), as mt-metrics-eval counts it.

    Examples
    --------
    >>> p, r1, r2 = williams_sig_diff([1, 2, 3, 4, 5], [1.1, 2, 3.1, 4, 5.1], [1.5, 2, 3.1, 4, 5.5])
    >>> round(p, 3), round(r1, 3), round(r2, 3)
    (0.019, 0.999, 0.987)
    """
    human = as_matrix(human_scores, "human_scores")
    m1 = as_matrix(metric1_scores, "metric1_scores")
    m2 = as_matrix(metric2_scores, "metric2_scores")
    r1 = average_correlation(human, m1, function, average_by=average_by).statistic
    r2 = average_correlation(human, m2, function, average_by=average_by).statistic
    r12 = average_correlation(m1, m2, function, average_by=average_by).statistic
    return williams_test(r1, r2, r12, human.size, one_sided=one_sided), r1, r2
