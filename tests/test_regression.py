"""Regression metrics: scikit-learn and SciPy parity (1e-12) on random data of many shapes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn import metrics as sklearn_metrics

import nlpeval
from nlpeval import regression

NAMES = (
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "median_absolute_error",
    "mean_squared_log_error",
    "root_mean_squared_log_error",
    "r2_score",
    "explained_variance_score",
)


def same(ours, ref) -> None:
    np.testing.assert_allclose(np.asarray(ours, float), np.asarray(ref, float), rtol=1e-12, atol=1e-12, equal_nan=True)
    assert np.shape(ours) == np.shape(ref)


def _cases(rng):
    n = int(rng.integers(2, 80))
    yield rng.normal(size=n) * 10, rng.normal(size=n) * 10
    yield rng.random((n, 3)) * 5, rng.random((n, 3)) * 5
    constant = np.full((n, 2), 3.0)
    yield constant, constant + np.r_[np.zeros(n - 1), 1.0][:, None]  # constant y_true: R² 0 or 1 or -inf
    yield rng.integers(0, 5, n), rng.integers(0, 5, n)  # integers, ties in the median
    yield rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)


@pytest.mark.parametrize("seed", range(8))
def test_parity_with_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    for y_true, y_pred in _cases(rng):
        n = y_true.shape[0]
        outputs = 1 if y_true.ndim == 1 else y_true.shape[1]
        options = ["raw_values", "uniform_average"] + ([rng.random(outputs)] if outputs > 1 else [])
        for name in NAMES:
            if "log" in name:
                y_true_, y_pred_ = np.abs(y_true), np.abs(y_pred)
            else:
                y_true_, y_pred_ = y_true, y_pred
            for multioutput in options + (
                ["variance_weighted"] if name in ("r2_score", "explained_variance_score") else []
            ):
                for weight in (None, rng.random(n), rng.integers(0, 3, n) + 1):
                    kwargs = {"multioutput": multioutput, "sample_weight": weight}
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ours = getattr(regression, name)(y_true_, y_pred_, **kwargs)
                        ref = getattr(sklearn_metrics, name)(y_true_, y_pred_, **kwargs)
                    same(ours, ref)
            if name in ("r2_score", "explained_variance_score"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    same(
                        getattr(regression, name)(y_true, y_pred, force_finite=False, multioutput="raw_values"),
                        getattr(sklearn_metrics, name)(y_true, y_pred, force_finite=False, multioutput="raw_values"),
                    )


def test_weighted_median_with_zero_weights_and_exact_halves():
    rng = np.random.default_rng(1)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        y_true, y_pred = rng.integers(0, 6, n).astype(float), rng.integers(0, 6, n).astype(float)
        weight = rng.integers(0, 3, n).astype(float)
        if weight.sum() == 0:
            continue
        same(
            regression.median_absolute_error(y_true, y_pred, sample_weight=weight),
            sklearn_metrics.median_absolute_error(y_true, y_pred, sample_weight=weight),
        )


def test_adjusted_r2_from_definition():
    rng = np.random.default_rng(2)
    y_true, y_pred = rng.normal(size=30), rng.normal(size=30)
    r2 = sklearn_metrics.r2_score(y_true, y_pred)
    for p in (0, 1, 5, 27):
        expected = 1 - (1 - r2) * (30 - 1) / (30 - p - 1)
        assert regression.adjusted_r2_score(y_true, y_pred, n_features=p) == pytest.approx(expected, abs=1e-12)
    with pytest.warns(nlpeval.UndefinedMetricWarning):
        assert math.isnan(regression.adjusted_r2_score(y_true, y_pred, n_features=29))
    with pytest.raises(ValueError):
        regression.adjusted_r2_score(y_true, y_pred, n_features=-1)


def test_pearson_r_parity():
    rng = np.random.default_rng(3)
    for n in (2, 3, 10, 500):
        x, y = rng.normal(size=n), rng.normal(size=n) + 0.3 * np.arange(n)
        assert regression.pearson_r(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
    with pytest.warns(nlpeval.UndefinedMetricWarning):
        assert math.isnan(regression.pearson_r([1, 1, 1], [1, 2, 3]))


def test_degenerate_and_bad_input():
    with pytest.warns(nlpeval.UndefinedMetricWarning):
        assert math.isnan(regression.r2_score([1.0], [2.0]))
    with pytest.raises(nlpeval.InputError, match="segment 1") as info:
        regression.mean_squared_error([1.0, float("nan")], [1.0, 2.0])
    assert info.value.side == "y_true"
    with pytest.raises(nlpeval.InputError, match="3 true values but 2 predictions"):
        regression.mean_absolute_error([1, 2, 3], [1, 2])
    with pytest.raises(nlpeval.InputError, match="-1"):
        regression.mean_squared_log_error([1, -2], [1, 2])
    with pytest.raises(ValueError, match="multioutput"):
        regression.r2_score([1, 2], [1, 2], multioutput="median")
