"""scikit-learn parity (1e-12) of the label-based classification metrics, on random data of many shapes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as sklearn_metrics
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined

import nlpeval
from nlpeval import classification as clf

TOL = 1e-12
ZERO_DIVISION = ("warn", 0, 1, 0.0, 1.0, np.nan)


def assert_same(ours, ref) -> None:
    """Equal to 1e-12 (NaN == NaN), same shape; None only against None."""
    if ref is None:
        assert ours is None
        return
    if isinstance(ref, str):
        assert ours == ref
        return
    if isinstance(ref, dict):
        assert list(ours) == list(ref)
        for key in ref:
            assert_same(ours[key], ref[key])
        return
    ours_arr, ref_arr = np.asarray(ours, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    assert ours_arr.shape == ref_arr.shape
    np.testing.assert_allclose(ours_arr, ref_arr, rtol=0, atol=TOL, equal_nan=True)


def call(fn, *args, **kwargs):
    """(result or the exception type, whether an undefined-metric warning was emitted)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
        except (ValueError, NotImplementedError) as exc:
            result = type(exc)
    undefined = any(issubclass(w.category, (SkUndefined, nlpeval.UndefinedMetricWarning)) for w in caught)
    return result, undefined


def both(name, *args, **kwargs):
    ours, ours_warned = call(getattr(clf, name), *args, **kwargs)
    ref, ref_warned = call(getattr(sklearn_metrics, name), *args, **kwargs)
    if isinstance(ref, type):
        assert isinstance(ours, type) and issubclass(ours, ValueError) == issubclass(ref, ValueError), (ours, ref)
        return
    assert not isinstance(ours, type), f"nlpeval raised {ours} where scikit-learn returned {ref}"
    if isinstance(ref, tuple):
        assert len(ours) == len(ref)
        for a, b in zip(ours, ref, strict=True):
            assert_same(a, b)
    else:
        assert_same(ours, ref)
    assert ours_warned == ref_warned, f"{name}: warned {ours_warned} vs scikit-learn {ref_warned}"


def _label_sets(rng):
    """(y_true, y_pred, candidate label lists) for many kinds of labels."""
    n = int(rng.integers(1, 60))
    kinds = []
    # binary 0/1, binary strings, {-1, 1}
    kinds.append((rng.integers(0, 2, n), rng.integers(0, 2, n), [[0], [1, 0], [0, 1, 2]]))
    s = np.array(["neg", "pos"])
    kinds.append((s[rng.integers(0, 2, n)], s[rng.integers(0, 2, n)], [["pos"], ["pos", "neg"], ["neg", "zzz"]]))
    pm = np.array([-1, 1])
    kinds.append((pm[rng.integers(0, 2, n)], pm[rng.integers(0, 2, n)], [[1, -1], [-1]]))
    # multi-class with labels unseen on either side and non-contiguous, negative and float labels
    vals = np.array([-3, 2, 7, 100, 1000])
    true = vals[rng.integers(0, 3, n)]
    pred = vals[rng.integers(1, 5, n)]
    kinds.append((true, pred, [[7, 2], [1000, -3, 2, 5], [2, 7, 100, 1000, -3]]))
    words = np.array(["ant", "bee", "cat", "dog", "eel"])
    kinds.append((words[rng.integers(0, 4, n)], words[rng.integers(0, 5, n)], [["cat", "ant"], ["eel", "zebra"]]))
    kinds.append((rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float), [[0.0, 3.0]]))
    kinds.append((rng.random(n) < 0.5, rng.random(n) < 0.3, [[True], [False, True]]))
    # one class only on both sides
    kinds.append((np.full(n, 5), np.full(n, 5), [[5, 6]]))
    return kinds


def _weights(rng, n):
    return [None, rng.integers(0, 4, n), rng.random(n) * 3]


SEEDS = list(range(8))


def _pick(rng, options):
    return options[int(rng.integers(0, len(options)))]


