"""Classification, on 10 million labels (10 classes) and 10 million scores, against scikit-learn; perplexity sums."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from harness import Case

N = 10_000_000


def cases(data: Path) -> list[Case]:
    import sklearn
    from sklearn import metrics

    from nlpeval import classification as clf

    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 10, N)
    y_pred = np.where(rng.random(N) < 0.7, y_true, rng.integers(0, 10, N))
    truth = rng.integers(0, 2, N)
    scores = rng.random(N)
    tool = f"scikit-learn {sklearn.__version__}"

    def matrix_prf_ref() -> None:
        metrics.confusion_matrix(y_true, y_pred)
        metrics.precision_recall_fscore_support(y_true, y_pred, average=None)
        metrics.f1_score(y_true, y_pred, average="macro")

    def matrix_prf_ours() -> None:
        clf.confusion_matrix(y_true, y_pred)
        clf.precision_recall_fscore_support(y_true, y_pred, average=None)
        clf.f1_score(y_true, y_pred, average="macro")

    def matrix_view_ours() -> None:
        cm = clf.ConfusionMatrix.from_predictions(y_true, y_pred)
        cm.precision(), cm.recall(), cm.f1(), cm.f1(average="macro")

    def quiet(fn):
        def run() -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()

        return run

    return [
        Case(
            "confusion matrix + per-class P/R/F + macro F1, 10M labels, 10 classes",
            tool,
            matrix_prf_ref,
            matrix_prf_ours,
            5,
            repeat=2,
        ),
        Case(
            "the same from one ConfusionMatrix (count once, derive all)",
            tool,
            matrix_prf_ref,
            matrix_view_ours,
            5,
            repeat=2,
        ),
        Case(
            "average precision, 10M scores",
            tool,
            quiet(lambda: metrics.average_precision_score(truth, scores)),
            quiet(lambda: clf.average_precision_score(truth, scores)),
            1,
            repeat=2,
        ),
        Case(
            "ROC AUC, 10M scores",
            tool,
            quiet(lambda: metrics.roc_auc_score(truth, scores)),
            quiet(lambda: clf.roc_auc_score(truth, scores)),
            1,
            repeat=2,
        ),
    ]
