"""Correlation of metric scores with human judgements, and meta-evaluation.

:func:`pearson`, :func:`spearman` and :func:`kendall` return a
:class:`CorrelationResult` with ``.statistic`` and ``.pvalue`` equal to SciPy's
(ties included). :func:`kendall_like` is WMT's segment-level tau over
relative-ranking pairs; :func:`meta_evaluate` correlates a metric with humans at
system or segment level, with bootstrap confidence intervals over items.

Examples
--------
>>> from nlpeval import correlation
>>> round(correlation.pearson([1, 2, 3, 4], [1, 3, 2, 4]).statistic, 4)
0.8
"""

from __future__ import annotations

from nlpeval.correlation.coefficients import CorrelationResult, kendall, pearson, spearman
from nlpeval.correlation.meta import MetaEvaluation, meta_evaluate
from nlpeval.correlation.pairs import KendallLikeResult, kendall_like, relative_ranking_pairs

__all__ = [
    "CorrelationResult",
    "KendallLikeResult",
    "MetaEvaluation",
    "kendall",
    "kendall_like",
    "meta_evaluate",
    "pearson",
    "relative_ranking_pairs",
    "spearman",
]
