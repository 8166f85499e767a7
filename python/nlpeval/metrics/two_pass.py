"""Streaming for metrics whose weights come from the whole corpus (CIDEr's idf, NIST's information).

Their rows are only right once every reference of the corpus is known, so an accumulator that
summed the rows of each batch would weigh each batch by its own references. :class:`CorpusPassAccumulator`
keeps the batches instead (validating each one as it comes, so an error names the segment of its
batch) and runs both passes over all of them when the score is asked for. Memory is O(segments).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlpeval.core.accumulator import Accumulator
from nlpeval.core.stats import Stats

if TYPE_CHECKING:
    from typing_extensions import Self

    from nlpeval.core.score import Score


class CorpusPassAccumulator(Accumulator):
    """Keeps the input batches; rows are computed over all of them at :meth:`stats` / :meth:`compute`.

    Examples
    --------
    >>> import nlpeval
    >>> acc = nlpeval.CIDEr().accumulator()
    >>> acc.update(["a dog runs"], [["a dog is running"]]).update(["a cat"], [["the cat sleeps"]])
    CorpusPassAccumulator(cider, 2 segments)
    >>> acc.compute().score == nlpeval.cider(["a dog runs", "a cat"], [["a dog is running"], ["the cat sleeps"]]).score
    True
    """

    def reset(self) -> None:
        super().reset()
        self._hypotheses: list[Any] = []
        self._references: list[Any] = []
        self._stats: Stats | None = None

    def update(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Self:
        """Validate a batch (errors name its segment) and keep it."""
        check = getattr(self.metric, "check_input", None)
        hyps, refs = check(hypotheses, references) if check is not None else (list(hypotheses), list(references))
        self._hypotheses.extend(hyps)
        self._references.extend(refs)
        self.n_segments += len(hyps)
        self._stats = None
        return self

    def merge(self, other: Accumulator) -> Self:
        """Add the batches ``other`` has kept (its segments come after this one's)."""
        if other.metric != self.metric or not isinstance(other, CorpusPassAccumulator):
            raise ValueError("cannot merge accumulators of differently configured metrics")
        self._hypotheses.extend(other._hypotheses)
        self._references.extend(other._references)
        self.n_segments += other.n_segments
        self._stats = None
        return self

    def stats(self) -> Stats:
        """The rows of every segment seen, both corpus passes over all of them."""
        if self._stats is None:
            self._stats = self.metric.segment_stats(self._hypotheses, self._references)
        return self._stats

    def compute(self) -> Score:
        """The score of everything seen so far."""
        if not self.n_segments:
            raise ValueError("nothing to score: call update() first")
        return self.metric.score_from_stats(self.stats(), segments=self.keep_segments)

    def __repr__(self) -> str:
        return f"CorpusPassAccumulator({self.metric.name}, {self.n_segments} segments)"


__all__ = ["CorpusPassAccumulator"]
