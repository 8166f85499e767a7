"""scikit-learn's ``classification_report``: the same text table (or dict), character for character."""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np

from nlpeval.classification._targets import check_targets
from nlpeval.classification.scores import precision_recall_fscore_support
from nlpeval.core.zero_division import ZeroDivision

_HEADERS = ("precision", "recall", "f1-score", "support")


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: ZeroDivision = "warn",
) -> str | dict[str, Any]:
    """Per-label precision, recall, F1 and support with micro/macro/weighted averages.

    Same output as ``sklearn.metrics.classification_report``. For the seed's
    report (confusion matrix, warnings in words) see
    :func:`nlpeval.classification.report`.

    Parameters
    ----------
    y_true, y_pred : array-like
        Class labels, or 0/1 indicator matrices.
    labels : array-like, optional
        Labels to include, in this order.
    target_names : list of str, optional
        Display names matching ``labels``.
    sample_weight : array-like, optional
        Weight of each sample.
    digits : int
        Decimals in the text table.
    output_dict : bool
        Return a nested dict instead of text.
    zero_division : {"warn", 0, 1, nan}
        Value for 0/0 ratios.

    Returns
    -------
    str or dict

    Examples
    --------
    >>> print(classification_report([0, 1, 2, 2, 2], [0, 0, 2, 2, 1], target_names=["a", "b", "c"]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               a       0.50      1.00      0.67         1
               b       0.00      0.00      0.00         1
               c       1.00      0.67      0.80         3
    <BLANKLINE>
        accuracy                           0.60         5
       macro avg       0.50      0.56      0.49         5
    weighted avg       0.70      0.60      0.61         5
    <BLANKLINE>
    """
    targets = check_targets(y_true, y_pred)
    if labels is None:
        labels = targets.labels
        labels_given = False
    else:
        labels = np.asarray(labels)
        labels_given = True
    present = set(targets.labels.tolist())
    micro_is_accuracy = targets.kind in ("binary", "multiclass") and (
        not labels_given or set(np.asarray(labels).tolist()) >= present
    )
    if target_names is not None and len(labels) != len(target_names):
        if labels_given:
            warnings.warn(
                f"labels size, {len(labels)}, does not match size of target_names, {len(target_names)}",
                UserWarning,
                stacklevel=2,
            )
        else:
            raise ValueError(
                f"Number of classes, {len(labels)}, does not match size of target_names, {len(target_names)}. "
                "Try specifying the labels parameter"
            )
    if target_names is None:
        target_names = [f"{label}" for label in np.asarray(labels).tolist()]
    common: dict[str, Any] = {"labels": labels, "sample_weight": sample_weight, "zero_division": zero_division}
    p, r, f1, support = cast(  # average=None: one value per label
        "tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]",
        precision_recall_fscore_support(y_true, y_pred, average=None, **common),
    )
    rows = list(zip(target_names, p, r, f1, support, strict=False))
    averages = (
        ("micro", "macro", "weighted", "samples")
        if targets.kind == "multilabel-indicator"
        else (
            "micro",
            "macro",
            "weighted",
        )
    )
    total = np.sum(support)
    summary: list[tuple[str, list[Any]]] = []
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else f"{average} avg"
        avg_p, avg_r, avg_f1, _ = precision_recall_fscore_support(y_true, y_pred, average=average, **common)
        summary.append((heading, [avg_p, avg_r, avg_f1, total]))
    if output_dict:
        out: dict[str, Any] = {
            name: dict(zip(_HEADERS, [float(v) for v in values], strict=True)) for name, *values in rows
        }
        for heading, values in summary:
            out[heading] = dict(zip(_HEADERS, [float(v) for v in values], strict=True))
        if "accuracy" in out:
            out["accuracy"] = out["accuracy"]["precision"]
        return out
    width = max(max(len(name) for name in target_names), len("weighted avg"), digits)
    lines = [" " * width + " " + "".join(f" {h:>9}" for h in _HEADERS), ""]
    for name, prec, rec, f, sup in rows:
        lines.append(f"{name:>{width}s} " + "".join(f" {v:>9.{digits}f}" for v in (prec, rec, f)) + f" {sup:>9}")
    lines.append("")
    for heading, (avg_p, avg_r, avg_f1, sup) in summary:
        if heading == "accuracy":
            lines.append(f"{heading:>{width}s} " + " " * 20 + f" {avg_f1:>9.{digits}f} {sup:>9}")
        else:
            lines.append(
                f"{heading:>{width}s} " + "".join(f" {v:>9.{digits}f}" for v in (avg_p, avg_r, avg_f1)) + f" {sup:>9}"
            )
    return "\n".join(lines) + "\n"
