"""Streaming accumulation: ``update`` / ``merge`` / ``compute`` / ``reset``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.stats import Stats

if TYPE_CHECKING:
    from typing_extensions import Self

    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.score import Score


class Accumulator:
    """Running totals of a metric's statistics; memory is O(fields), not O(segments).

    The result of any sequence of :meth:`update` and :meth:`merge` calls equals
    the one-shot score of all the data, because statistics merge by declared
    rules. With ``keep_segments=True`` the per-segment rows are kept too (O(n)
    memory) so that :meth:`compute` can return per-segment values.

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric.
    keep_segments : bool
        Keep every row, for per-segment values.

    Examples
    --------
    >>> import nlpeval
    >>> acc = nlpeval.BLEU().accumulator()
    >>> acc.update(["the cat sat"], ["the cat sat"]).update(["a dog"], ["the dog"])
    Accumulator(bleu, 2 segments)
    >>> round(acc.compute().score, 6) == round(nlpeval.bleu(["the cat sat", "a dog"],
    ...                                          ["the cat sat", "the dog"]).score, 6)
    True
    """

    def __init__(self, metric: CorpusMetric, *, keep_segments: bool = False) -> None:
        self.metric = metric
        self.keep_segments = keep_segments
        self.reset()

    def reset(self) -> None:
        """Forget everything seen so far."""
        self._totals: np.ndarray | None = None
        self._rows: list[np.ndarray] = []
        self.n_segments = 0

    def _add(self, rows: np.ndarray, totals: np.ndarray) -> None:
        schema = self.metric.schema
        self._totals = totals if self._totals is None else schema.combine(self._totals, totals)
        if self.keep_segments:
            self._rows.append(rows)
        self.n_segments += int(rows.shape[0])

    def update(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Self:
        """Add a batch of segments."""
        rows = self.metric.segment_stats(hypotheses, references).rows
        if self._totals is not None and rows.dtype == np.int64 and self._totals.dtype == np.int64:
            # one merge of the batch and the running totals (the previous totals first; integer
            # fields, so the grouping of the sums cannot change them)
            totals = self.metric.schema.reduce(np.concatenate([self._totals[None, :], rows]))
            if self.keep_segments:
                self._rows.append(rows)
            self._totals = totals
            self.n_segments += int(rows.shape[0])
        else:
            self._add(rows, self.metric.schema.reduce(rows))
        return self

    def add(self, stats: Stats) -> Self:
        """Add statistics rows computed elsewhere (a metric called with more inputs, e.g. COMET's sources, or a
        cache of segment scores); the same as :meth:`update` on the segments they came from.

        Examples
        --------
        >>> import nlpeval
        >>> bleu = nlpeval.BLEU()
        >>> acc = bleu.accumulator().add(bleu.segment_stats(["the cat sat"], ["the cat sat"]))
        >>> acc.compute().score == bleu(["the cat sat"], ["the cat sat"]).score
        True
        """
        if stats.rows.shape[0]:
            self._add(stats.rows, self.metric.schema.reduce(stats.rows))
        return self

    def merge(self, other: Accumulator) -> Self:
        """Add everything ``other`` has seen (e.g. from another worker)."""
        if other.metric != self.metric:
            raise ValueError("cannot merge accumulators of differently configured metrics")
        if other._totals is not None:
            if self.keep_segments and not other.keep_segments:
                raise ValueError("cannot merge an accumulator without segments into one that keeps them")
            rows = np.concatenate(other._rows) if other._rows else np.empty((0, self.metric.schema.width))
            self._add(rows, other._totals)
            self.n_segments += other.n_segments - int(rows.shape[0])
        return self

    def stats(self) -> Stats:
        """All kept rows (requires ``keep_segments=True``)."""
        if not self.keep_segments:
            raise ValueError("this accumulator keeps only totals; create it with keep_segments=True")
        schema = self.metric.schema
        if not self._rows:
            return Stats(schema, np.empty((0, schema.width), dtype=np.int64))
        return Stats(schema, np.concatenate(self._rows))

    def compute(self) -> Score:
        """The score of everything seen so far."""
        if self._totals is None:
            raise ValueError("nothing to score: call update() first")
        if self.n_segments == 0:
            from nlpeval.core.metric import raise_empty

            raise_empty()
        if self.keep_segments:
            return self.metric.score_from_stats(self.stats(), segments=True)
        return self.metric.score_from_totals(self._totals)

    def __repr__(self) -> str:
        return f"Accumulator({self.metric.name}, {self.n_segments} segments)"
