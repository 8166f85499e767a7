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


#: Corpus-metric classes whose reported score is not a function of merged statistics.
NOT_DECOMPOSABLE_CLASSES: dict[str, str] = {
    "nlpeval.metrics.rouge.rouge155:Rouge155": "ROUGE-1.5.5 reports the mean of its own bootstrap resamples, "
    "drawn over the whole corpus in its order; use flavor 'default' or 'rouge-score' (plain averages that merge)",
}


def class_reason(metric: Any) -> str | None:
    """Why a corpus metric's class does not decompose (``None`` when it does)."""
    for cls in type(metric).__mro__:
        reason = NOT_DECOMPOSABLE_CLASSES.get(f"{cls.__module__}:{cls.__qualname__}")
        if reason is not None:
            return f"{getattr(metric, 'name', cls.__name__)} ({cls.__name__}) does not decompose: {reason}"
    return None


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

    return isinstance(metric, CorpusMetric) and class_reason(metric) is None
