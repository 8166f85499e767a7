"""ROC AUC and average precision from score histograms: the exact, mergeable alternative to sorting all scores.

Exact ROC AUC/AP need every score sorted and do not decompose. Counting binary labels per
score bin does: the histograms of any partitioning sum to the whole one, and the curve read
from them equals scikit-learn's on the scores quantised to the bins
(``min(floor(score * bins), bins - 1)``). The bin count is part of the signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class ScoreHistogram:
    """Counts of negatives (row 0) and positives (row 1) per equal-width score bin on [0, 1].

    Examples
    --------
    >>> a = ScoreHistogram.of([0, 1], [0.1, 0.35], bins=10)
    >>> b = ScoreHistogram.of([0, 1], [0.4, 0.8], bins=10)
    >>> whole = a.merge(b)
    >>> whole.roc_auc(), whole.signature
    (0.75, 'curve:binned|bins:10')
    """

    counts: np.ndarray

    @property
    def bins(self) -> int:
        """Number of bins."""
        return int(self.counts.shape[1])

    @property
    def signature(self) -> str:
        """How the curve was computed (binned, with the bin count)."""
        return f"curve:binned|bins:{self.bins}"

    @classmethod
    def zero(cls, bins: int) -> ScoreHistogram:
        """The identity: no scores."""
        if not isinstance(bins, int) or isinstance(bins, bool) or bins < 1:
            raise ValueError(f"bins must be a positive int; got {bins!r}")
        return cls(np.zeros((2, bins), dtype=np.int64))

    @classmethod
    def of(cls, y_true: Any, scores: Any, *, bins: int = 1000, where: str = "") -> ScoreHistogram:
        """Histogram of binary labels (0/1) and scores in [0, 1]; ``where`` prefixes error messages."""
        out = cls.zero(bins)
        labels, values = np.asarray(y_true), np.asarray(scores, dtype=np.float64)
        if labels.shape != values.shape or labels.ndim != 1:
            raise ValueError(f"{where}y_true and scores must be 1-d of one length; got {labels.shape}, {values.shape}")
        bad = np.flatnonzero(~((values >= 0.0) & (values <= 1.0)))
        if bad.size:
            raise ValueError(f"{where}row {int(bad[0])}: score {values[bad[0]]!r} is not in [0, 1]")
        wrong = np.flatnonzero(~np.isin(labels, (0, 1)))
        if wrong.size:
            raise ValueError(f"{where}row {int(wrong[0])}: label {labels[wrong[0]]!r} is not 0 or 1")
        cells = np.minimum((values * bins).astype(np.int64), bins - 1)
        np.add.at(out.counts, (labels.astype(np.int64), cells), 1)
        return out

    def merge(self, other: ScoreHistogram) -> ScoreHistogram:
        """The histogram of both sets of scores (refuses different bin counts)."""
        if self.bins != other.bins:
            raise ValueError(f"cannot merge histograms of {self.bins} and {other.bins} bins")
        return ScoreHistogram(self.counts + other.counts)

    def __add__(self, other: ScoreHistogram) -> ScoreHistogram:
        return self.merge(other)

    def _curve(self) -> tuple[np.ndarray, np.ndarray]:
        neg, pos = self.counts[0][::-1], self.counts[1][::-1]
        present = (neg + pos) > 0
        tps = np.cumsum(pos)[present].astype(np.float64)
        fps = np.cumsum(neg)[present].astype(np.float64)
        if tps.size == 0 or tps[-1] == 0 or fps[-1] == 0:
            raise ValueError("ROC AUC needs both positive and negative labels")
        return tps, fps

    def roc_auc(self) -> float:
        """Area under the ROC curve of the binned scores (scikit-learn's ``roc_auc_score``)."""
        tps, fps = self._curve()
        return float(np.trapezoid(np.concatenate([[0.0], tps / tps[-1]]), np.concatenate([[0.0], fps / fps[-1]])))

    def average_precision(self) -> float:
        """Average precision of the binned scores (scikit-learn's ``average_precision_score``)."""
        tps, fps = self._curve()
        recall = np.concatenate([[0.0], tps / tps[-1]])
        return float(np.sum(np.diff(recall) * (tps / (tps + fps))))

    def result(self) -> dict[str, Any]:
        """ROC AUC, AP, bin count, label counts and signature."""
        return {
            "roc_auc": self.roc_auc(),
            "average_precision": self.average_precision(),
            "bins": self.bins,
            "positives": int(self.counts[1].sum()),
            "negatives": int(self.counts[0].sum()),
            "signature": self.signature,
        }
