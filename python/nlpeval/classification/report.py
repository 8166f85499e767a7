"""The seed's classification report: confusion matrix, per-class table, averages, and warnings in words.

The report is a table model (:class:`ClassificationReport`); text, JSON, CSV,
Markdown and LaTeX renderers live in :mod:`nlpeval.classification.render`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from nlpeval.classification._targets import as_array
from nlpeval.classification.matrix import ConfusionMatrix
from nlpeval.classification.ranking import _binary_ap, _binary_auc, _binary_interpolated_ap, _scores
from nlpeval.core.zero_division import ZeroDivision

#: a class with fewer gold samples than this gets a warning about uncertain per-class figures
FEW_SAMPLES = 10
#: the largest class at least this many times the smallest counts as imbalanced
IMBALANCE_RATIO = 3.0


@dataclass(frozen=True)
class ClassRow:
    """One class: its label, precision, recall, F1 (and score-based figures when scores were given)."""

    label: Any
    precision: float
    recall: float
    f1: float
    support: float
    predicted: float
    average_precision: float | None = None
    interpolated_ap: float | None = None
    roc_auc: float | None = None


@dataclass(frozen=True)
class ClassificationReport:
    """Everything about one classifier's predictions, with warnings about misleading figures.

    Build it with :func:`report`. ``str(report)`` prints the confusion matrix,
    the per-class table, the averages and the warnings.

    Attributes
    ----------
    confusion : ConfusionMatrix
        Rows observed, columns predicted.
    rows : tuple of ClassRow
        Per-class precision, recall, F1, support, predicted count (and AP,
        11-point interpolated AP, ROC AUC one-vs-rest when scores were given).
    summary : dict
        Accuracy, balanced accuracy, macro/weighted/micro precision, recall
        and F1, Matthews correlation, Cohen's kappa, majority baseline, and, with
        scores, the (non-interpolated) average precision, the 11-point
        interpolated AP and ROC AUC (macro over classes for more than two).
    warnings : tuple of str
        Plain-language warnings about the known weaknesses that apply.
    zero_division : {"warn", 0, 1, nan}
        How 0/0 ratios were resolved (NaN by default: undefined is shown as n/a).
    """

    confusion: ConfusionMatrix
    rows: tuple[ClassRow, ...]
    summary: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    zero_division: ZeroDivision = math.nan

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python representation (for JSON)."""
        return {
            "labels": self.confusion.labels.tolist(),
            "confusion_matrix": self.confusion.matrix.tolist(),
            "classes": [
                {k: _plain(v) for k, v in row.__dict__.items() if v is not None or k in ("precision", "recall")}
                for row in self.rows
            ],
            "summary": {k: _plain(v) for k, v in self.summary.items()},
            "warnings": list(self.warnings),
        }

    def render(self, fmt: str = "text", *, digits: int = 4) -> str:
        """The report as ``"text"``, ``"json"``, ``"csv"``, ``"markdown"`` or ``"latex"``."""
        from nlpeval.classification.render import render

        return render(self, fmt, digits=digits)

    def __str__(self) -> str:
        return self.render("text")


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def _fmt_label(label: Any) -> str:
    return f"'{label}'" if isinstance(label, str) else str(label)


