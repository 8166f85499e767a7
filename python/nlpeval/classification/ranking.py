"""Score-based metrics: precision-recall and ROC curves, average precision, ROC AUC.

Same names, signatures and numbers as scikit-learn. Unweighted curves come from
two value sorts (the scores, and the positives' scores) instead of a stable
argsort; weighted ones follow scikit-learn's order exactly. The per-sample
averages (``average="samples"``) are vectorised over rows instead of looping
over samples. :func:`interpolated_average_precision` adds the 11-point
interpolated AP (PASCAL VOC 2007 style), labelled as such, next to the default
non-interpolated (step-function) AP.

These metrics do not decompose into per-sample statistics (they rank all the
scores at once), so there is no accumulator for them: keep the scores.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from nlpeval.classification._targets import as_array, check_lengths, check_weights, encode_labels, target_type
from nlpeval.core.errors import InputError, UndefinedMetricWarning

BinaryMetric = Callable[[np.ndarray, np.ndarray, "np.ndarray | None"], float]


# ----------------------------------------------------------------------------- input


def _scores(y_score: Any, side: str = "y_score") -> np.ndarray:
    arr = np.asarray(y_score.detach().cpu().numpy() if hasattr(y_score, "detach") else y_score)
    if arr.dtype.kind not in "biuf":
        raise InputError(f"has dtype {arr.dtype}; expected numbers", side=side)
    if arr.ndim == 0 or arr.ndim > 2:
        raise InputError(f"has {arr.ndim} dimensions; expected 1 or 2", side=side)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            index = int(np.flatnonzero(bad.reshape(arr.shape[0], -1).any(axis=1))[0])
            raise InputError("is NaN or infinite; expected a finite score", segment=index, side=side)
    return arr


def _column(arr: np.ndarray, side: str) -> np.ndarray:
    if arr.ndim == 2 and arr.shape[1] == 1:
        return arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{side} should be a 1d array, got an array of shape {arr.shape} instead.")
    return arr


def _unique(y: np.ndarray) -> np.ndarray:
    """Sorted distinct values; O(n) by bincount for booleans and narrow integer ranges."""
    flat = y.reshape(-1)
    if flat.size and flat.dtype.kind in "biu":
        lo, hi = (int(flat.min()), int(flat.max()))
        if hi - lo <= max(1 << 20, flat.size):
            shifted = flat.astype(np.int64) - lo if (lo or flat.dtype.kind == "b") else flat
            return (np.flatnonzero(np.bincount(shifted)) + lo).astype(flat.dtype)
    return np.unique(flat)


def _target_kind(y: np.ndarray, side: str = "y_true") -> str:
    """binary / multiclass / multilabel-indicator of one target array."""
    kind = target_type(y, side)
    if kind == "multilabel-indicator":
        return kind
    return "binary" if _unique(y).size <= 2 else "multiclass"


def _binary_truth(y_true: Any, pos_label: Any) -> np.ndarray:
    """``y_true == pos_label`` after scikit-learn's checks (``pos_label=None`` needs {0, 1} or {-1, 1})."""
    y = _column(as_array(y_true, "y_true"), "y_true")
    classes = _unique(y)
    kind = "binary" if classes.size <= 2 else "multiclass"
    if y.dtype.kind == "f" and not np.all(y == np.floor(y)):
        kind = "continuous"
    if not (kind == "binary" or (kind == "multiclass" and pos_label is not None)):
        raise ValueError(f"{kind} format is not supported")
    if pos_label is None:
        allowed = ({0, 1}, {-1, 1}, {0}, {-1}, {1})
        if classes.dtype.kind in "US" or set(classes.tolist()) not in allowed:
            shown = ", ".join(repr(c) for c in classes.tolist())
            raise ValueError(
                f"y_true takes value in {{{shown}}} and pos_label is not specified: either make y_true "
                "take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
            )
        pos_label = 1
    return _equals(y, pos_label)


def _equals(y: np.ndarray, label: Any) -> np.ndarray:
    """``y == label`` that is all False (not an error) when a string meets a number."""
    if (y.dtype.kind in "US") != isinstance(label, (str, np.str_)):
        return np.zeros(y.shape, dtype=bool)
    return np.asarray(y == label, dtype=bool)


def _binary_column(y: np.ndarray, pos_label: Any) -> np.ndarray:
    present = _unique(y)
    if present.size == 2 and not _equals(present, pos_label).any():
        raise ValueError(f"pos_label={pos_label!r} is not a valid label. It should be one of {present}")
    return _equals(y, pos_label)


