"""Counting: the confusion matrix and per-class true-positive / predicted / true sums (all via bincount)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.classification._targets import Targets, check_targets, check_unique_labels, check_weights, positions

_NORMALIZE = (None, "true", "pred", "all")


def _bincount(codes: np.ndarray, weights: np.ndarray | None, size: int) -> np.ndarray:
    """Counts of ``codes`` (int64), or weighted sums (float64; int64 for integer weights)."""
    if weights is None:
        return np.bincount(codes, minlength=size).astype(np.int64, copy=False)
    out = np.bincount(codes, weights=weights, minlength=size)
    return out.astype(np.int64) if weights.dtype.kind in "iu" else out


def confusion_counts(targets: Targets, weights: np.ndarray | None, labels: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The confusion matrix of encoded targets and the labels of its rows/columns.

    Samples whose true or predicted label is not among ``labels`` are left out.
    """
    k = targets.labels.size
    if labels is None:
        return _bincount(targets.y_true * k + targets.y_pred, weights, k * k).reshape(k, k), targets.labels
    wanted = check_unique_labels(labels)
    n = wanted.size
    if n == 0:
        raise ValueError("'labels' should contain at least one label.")
    idx, found = positions(wanted, targets.labels)
    in_true = np.bincount(targets.y_true, minlength=k) > 0
    if not np.any(found & in_true[idx]):
        raise ValueError("At least one label specified must be in y_true")
    lookup = np.full(k, n, dtype=np.intp)
    lookup[idx[found]] = np.flatnonzero(found)
    true = lookup[targets.y_true]
    pred = lookup[targets.y_pred]
    keep = (true < n) & (pred < n)
    if not keep.all():
        true, pred = true[keep], pred[keep]
        weights = None if weights is None else weights[keep]
    return _bincount(true * n + pred, weights, n * n).reshape(n, n), wanted


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: str | None = None,
) -> np.ndarray:
    """Confusion matrix: rows are the true (observed) classes, columns the predicted ones.

    Same signature and numbers as ``sklearn.metrics.confusion_matrix``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (numbers, strings or booleans).
    labels : array-like, optional
        Rows/columns to report, in this order; samples with other labels are left
        out. Default: every label present in either input, sorted.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each sample.
    normalize : {"true", "pred", "all"}, optional
        Divide by row sums, column sums or the total (0/0 becomes 0).

    Returns
    -------
    numpy.ndarray of shape (n_classes, n_classes)
        Integer counts (float with float weights or ``normalize``).

    Examples
    --------
    >>> confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2]).tolist()
    [[2, 0, 0], [0, 0, 1], [1, 0, 2]]
    >>> confusion_matrix(["cat", "ant", "cat"], ["ant", "ant", "cat"], labels=["cat", "ant"]).tolist()
    [[1, 1], [0, 1]]
    """
    if normalize not in _NORMALIZE:
        raise ValueError(f"normalize must be one of {_NORMALIZE}; got {normalize!r}")
    targets = check_targets(y_true, y_pred)
    if targets.kind == "multilabel-indicator":
        raise ValueError("multilabel-indicator is not supported")
    weights = check_weights(sample_weight, targets.n_samples)
    cm, _ = confusion_counts(targets, weights, labels)
    if normalize is not None:
        with np.errstate(all="ignore"):
            if normalize == "true":
                cm = cm / cm.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                cm = cm / cm.sum(axis=0, keepdims=True)
            else:
                cm = cm / cm.sum()
        cm = np.nan_to_num(cm)
    if cm.shape == (1, 1):
        warnings.warn(
            "only one label was found in y_true and y_pred; pass labels= with every known class "
            "to get a matrix of the right shape",
            UserWarning,
            stacklevel=2,
        )
    return cm


@dataclass(frozen=True)
class ClassCounts:
    """Per-label sums: true positives, predicted and true totals (scikit-learn's MCM, kept lean)."""

    tp: np.ndarray
    pred: np.ndarray
    true: np.ndarray


def class_counts(targets: Targets, weights: np.ndarray | None, labels: Any = None) -> ClassCounts:
    """Per-label counts of 1-d targets, for ``labels`` (default: all present labels, sorted)."""
    k = targets.labels.size
    match = targets.y_true == targets.y_pred
    # weighted sums are float64 even for integer weights, as in scikit-learn
    tp = np.bincount(targets.y_true[match], None if weights is None else weights[match], minlength=k)
    pred = np.bincount(targets.y_pred, weights, minlength=k)
    true = np.bincount(targets.y_true, weights, minlength=k)
    if labels is not None:
        idx, found = positions(labels, targets.labels)
        tp, pred, true = (np.where(found, a[idx], 0) for a in (tp, pred, true))
    return _as_mcm(tp, pred, true)


def _as_mcm(tp: np.ndarray, pred: np.ndarray, true: np.ndarray) -> ClassCounts:
    # scikit-learn recovers the sums as tp + fp and tp + fn; with float weights that
    # rounds, so do the same to give the same numbers to the last bit
    fp = pred - tp
    fn = true - tp
    return ClassCounts(tp, tp + fp, tp + fn)


def indicator_counts(
    targets: Targets, weights: np.ndarray | None, labels: Any = None, *, samplewise: bool = False
) -> ClassCounts:
    """Per-column (or per-sample) counts of 0/1 indicator matrices."""
    true, pred = targets.y_true, targets.y_pred
    if labels is not None:
        cols = np.asarray(labels)
        n_cols = true.shape[1]
        if cols.dtype.kind not in "iu":
            raise ValueError("labels must be column indices for multilabel-indicator targets")
        if cols.size and cols.max() >= n_cols:
            raise ValueError(f"All labels must be in [0, n labels) for multilabel targets. Got {cols.max()}")
        if cols.size and cols.min() < 0:
            raise ValueError(f"All labels must be in [0, n labels) for multilabel targets. Got {cols.min()} < 0")
        true, pred = true[:, cols], pred[:, cols]
    both = true & pred
    axis = 1 if samplewise else 0
    if weights is None:
        sums = [a.sum(axis=axis, dtype=np.int64) for a in (both, pred, true)]
    elif samplewise:
        sums = [a.sum(axis=1, dtype=np.int64) * weights for a in (both, pred, true)]
    else:
        w = weights.astype(np.float64)[:, None]
        sums = [np.where(a != 0, w, 0.0).sum(axis=0) for a in (both, pred, true)]
    return _as_mcm(*sums)
