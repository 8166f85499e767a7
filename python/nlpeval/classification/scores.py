"""Label-based classification scores with scikit-learn's names, signatures and numbers.

Accuracy, balanced accuracy, precision / recall / F-beta (per label and
``average="binary" | "micro" | "macro" | "weighted" | "samples"``), Matthews
correlation and Cohen's kappa. Everything is computed from bincount sums; no
per-sample Python loop.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.classification._targets import Targets, check_targets, check_weights, positions
from nlpeval.classification.counts import ClassCounts, class_counts, confusion_counts, indicator_counts
from nlpeval.core.errors import UndefinedMetricWarning
from nlpeval.core.zero_division import ZeroDivision, check_zero_division, safe_divide

_AVERAGES = (None, "micro", "macro", "weighted", "samples", "binary")

#: the value returned per label, or averaged
Result = float | np.ndarray


def _check_zero_division(zero_division: ZeroDivision) -> ZeroDivision:
    check_zero_division(zero_division)
    return zero_division


def _divide(
    numerator: np.ndarray,
    denominator: np.ndarray,
    *,
    metric: str,
    modifier: str,
    average: str | None,
    warn_for: Sequence[str],
    zero_division: ZeroDivision,
) -> np.ndarray:
    """scikit-learn's ``_prf_divide``: 0/0 by policy; "warn" warns only for metrics in ``warn_for``."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    undefined = denominator == 0
    if not undefined.any():
        return numerator / denominator
    policy = zero_division
    if zero_division == "warn":
        if metric not in warn_for:
            policy = 0.0
        else:
            where = "for a sample" if average == "samples" else "for a label"
            if undefined.size > 1:
                where = "in samples" if average == "samples" else "in labels"
            noun = "label" if average == "samples" else "sample"
            warnings.warn(
                f"{metric.capitalize()} is ill-defined and set to 0.0 {where} with no {modifier} {noun}s. "
                "Pass zero_division to choose the value and silence this warning.",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            policy = 0.0
    return safe_divide(numerator, denominator, policy, what=metric)


def _nanaverage(values: np.ndarray, weights: np.ndarray | None) -> float:
    """Average ignoring NaN entries (NaN if all are NaN), as scikit-learn's ``_nanaverage``."""
    if values.shape[0] == 0:
        return math.nan
    mask = np.isnan(values)
    if mask.all():
        return math.nan
    if weights is None:
        return float(np.nanmean(values))
    kept, kept_weights = values[~mask], np.asarray(weights)[~mask]
    if np.sum(kept_weights) == 0:
        return float(np.average(kept))
    return float(np.average(kept, weights=kept_weights))


def _set_wise_labels(targets: Targets, average: str | None, labels: Any, pos_label: Any) -> Any:
    if average not in _AVERAGES:
        raise ValueError(f"average has to be one of {_AVERAGES}; got {average!r}")
    if average == "binary":
        if targets.kind != "binary":
            options = [a for a in _AVERAGES if a != "binary" and not (a == "samples" and targets.kind == "multiclass")]
            raise ValueError(f"Target is {targets.kind} but average='binary'. Choose another average: one of {options}")
        _, found = positions([pos_label], targets.labels)
        if not found[0] and targets.labels.size >= 2:
            raise ValueError(f"pos_label={pos_label!r} is not a valid label: it should be one of {targets.labels}")
        return [pos_label]
    if pos_label not in (None, 1):
        warnings.warn(
            f"pos_label={pos_label!r} is ignored when average != 'binary' (got {average!r}); "
            "use labels=[pos_label] to score one class",
            UserWarning,
            stacklevel=4,
        )
    return labels


def _counts(targets: Targets, weights: np.ndarray | None, labels: Any, average: str | None) -> ClassCounts:
    if targets.kind == "multilabel-indicator":
        return indicator_counts(targets, weights, labels, samplewise=average == "samples")
    if average == "samples":
        raise ValueError("Samplewise metrics are not available outside of multilabel classification.")
    return class_counts(targets, weights, labels)


def precision_recall_fscore_support(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = None,
    warn_for: Sequence[str] = ("precision", "recall", "f-score"),
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> tuple[Result, Result, Result, np.ndarray | None]:
    """Precision, recall, F-beta and support, per label or averaged (as scikit-learn).

    Parameters
    ----------
    y_true, y_pred : array-like
        Class labels, or 0/1 indicator matrices (multi-label).
    beta : float
        Weight of recall in the F-score (``inf`` gives recall, 0 precision).
    labels : array-like, optional
        Labels to score, in this order (absent labels get zero counts; present
        ones may be left out). For indicator matrices: column indices.
    pos_label : label
        The positive class for ``average="binary"``.
    average : {None, "binary", "micro", "macro", "weighted", "samples"}
        None returns one value per label; ``"binary"`` scores ``pos_label`` only;
        ``"micro"`` pools the counts; ``"macro"`` is the unweighted mean over labels;
        ``"weighted"`` weights by support; ``"samples"`` averages per sample
        (multi-label only). Undefined (NaN) values are left out of averages.
    warn_for : sequence of str
        Which of "precision", "recall", "f-score" warn when undefined and
        ``zero_division="warn"``.
    sample_weight : array-like, optional
        Weight of each sample.
    zero_division : {"warn", 0, 1, nan}
        Value for 0/0 ratios; "warn" uses 0 and warns.

    Returns
    -------
    precision, recall, fbeta : float or numpy.ndarray
    support : numpy.ndarray or None
        Number of true samples of each label (None when averaged).

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support(["a", "b", "b"], ["a", "a", "b"])
    >>> p.tolist(), r.tolist(), f.tolist(), s.tolist()
    ([0.5, 1.0], [1.0, 0.5], [0.6666666666666666, 0.6666666666666666], [1, 2])
    >>> precision_recall_fscore_support([0, 1, 1], [0, 0, 1], average="macro")[:3]
    (0.75, 0.75, 0.6666666666666666)
    """
    _check_zero_division(zero_division)
    if not (isinstance(beta, (int, float, np.number)) and beta >= 0):
        raise ValueError(f"beta must be a number >= 0; got {beta!r}")
    targets = check_targets(y_true, y_pred)
    weights = check_weights(sample_weight, targets.n_samples)
    labels = _set_wise_labels(targets, average, labels, pos_label)
    counts = _counts(targets, weights, labels, average)
    tp, pred, true = counts.tp, counts.pred, counts.true
    if average == "micro":
        tp, pred, true = (np.reshape(np.sum(a), (1,)) for a in (tp, pred, true))
    common: dict[str, Any] = {"average": average, "warn_for": warn_for, "zero_division": zero_division}
    precision = _divide(tp, pred, metric="precision", modifier="predicted", **common)
    recall = _divide(tp, true, metric="recall", modifier="true", **common)
    if np.isposinf(beta):
        fscore = recall
    elif beta == 0:
        fscore = precision
    else:
        beta2 = beta**2
        denominator = beta2 * true.astype(np.float64) + pred.astype(np.float64)
        fscore = _divide(
            (1 + beta2) * tp.astype(np.float64),
            denominator,
            metric="f-score",
            modifier="true nor predicted",
            **common,
        )
    if average is None:
        return precision, recall, fscore, true
    weights_avg = true if average == "weighted" else (weights if average == "samples" else None)
    return (
        _nanaverage(precision, weights_avg),
        _nanaverage(recall, weights_avg),
        _nanaverage(fscore, weights_avg),
        None,
    )


def fbeta_score(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Result:
    """F-beta score (scikit-learn's ``fbeta_score``); see :func:`precision_recall_fscore_support`.

    Examples
    --------
    >>> round(fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=2), 6)
    0.555556
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("f-score",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[2]


def f1_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Result:
    """F1 score (scikit-learn's ``f1_score``); see :func:`precision_recall_fscore_support`.

    Examples
    --------
    >>> f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.26666666666666666
    >>> f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average=None).tolist()
    [0.8, 0.0, 0.0]
    """
    return fbeta_score(
        y_true,
        y_pred,
        beta=1,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def precision_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Result:
    """Precision tp / (tp + fp) (scikit-learn's ``precision_score``).

    Examples
    --------
    >>> precision_score([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    >>> precision_score([0, 0], [0, 0], zero_division=np.nan)
    nan
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("precision",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[0]


def recall_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Result:
    """Recall tp / (tp + fn) (scikit-learn's ``recall_score``).

    Examples
    --------
    >>> recall_score(["x", "y", "y"], ["x", "x", "y"], average=None).tolist()
    [1.0, 0.5]
    """
    return precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("recall",),
        sample_weight=sample_weight,
        zero_division=zero_division,
    )[1]


def accuracy_score(y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None) -> float:
    """Fraction (or weighted count) of correctly classified samples; subset accuracy for multi-label.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3], normalize=False)
    2.0
    """
    targets = check_targets(y_true, y_pred)
    weights = check_weights(sample_weight, targets.n_samples)
    if targets.kind == "multilabel-indicator":
        correct = np.all(targets.y_true == targets.y_pred, axis=1)
    else:
        correct = targets.y_true == targets.y_pred
    if normalize:
        return float(np.average(correct, weights=weights))
    if weights is not None:
        return float(np.dot(correct, weights))
    return float(np.sum(correct.astype(np.float64)))


def _matrix(y_true: Any, y_pred: Any, sample_weight: Any, labels: Any = None) -> np.ndarray:
    targets = check_targets(y_true, y_pred)
    if targets.kind == "multilabel-indicator":
        raise ValueError("multilabel-indicator is not supported")
    return confusion_counts(targets, check_weights(sample_weight, targets.n_samples), labels)[0]


def balanced_accuracy_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None, adjusted: bool = False) -> float:
    """Mean recall over the classes present in ``y_true`` (optionally chance-adjusted).

    Examples
    --------
    >>> balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    cm = _matrix(y_true, y_pred, sample_weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = np.diag(cm) / cm.sum(axis=1)
    if np.any(np.isnan(per_class)):
        warnings.warn("y_pred contains classes not in y_true", UserWarning, stacklevel=2)
        per_class = per_class[~np.isnan(per_class)]
    score = np.mean(per_class)
    if adjusted:
        chance = 1 / per_class.shape[0]
        score -= chance
        score /= 1 - chance
    return float(score)


def matthews_from_matrix(cm: np.ndarray) -> float:
    """Matthews correlation (Gorodkin's K-category R_K) of a confusion matrix; 0 when undefined."""
    t_sum = cm.sum(axis=1, dtype=np.float64)
    p_sum = cm.sum(axis=0, dtype=np.float64)
    n_correct = np.trace(cm, dtype=np.float64)
    n_samples = p_sum.sum()
    cov_ytyp = n_correct * n_samples - np.dot(t_sum, p_sum)
    cov_ypyp = n_samples**2 - np.dot(p_sum, p_sum)
    cov_ytyt = n_samples**2 - np.dot(t_sum, t_sum)
    product = cov_ypyp * cov_ytyt
    if product == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(product))


def matthews_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Matthews correlation coefficient (multi-class R_K); 0.0 when undefined, as scikit-learn.

    Examples
    --------
    >>> round(matthews_corrcoef([1, 1, 1, -1], [1, -1, 1, 1]), 4)
    -0.3333
    """
    return matthews_from_matrix(_matrix(y_true, y_pred, sample_weight))


def kappa_from_matrix(cm: np.ndarray, *, weights: str | None = None, replace_undefined_by: float = math.nan) -> float:
    """Cohen's kappa of a confusion matrix (optionally linear/quadratic weighted)."""
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic'; got {weights!r}")
    k = cm.shape[0]
    confusion = cm.astype(np.float64)
    sum0 = confusion.sum(axis=0)
    sum1 = confusion.sum(axis=1)
    total = np.sum(sum0)
    if total == 0:
        warnings.warn(
            "Cohen's kappa is undefined (no sample has a label in labels for both annotators); "
            f"returning replace_undefined_by={replace_undefined_by}",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return replace_undefined_by
    expected = np.outer(sum0, sum1) / total
    if weights is None:
        w_mat = np.ones((k, k), dtype=np.float64)
        np.fill_diagonal(w_mat, 0)
    else:
        w_mat = np.zeros((k, k), dtype=np.float64)
        w_mat += np.arange(k)
        w_mat = np.abs(w_mat - w_mat.T) if weights == "linear" else (w_mat - w_mat.T) ** 2
    denominator = np.sum(w_mat * expected)
    if denominator == 0:
        warnings.warn(
            "Cohen's kappa is undefined (the annotators and labels share only one label); "
            f"returning replace_undefined_by={replace_undefined_by}",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return replace_undefined_by
    return float(1 - np.sum(w_mat * confusion) / denominator)


def cohen_kappa_score(
    y1: Any,
    y2: Any,
    *,
    labels: Any = None,
    weights: str | None = None,
    sample_weight: Any = None,
    replace_undefined_by: float = math.nan,
) -> float:
    """Cohen's kappa between two annotators (scikit-learn's ``cohen_kappa_score``).

    Examples
    --------
    >>> cohen_kappa_score(["neg", "pos", "neg", "neu", "pos"], ["neg", "pos", "neg", "neu", "neg"])
    0.6875
    """
    if not (isinstance(replace_undefined_by, (int, float)) and (-1 <= replace_undefined_by <= 1)) and not (
        isinstance(replace_undefined_by, float) and math.isnan(replace_undefined_by)
    ):
        raise ValueError(f"replace_undefined_by must be NaN or in [-1, 1]; got {replace_undefined_by!r}")
    try:
        cm = _matrix(y1, y2, sample_weight, labels)
    except ValueError as exc:
        if "At least one label specified must be in y_true" in str(exc):
            raise ValueError("At least one label in `labels` must be present in `y1`") from exc
        raise
    return kappa_from_matrix(cm, weights=weights, replace_undefined_by=replace_undefined_by)