@pytest.mark.parametrize("seed", SEEDS)
def test_prfs_parity(seed):
    """Random draws over label kinds x labels= x average= x zero_division= x weights x beta."""
    rng = np.random.default_rng(seed)
    for y_true, y_pred, label_lists in _label_sets(rng):
        weights = _weights(rng, y_true.shape[0])
        for average in clf.scores._AVERAGES:
            for _ in range(2):
                labels, zd, weight = _pick(rng, [None, *label_lists]), _pick(rng, ZERO_DIVISION), _pick(rng, weights)
                beta = _pick(rng, [0.5, 1, 2.0, 0, np.inf])
                kw = {}
                if average == "binary" and y_true.dtype.kind == "U":
                    kw = {"pos_label": "pos"}
                elif average == "binary" and set(np.unique(np.concatenate([y_true, y_pred]))) == {-1, 1}:
                    kw = {"pos_label": -1}
                common = {"labels": labels, "average": average, "sample_weight": weight, "zero_division": zd, **kw}
                both("precision_recall_fscore_support", y_true, y_pred, beta=beta, **common)
                both(_pick(rng, ["precision_score", "recall_score", "f1_score"]), y_true, y_pred, **common)


@pytest.mark.parametrize("seed", SEEDS)
def test_multilabel_parity(seed):
    rng = np.random.default_rng(100 + seed)
    n, k = int(rng.integers(1, 40)), int(rng.integers(2, 6))
    y_true = (rng.random((n, k)) < rng.random()).astype(int)
    y_pred = (rng.random((n, k)) < rng.random()).astype(int)
    y_true[:, 0] = 0  # a label never true
    for average in clf.scores._AVERAGES:
        for _ in range(3):
            labels, zd = _pick(rng, [None, [k - 1, 0], list(range(k))]), _pick(rng, ZERO_DIVISION)
            weight = _pick(rng, [None, rng.random(n), rng.integers(0, 3, n)])
            common = {"labels": labels, "average": average, "sample_weight": weight, "zero_division": zd}
            both("precision_recall_fscore_support", y_true, y_pred, beta=_pick(rng, [1, 0.5, 3]), **common)
    both("accuracy_score", y_true, y_pred)
    both("accuracy_score", y_true, y_pred, normalize=False, sample_weight=rng.random(n))
    both("classification_report", y_true, y_pred, zero_division=0)
    both("classification_report", y_true, y_pred, output_dict=True, zero_division=1)


@pytest.mark.parametrize("seed", SEEDS)
def test_other_label_metrics_parity(seed):
    rng = np.random.default_rng(200 + seed)
    for y_true, y_pred, label_lists in _label_sets(rng):
        weight = _pick(rng, _weights(rng, y_true.shape[0]))
        labels = _pick(rng, [None, *label_lists])
        both("accuracy_score", y_true, y_pred, sample_weight=weight, normalize=_pick(rng, [True, False]))
        both("balanced_accuracy_score", y_true, y_pred, sample_weight=weight, adjusted=_pick(rng, [True, False]))
        both("matthews_corrcoef", y_true, y_pred, sample_weight=weight)
        normalize = _pick(rng, [None, "true", "pred", "all"])
        both("confusion_matrix", y_true, y_pred, labels=labels, sample_weight=weight, normalize=normalize)
        kappa_weights = _pick(rng, [None, "linear", "quadratic"])
        both("cohen_kappa_score", y_true, y_pred, labels=labels, weights=kappa_weights, sample_weight=weight)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_classification_report_parity(seed):
    rng = np.random.default_rng(300 + seed)
    for y_true, y_pred, label_lists in _label_sets(rng):
        labels, zd, digits = _pick(rng, [None, *label_lists]), _pick(rng, ZERO_DIVISION), _pick(rng, [2, 4])
        weight = _pick(rng, _weights(rng, y_true.shape[0]))
        kwargs = {"labels": labels, "zero_division": zd, "sample_weight": weight, "digits": digits}
        both("classification_report", y_true, y_pred, output_dict=_pick(rng, [True, False]), **kwargs)
    names = [f"class {i}" for i in range(len(np.unique(np.concatenate([y_true, y_pred]))))]
    both("classification_report", y_true, y_pred, target_names=names)


