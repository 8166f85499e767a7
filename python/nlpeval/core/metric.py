"""The contract every corpus metric follows: stats -> merge -> score."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema

if TYPE_CHECKING:
    from nlpeval.core.accumulator import Accumulator


def raise_empty() -> NoReturn:
    """Refuse to score an empty corpus (every corpus metric, the API as the command line).

    Examples
    --------
    >>> import nlpeval
    >>> nlpeval.bleu([], [])
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: no segments: an empty corpus has no score
    """
    from nlpeval.core.errors import InputError

    raise InputError("no segments: an empty corpus has no score", side="hypotheses")


class CorpusMetric(ABC):
    """A configured metric whose corpus score is a function of merged segment statistics.

    Subclasses are frozen dataclasses holding the options. They implement

    * :meth:`segment_stats` — validate the input and return one row per segment;
    * :meth:`corpus_values` — the score of totals, vectorised over leading axes
      (so the same code scores one corpus, every segment, or 1,000 resamples);
    * :meth:`components` and :meth:`signature` — what a :class:`Score` reports.

    Everything else (one-shot scoring, per-segment values, bootstrap intervals,
    the streaming :class:`~nlpeval.core.accumulator.Accumulator`) is shared.
    """

    if TYPE_CHECKING:
        # Read-only to the type checker: most metrics set a class attribute (``name = "bleu"``), a few
        # (ROUGE's type, chrF's ``+`` per word order) derive it from their options in a property.
        @property
        def name(self) -> str:
            """The metric's name, as its scores carry it."""

    @property
    @abstractmethod
    def schema(self) -> StatsSchema:
        """Fields of a statistics row and their merge rules."""

    @abstractmethod
    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Validate the input and compute one statistics row per segment."""

    @abstractmethod
    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        """Scores of merged statistics; ``totals`` has shape ``(..., n_fields)``."""

    @abstractmethod
    def components(self, totals: np.ndarray) -> dict[str, Any]:
        """Named parts of the score of one totals vector."""

    @abstractmethod
    def signature(self, totals: np.ndarray) -> Signature:
        """The reproducibility signature for these (merged) statistics."""

    def _memo(self, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, kept on this (frozen) metric object under ``key``: a training loop asks for the
        same signature every call. At most 64 values are kept per object."""
        cache = self.__dict__.setdefault("_memo_values", {})
        value = cache.get(key)
        if value is None:
            value = build()
            if len(cache) < 64:
                cache[key] = value
        return value

    def segment_values(self, stats: Stats) -> np.ndarray:
        """Sentence-level scores, one per row (default: each row scored as a corpus)."""
        return np.asarray(self.corpus_values(stats.rows), dtype=np.float64)

    def score_from_totals(self, totals: np.ndarray, *, signature: Signature | None = None) -> Score:
        """The corpus :class:`Score` of already merged statistics."""
        totals = np.asarray(totals)
        return Score(
            name=self.name,
            score=float(self.corpus_values(totals)),
            signature=str(signature if signature is not None else self.signature(totals)),
            components=self.components(totals),
        )

    def score_from_stats(
        self,
        stats: Stats,
        *,
        segments: bool = False,
        n_bootstrap: int = 0,
        seed: int | None = 12345,
        confidence: float = 0.95,
        resampling: str = "multinomial",
        ids: Sequence[Any] | None = None,
    ) -> Score:
        """The corpus :class:`Score` of segment statistics, optionally with per-segment
        values and a bootstrap confidence interval (``n_bootstrap`` resamples).

        ``resampling="poisson"`` uses the keyed Poisson bootstrap of
        :mod:`nlpeval.significance.poisson` (segment ``ids``, default ``0..n-1``), which
        gives the same interval as the distributed path; the default is sacreBLEU's.

        Zero segments raise :class:`~nlpeval.core.errors.InputError`, as the command line refuses
        an empty file: a corpus score of nothing is undefined (jiwer returns 0, sacreBLEU an IndexError)."""
        rows = stats.rows
        if len(stats) == 0:
            raise_empty()
        if n_bootstrap:
            from nlpeval.significance.bootstrap import check_bootstrap

            check_bootstrap(n_bootstrap, confidence)
        if not n_bootstrap and rows.dtype == np.int64 and rows.ndim == 2 and rows.shape[0]:
            summary = self._native_summary(rows, segments)
            if summary is not None:
                return summary
        totals = stats.totals()
        signature = self.signature(totals)
        ci = None
        if n_bootstrap and resampling == "poisson":
            from nlpeval.significance.poisson import poisson_interval

            ci = poisson_interval(self, stats, ids=ids, n_resamples=n_bootstrap, seed=seed or 0, level=confidence)
            signature = signature.with_fields(ci="poisson", bs=n_bootstrap, rs=seed or 0)
        elif n_bootstrap:
            if resampling != "multinomial":
                raise ValueError(f"resampling must be 'multinomial' or 'poisson'; got {resampling!r}")
            from nlpeval.significance.bootstrap import bootstrap_interval

            ci = bootstrap_interval(self, stats, n_resamples=n_bootstrap, seed=seed, level=confidence)
            signature = signature.with_fields(bs=n_bootstrap, rs=seed)
        score = self.score_from_totals(totals, signature=signature)
        if segments or ci is not None:
            values = self.segment_values(stats) if segments else None
            if type(score) is Score:  # built directly: dataclasses.replace inspects the fields each call
                score = Score(score.name, score.score, score.signature, score.components, values, ci)
            else:
                score = replace(score, segments=values, ci=ci)
        return score

    def _native_summary(self, rows: np.ndarray, segments: bool) -> Score | None:
        """The :class:`Score` of a non-empty 2-D int64 batch of statistics rows (no bootstrap) from
        one native call, or None where the metric has none and the general path computes it. A
        training loop's sentence-level call would otherwise spend more on a dozen small array
        operations than on the statistics."""
        return None

    def __call__(self, hypotheses: Sequence[Any], references: Sequence[Any], *, segments: bool = False) -> Score:
        return self.score_from_stats(self.segment_stats(hypotheses, references), segments=segments)

    def accumulator(self, *, keep_segments: bool = False) -> Accumulator:
        """A streaming accumulator for this metric (``update`` / ``merge`` / ``compute``)."""
        from nlpeval.core.accumulator import Accumulator

        return Accumulator(self, keep_segments=keep_segments)
