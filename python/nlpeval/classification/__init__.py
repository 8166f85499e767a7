"""Classification metrics: scikit-learn's names and numbers, plus the seed's confusion-matrix views.

* scikit-learn compatible (same signatures, same numbers): :func:`confusion_matrix`,
  :func:`accuracy_score`, :func:`balanced_accuracy_score`, :func:`precision_score`,
  :func:`recall_score`, :func:`f1_score`, :func:`fbeta_score`,
  :func:`precision_recall_fscore_support`, :func:`classification_report`,
  :func:`matthews_corrcoef`, :func:`cohen_kappa_score`, :func:`log_loss`,
  :func:`precision_recall_curve`, :func:`average_precision_score`, :func:`roc_curve`,
  :func:`roc_auc_score`, :func:`auc`;
* beyond scikit-learn: :class:`ConfusionMatrix` (every label metric from a matrix,
  one-vs-rest 2x2 matrices), :class:`ConfusionMatrixAccumulator` (streaming),
  :func:`interpolated_average_precision` (11-point, labelled as interpolated),
  :func:`cross_entropy` and :func:`kl_divergence` (gold distributions), and
  :func:`report` (a :class:`ClassificationReport` that warns in words);
* plots (optional extra ``plot``): :func:`plot_confusion_matrix`,
  :func:`plot_precision_recall`, :func:`plot_roc`.

Examples
--------
>>> from nlpeval import classification as clf
>>> clf.f1_score(["a", "b", "b", "c"], ["a", "b", "c", "c"], average="macro")
0.7777777777777777
>>> clf.ConfusionMatrix.from_predictions(["a", "b", "b", "c"], ["a", "b", "c", "c"]).f1(average="macro")
0.7777777777777777
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from nlpeval.classification.counts import confusion_matrix
from nlpeval.classification.matrix import ConfusionMatrix, ConfusionMatrixAccumulator
from nlpeval.classification.probabilistic import cross_entropy, kl_divergence, log_loss
from nlpeval.classification.ranking import (
    auc,
    average_precision_score,
    interpolated_average_precision,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)
from nlpeval.classification.report import ClassificationReport, report
from nlpeval.classification.scores import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    fbeta_score,
    matthews_corrcoef,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from nlpeval.classification.sklearn_report import classification_report

#: plotting needs the optional matplotlib; loaded on first use
_PLOTS = ("plot_confusion_matrix", "plot_precision_recall", "plot_roc", "save_figure")

__all__ = [
    "ClassificationReport",
    "ConfusionMatrix",
    "ConfusionMatrixAccumulator",
    "accuracy_score",
    "auc",
    "average_precision_score",
    "balanced_accuracy_score",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "cross_entropy",
    "f1_score",
    "fbeta_score",
    "interpolated_average_precision",
    "kl_divergence",
    "log_loss",
    "matthews_corrcoef",
    "precision_recall_curve",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "report",
    "roc_auc_score",
    "roc_curve",
    *_PLOTS,
]

if TYPE_CHECKING:
    from nlpeval.classification.plots import (  # noqa: F401
        plot_confusion_matrix,
        plot_precision_recall,
        plot_roc,
        save_figure,
    )


def __getattr__(name: str) -> Any:
    if name in _PLOTS:
        return getattr(import_module("nlpeval.classification.plots"), name)
    raise AttributeError(f"module 'nlpeval.classification' has no attribute {name!r}")