def test_report_text_is_identical():
    y_true = ["cat", "ant", "cat", "cat", "ant", "bird", "bird"]
    y_pred = ["ant", "ant", "cat", "cat", "ant", "cat", "bird"]
    for digits in (2, 3, 5):
        assert clf.classification_report(y_true, y_pred, digits=digits) == sklearn_metrics.classification_report(
            y_true, y_pred, digits=digits
        )


def test_large_random_multiclass_is_exact():
    """Bit-for-bit on 200,000 samples with float weights (same operation order as scikit-learn)."""
    rng = np.random.default_rng(7)
    y_true = rng.integers(0, 12, 200_000)
    y_pred = np.where(rng.random(200_000) < 0.6, y_true, rng.integers(0, 12, 200_000))
    weight = rng.random(200_000)
    for average in (None, "macro", "micro", "weighted"):
        ours = clf.precision_recall_fscore_support(y_true, y_pred, average=average, sample_weight=weight)
        ref = sklearn_metrics.precision_recall_fscore_support(y_true, y_pred, average=average, sample_weight=weight)
        for a, b in zip(ours[:3], ref[:3], strict=True):
            assert np.array_equal(np.asarray(a), np.asarray(b))
    assert np.array_equal(
        clf.confusion_matrix(y_true, y_pred, sample_weight=weight),
        sklearn_metrics.confusion_matrix(y_true, y_pred, sample_weight=weight),
    )


def test_zero_division_values_and_warnings():
    # precision 0/0 for label 1 (never predicted); recall defined
    y_true, y_pred = [0, 1, 1, 0], [0, 0, 0, 0]
    for zd, expected in ((0, 0.0), (1, 1.0)):
        assert clf.precision_score(y_true, y_pred, zero_division=zd) == expected
    assert math.isnan(clf.precision_score(y_true, y_pred, zero_division=np.nan))
    with pytest.warns(nlpeval.UndefinedMetricWarning, match="Precision is ill-defined"):
        assert clf.precision_score(y_true, y_pred) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.precision_score(y_true, y_pred, zero_division=0)
        clf.f1_score(y_true, y_pred)  # F is defined (true positives exist): no warning, as scikit-learn
    with pytest.raises(ValueError, match="zero_division"):
        clf.f1_score(y_true, y_pred, zero_division="skip")


def test_bad_input():
    with pytest.raises(nlpeval.InputError, match="segment 2") as info:
        clf.f1_score([0, 1, float("nan")], [0, 1, 1])
    assert info.value.side == "y_true"
    with pytest.raises(nlpeval.InputError, match="3 true labels but 2 predictions"):
        clf.accuracy_score([0, 1, 1], [0, 1])
    with pytest.raises(nlpeval.InputError, match="one str"):
        clf.accuracy_score("abc", "abd")
    with pytest.raises(nlpeval.InputError, match="mixes string and number"):
        clf.accuracy_score(np.array(["a", 1], dtype=object), ["a", "b"])
    with pytest.raises(ValueError, match="continuous"):
        clf.f1_score([0.5, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="mix of string and number"):
        clf.f1_score(["a", "b"], [0, 1], average="macro")
    with pytest.raises(ValueError, match="empty input"):
        clf.confusion_matrix([], [])
    with pytest.raises(ValueError, match="duplicates"):
        clf.confusion_matrix([0, 1], [0, 1], labels=[0, 0, 1])
    for call_ in (
        lambda m: m.f1_score([0, 1, 2], [0, 1, 2]),  # multiclass with average="binary"
        lambda m: m.precision_score(["a", "b"], ["a", "b"]),  # pos_label=1 not a label
        lambda m: m.f1_score([0, 1, 2], [0, 1, 2], average="samples"),
        lambda m: m.f1_score([0, 1], [0, 1], average="mean"),
        lambda m: m.confusion_matrix([0, 1], [0, 1], labels=[5]),
    ):
        with pytest.raises(ValueError):
            call_(sklearn_metrics)
        with pytest.raises(ValueError):
            call_(clf)
