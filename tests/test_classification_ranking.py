"""scikit-learn parity (1e-12) of the score-based metrics: PR/ROC curves, AP, ROC AUC, log-loss."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn import metrics as sklearn_metrics

from nlpeval import classification as clf
from test_classification import _pick, both

SEEDS = list(range(10))


def _scores(rng, n, ties):
    scores = rng.random(n)
    return np.round(scores, 1) if ties else scores


@pytest.mark.parametrize("seed", SEEDS)
def test_binary_curves_parity(seed):
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, int(rng.integers(10, 300))):
        for ties in (False, True):
            y = rng.integers(0, 2, n)
            s = _scores(rng, n, ties)
            weight = _pick(rng, [None, rng.random(n), rng.integers(0, 3, n) + (n < 5)])
            both("precision_recall_curve", y, s, sample_weight=weight, drop_intermediate=_pick(rng, [True, False]))
            both("roc_curve", y, s, sample_weight=weight, drop_intermediate=_pick(rng, [True, False]))
            both("average_precision_score", y, s, sample_weight=weight)
            both("roc_auc_score", y, s, sample_weight=weight)
            both("roc_auc_score", y, s, sample_weight=weight, max_fpr=_pick(rng, [0.1, 0.5, 1.0]))
            # string labels with an explicit positive class, and {-1, 1}
            words = np.array(["ham", "spam"])[y]
            both("precision_recall_curve", words, s, pos_label="spam")
            both("roc_curve", words, s, pos_label="ham", sample_weight=weight)
            both("average_precision_score", words, s, pos_label="spam")
            both("roc_auc_score", words, s)
            both("average_precision_score", 2 * y - 1, s)
            # integer scores (e.g. votes) and a multi-class y_true with pos_label
            both("roc_curve", rng.integers(0, 3, n), rng.integers(0, 5, n), pos_label=2)


@pytest.mark.parametrize("seed", SEEDS)
def test_multiclass_parity(seed):
    rng = np.random.default_rng(50 + seed)
    k = int(rng.integers(3, 6))
    n = int(rng.integers(k, 120))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    proba = rng.dirichlet(np.ones(k), n)
    if seed % 2:
        proba = np.round(proba, 1)
        proba /= proba.sum(axis=1, keepdims=True)
    weight = _pick(rng, [None, rng.random(n)])
    for average in ("macro", "weighted", "micro", None):
        both("roc_auc_score", y, proba, multi_class="ovr", average=average, sample_weight=weight)
        both("roc_auc_score", y, proba, multi_class="ovo", average=average)
        both("average_precision_score", y, proba, average=average, sample_weight=weight)
    both("roc_auc_score", y, proba)  # multi_class="raise"
    # a class absent from y_true, declared through labels=
    names = np.array(["a", "b", "c", "d", "e", "f"])[: k + 1]
    y_str = names[y]
    proba_plus = np.hstack([proba * 0.9, np.full((n, 1), 0.1)])
    both("roc_auc_score", y_str, proba_plus, multi_class="ovr", labels=names, average=None)
    both("roc_auc_score", y_str, proba_plus, multi_class="ovo", labels=names)
    both("roc_auc_score", y_str, proba_plus, multi_class="ovr", labels=names[::-1])  # not ordered: error
    both("roc_auc_score", y, proba * 2, multi_class="ovr")  # not probabilities: error


@pytest.mark.parametrize("seed", SEEDS)
def test_multilabel_parity(seed):
    rng = np.random.default_rng(80 + seed)
    n, k = int(rng.integers(2, 80)), int(rng.integers(2, 7))
    y = (rng.random((n, k)) < 0.4).astype(int)
    y[0] = 0  # a sample with no positive label
    y[1] = 1  # and one with only positive labels
    s = _scores(rng, n * k, bool(seed % 2)).reshape(n, k)
    for average in ("macro", "weighted", "micro", "samples", None):
        weight = _pick(rng, [None, rng.random(n)])
        both("average_precision_score", y, s, average=average, sample_weight=weight)
        both("roc_auc_score", y, s, average=average, sample_weight=weight)
        both("roc_auc_score", y, s, average=average, sample_weight=weight, max_fpr=_pick(rng, [0.05, 0.3, 0.5]))
    y[:, 0] = 0  # a label that never occurs
    both("average_precision_score", y, s, average="samples")
    both("roc_auc_score", y, s, average="macro")


def test_samples_average_is_vectorised_and_exact():
    rng = np.random.default_rng(3)
    y = (rng.random((400, 9)) < 0.3).astype(int)
    y[:, 0] = 1  # no row without a positive nor without a negative label... except where all are 1
    s = np.round(rng.random((400, 9)), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert clf.average_precision_score(y, s, average="samples") == pytest.approx(
            sklearn_metrics.average_precision_score(y, s, average="samples"), abs=1e-12
        )
        ours = clf.roc_auc_score(y, s, average="samples")
        ref = sklearn_metrics.roc_auc_score(y, s, average="samples")
    assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS[:6])
def test_log_loss_parity(seed):
    rng = np.random.default_rng(120 + seed)
    n = int(rng.integers(2, 100))
    y = rng.integers(0, 2, n)
    p = rng.random(n)
    weight = _pick(rng, [None, rng.random(n)])
    both("log_loss", y, p, sample_weight=weight)
    both("log_loss", y, np.column_stack([1 - p, p]), normalize=False, sample_weight=weight)
    both("log_loss", y.astype(bool), p.astype(np.float32))
    k = 4
    y = rng.integers(0, k, n)
    proba = rng.dirichlet(np.ones(k), n)
    proba[0] = [1, 0, 0, 0]  # clipped to eps
    both("log_loss", y, proba, sample_weight=weight)
    names = np.array(["a", "b", "c", "d"])
    both("log_loss", names[np.minimum(y, 2)], proba, labels=names)  # class "d" unseen in y_true
    both("log_loss", names[y], proba[:, :3])  # class-count mismatch: error
    both("log_loss", y, proba * 1.5)  # not probabilities: error or warning, as scikit-learn
    both("log_loss", np.zeros(n, dtype=int), proba)  # one class only: error


def test_interpolated_ap_from_definition():
    """11-point interpolated AP = mean over r in {0, .1, ..., 1} of max precision at recall >= r."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 60))
        y = rng.integers(0, 2, n)
        y[0] = 1
        s = np.round(rng.random(n), 1)
        precision, recall, _ = sklearn_metrics.precision_recall_curve(y, s)
        points = list(zip(recall[:-1].tolist(), precision[:-1].tolist(), strict=True))
        expected = 0.0
        for i in range(11):
            level = i / 10
            reached = [p for r, p in points if r >= level]
            expected += max(reached) if reached else 0.0
        assert clf.interpolated_average_precision(y, s) == pytest.approx(expected / 11, abs=1e-12)
        assert clf.interpolated_average_precision(y, s) >= clf.average_precision_score(y, s) - 0.1
    # a perfect ranking has AP 1 either way; recall 3/10 reaches the 0.3 level exactly
    assert clf.interpolated_average_precision([1, 1, 0], [0.9, 0.8, 0.1]) == 1.0
    y = np.array([1] * 3 + [0] * 5 + [1] * 7)
    s = -np.arange(15.0)
    p_at_03 = 3 / 3  # the first three hits give recall 0.3 at precision 1
    value = clf.interpolated_average_precision(y, s)
    manual = (4 * p_at_03 + 7 * (10 / 15)) / 11
    assert value == pytest.approx(manual, abs=1e-12)