def _ranking(
    cm: ConfusionMatrix, y_true: np.ndarray, y_score: Any, pos_label: Any
) -> tuple[dict[str, list[float]], dict[str, float]]:
    scores = _scores(y_score)
    labels = cm.labels
    if scores.shape[0] != y_true.shape[0]:
        raise ValueError(f"{scores.shape[0]} score rows for {y_true.shape[0]} samples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if scores.ndim == 1 or scores.shape[1] == 1:
            if labels.size != 2:
                raise ValueError(f"one score per sample needs exactly two classes; found {labels.size}")
            positive = labels[-1] if pos_label is None else pos_label
            if positive not in labels.tolist():
                raise ValueError(f"pos_label={positive!r} is not one of the labels {labels.tolist()}")
            truth = y_true == positive
            s = scores.reshape(-1)
            per_class = {
                "average_precision": [_binary_ap(~truth, -s, None), _binary_ap(truth, s, None)],
                "interpolated_ap": [_binary_interpolated_ap(~truth, -s, None), _binary_interpolated_ap(truth, s, None)],
                "roc_auc": [_binary_auc(truth, s, None)] * 2,
            }
            index = 1 if positive == labels[-1] else 0
            summary = {key: values[index] for key, values in per_class.items()}
            return per_class, summary
        if scores.shape[1] != labels.size:
            raise ValueError(f"score rows have {scores.shape[1]} columns for {labels.size} classes {labels.tolist()}")
        per_class = {"average_precision": [], "interpolated_ap": [], "roc_auc": []}
        for c, label in enumerate(labels):
            truth = y_true == label
            per_class["average_precision"].append(_binary_ap(truth, scores[:, c], None))
            per_class["interpolated_ap"].append(_binary_interpolated_ap(truth, scores[:, c], None))
            per_class["roc_auc"].append(_binary_auc(truth, scores[:, c], None))
    present = cm.support > 0
    summary = {key: float(np.mean(np.asarray(v)[present])) for key, v in per_class.items()}
    return per_class, summary


def _warnings(cm: ConfusionMatrix, summary: dict[str, float], zero_division: ZeroDivision) -> list[str]:
    notes: list[str] = []
    labels, support, predicted = cm.labels.tolist(), cm.support, cm.predicted
    total = cm.total
    shown = (
        "n/a"
        if isinstance(zero_division, float) and math.isnan(zero_division)
        else ("0" if zero_division == "warn" else str(zero_division))
    )
    observed = support > 0
    if observed.sum() == 1:
        notes.append(
            f"Only one class ({_fmt_label(labels[int(np.argmax(support))])}) occurs in the gold labels: recall of "
            "every other class is undefined, and so are balanced accuracy and ROC AUC in any useful sense."
        )
    if observed.sum() >= 2:
        big, small = int(np.argmax(support)), int(np.argmin(np.where(observed, support, np.inf)))
        if support[big] >= IMBALANCE_RATIO * support[small]:
            share = support[big] / total
            notes.append(
                f"Classes are imbalanced: {_fmt_label(labels[big])} has {share:.1%} of the gold labels and "
                f"{_fmt_label(labels[small])} {support[small] / total:.1%}. Accuracy ({summary['accuracy']:.4f}) "
                f"and micro averages are dominated by the large classes: always predicting {_fmt_label(labels[big])} "
                f"would already score {share:.4f}. Report macro-averaged F1, balanced accuracy or the per-class "
                "figures as well."
            )
        if summary["accuracy"] <= summary["majority_baseline"] and cm.n_classes > 1:
            notes.append(
                f"Accuracy {summary['accuracy']:.4f} does not beat the majority-class baseline "
                f"{summary['majority_baseline']:.4f} (always predicting {_fmt_label(labels[big])})."
            )
    for i, label in enumerate(labels):
        if support[i] > 0 and predicted[i] == 0:
            notes.append(
                f"Class {_fmt_label(label)} is never predicted: its precision is undefined (0/0, shown as {shown}) "
                f"and its recall is 0 although it has {support[i]:g} gold samples."
            )
        elif support[i] == 0 and predicted[i] > 0:
            notes.append(
                f"Class {_fmt_label(label)} never occurs in the gold labels but is predicted {predicted[i]:g} times: "
                f"its recall is undefined (0/0, shown as {shown}) and its precision is 0."
            )
    few = [f"{_fmt_label(labels[i])} ({support[i]:g})" for i in range(cm.n_classes) if 0 < support[i] < FEW_SAMPLES]
    if few:
        notes.append(
            f"Few gold samples for {', '.join(few)}: per-class precision, recall and F1 of these classes are "
            "very uncertain; a bootstrap interval would be wide."
        )
    return notes


def report(
    y_true: Any,
    y_pred: Any,
    *,
    y_score: Any = None,
    labels: Any = None,
    pos_label: Any = None,
    sample_weight: Any = None,
    zero_division: ZeroDivision = math.nan,
) -> ClassificationReport:
    """Build a :class:`ClassificationReport` of predictions (and, optionally, scores).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Gold and predicted class labels.
    y_score : array-like, optional
        Scores: one per sample for two classes (of ``pos_label``, default the
        larger label), or one column per class (in ``labels`` order, default sorted).
        Adds average precision (non-interpolated), the 11-point interpolated AP
        and ROC AUC per class (one-vs-rest).
    labels : sequence, optional
        Classes in display order (default: sorted union of both inputs).
    pos_label : label, optional
        Positive class for one score per sample.
    sample_weight : array-like, optional
        Weight of each sample (label metrics only).
    zero_division : {"warn", 0, 1, nan}
        Value of 0/0 ratios; NaN (the default) shows them as n/a and explains why.

    Examples
    --------
    >>> r = report(["pos", "neg", "neg", "neg", "neg"], ["neg", "neg", "neg", "neg", "neg"])
    >>> r.summary["accuracy"], r.rows[1].label, r.rows[1].precision
    (0.8, 'pos', nan)
    >>> print(r.warnings[2][:60])
    Class 'pos' is never predicted: its precision is undefined (
    """
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, labels=labels, sample_weight=sample_weight)
    n_samples = as_array(y_true, "y_true").shape[0]
    left_out = n_samples - int(ConfusionMatrix.from_predictions(y_true, y_pred, labels=labels).total)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # no average: one value per class
        precision = cast(np.ndarray, cm.precision(zero_division=zero_division))
        recall = cast(np.ndarray, cm.recall(zero_division=zero_division))
        f1 = cast(np.ndarray, cm.f1(zero_division=zero_division))
        summary: dict[str, float] = {
            "accuracy": cm.accuracy(),
            "balanced_accuracy": cm.balanced_accuracy(),
            "majority_baseline": float(cm.support.max() / cm.total) if cm.total else math.nan,
        }
        for average in ("macro", "weighted", "micro"):
            # an average: one number (NumPy's float64, a float)
            summary[f"{average}_precision"] = cast(float, cm.precision(average=average, zero_division=zero_division))
            summary[f"{average}_recall"] = cast(float, cm.recall(average=average, zero_division=zero_division))
            summary[f"{average}_f1"] = cast(float, cm.f1(average=average, zero_division=zero_division))
        summary["matthews_corrcoef"] = cm.matthews()
        summary["cohen_kappa"] = cm.kappa()
    per_class: dict[str, list[float]] = {}
    if y_score is not None:
        truth = as_array(y_true, "y_true").reshape(-1)
        per_class, ranking = _ranking(cm, truth, y_score, pos_label)
        summary["average_precision"] = ranking["average_precision"]
        summary["interpolated_ap_11pt"] = ranking["interpolated_ap"]
        summary["roc_auc"] = ranking["roc_auc"]
    rows = tuple(
        ClassRow(
            label=label,
            precision=float(precision[i]),
            recall=float(recall[i]),
            f1=float(f1[i]),
            support=cm.support[i].item(),
            predicted=cm.predicted[i].item(),
            average_precision=per_class["average_precision"][i] if per_class else None,
            interpolated_ap=per_class["interpolated_ap"][i] if per_class else None,
            roc_auc=per_class["roc_auc"][i] if per_class else None,
        )
        for i, label in enumerate(cm.labels.tolist())
    )
    notes = _warnings(cm, summary, zero_division)
    if left_out:
        notes.insert(
            0,
            f"{left_out} of {n_samples} samples have a gold or predicted label outside labels= and are left out "
            "of every figure.",
        )
    return ClassificationReport(cm, rows, summary, tuple(notes), zero_division)
