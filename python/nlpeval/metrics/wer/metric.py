"""The WER family as corpus metrics: WER, MER, WIL, WIP (words) and CER (characters)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.metrics.wer.bound import MAX_CELLS
from nlpeval.metrics.wer.extract import EDIT_SCHEMA, edit_rows, jiwer_measures
from nlpeval.metrics.wer.normalize import Normalizer

#: Reference implementations reproduced (the default first).
FLAVORS = ("jiwer",)


@dataclass(frozen=True)
class EditRate(CorpusMetric):
    """Base of the WER family: edit statistics of each segment, rates of their sums.

    The corpus value is computed from the summed hits, substitutions, deletions and
    insertions (total edits / total reference words for WER), never as a mean of
    segment rates; per-segment values score each segment alone, as jiwer does for
    one sentence.

    Parameters
    ----------
    lowercase, remove_punctuation, nfkc, whitespace, split_unspaced, normalize
        Normalisation before tokenisation; see :class:`~nlpeval.metrics.wer.normalize.Normalizer`
        (``normalize``: Whisper's ``whisper-en`` or ``whisper-basic`` normaliser, applied first).
    flavor : {"jiwer"}
        jiwer 4: its default transforms, its alignment (rapidfuzz's Levenshtein
        opcodes) and its conventions for empty references.
    max_cells : int or None
        Refuse (:class:`~nlpeval.core.errors.InputError`) a hypothesis-reference pair whose
        token counts multiply to more than this (the alignment's time grows with the
        product); ``None``: no bound. See :mod:`nlpeval.metrics.wer.bound`.
    """

    lowercase: bool = False
    remove_punctuation: bool = False
    nfkc: bool = False
    whitespace: str = "jiwer"
    split_unspaced: bool = False
    flavor: str = "jiwer"
    max_cells: int | None = MAX_CELLS
    normalize: str | None = None

    name: ClassVar[str] = "wer"
    #: ``word`` or ``char``
    unit: ClassVar[str] = "word"
    #: the measure reported as ``score`` (a key of :func:`jiwer_measures`)
    measure: ClassVar[str] = "wer"

    def __post_init__(self) -> None:
        if self.flavor not in FLAVORS:
            raise ValueError(f"unknown {self.name.upper()} flavor {self.flavor!r}; choose one of {', '.join(FLAVORS)}")
        if self.unit == "word" and self.whitespace == "remove":
            raise ValueError("whitespace='remove' leaves one word per segment; it is an option of cer only")
        if self.unit == "char" and self.split_unspaced:
            raise ValueError("split_unspaced is an option of the word metrics; cer already scores characters")
        if self.max_cells is not None and (not isinstance(self.max_cells, int) or self.max_cells < 0):
            raise ValueError(f"max_cells must be a non-negative int or None; got {self.max_cells!r}")
        self.normalizer  # noqa: B018 - validates the options now

    @cached_property
    def normalizer(self) -> Normalizer:
        """The normalisation steps of these options."""
        return Normalizer(
            normalize=self.normalize,
            lowercase=self.lowercase,
            remove_punctuation=self.remove_punctuation,
            nfkc=self.nfkc,
            whitespace=self.whitespace,
            split_unspaced=self.split_unspaced,
        )

    @property
    def schema(self) -> StatsSchema:
        return EDIT_SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        rows, _ = edit_rows(
            hypotheses,
            references,
            normalizer=self.normalizer,
            unit=self.unit,
            max_cells=self.max_cells,
            metric=self.name,
        )
        return Stats(EDIT_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return jiwer_measures(totals)[self.measure]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        counts = {field: int(totals[k]) for k, field in enumerate(EDIT_SCHEMA.fields[:6])}
        if self.unit == "char":
            return {"cer": float(jiwer_measures(totals)["wer"]), **counts}
        measures = {key: float(value) for key, value in jiwer_measures(totals).items()}
        return {**measures, **counts}

    def signature(self, totals: np.ndarray) -> Signature:
        nrefs = nrefs_field(int(totals[EDIT_SCHEMA.index("nrefs_min")]), int(totals[EDIT_SCHEMA.index("nrefs_max")]))
        return Signature.build(
            nrefs=nrefs,
            unit=self.unit,
            **self.normalizer.signature_fields(words=self.unit == "word"),
            flavor=self.flavor,
        )


@dataclass(frozen=True)
class WER(EditRate):
    """Word error rate: (substitutions + deletions + insertions) / reference words.

    Examples
    --------
    >>> WER()(["the cat sat"], ["the cat sat down"]).score
    0.25
    """

    name: ClassVar[str] = "wer"
    measure: ClassVar[str] = "wer"


@dataclass(frozen=True)
class MER(EditRate):
    """Match error rate: edits / (hits + edits).

    Examples
    --------
    >>> MER()(["the cat sat"], ["the cat sat down"]).score
    0.25
    """

    name: ClassVar[str] = "mer"
    measure: ClassVar[str] = "mer"


@dataclass(frozen=True)
class WIL(EditRate):
    """Word information lost: 1 - WIP.

    Examples
    --------
    >>> WIL()(["the cat sat"], ["the cat sat down"]).score
    0.25
    """

    name: ClassVar[str] = "wil"
    measure: ClassVar[str] = "wil"


@dataclass(frozen=True)
class WIP(EditRate):
    """Word information preserved: (hits / reference words) * (hits / hypothesis words).

    Examples
    --------
    >>> WIP()(["the cat sat"], ["the cat sat down"]).score
    0.75
    """

    name: ClassVar[str] = "wip"
    measure: ClassVar[str] = "wip"


@dataclass(frozen=True)
class CER(EditRate):
    """Character error rate: character edits / reference characters (spaces included).

    Examples
    --------
    >>> CER()(["kitten"], ["sitting"]).score
    0.42857142857142855
    """

    name: ClassVar[str] = "cer"
    unit: ClassVar[str] = "char"
    measure: ClassVar[str] = "wer"


#: metric name -> class
METRICS: dict[str, type[EditRate]] = {cls.name: cls for cls in (WER, MER, WIL, WIP, CER)}


def make_edit_metric(name: str, **options: Any) -> EditRate:
    """The configured metric ``name`` (``wer``, ``mer``, ``wil``, ``wip`` or ``cer``).

    Examples
    --------
    >>> make_edit_metric("cer", lowercase=True).lowercase
    True
    """
    try:
        cls = METRICS[name]
    except KeyError:
        raise ValueError(f"unknown edit metric {name!r}; choose one of {', '.join(METRICS)}") from None
    return cls(**options)
