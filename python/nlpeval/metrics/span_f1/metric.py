"""The span F1 metric object: per-sentence, per-type chunk counts -> merge -> precision, recall, F1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.metrics.span_f1 import chunks, rules

if TYPE_CHECKING:
    from nlpeval.core.accumulator import Accumulator
    from nlpeval.core.score import Score

AVERAGES = ("micro", "macro", "weighted")
#: Fields before the per-type ones: token counts, then the micro totals.
FIXED = ("tokens", "correct_tokens", "tp", "pred", "true")
_F = len(FIXED)


def type_fields(types: Sequence[str]) -> tuple[str, ...]:
    """Field names of the per-type counts: all ``tp[..]``, then ``pred[..]``, then ``true[..]``."""
    return tuple(f"{what}[{kind}]" for what in ("tp", "pred", "true") for kind in types)


def types_of(schema: StatsSchema) -> tuple[str, ...]:
    """The entity types a span F1 statistics schema counts."""
    k = (schema.width - _F) // 3
    return tuple(name[3:-1] for name in schema.fields[_F : _F + k])


def _divide(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = numerator / np.where(denominator == 0, 1.0, denominator)
    return np.where(denominator == 0, zero_division, out)


def prf(tp: np.ndarray, pred: np.ndarray, true: np.ndarray, zero_division: float) -> tuple[np.ndarray, ...]:
    """Precision, recall and F1 of counts (seqeval's and conlleval's rules: 0/0 -> ``zero_division``)."""
    tp, pred, true = (np.asarray(x, dtype=np.float64) for x in (tp, pred, true))
    precision = _divide(tp, pred, zero_division)
    recall = _divide(tp, true, zero_division)
    denominator = precision + recall
    f1 = 2.0 * precision * recall / np.where(denominator == 0, 1.0, denominator)
    return precision, recall, f1


def averaged(totals: np.ndarray, average: str, zero_division: float) -> tuple[np.ndarray, ...]:
    """(precision, recall, F1) of totals under ``average``, vectorised over leading axes."""
    totals = np.asarray(totals, dtype=np.float64)
    if average == "micro":
        return prf(totals[..., 2], totals[..., 3], totals[..., 4], zero_division)
    k = (totals.shape[-1] - _F) // 3
    tp, pred, true = (totals[..., _F + i * k : _F + (i + 1) * k] for i in range(3))
    per_type = prf(tp, pred, true, zero_division)
    if average == "macro":
        if k == 0:
            nan = np.full(totals.shape[:-1], np.nan)
            return nan, nan.copy(), nan.copy()
        return tuple(np.mean(values, axis=-1) for values in per_type)
    weight = true.sum(axis=-1)
    safe = np.where(weight == 0, 1.0, weight)
    p, r, f = (np.multiply(values, true).sum(axis=-1) / safe for values in per_type)
    # seqeval: no reference chunk at all gives zero_division (0 when something was predicted)
    none_predicted = pred.sum(axis=-1) == 0
    empty = weight == 0
    fallback = np.where(none_predicted, zero_division, 0.0)
    return np.where(empty, fallback, p), np.where(empty, zero_division, r), np.where(empty, fallback, f)


@dataclass(frozen=True)
class SpanF1(CorpusMetric):
    """Chunk (span) precision, recall and F1 of sequence labelling, as conlleval.pl or seqeval 1.2.2.

    Rows (one per sentence) hold the sentence's tokens and correctly labelled tokens, then the true
    positive, predicted and reference chunks: summed over types, then per type. A chunk is counted in the
    sentence where it starts. With ``types=None`` the types are those the data holds (the statistics'
    schema names them); give ``types`` to fix the columns, e.g. to merge statistics of separate calls.

    Parameters
    ----------
    mode : {"lenient", "strict", "conlleval"}
        seqeval's default mode, seqeval's ``mode="strict"`` (needs ``scheme``), or conlleval.pl.
    scheme : {"IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU"}, optional
        The tagging scheme of ``strict`` mode.
    average : {"micro", "macro", "weighted"}
        Which F1 is the score (all three are in the components).
    suffix : bool
        Labels are ``TYPE-PREFIX`` (seqeval's ``suffix=True``; not in ``conlleval`` mode).
    zero_division : {0, 1}
        Value of a 0/0 precision or recall.
    lines : bool
        A reference item is a list of reference lines (the command line's layout): exactly one,
        a space-separated label sequence.
    types : tuple of str, optional
        The entity types to count (in this order); a chunk of another type is an error.
    """

    mode: str = "lenient"
    scheme: str | None = None
    average: str = "micro"
    suffix: bool = False
    zero_division: float = 0
    lines: bool = False
    types: tuple[str, ...] | None = None

    name: ClassVar[str] = "span_f1"

    def __post_init__(self) -> None:
        if self.mode not in rules.MODES:
            raise ValueError(f"unknown span F1 mode {self.mode!r}; choose one of {', '.join(rules.MODES)}")
        if self.mode == "strict":
            if self.scheme not in rules.SCHEMES:
                raise ValueError(
                    f"strict span F1 needs a scheme (scheme=, CLI --span-scheme): one of "
                    f"{', '.join(rules.SCHEMES)}; got {self.scheme!r}"
                )
        elif self.scheme is not None:
            raise ValueError(f"scheme applies to mode='strict' only (mode {self.mode!r} reads any labels)")
        if self.average not in AVERAGES:
            raise ValueError(f"unknown average {self.average!r}; choose one of {', '.join(AVERAGES)}")
        if self.suffix and self.mode == "conlleval":
            raise ValueError("suffix=True is seqeval's option; conlleval.pl reads PREFIX-TYPE labels only")
        if isinstance(self.zero_division, bool) or self.zero_division not in (0, 1):
            raise ValueError(f"zero_division must be 0 or 1; got {self.zero_division!r}")
        if self.types is not None:
            object.__setattr__(self, "types", tuple(self.types))

    @property
    def schema(self) -> StatsSchema:
        return StatsSchema.of(*FIXED, *type_fields(self.types or ()))

    def counts(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> chunks.Counts:
        """Validated per-sentence counts of this mode."""
        data = chunks.layout(hypotheses, references, lines=self.lines)
        if self.mode == "strict":
            chunks.check_scheme(data, str(self.scheme), self.suffix)
        return chunks.count(data, self.mode, self.scheme, self.suffix)

    def check_input(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """Validate one batch (errors name its sentence) and return it as lists."""
        data = chunks.layout(hypotheses, references, lines=self.lines)
        if self.mode == "strict":
            chunks.check_scheme(data, str(self.scheme), self.suffix)
        return list(hypotheses), list(references)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """One row per sentence (see the class); ``types=None`` takes the types found."""
        counted = self.counts(hypotheses, references)
        if self.types is None:
            types = tuple(counted.types)
            columns = [counted.tp, counted.pred, counted.true]
        else:
            types = self.types
            extra = sorted(set(counted.types) - set(types))
            if extra:
                raise ValueError(f"span F1: chunks of type {extra[0]!r}, which is not among types={list(types)}")
            where = [types.index(kind) for kind in counted.types]
            columns = []
            for table in (counted.tp, counted.pred, counted.true):
                full = np.zeros((table.shape[0], len(types)), dtype=np.int64)
                full[:, where] = table
                columns.append(full)
        n = len(counted.tokens)
        rows = np.empty((n, _F + 3 * len(types)), dtype=np.int64)
        rows[:, 0] = counted.tokens
        rows[:, 1] = counted.correct_tokens
        for i, table in enumerate(columns):
            rows[:, 2 + i] = table.sum(axis=1)
            rows[:, _F + i * len(types) : _F + (i + 1) * len(types)] = table
        return Stats(StatsSchema.of(*FIXED, *type_fields(types)), rows)

    def bound(self, stats: Stats) -> SpanF1:
        """This metric with the types of ``stats`` (itself when its types are fixed)."""
        if self.types is not None:
            return self
        return replace(self, types=types_of(stats.schema))

    def shared_columns(self, stats: Mapping[str, Stats]) -> tuple[SpanF1, dict[str, Stats]]:
        """This metric with the entity types of all of ``stats``, and each one's rows in those columns.

        Systems compared row by row (a report's leaderboard, paired tests) need one schema; with
        ``types=None`` each system's statistics hold only the types found in its own data.

        Examples
        --------
        >>> metric = SpanF1()
        >>> a = metric.segment_stats([["B-PER"]], [["B-PER"]])
        >>> b = metric.segment_stats([["B-LOC"]], [["B-PER"]])
        >>> bound, shared = metric.shared_columns({"a": a, "b": b})
        >>> bound.types, shared["a"].schema == shared["b"].schema
        (('LOC', 'PER'), True)
        """
        if self.types is not None:
            return self, dict(stats)
        types = tuple(sorted({kind for found in stats.values() for kind in types_of(found.schema)}))
        schema = StatsSchema.of(*FIXED, *type_fields(types))
        width = len(types)
        out = {}
        for name, found in stats.items():
            own = types_of(found.schema)
            where = np.array([types.index(kind) for kind in own], dtype=np.int64)
            rows = np.zeros((len(found), _F + 3 * width), dtype=found.rows.dtype)
            rows[:, :_F] = found.rows[:, :_F]
            for i in range(3):
                rows[:, _F + i * width + where] = found.rows[:, _F + i * len(own) : _F + (i + 1) * len(own)]
            out[name] = Stats(schema, rows)
        return replace(self, types=types), out

    def accumulator(self, *, keep_segments: bool = False) -> Accumulator:
        """Streaming: row-summing with fixed ``types``; else it keeps the batches (types come from all)."""
        if self.types is not None:
            return super().accumulator(keep_segments=keep_segments)
        from nlpeval.metrics.two_pass import CorpusPassAccumulator

        return CorpusPassAccumulator(self, keep_segments=keep_segments)

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
        """As :meth:`CorpusMetric.score_from_stats`, with the types of ``stats`` (see :meth:`bound`)."""
        return CorpusMetric.score_from_stats(
            self.bound(stats),
            stats,
            segments=segments,
            n_bootstrap=n_bootstrap,
            seed=seed,
            confidence=confidence,
            resampling=resampling,
            ids=ids,
        )

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return averaged(totals, self.average, float(self.zero_division))[2]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        totals = np.asarray(totals)
        types = self.types or ()
        k = len(types)
        zd = float(self.zero_division)
        tp, pred, true = (totals[_F + i * k : _F + (i + 1) * k] for i in range(3))
        p, r, f = prf(tp, pred, true, zd)
        per_type = {
            kind: {
                "precision": float(p[i]),
                "recall": float(r[i]),
                "f1": float(f[i]),
                "support": int(true[i]),
                "predicted": int(pred[i]),
                "correct": int(tp[i]),
            }
            for i, kind in enumerate(types)
        }
        averages = {}
        for average in AVERAGES:
            ap, ar, af = averaged(totals, average, zd)
            averages[average] = {"precision": float(ap), "recall": float(ar), "f1": float(af)}
        chosen = averages[self.average]
        tokens = int(totals[0])
        return {
            "precision": chosen["precision"],
            "recall": chosen["recall"],
            "f1": chosen["f1"],
            "accuracy": float(totals[1] / tokens) if tokens else float(zd),
            "tokens": tokens,
            "correct_tokens": int(totals[1]),
            "correct": int(totals[2]),
            "predicted": int(totals[3]),
            "support": int(totals[4]),
            "per_type": per_type,
            "averages": averages,
        }

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            mode=self.mode,
            scheme=self.scheme,
            avg=self.average,
            suffix=True if self.suffix else None,
            zd=self.zero_division if self.zero_division else None,
        )
