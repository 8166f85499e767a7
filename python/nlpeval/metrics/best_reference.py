"""Sentence scores taken against each segment's best (lowest) reference, averaged over segments.

CharacTER and EED score a hypothesis against every reference, keep the lowest value (their
reference tools' rule for several references) and report the mean over segments. Their rows are
``(value, 1, nrefs_min, nrefs_max)``: the first two merge by sum, so the corpus score is their ratio
and bootstrap intervals, paired tests, accumulators and Dask apply as to every corpus metric.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import nrefs_field
from nlpeval.core.stats import Stats, StatsSchema


def best_reference_stats(schema: StatsSchema, values: np.ndarray, counts: np.ndarray) -> Stats:
    """Rows of ``schema`` from the values of every (hypothesis, reference) pair, segment by segment.

    Examples
    --------
    >>> schema = StatsSchema.of("value_sum", "segments", nrefs_min="min", nrefs_max="max")
    >>> best_reference_stats(schema, np.array([0.5, 0.2, 0.7]), np.array([2, 1])).rows.tolist()
    [[0.2, 1.0, 2.0, 2.0], [0.7, 1.0, 1.0, 1.0]]
    """
    rows = np.empty((len(counts), schema.width), dtype=np.float64)
    if len(counts):
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rows[:, 0] = np.minimum.reduceat(values, starts)
    rows[:, 1] = 1.0
    rows[:, 2] = counts
    rows[:, 3] = counts
    return Stats(schema, rows)


class BestReferenceMean(CorpusMetric):
    """A :class:`CorpusMetric` whose rows are :func:`best_reference_stats`' (the mean of best-reference values)."""

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return totals[..., 0] / totals[..., 1]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"segments": int(totals[1])}

    @staticmethod
    def nrefs(totals: np.ndarray) -> str:
        """The signature's ``nrefs`` of merged totals (``0`` for no segments)."""
        low, high = totals[2], totals[3]
        return nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
