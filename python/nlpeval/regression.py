"""Regression metrics with scikit-learn's names, signatures and numbers (and SciPy's Pearson r).

``mean_squared_error``, ``root_mean_squared_error``, ``mean_absolute_error``,
``median_absolute_error``, ``mean_squared_log_error``,
``root_mean_squared_log_error``, ``r2_score``, ``adjusted_r2_score`` (needs the
number of predictors), ``explained_variance_score`` and ``pearson_r``.

Inputs are ``(n_samples,)`` or ``(n_samples, n_outputs)``; ``multioutput`` is
``"raw_values"``, ``"uniform_average"`` (default), ``"variance_weighted"`` (R²
and explained variance) or an array of output weights, as in scikit-learn.
None of these decompose into per-sample sums except MSE/MAE; they keep rows.

Examples
--------
>>> from nlpeval import regression
>>> regression.mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
0.375
>>> round(regression.r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
0.948608
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError, UndefinedMetricWarning

Result = float | np.ndarray
_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def _array(values: Any, side: str, dtype: np.dtype | type) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise InputError("got a str; expected numbers", side=side)
    arr = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values)
    if arr.dtype.kind not in "biuf":
        raise InputError(f"has dtype {arr.dtype}; expected numbers", side=side)
    arr = arr.astype(dtype, copy=False)
    if arr.ndim == 0 or arr.ndim > 2:
        raise InputError(f"has {arr.ndim} dimensions; expected (n_samples,) or (n_samples, n_outputs)", side=side)
    bad = ~np.isfinite(arr)
    if bad.any():
        index = int(np.flatnonzero(bad.reshape(arr.shape[0], -1).any(axis=1))[0])
        raise InputError("is NaN or infinite", segment=index, side=side)
    return arr.reshape(-1, 1) if arr.ndim == 1 else arr


def _check(
    y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    """Validate and shape the inputs as 2-d float arrays (float32 only if every input is float32)."""
    # scikit-learn's rule: the widest float dtype among the inputs that are arrays, else float64
    floats = [v.dtype for v in (y_true, y_pred, sample_weight) if hasattr(v, "dtype") and v.dtype.kind == "f"]
    dtype = np.result_type(*floats) if floats else np.float64
    true = _array(y_true, "y_true", dtype)
    pred = _array(y_pred, "y_pred", dtype)
    if true.shape[0] != pred.shape[0]:
        raise InputError(
            f"{true.shape[0]} true values but {pred.shape[0]} predictions; there must be one per sample",
            side="y_pred",
        )
    if true.shape[0] == 0:
        raise ValueError("empty input: at least one sample is required")
    if true.shape[1] != pred.shape[1]:
        raise ValueError(f"y_true and y_pred have different number of output ({true.shape[1]}!={pred.shape[1]})")
    weights = None
    if sample_weight is not None:
        weights = np.asarray(sample_weight, dtype=dtype)
        if weights.ndim == 0:
            weights = np.full(true.shape[0], weights, dtype=dtype)
        if weights.shape != (true.shape[0],):
            raise ValueError(f"sample_weight has shape {weights.shape}; expected ({true.shape[0]},)")
        if not np.all(np.isfinite(weights)):
            raise InputError(
                "is not finite", segment=int(np.flatnonzero(~np.isfinite(weights))[0]), side="sample_weight"
            )
    if isinstance(multioutput, str):
        if multioutput not in _MULTIOUTPUT:
            raise ValueError(f"Allowed 'multioutput' string values are {_MULTIOUTPUT}. You provided {multioutput!r}")
    elif multioutput is not None:
        multioutput = np.asarray(multioutput, dtype=np.float64)
        if true.shape[1] == 1:
            raise ValueError("Custom weights are useful only in multi-output cases.")
        if multioutput.shape != (true.shape[1],):
            raise ValueError(
                f"There must be equally many custom weights ({multioutput.shape[0]}) as outputs ({true.shape[1]})."
            )
    return true, pred, weights, multioutput


def _combine(errors: np.ndarray, multioutput: Any) -> Result:
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return errors
        multioutput = None
    return float(np.average(errors, weights=multioutput))


def mean_absolute_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Result:
    """Mean absolute error.

    Examples
    --------
    >>> mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    return _combine(np.average(np.abs(pred - true), weights=weights, axis=0), multioutput)


def mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Result:
    """Mean squared error.

    Examples
    --------
    >>> mean_squared_error([[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]], multioutput="raw_values").tolist()
    [0.4166666666666667, 1.0]
    """
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    return _combine(np.average((true - pred) ** 2, axis=0, weights=weights), multioutput)


def root_mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Result:
    """Root mean squared error (per output, then averaged).

    Examples
    --------
    >>> root_mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.6123724356957945
    """
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    return _combine(np.sqrt(np.average((true - pred) ** 2, axis=0, weights=weights)), multioutput)


def _log1p_pair(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any, name: str) -> tuple:
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    for arr, side in ((true, "y_true"), (pred, "y_pred")):
        bad = arr <= -1
        if bad.any():
            raise InputError(
                f"{name} cannot be used when targets contain values less than or equal to -1",
                segment=int(np.flatnonzero(bad.any(axis=1))[0]),
                side=side,
            )
    return np.log1p(true), np.log1p(pred), weights, multioutput


def mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Result:
    """Mean squared logarithmic error: MSE of ``log1p`` values (values must be > -1).

    Examples
    --------
    >>> round(mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.03973
    """
    true, pred, weights, multioutput = _log1p_pair(y_true, y_pred, sample_weight, multioutput, "MSLE")
    return _combine(np.average((true - pred) ** 2, axis=0, weights=weights), multioutput)


def root_mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Result:
    """Root mean squared logarithmic error.

    Examples
    --------
    >>> round(root_mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.199324
    """
    true, pred, weights, multioutput = _log1p_pair(y_true, y_pred, sample_weight, multioutput, "RMSLE")
    return _combine(np.sqrt(np.average((true - pred) ** 2, axis=0, weights=weights)), multioutput)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per-column weighted median, averaging the two middle values on an exact tie (as scikit-learn)."""
    out = np.empty(values.shape[1], dtype=values.dtype)
    if np.all(weights == 0):
        return np.full(values.shape[1], np.nan)
    eps = np.finfo(values.dtype).eps
    for col in range(values.shape[1]):  # loop over outputs, not samples
        order = np.argsort(values[:, col], kind="stable")
        sorted_values = values[order, col]
        cdf = np.cumsum(weights[order])
        target = 0.5 * cdf[-1]
        if target == 0:
            target = np.nextafter(target, 1)
        last = cdf.shape[0] - 1
        i = min(int(np.searchsorted(cdf, target)), last)
        if cdf[i] - target > eps:
            out[col] = sorted_values[i]
            continue
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        j = i if j > last else j
        out[col] = (sorted_values[i] + sorted_values[j]) / 2
    return out


def median_absolute_error(
    y_true: Any, y_pred: Any, *, multioutput: Any = "uniform_average", sample_weight: Any = None
) -> Result:
    """Median absolute error (weighted median with ``sample_weight``).

    Examples
    --------
    >>> median_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    # here the float type follows the targets only (scikit-learn casts the weights to it)
    true, pred, _, multioutput = _check(y_true, y_pred, None, multioutput)
    weights = _check(y_true, y_pred, sample_weight, None)[2]
    errors = np.abs(pred - true)
    if weights is None:
        per_output = np.median(errors, axis=0)
    else:
        per_output = _weighted_median(errors, weights.astype(errors.dtype))
    return _combine(per_output, multioutput)


def _explained_fraction(numerator: np.ndarray, denominator: np.ndarray, multioutput: Any, force_finite: bool) -> Result:
    nonzero_denominator = denominator != 0
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = 1 - numerator / denominator
    else:
        nonzero_numerator = numerator != 0
        scores = np.ones(numerator.shape[0], dtype=numerator.dtype)
        valid = nonzero_denominator & nonzero_numerator
        scores[valid] = 1 - numerator[valid] / denominator[valid]
        scores[nonzero_numerator & ~nonzero_denominator] = 0.0
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return scores
        weights = None
        if multioutput == "variance_weighted" and np.any(nonzero_denominator):
            weights = denominator
    else:
        weights = multioutput
    return float(np.average(scores, weights=weights))


