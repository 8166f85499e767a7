"""Classification section: confusion matrices, per-class P/R/F with bootstrap intervals, PR/ROC points,
exact McNemar tests between systems (Holm over the pairs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np

from nlpeval.reports.analyses.multitest import holm
from nlpeval.reports.analyses.resampling import Resamples
from nlpeval.reports.analyses.sentences import sign_test
from nlpeval.reports.model import (
    ClassificationSection,
    ClassificationSystem,
    ClassMetrics,
    Curve,
    Estimate,
    McNemarTest,
)
from nlpeval.significance.bootstrap import percentile_interval


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den`` is 0 (scikit-learn's ``zero_division=0``)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


def _prf(tp: np.ndarray, predicted: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    precision, recall = _ratio(tp, predicted), _ratio(tp, true)
    return precision, recall, _ratio(2 * tp, predicted + true)


def _estimate(value: float, n: int, series: np.ndarray | None, level: float) -> Estimate:
    if series is None:
        return Estimate(float(value), n)
    ci = percentile_interval(series, level=level)
    return Estimate(float(value), n, ci.low, ci.high)


def _curves(gold: np.ndarray, scores: np.ndarray, labels: Sequence[str]) -> tuple[Curve, ...]:
    from nlpeval.classification.ranking import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

    curves = []
    for c, label in enumerate(labels):
        truth = gold == c
        if truth.all() or not truth.any():
            continue
        column = scores[:, c]
        precision, recall, _ = precision_recall_curve(truth, column)
        curves.append(
            Curve(
                "pr",
                label,
                tuple(recall.tolist()),
                tuple(precision.tolist()),
                float(average_precision_score(truth, column)),
            )
        )
        fpr, tpr, _ = roc_curve(truth, column)
        curves.append(
            Curve("roc", label, tuple(fpr.tolist()), tuple(tpr.tolist()), float(roc_auc_score(truth, column)))
        )
    return tuple(curves)


def classification_section(
    gold: Sequence[str],
    predictions: Mapping[str, Sequence[str]],
    *,
    scores: Mapping[str, np.ndarray] | None = None,
    n_bootstrap: int = 1000,
    seed: int | None = 12345,
    level: float = 0.95,
) -> ClassificationSection:
    """The classification section of several classifiers on the same items.

    ``scores[system]`` is ``(n, n_classes)`` (columns in sorted label order) for PR/ROC points.

    Examples
    --------
    >>> section = classification_section(["a", "b", "b", "a"], {"X": ["a", "b", "a", "a"]}, n_bootstrap=0)
    >>> section.labels, section.systems[0].confusion, section.systems[0].accuracy.value
    (('a', 'b'), ((2, 0), (1, 1)), 0.75)
    """
    gold = [str(x) for x in gold]
    predictions = {name: [str(x) for x in pred] for name, pred in predictions.items()}
    labels = tuple(sorted(set(gold).union(*(set(p) for p in predictions.values()))))
    index = {label: i for i, label in enumerate(labels)}
    g = np.array([index[x] for x in gold], dtype=np.int64)
    n, k = len(g), len(labels)
    resamples = Resamples.draw(n, n_bootstrap, seed) if n_bootstrap >= 2 and n >= 2 else None
    truth = np.eye(k, dtype=np.float64)[g]  # (n, k)
    systems = []
    correct: dict[str, np.ndarray] = {}
    for name, pred in predictions.items():
        p = np.array([index[x] for x in pred], dtype=np.int64)
        predicted = np.eye(k, dtype=np.float64)[p]
        hit = (g == p).astype(np.float64)
        correct[name] = g == p
        confusion = np.zeros((k, k), dtype=np.int64)
        np.add.at(confusion, (g, p), 1)
        tp_rows = predicted * hit[:, None]
        precision, recall, f1 = _prf(tp_rows.sum(0), predicted.sum(0), truth.sum(0))
        series: dict[str, np.ndarray] = {}
        if resamples is not None:
            w = resamples.counts
            bp, br, bf = _prf(w @ tp_rows, w @ predicted, w @ truth)
            series = {"precision": bp, "recall": br, "f1": bf, "accuracy": (w @ hit) / n, "macro": bf.mean(axis=1)}
        classes = []
        support = truth.sum(0)
        for c, label in enumerate(labels):
            pick = {key: (series[key][:, c] if series else None) for key in ("precision", "recall", "f1")}
            classes.append(
                ClassMetrics(
                    label,
                    _estimate(precision[c], int(predicted[:, c].sum()), pick["precision"], level),
                    _estimate(recall[c], int(support[c]), pick["recall"], level),
                    _estimate(f1[c], int(support[c]), pick["f1"], level),
                    int(support[c]),
                )
            )
        curves: tuple[Curve, ...] = ()
        if scores is not None and name in scores:
            curves = _curves(g, np.asarray(scores[name], dtype=np.float64), labels)
        systems.append(
            ClassificationSystem(
                name,
                _estimate(hit.mean(), n, series.get("accuracy"), level),
                _estimate(f1.mean(), n, series.get("macro"), level),
                tuple(tuple(int(x) for x in row) for row in confusion),
                tuple(classes),
                curves,
            )
        )
    pairs = list(combinations(predictions, 2))
    raw = []
    for a, b in pairs:
        only_b = int(np.sum(correct[b] & ~correct[a]))
        only_a = int(np.sum(correct[a] & ~correct[b]))
        raw.append((b, a, only_b, only_a, sign_test(only_b, only_a)))
    adjusted = holm([r[4] for r in raw])
    tests = tuple(McNemarTest(*r, p_holm=q) for r, q in zip(raw, adjusted, strict=True))
    return ClassificationSection(labels, tuple(systems), tests)
