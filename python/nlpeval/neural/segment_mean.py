"""The statistics of neural metrics whose corpus score is the mean of their segment scores (COMET, MetricX).

Each segment is a row ``(score, 1)``; rows merge by sum, so the corpus score ``score / segments`` is the mean,
and bootstrap intervals, paired tests, accumulators and Dask apply as to every corpus metric.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats, StatsSchema

SCHEMA = StatsSchema.of("score", "segments")


class SegmentMeanMetric(CorpusMetric):
    """A :class:`CorpusMetric` scored as the mean of per-segment scores (rows of :data:`SCHEMA`).

    Examples
    --------
    >>> from nlpeval.metrics.comet import COMET
    >>> metric = COMET(model="unused")  # nothing is loaded until the model is needed
    >>> metric.corpus_values(np.array([3.0, 4.0])).item(), metric.components(np.array([3.0, 4.0]))
    (0.75, {'n_segments': 4})
    """

    @property
    def schema(self) -> StatsSchema:
        return SCHEMA

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], 0.0)

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.asarray(stats.rows[:, 0], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"n_segments": int(totals[1])}