def r2_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> Result:
    """Coefficient of determination R² = 1 - SS_res / SS_tot.

    Constant ``y_true`` gives 1.0 (perfect predictions) or 0.0 with
    ``force_finite=True`` (the default), else NaN / -inf, as scikit-learn. Fewer
    than two samples: NaN with an :class:`~nlpeval.UndefinedMetricWarning`.

    Examples
    --------
    >>> round(r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.948608
    >>> r2_score([2, 2, 2], [2, 2, 2.5])
    0.0
    """
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    if true.shape[0] < 2:
        warnings.warn("R^2 score is not well-defined with less than two samples.", UndefinedMetricWarning, stacklevel=2)
        return math.nan
    w = 1.0 if weights is None else weights[:, None]
    numerator = np.sum(w * (true - pred) ** 2, axis=0)
    denominator = np.sum(w * (true - np.average(true, axis=0, weights=weights)) ** 2, axis=0)
    return _explained_fraction(numerator, denominator, multioutput, force_finite)


def adjusted_r2_score(
    y_true: Any,
    y_pred: Any,
    *,
    n_features: int,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> Result:
    """Adjusted R² = 1 - (1 - R²) (n - 1) / (n - p - 1) for ``p = n_features`` predictors.

    Undefined (NaN with a warning) unless ``n > p + 1``.

    Examples
    --------
    >>> round(adjusted_r2_score([3, -0.5, 2, 7, 4.2], [2.5, 0.0, 2, 8, 4.0], n_features=2), 6)
    0.89932
    """
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 0:
        raise ValueError(f"n_features must be a non-negative integer; got {n_features!r}")
    r2 = r2_score(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput, force_finite=force_finite)
    n = np.asarray(y_true).shape[0]
    if n - n_features - 1 <= 0:
        warnings.warn(
            f"adjusted R^2 needs more samples than predictors + 1 (n={n}, p={n_features})",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return math.nan if np.ndim(r2) == 0 else np.full(np.shape(r2), np.nan)
    factor = (n - 1) / (n - n_features - 1)
    adjusted = 1 - (1 - np.asarray(r2)) * factor
    return float(adjusted) if np.ndim(adjusted) == 0 else adjusted


def explained_variance_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> Result:
    """Explained variance 1 - Var(y - ŷ) / Var(y).

    Examples
    --------
    >>> round(explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.957173
    """
    true, pred, weights, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    diff_avg = np.average(true - pred, weights=weights, axis=0)
    numerator = np.average((true - pred - diff_avg) ** 2, weights=weights, axis=0)
    true_avg = np.average(true, weights=weights, axis=0)
    denominator = np.average((true - true_avg) ** 2, weights=weights, axis=0)
    return _explained_fraction(numerator, denominator, multioutput, force_finite)


def pearson_r(y_true: Any, y_pred: Any) -> float:
    """Pearson correlation coefficient of two 1-d samples (``scipy.stats.pearsonr(...).statistic``).

    NaN with an :class:`~nlpeval.UndefinedMetricWarning` when either input is constant.

    Examples
    --------
    >>> round(pearson_r([1, 2, 3, 4, 5], [10, 9, 2.5, 6, 4]), 6)
    -0.742611
    """
    x = _array(y_true, "y_true", np.float64)
    y = _array(y_pred, "y_pred", np.float64)
    if x.shape[1] != 1 or y.shape[1] != 1:
        raise ValueError("pearson_r takes two 1-d samples")
    x, y = x[:, 0], y[:, 0]
    if x.shape[0] != y.shape[0]:
        raise InputError(f"{x.shape[0]} values but {y.shape[0]}; the samples must have the same length", side="y_pred")
    if x.shape[0] < 2:
        raise ValueError("pearson_r needs at least two samples")
    xm = x - x.mean()
    ym = y - y.mean()
    if np.all(x == x[0]) or np.all(y == y[0]):
        warnings.warn(
            "an input is constant: the correlation coefficient is not defined", UndefinedMetricWarning, stacklevel=2
        )
        return math.nan
    normx = np.linalg.norm(xm)
    normy = np.linalg.norm(ym)
    r = np.dot(xm / normx, ym / normy)
    return float(np.clip(r, -1.0, 1.0))
