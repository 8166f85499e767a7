"""chrF and chrF++ exactly as sacreBLEU 2.x ``CHRF`` computes them."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import map_references, unicode_checked, validate_text_native
from nlpeval.metrics.chrf.fields import DEFAULT_BETA, check_options, component_dict, native_factor, signature_fields
from nlpeval.metrics.chrf.formula import ChrfParts, chrf_parts, sentence_scores


@functools.lru_cache(maxsize=32)
def chrf_schema(char_order: int, word_order: int) -> StatsSchema:
    """Statistics fields: ``[hyp, ref, match]`` per character then word order, and the reference counts.

    Examples
    --------
    >>> chrf_schema(1, 1).fields
    ('char1_hyp', 'char1_ref', 'char1_match', 'word1_hyp', 'word1_ref', 'word1_match', 'nrefs_min', 'nrefs_max')
    """
    names = [
        f"{kind}{n}_{part}"
        for kind, order in (("char", char_order), ("word", word_order))
        for n in range(1, order + 1)
        for part in ("hyp", "ref", "match")
    ]
    return StatsSchema.of(*names, nrefs_min="min", nrefs_max="max")


@dataclass(frozen=True)
class CHRF(CorpusMetric):
    """chrF (Popović 2015) and chrF++ (Popović 2017) exactly as sacreBLEU 2.x computes them.

    The F-score of character n-gram (and, for chrF++, word n-gram) precision and
    recall. Per segment the statistics of the reference with the best sentence
    chrF are kept (sacreBLEU's rule for several references); the corpus score is
    the chrF of the summed statistics, so the metric decomposes and streams.

    Parameters
    ----------
    char_order : int
        Largest character n-gram order.
    word_order : int
        Largest word n-gram order; 2 gives chrF++.
    beta : float
        Weight of recall relative to precision.
    lowercase : bool
        Lowercase (``str.lower``) hypotheses and references first.
    whitespace : bool
        Keep whitespace inside character n-grams (by default all whitespace is removed).
    eps_smoothing : bool
        Average per-order F-scores with chrF++.py's epsilon (as the original
        chrF++.py, Moses and NLTK) instead of sacreBLEU's effective-order rule.

    Notes
    -----
    Empty hypotheses and references are scored as sacreBLEU scores them. Text
    with a lone surrogate (not valid Unicode) raises :class:`~nlpeval.InputError`
    naming the segment, where sacreBLEU would count the surrogate code units.
    sacreBLEU's signature omits beta; ours adds ``beta:`` when it is not 2.

    Examples
    --------
    >>> metric = CHRF(word_order=2)
    >>> score = metric(["the cat sat on the mat"], [["the cat sat on a mat", "a cat"]])
    >>> score.name, round(score.score, 4)
    ('chrf++', 0.7203)
    """

    char_order: int = 6
    word_order: int = 0
    beta: float = DEFAULT_BETA
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    flavor: ClassVar[str] = "sacrebleu"

    def __post_init__(self) -> None:
        check_options(self.char_order, self.word_order, self.beta)

    @property
    def name(self) -> str:
        """``chrf`` with one ``+`` per word order (``chrf++`` for chrF++), as sacreBLEU names it."""
        return "chrf" + "+" * self.word_order

    @property
    def orders(self) -> int:
        """Character plus word orders."""
        return self.char_order + self.word_order

    @property
    def factor(self) -> float:
        """``beta ** 2``, computed as sacreBLEU does."""
        return self.beta**2

    @property
    def schema(self) -> StatsSchema:
        return chrf_schema(self.char_order, self.word_order)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        # one str per segment stays a flat list: the kernel takes either layout
        hyps, refs = validate_text_native(hypotheses, references)
        single = bool(refs) and isinstance(refs[0], str)
        if self.lowercase:
            hyps = [h.lower() for h in hyps]
            refs = map_references(refs, str.lower)
        with unicode_checked(hyps, refs):
            rows = _native.chrf_stats(
                hyps,
                refs,
                self.char_order,
                self.word_order,
                self.whitespace,
                float(self.factor),
                self.eps_smoothing,
            )
        if single:  # one reference per segment: both count columns are 1
            counted = np.empty((rows.shape[0], rows.shape[1] + 2), dtype=np.int64)
            counted[:, :-2] = rows
            counted[:, -2:] = 1
            return Stats(self.schema, counted)
        return Stats(self.schema, _native.with_reference_counts(rows, refs))

    def parts(self, totals: np.ndarray) -> ChrfParts:
        """chrF (0–100) and its precision/recall parts of statistics rows or totals."""
        return chrf_parts(totals, orders=self.orders, factor=self.factor, eps_smoothing=self.eps_smoothing)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return cast("np.ndarray", self.parts(totals).score / 100.0)  # a NumPy scalar for one totals vector

    def segment_values(self, stats: Stats) -> np.ndarray:
        """Sentence chrF of each segment (``sacrebleu.sentence_chrf`` / 100)."""
        return sentence_scores(
            stats.rows, orders=self.orders, factor=self.factor, eps_smoothing=self.eps_smoothing, divisor=100.0
        )

    def score_from_totals(self, totals: np.ndarray, *, signature: Signature | None = None) -> Score:
        """The corpus :class:`Score` of merged statistics (the formula evaluated once for the
        value and the components)."""
        kind = type(self)
        if kind.corpus_values is not CHRF.corpus_values or kind.components is not CHRF.components:
            return super().score_from_totals(totals, signature=signature)  # a subclass's own formula
        totals = np.asarray(totals)
        parts = self.parts(totals)
        return Score(
            name=self.name,
            score=float(parts.score / 100.0),
            signature=str(signature if signature is not None else self.signature(totals)),
            components=self._components(parts),
        )

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return self._components(self.parts(totals))

    def _native_summary(self, rows: np.ndarray, segments: bool) -> Score | None:
        if type(self) is not CHRF or not native_factor(self.factor):
            return None
        (value, precision, recall), precisions, recalls, totals, values = _native.chrf_summary(
            rows, self.orders, float(self.factor), bool(self.eps_smoothing), segments
        )
        width = 3 * self.orders
        signature = self._signature(totals[width], totals[width + 1])
        components = self._component_dict(precision, recall, precisions, recalls)
        return Score(self.name, value, str(signature), components, values, None)

    def _components(self, parts: ChrfParts) -> dict[str, Any]:
        return self._component_dict(
            float(parts.precision),
            float(parts.recall),
            [float(p) for p in parts.precisions],
            [float(r) for r in parts.recalls],
        )

    def _component_dict(
        self, precision: float, recall: float, precisions: list[float], recalls: list[float]
    ) -> dict[str, Any]:
        """The components from the averaged and the per-order precision and recall."""
        return component_dict(self, precision, recall, precisions, recalls)

    def signature(self, totals: np.ndarray) -> Signature:
        width = 3 * self.orders  # the nrefs_min, nrefs_max columns follow (see chrf_schema)
        return self._signature(int(totals[width]), int(totals[width + 1]))

    def _signature(self, nrefs_min: int, nrefs_max: int) -> Signature:
        """The signature of these reference counts (kept per metric object: a training loop asks
        for the same one every call)."""
        return self._memo(
            ("signature", nrefs_min, nrefs_max),
            lambda: Signature.build(**signature_fields(self, nrefs_field(nrefs_min, nrefs_max))),
        )


__all__ = ["CHRF", "DEFAULT_BETA", "check_options", "chrf_schema"]
