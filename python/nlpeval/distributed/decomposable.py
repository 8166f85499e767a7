"""Which metrics decompose into mergeable statistics, and what to use when one does not."""

from __future__ import annotations

from typing import Any

#: Metrics whose score needs every row at once, with the reason and the exact alternative if one exists.
NOT_DECOMPOSABLE: dict[str, str] = {
    "spearman": "a rank correlation needs the ranks of all rows",
    "kendall": "a rank correlation needs every pair of rows",
    "pearson_r": "use nlpeval.dask.regression, whose sums merge exactly",
    "meta_evaluate": "rank correlations need all rows",
    "krippendorff_alpha": "its expected disagreement needs the pairable values of all units at once",
    "fleiss_kappa": "use per-unit category counts gathered on one machine",
    "cohen_kappa": "use nlpeval.dask.confusion_matrix (a sum) and ConfusionMatrix.kappa()",
    "roc_auc": "exact ROC AUC needs all scores sorted; use nlpeval.dask.binned_curve (score histograms, "
    "the bin count in the signature)",
    "roc_auc_score": "exact ROC AUC needs all scores sorted; use nlpeval.dask.binned_curve",
    "average_precision": "exact AP needs all scores sorted; use nlpeval.dask.binned_curve",
    "average_precision_score": "exact AP needs all scores sorted; use nlpeval.dask.binned_curve",
    "median_absolute_error": "a median needs all rows",
}


def explain(metric: Any) -> str:
    """One line saying why ``metric`` cannot be computed in pieces.

    Examples
    --------
    >>> explain(len)
    'len does not decompose into mergeable statistics (not a CorpusMetric)'
    """
    name = getattr(metric, "__name__", None) or getattr(metric, "name", None) or type(metric).__name__
    reason = NOT_DECOMPOSABLE.get(str(name))
    if reason is None:
        return f"{name} does not decompose into mergeable statistics (not a CorpusMetric)"
    return f"{name} does not decompose into mergeable statistics: {reason}"


def is_decomposable(metric: Any) -> bool:
    """Whether ``metric`` is a corpus metric whose statistics merge (every ``CorpusMetric`` does).

    Examples
    --------
    >>> import nlpeval
    >>> is_decomposable(nlpeval.CHRF()), is_decomposable(nlpeval.krippendorff_alpha)
    (True, False)
    """
    from nlpeval.core.metric import CorpusMetric

    return isinstance(metric, CorpusMetric)
