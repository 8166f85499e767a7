"""The ROUGE result: a :class:`~nlpeval.core.score.Score` with precision, recall and F."""

from __future__ import annotations

from dataclasses import dataclass

from nlpeval.core.score import Score


@dataclass(frozen=True)
class RougeScore(Score):
    """A ROUGE score: ``score`` is the F-measure; precision and recall are components.

    ``segments`` (when asked for) is an ``(n, 3)`` array of per-segment precision,
    recall and F-measure.

    Examples
    --------
    >>> s = RougeScore("rouge1", 0.4, "x", {"precision": 0.5, "recall": 1 / 3, "fmeasure": 0.4})
    >>> s.precision, s.fmeasure == s.score
    (0.5, True)
    """

    @property
    def precision(self) -> float:
        """Aggregate precision."""
        return float(self.components["precision"])

    @property
    def recall(self) -> float:
        """Aggregate recall."""
        return float(self.components["recall"])

    @property
    def fmeasure(self) -> float:
        """Aggregate F-measure (the same as ``score``)."""
        return self.score