def test_auc_function():
    x = np.array([0, 0.25, 0.5, 1.0])
    y = np.array([0, 0.5, 0.75, 1.0])
    assert clf.auc(x, y) == sklearn_metrics.auc(x, y)
    assert clf.auc(x[::-1], y[::-1]) == sklearn_metrics.auc(x[::-1], y[::-1])
    with pytest.raises(ValueError):
        clf.auc([0, 1, 0.5], [0, 1, 1])


def test_bad_scores():
    import nlpeval

    with pytest.raises(nlpeval.InputError, match="segment 1"):
        clf.roc_auc_score([0, 1, 1], [0.1, float("nan"), 0.3])
    with pytest.raises(ValueError, match="pos_label is not specified"):
        clf.roc_curve(["a", "b"], [0.1, 0.2])
    with pytest.raises(ValueError, match="non-zero weight"):
        clf.average_precision_score([0, 1], [0.1, 0.2], sample_weight=[0, 0])
    with pytest.warns(nlpeval.UndefinedMetricWarning, match="Only one class"):
        assert math.isnan(clf.roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]))


def test_interpolated_ap_samples_average_equals_the_per_row_definition():
    rng = np.random.default_rng(9)
    y = (rng.random((200, 6)) < 0.4).astype(int)
    y[0] = 0
    s = np.round(rng.random((200, 6)), 1)
    weight = rng.random(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = [clf.interpolated_average_precision(y[i], s[i]) for i in range(200)]
        assert clf.interpolated_average_precision(y, s, average="samples") == pytest.approx(np.mean(rows), abs=1e-12)
        assert clf.interpolated_average_precision(
            y, s, average="samples", sample_weight=weight, n_points=5
        ) == pytest.approx(
            np.average(
                [clf.interpolated_average_precision(y[i], s[i], n_points=5) for i in range(200)], weights=weight
            ),
            abs=1e-12,
        )


def test_partial_auc_samples_at_exact_fpr_steps():
    """Rows with 10 negatives put false positive rates exactly on max_fpr = 0.3 and 0.5."""
    rng = np.random.default_rng(11)
    y = np.zeros((60, 14), dtype=int)
    for i in range(60):
        y[i, rng.choice(14, 4, replace=False)] = 1
    s = np.round(rng.random((60, 14)), 1)
    for max_fpr in (0.3, 0.5, 1.0):
        both("roc_auc_score", y, s, average="samples", max_fpr=max_fpr)
        both("roc_auc_score", y, s, average="macro", max_fpr=max_fpr)