def _labels_1d(y_true: Any) -> np.ndarray:
    y = as_array(y_true, "y_true")
    return y[:, 0] if y.ndim == 2 and y.shape[1] == 1 else y


def _prepare(
    y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    truth = _binary_truth(y_true, pos_label)
    score = _column(_scores(y_score), "y_score")
    check_lengths(truth, score)
    weights = check_weights(sample_weight, truth.shape[0])
    return truth, score, weights


# ----------------------------------------------------------------------------- the curve


def _descending(score: np.ndarray, axis: int = -1) -> np.ndarray:
    """Stable descending argsort (ties keep input order), as scikit-learn's array-API argsort."""
    n = score.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(score, axis=axis), axis=axis, kind="stable"), axis=axis)


def _clf_curve(
    truth: np.ndarray, score: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """False and true positive (weighted) counts at each distinct threshold, and the thresholds."""
    if weights is not None:
        nonzero = weights != 0
        if not nonzero.all():
            truth, score, weights = truth[nonzero], score[nonzero], weights[nonzero]
    if truth.shape[0] == 0:
        # (scikit-learn fails with an IndexError here)
        raise ValueError("no sample with a non-zero weight: the curve is undefined")
    if weights is None:
        return _counted_curve(truth, score)
    order = _descending(score)
    score = score[order]
    truth = truth[order].astype(np.float64)
    ends = np.flatnonzero(np.diff(score))
    ends = np.concatenate([ends, [truth.shape[0] - 1]])
    if weights is None:
        tps = np.cumsum(truth, dtype=np.float64)[ends]
        fps = 1 + ends.astype(np.float64) - tps
    else:
        weights = weights[order]
        tps = np.cumsum(truth * weights, dtype=np.float64)[ends]
        fps = np.cumsum((1 - truth) * weights, dtype=np.float64)[ends]
    return fps, tps, score[ends]


def _counted_curve(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unweighted counts without a permutation: sort the scores, and the positives' scores, and count.

    At each distinct score d (in decreasing order) the true positives are the positives
    scoring >= d and the false positives the others; two value sorts and a merge by
    ``searchsorted`` replace scikit-learn's stable argsort and give the same integers.
    """
    ascending = np.sort(score)
    starts = np.flatnonzero(np.concatenate([[True], ascending[1:] != ascending[:-1]]))
    distinct = ascending[starts]
    positives = np.sort(score[truth.astype(bool, copy=False)])
    tps = (positives.shape[0] - np.searchsorted(positives, distinct, side="left")).astype(np.float64)
    at_least = (ascending.shape[0] - starts).astype(np.float64)
    return np.flip(at_least - tps), np.flip(tps), np.flip(distinct)


def _pr_from_counts(fps: np.ndarray, tps: np.ndarray, thresholds: np.ndarray, warn: bool = True) -> tuple:
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, np.divide(tps, ps), 0.0)
    if tps[-1] == 0:
        if warn:
            warnings.warn(
                "No positive class found in y_true, recall is set to one for all thresholds.",
                UserWarning,
                stacklevel=3,
            )
        recall = np.full(tps.shape, 1.0)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate([np.flip(precision), [1.0]]),
        np.concatenate([np.flip(recall), [0.0]]),
        np.flip(thresholds),
    )


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at every distinct score threshold (scikit-learn's function).

    Returns
    -------
    precision, recall : numpy.ndarray
        Recall decreasing, ending with the point (recall 0, precision 1).
    thresholds : numpy.ndarray
        Increasing thresholds; one fewer than the points.

    Examples
    --------
    >>> p, r, t = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> p.round(3).tolist(), r.tolist(), t.tolist()
    ([0.5, 0.667, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """
    truth, score, weights = _prepare(y_true, y_score, pos_label, sample_weight)
    fps, tps, thresholds = _clf_curve(truth, score, weights)
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.concatenate([[True], np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), [True]])
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    return _pr_from_counts(fps, tps, thresholds)


def _roc_from_counts(
    fps: np.ndarray, tps: np.ndarray, thresholds: np.ndarray, drop_intermediate: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.concatenate([[True], np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), [True]])
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    tps = np.concatenate([[0.0], tps])
    fps = np.concatenate([[0.0], fps])
    thresholds = np.concatenate([[np.inf], thresholds.astype(np.float64)])
    if fps[-1] <= 0:
        warnings.warn(
            "No negative samples in y_true, false positive value should be meaningless",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        warnings.warn(
            "No positive samples in y_true, true positive value should be meaningless",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, thresholds


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Receiver operating characteristic: false and true positive rates per threshold (as scikit-learn).

    Returns
    -------
    fpr, tpr : numpy.ndarray
        Increasing rates, starting at (0, 0).
    thresholds : numpy.ndarray
        Decreasing thresholds, the first one ``inf``.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """
    truth, score, weights = _prepare(y_true, y_score, pos_label, sample_weight)
    return _roc_from_counts(*_clf_curve(truth, score, weights), drop_intermediate)


def auc(x: Any, y: Any) -> float:
    """Area under a curve by the trapezoidal rule (``x`` monotonic), as ``sklearn.metrics.auc``.

    Examples
    --------
    >>> auc([0, 0.5, 1], [0, 1, 1])
    0.75
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if x.shape != y.shape:
        raise ValueError(f"x and y have different lengths: {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"At least 2 points are needed to compute area under curve, but x.shape = {x.shape}")
    direction = 1
    dx = np.diff(x)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            raise ValueError(f"x is neither increasing nor decreasing : {x}.")
    return float(direction * np.sum(dx * (y[1:] + y[:-1]) / 2.0))


# ----------------------------------------------------------------------------- binary metrics


def _binary_ap(truth: np.ndarray, score: np.ndarray, weights: np.ndarray | None) -> float:
    precision, recall, _ = _pr_from_counts(*_clf_curve(truth, score, weights))
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


def _binary_auc(
    truth: np.ndarray, score: np.ndarray, weights: np.ndarray | None, max_fpr: float | None = None
) -> float:
    if truth.all() or not truth.any():
        warnings.warn(
            "Only one class is present in y_true. ROC AUC score is not defined in that case.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan
    fpr, tpr, _ = _roc_from_counts(*_clf_curve(truth, score, weights), True)
    if max_fpr is None or max_fpr == 1:
        return auc(fpr, tpr)
    if max_fpr <= 0 or max_fpr > 1:
        raise ValueError(f"Expected max_fpr in range (0, 1], got: {max_fpr!r}")
    stop = np.searchsorted(fpr, max_fpr, "right")
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    partial = auc(fpr, tpr)
    min_area = 0.5 * max_fpr**2
    return float(0.5 * (1 + (partial - min_area) / (max_fpr - min_area)))


def _binary_interpolated_ap(
    truth: np.ndarray, score: np.ndarray, weights: np.ndarray | None, n_points: int = 11
) -> float:
    precision, recall, _ = _pr_from_counts(*_clf_curve(truth, score, weights))
    precision, recall = precision[:-1], recall[:-1]  # the (recall 0, precision 1) end point is not observed
    best = np.maximum.accumulate(precision)  # recall decreases along the arrays
    levels = np.arange(n_points) / (n_points - 1)  # exact i/10: 3/10 == 0.3, unlike 3 * 0.1
    reached = np.count_nonzero(recall[None, :] >= levels[:, None], axis=1)
    interpolated = np.where(reached > 0, best[np.maximum(reached - 1, 0)], 0.0)
    return float(np.mean(interpolated))


# ----------------------------------------------------------------------------- row-wise (average="samples")


def _rowwise_counts(
    truth: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    order = _descending(score, axis=1)
    score = np.take_along_axis(score, order, axis=1)
    truth = np.take_along_axis(truth, order, axis=1).astype(np.float64)
    n_cols = score.shape[1]
    tps = np.cumsum(truth, axis=1)
    fps = np.arange(1, n_cols + 1, dtype=np.float64) - tps
    is_end = np.ones(score.shape, dtype=bool)
    is_end[:, :-1] = score[:, 1:] != score[:, :-1]
    # tps/fps at the previous threshold end (0 before the first)
    idx = np.where(is_end, np.arange(n_cols), -1)
    prev = np.full(score.shape, -1)
    prev[:, 1:] = np.maximum.accumulate(idx, axis=1)[:, :-1]
    safe = np.maximum(prev, 0)
    tps_prev = np.where(prev >= 0, np.take_along_axis(tps, safe, axis=1), 0.0)
    fps_prev = np.where(prev >= 0, np.take_along_axis(fps, safe, axis=1), 0.0)
    return tps, fps, tps_prev, fps_prev, is_end


def _rowwise_ap(truth: np.ndarray, score: np.ndarray) -> np.ndarray:
    tps, fps, tps_prev, _, is_end = _rowwise_counts(truth, score)
    positives = tps[:, -1:]
    if np.any(positives == 0):
        # scikit-learn sets recall to 1 everywhere; the precision at the first threshold is 0, so AP is 0
        warnings.warn(
            "No positive class found in y_true, recall is set to one for all thresholds.", UserWarning, stacklevel=4
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        recall, recall_prev = tps / positives, tps_prev / positives
    precision = tps / (tps + fps)
    contribution = np.where(is_end, (recall - recall_prev) * precision, 0.0)
    ap = np.maximum(0.0, np.sum(contribution[:, ::-1], axis=1))
    return np.where(positives[:, 0] == 0, 0.0, ap)


def _rowwise_interpolated_ap(truth: np.ndarray, score: np.ndarray, n_points: int) -> np.ndarray:
    tps, fps, _, _, is_end = _rowwise_counts(truth, score)
    positives = tps[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(positives > 0, tps / positives, 1.0)
    precision = tps / (tps + fps)
    levels = np.arange(n_points) / (n_points - 1)
    reached = is_end[:, :, None] & (recall[:, :, None] >= levels)
    best = np.where(reached, precision[:, :, None], 0.0).max(axis=1)
    return best.mean(axis=1)


def _rowwise_auc(truth: np.ndarray, score: np.ndarray, max_fpr: float | None = None) -> np.ndarray:
    tps, fps, tps_prev, fps_prev, is_end = _rowwise_counts(truth, score)
    positives, negatives = tps[:, -1:], fps[:, -1:]
    undefined = (positives[:, 0] == 0) | (negatives[:, 0] == 0)
    if undefined.any():
        warnings.warn(
            "Only one class is present in y_true. ROC AUC score is not defined in that case.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    partial = max_fpr is not None and max_fpr != 1
    if max_fpr is not None and partial and (max_fpr <= 0 or max_fpr > 1):
        raise ValueError(f"Expected max_fpr in range (0, 1], got: {max_fpr!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, tpr_prev = tps / positives, tps_prev / positives
        fpr, fpr_prev = fps / negatives, fps_prev / negatives
        if max_fpr is not None and partial:
            # segments past max_fpr are cut there, their tpr interpolated linearly (as scikit-learn)
            cut = (fpr > max_fpr) & (fpr_prev < max_fpr)
            tpr_cut = tpr_prev + (tpr - tpr_prev) * (max_fpr - fpr_prev) / (fpr - fpr_prev)
            tpr = np.where(cut, tpr_cut, tpr)
            fpr = np.where(cut, max_fpr, fpr)
            is_end = is_end & (fpr <= max_fpr)
        area = np.where(is_end, (fpr - fpr_prev) * (tpr + tpr_prev) / 2.0, 0.0).sum(axis=1)
    if max_fpr is not None and partial:
        min_area = 0.5 * max_fpr**2
        area = 0.5 * (1 + (area - min_area) / (max_fpr - min_area))
    return np.where(undefined, np.nan, area)


# ----------------------------------------------------------------------------- averaging


def _average_binary(
    metric: BinaryMetric,
    rowwise: Callable[[np.ndarray, np.ndarray], np.ndarray],
    truth: np.ndarray,
    score: np.ndarray,
    average: str | None,
    weights: np.ndarray | None,
) -> float | np.ndarray:
    """scikit-learn's ``_average_binary_score`` for 0/1 indicator ``truth`` and 2-d ``score``."""
    options = (None, "micro", "macro", "weighted", "samples")
    if average not in options:
        raise ValueError(f"average has to be one of {options}")
    if score.shape != truth.shape:
        raise ValueError(f"y_score has shape {score.shape}; expected {truth.shape} like y_true")
    average_weight = None
    if average == "micro":
        w = None if weights is None else np.repeat(weights, truth.shape[1])
        return float(metric(truth.ravel(), score.ravel(), w))
    if average == "weighted":
        average_weight = truth.sum(axis=0) if weights is None else np.sum(truth * weights[:, None], axis=0)
        if np.isclose(np.sum(average_weight), 0):
            return 0.0
    if average == "samples":
        scores = rowwise(truth, score)  # the sample weights weigh the average, not the curves
        average_weight = weights
    else:
        scores = np.array([metric(truth[:, c], score[:, c], weights) for c in range(truth.shape[1])], dtype=np.float64)
    if average is None:
        return scores
    if average_weight is not None:
        scores = np.where(average_weight == 0, 0.0, scores)
    return float(np.average(scores, weights=average_weight))


def _one_hot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    out = np.zeros((codes.shape[0], n_classes), dtype=np.int64)
    out[np.arange(codes.shape[0]), codes] = 1
    return out


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> float | np.ndarray:
    """Average precision: the step-function (non-interpolated) area under the PR curve.

    AP = sum_n (R_n - R_{n-1}) P_n over the thresholds, as scikit-learn; see
    :func:`interpolated_average_precision` for the 11-point interpolated variant.

    Parameters
    ----------
    y_true : array-like
        Binary labels, multi-class labels (one-vs-rest) or a 0/1 indicator matrix.
    y_score : array-like
        Scores of the positive class, or one column per class.
    average : {"macro", "micro", "weighted", "samples", None}
        How to combine per-class values (ignored for binary input).
    pos_label : label
        The positive class for binary input.
    sample_weight : array-like, optional
        Weight of each sample.

    Examples
    --------
    >>> round(average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    """
    y = _labels_1d(y_true)
    score = _scores(y_score)
    check_lengths(y, score)
    weights = check_weights(sample_weight, y.shape[0])
    kind = _target_kind(y)
    if kind == "binary":
        return _binary_ap(_binary_column(y, pos_label), _column(score, "y_score"), weights)
    if pos_label != 1:
        raise ValueError(f"Parameter pos_label is fixed to 1 for {kind} y_true. Do not set pos_label or set it to 1.")
    if kind == "multiclass":
        labels, (codes,) = encode_labels(y)
        if score.ndim != 2 or score.shape[1] != labels.size:
            raise ValueError(
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains multiple "
                f"classes. Got `y_score.shape={score.shape}`."
            )
        y = _one_hot(codes, labels.size)
    return _average_binary(_binary_ap, _rowwise_ap, y.astype(np.int64), score, average, weights)


def interpolated_average_precision(
    y_true: Any,
    y_score: Any,
    *,
    n_points: int = 11,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> float | np.ndarray:
    """The *interpolated* average precision: mean interpolated precision at ``n_points`` recall levels.

    At each recall level r in {0, 1/10, ..., 1} (for 11 points) the interpolated
    precision is the highest precision of any threshold whose recall is >= r
    (0 if none), as in PASCAL VOC 2007. This is not scikit-learn's
    :func:`average_precision_score` (the non-interpolated step area, nlpeval's
    default); it is usually higher. Only observed thresholds count: the
    artificial (recall 0, precision 1) end point of the PR curve does not.

    Parameters
    ----------
    y_true, y_score, average, pos_label, sample_weight
        As :func:`average_precision_score`.
    n_points : int
        Number of equally spaced recall levels from 0 to 1 (11 by default).

    Examples
    --------
    >>> interpolated_average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8484848484848484
    """
    if n_points < 2:
        raise ValueError(f"n_points must be at least 2; got {n_points}")

    def metric(truth: np.ndarray, score: np.ndarray, weights: np.ndarray | None) -> float:
        return _binary_interpolated_ap(truth, score, weights, n_points)

    y = _labels_1d(y_true)
    score = _scores(y_score)
    check_lengths(y, score)
    weights = check_weights(sample_weight, y.shape[0])
    kind = _target_kind(y)
    if kind == "binary":
        return metric(_binary_column(y, pos_label), _column(score, "y_score"), weights)
    if kind == "multiclass":
        labels, (codes,) = encode_labels(y)
        if score.ndim != 2 or score.shape[1] != labels.size:
            raise ValueError(f"y_score needs shape (n_samples, {labels.size}); got {score.shape}")
        y = _one_hot(codes, labels.size)

    def rowwise(truth: np.ndarray, s: np.ndarray) -> np.ndarray:
        return _rowwise_interpolated_ap(truth, s, n_points)

    return _average_binary(metric, rowwise, y.astype(np.int64), score, average, weights)


def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: str = "raise",
    labels: Any = None,
) -> float | np.ndarray:
    """Area under the ROC curve (scikit-learn's ``roc_auc_score``).

    Binary input, multi-class input with ``multi_class="ovr"`` (one-vs-rest) or
    ``"ovo"`` (Hand & Till's one-vs-one), and multi-label indicator input with
    ``average=``. ``max_fpr`` gives the McClish-standardised partial AUC (binary).

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> probs = [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.1, 0.5, 0.4], [0.3, 0.4, 0.3]]
    >>> round(roc_auc_score([0, 1, 2, 1], probs, multi_class="ovr"), 4)
    0.875
    """
    y = _labels_1d(y_true)
    score = _scores(y_score)
    check_lengths(y, score)
    weights = check_weights(sample_weight, y.shape[0])
    kind = _target_kind(y)

    def binary(truth: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
        return _binary_auc(truth, s, w, max_fpr)

    if kind == "multiclass" or (kind == "binary" and score.ndim == 2 and score.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise ValueError(
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must be set to "
                f"`None`, received `max_fpr={max_fpr}` instead"
            )
        if multi_class == "raise":
            raise ValueError("multi_class must be in ('ovo', 'ovr')")
        return _multiclass_auc(y, score, labels, multi_class, average, weights)
    if kind == "binary":
        classes = _unique(y)
        truth = y == classes[-1] if classes.size == 2 else np.zeros(y.shape[0], dtype=bool)
        return binary(truth, _column(score, "y_score"), weights)

    def rowwise(truth: np.ndarray, s: np.ndarray) -> np.ndarray:
        return _rowwise_auc(truth, s, max_fpr)

    return _average_binary(binary, rowwise, y, score, average, weights)


def _multiclass_auc(
    y: np.ndarray,
    score: np.ndarray,
    labels: Any,
    multi_class: str,
    average: str | None,
    weights: np.ndarray | None,
) -> float | np.ndarray:
    if score.ndim != 2:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains multiple "
            f"classes. Got `y_score.shape={score.shape}`."
        )
    if not np.allclose(1, score.sum(axis=1)):
        raise ValueError(
            "Target scores need to be probabilities for multiclass roc_auc, i.e. they should sum up to 1.0 over classes"
        )
    options: tuple[str | None, ...] = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro", *options)
    if average not in options:
        raise ValueError(f"average must be one of {options} for multiclass problems")
    if multi_class not in ("ovo", "ovr"):
        raise ValueError(
            f"multi_class='{multi_class}' is not supported for multiclass ROC AUC, multi_class must be in "
            "('ovo', 'ovr')"
        )
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    if labels is not None:
        classes = np.asarray(labels).reshape(-1)
        unique = np.unique(classes)
        if unique.size != classes.size:
            raise ValueError("Parameter 'labels' must be unique")
        if not np.array_equal(unique, classes):
            raise ValueError("Parameter 'labels' must be ordered")
        if classes.size != score.shape[1]:
            raise ValueError(
                f"Number of given labels, {classes.size}, not equal to the number of columns in 'y_score', "
                f"{score.shape[1]}"
            )
        if np.setdiff1d(y, classes).size:
            raise ValueError("'y_true' contains labels not in parameter 'labels'")
    else:
        classes = np.unique(y)
        if classes.size != score.shape[1]:
            raise ValueError("Number of classes in y_true not equal to the number of columns in 'y_score'")
    codes = np.searchsorted(classes, y)
    if multi_class == "ovo":
        if weights is not None:
            raise ValueError(
                "sample_weight is not supported for multiclass one-vs-one ROC AUC, 'sample_weight' must be "
                "None in this case."
            )
        return _ovo_auc(codes, score, average)
    return _average_binary(_binary_auc, _rowwise_auc, _one_hot(codes, classes.size), score, average, weights)


def _ovo_auc(codes: np.ndarray, score: np.ndarray, average: str | None) -> float:
    """Hand & Till (2001): the mean over class pairs of the two one-against-the-other AUCs."""
    present = np.unique(codes)
    pairs = list(itertools.combinations(present.tolist(), 2))
    pair_scores = np.empty(len(pairs))
    prevalence = np.empty(len(pairs)) if average == "weighted" else None
    for i, (a, b) in enumerate(pairs):
        a_mask = codes == a
        b_mask = codes == b
        ab_mask = a_mask | b_mask
        if prevalence is not None:
            prevalence[i] = np.average(ab_mask)
        a_auc = _binary_auc(a_mask[ab_mask], score[ab_mask, a], None)
        b_auc = _binary_auc(b_mask[ab_mask], score[ab_mask, b], None)
        pair_scores[i] = (a_auc + b_auc) / 2
    return float(np.average(pair_scores, weights=prevalence))
