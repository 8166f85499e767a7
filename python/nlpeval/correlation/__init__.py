"""Correlation of metric scores with human judgements, and meta-evaluation.

:func:`pearson`, :func:`spearman` and :func:`kendall` return a
:class:`CorrelationResult` with ``.statistic`` and ``.pvalue`` equal to SciPy's
(ties included). :func:`kendall_like` is WMT's segment-level tau over
relative-ranking pairs; :func:`meta_evaluate` correlates a metric with humans at
system or segment level, with bootstrap confidence intervals over items, and
with WMT23-25's statistics exactly as google-research/mt-metrics-eval computes them:
``method="acc_eq"`` (tie-calibrated pairwise accuracy) and ``method="spa"`` (soft
pairwise accuracy). :func:`average_correlation` (``stats.AverageCorrelation`` with
Kendall variants b/c/23/acc23), :func:`tie_threshold_search`, :func:`soft_pairwise_accuracy`,
:func:`agreement` and :func:`williams_sig_diff` expose the pieces; :func:`compare_metrics`
ranks many metrics with PERM-BOTH significance clusters (:func:`permutation_sig_diff`,
:func:`pairwise_permutation_sig_diff`) and :func:`average_ranks` weights tasks (:func:`wmt_tasks`).

Examples
--------
>>> from nlpeval import correlation
>>> round(correlation.pearson([1, 2, 3, 4], [1, 3, 2, 4]).statistic, 4)
0.8
"""

from __future__ import annotations

from nlpeval.correlation.average import (
    AveragedCorrelation,
    agreement,
    average_correlation,
    williams_sig_diff,
    williams_test,
)
from nlpeval.correlation.coefficients import CorrelationResult, kendall, pearson, spearman
from nlpeval.correlation.compare import MetricComparison, assign_ranks, average_ranks, compare_metrics, wmt_tasks
from nlpeval.correlation.meta import MetaEvaluation, meta_evaluate
from nlpeval.correlation.pairs import KendallLikeResult, kendall_like, relative_ranking_pairs
from nlpeval.correlation.permutation import (
    PermutationResult,
    Statistic,
    pairwise_permutation_sig_diff,
    permutation_sig_diff,
)
from nlpeval.correlation.spa import pairwise_p_values, soft_pairwise_accuracy
from nlpeval.correlation.tau_ties import TieSearch, tie_threshold_search

__all__ = [
    "AveragedCorrelation",
    "CorrelationResult",
    "KendallLikeResult",
    "MetaEvaluation",
    "MetricComparison",
    "PermutationResult",
    "Statistic",
    "TieSearch",
    "agreement",
    "assign_ranks",
    "average_correlation",
    "average_ranks",
    "compare_metrics",
    "kendall",
    "kendall_like",
    "meta_evaluate",
    "pairwise_p_values",
    "pairwise_permutation_sig_diff",
    "pearson",
    "permutation_sig_diff",
    "relative_ranking_pairs",
    "soft_pairwise_accuracy",
    "spearman",
    "tie_threshold_search",
    "williams_sig_diff",
    "williams_test",
    "wmt_tasks",
]
