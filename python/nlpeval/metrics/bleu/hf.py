"""BLEU as Hugging Face ``evaluate``'s "bleu" computes it (flavor ``hf``).

``evaluate``'s bleu tokenizes with its copy of sacreBLEU's ``13a`` tokenizer and
calls Google's ``compute_bleu`` (``tensorflow/nmt``'s ``nmt/scripts/bleu.py``):

* Strings are tokenized with ``13a`` *without* sacreBLEU's ``rstrip()`` first (this
  matters only for a trailing ``-`` followed by a newline, which 13a joins).
  ``tokenize="none"`` splits on whitespace instead (``tokenizer=str.split``).
  Token lists and integer ids are used as they are (as ``compute_bleu`` takes them).
* Clipped n-gram matches against the union (max count) of the references; the
  reference length is the **shortest** reference of each segment (not the closest).
* Precision of order ``n`` is ``matches / possible`` (0 when there is nothing
  possible); ``smooth=True`` is add-one on **every** order, unigrams included
  (Lin & Och 2004): ``(matches + 1) / (possible + 1)``.
* Geometric mean with uniform weights ``1/max_order``; 0 if any precision is 0.
* ``length_ratio = translation_length / reference_length`` and brevity penalty
  ``exp(1 - 1 / ratio)`` when the ratio is at most 1. When either length is 0,
  current ``evaluate`` sets ratio and penalty to 0 (older copies of
  ``compute_bleu`` raise ``ZeroDivisionError``; nlpeval follows current ``evaluate``).

It decomposes: per-segment rows (lengths and counts) merge by sum. Per-segment
values (``segments=True``) are ``compute_bleu`` of each segment on its own (HF
has no sentence-level mode).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import check_order
from nlpeval.metrics.bleu import _pymath
from nlpeval.metrics.bleu.extract import bleu_schema, id_rows, token_rows

#: Tokenizers of the ``hf`` flavor: evaluate's Tokenizer13a, or a whitespace split.
HF_TOKENIZERS = ("13a", "none")

#: mteval-v13a's rewrite rules (sacreBLEU's TokenizerRegexp), used for the rare
#: lines whose tokens depend on the trailing whitespace the native tokenizer strips.
_MTEVAL_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def _evaluate_13a(line: str) -> str:
    """``evaluate``'s Tokenizer13a of one line, tokens joined by single spaces."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for pattern, replacement in _MTEVAL_RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def hf_13a(lines: list[str]) -> list[str]:
    """Tokenize like ``evaluate``'s ``Tokenizer13a``; returns space-joined tokens.

    The native 13a tokenizer strips trailing whitespace first, as sacreBLEU does;
    that changes the tokens only when the stripped tail holds a newline (a final
    ``-`` + newline is joined by 13a), so those lines are tokenized in Python.

    Examples
    --------
    >>> hf_13a(["Hello, world!", "co-\\n"])
    ['Hello , world !', 'co']
    """
    out = _native.tokenize(lines, "13a")
    for index, line in enumerate(lines):
        if "\n" in line[len(line.rstrip()) :]:
            out[index] = _evaluate_13a(line)
    return out


def hf_values(totals: np.ndarray, *, max_order: int, smooth: bool) -> dict[str, np.ndarray]:
    """``compute_bleu``'s outputs for merged rows, vectorised over leading axes.

    Returns ``bleu``, ``precisions`` (``(..., max_order)``), ``brevity_penalty``,
    ``length_ratio``, ``translation_length`` and ``reference_length``; every
    operation is done in the order ``compute_bleu`` does it, with Python's math.
    """
    totals = np.asarray(totals, dtype=np.float64)
    translation = totals[..., 0]
    reference = totals[..., 2]
    matches = totals[..., 3 : 3 + max_order]
    possible = totals[..., 3 + max_order : 3 + 2 * max_order]
    if smooth:
        precisions = (matches + 1.0) / (possible + 1.0)
    else:
        precisions = np.where(possible > 0, matches / np.where(possible > 0, possible, 1.0), 0.0)
    positive = precisions.min(axis=-1) > 0
    logs = _pymath.log(np.where(precisions > 0, precisions, 1.0))
    log_sum = np.zeros(translation.shape)
    for n in range(max_order):  # Python's sum(): left to right
        log_sum = log_sum + (1.0 / max_order) * logs[..., n]
    geo_mean = np.where(positive, _pymath.exp(log_sum), 0.0)
    defined = (reference != 0) & (translation != 0)
    ratio = np.where(defined, translation / np.where(defined, reference, 1.0), 0.0)
    penalty = _pymath.exp(1.0 - 1.0 / np.where(defined, ratio, 1.0))
    bp = np.where(defined, np.where(ratio > 1.0, 1.0, penalty), 0.0)
    return {
        "bleu": geo_mean * bp,
        "precisions": precisions,
        "brevity_penalty": bp,
        "length_ratio": ratio,
        "translation_length": translation,
        "reference_length": reference,
    }


@dataclass(frozen=True)
class HfBLEU(CorpusMetric):
    """BLEU exactly as Hugging Face ``evaluate``'s "bleu" (Google NMT ``compute_bleu``).

    Parameters
    ----------
    tokenize : {"13a", "none"}
        ``13a`` (evaluate's default ``Tokenizer13a``) or ``none`` (whitespace split).
    max_order : int
        Largest n-gram order.
    smooth : bool
        Add-one smoothing of every order (``compute_bleu``'s ``smooth``).

    Notes
    -----
    ``Score.to_dict()`` has evaluate's keys: ``bleu``, ``precisions``,
    ``brevity_penalty``, ``length_ratio``, ``translation_length``,
    ``reference_length`` (plus nlpeval's ``hyp_len`` / ``ref_len``). See the
    module docstring for the exact semantics.

    Examples
    --------
    >>> s = HfBLEU()(["hello there general kenobi", "foo bar foobar"],
    ...              [["hello there general kenobi", "hello there !"], ["foo bar foobar"]])
    >>> s.score, s.components["length_ratio"], s.components["reference_length"]
    (1.0, 1.1666666666666667, 6)
    """

    tokenize: str = "13a"
    max_order: int = 4
    smooth: bool = False

    name: ClassVar[str] = "bleu"
    flavor: ClassVar[str] = "hf"
    _uses_text: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.tokenize not in HF_TOKENIZERS:
            raise ValueError(
                f"tokenize={self.tokenize!r} is not available in flavor='hf'; choose one of {', '.join(HF_TOKENIZERS)}"
            )
        check_order("max_order", self.max_order)
        if not isinstance(self.smooth, (bool, np.bool_)):
            raise ValueError(f"smooth must be True or False in flavor='hf' (add-one smoothing); got {self.smooth!r}")

    @property
    def schema(self) -> StatsSchema:
        return bleu_schema(self.max_order)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        pretokenize = hf_13a if self.tokenize == "13a" else None
        rows = token_rows(hypotheses, references, max_order=self.max_order, pretokenize=pretokenize)
        return Stats(self.schema, rows)

    def _values(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        return hf_values(totals, max_order=self.max_order, smooth=bool(self.smooth))

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._values(totals)["bleu"]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        values = self._values(totals)
        translation = int(values["translation_length"])
        reference = int(values["reference_length"])
        n = self.max_order
        return {
            "bleu": float(values["bleu"]),
            "precisions": [float(p) for p in values["precisions"]],
            "brevity_penalty": float(values["brevity_penalty"]),
            "length_ratio": float(values["length_ratio"]),
            "translation_length": translation,
            "reference_length": reference,
            "hyp_len": translation,
            "ref_len": reference,
            "counts": [int(c) for c in totals[3 : 3 + n]],
            "totals": [int(t) for t in totals[3 + n : 3 + 2 * n]],
        }

    def signature(self, totals: np.ndarray) -> Signature:
        schema = self.schema
        return Signature.build(
            nrefs=nrefs_field(int(totals[schema.index("nrefs_min")]), int(totals[schema.index("nrefs_max")])),
            tok=self.tokenize if self._uses_text else "ids",
            smooth="add-one" if self.smooth else "none",
            order=self.max_order,
            flavor=self.flavor,
        )


@dataclass(frozen=True)
class HfTokenIdBLEU(HfBLEU):
    """The ``hf`` flavor on integer token ids (``compute_bleu`` on id sequences).

    Examples
    --------
    >>> HfTokenIdBLEU(max_order=2, eos_id=2)([[5, 6, 7, 2, 9]], [[5, 6, 7]]).score
    1.0
    """

    pad_id: int | None = None
    eos_id: int | None = None

    _uses_text: ClassVar[bool] = False

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        rows = id_rows(hypotheses, references, max_order=self.max_order, pad_id=self.pad_id, eos_id=self.eos_id)
        return Stats(self.schema, rows)


__all__ = ["HF_TOKENIZERS", "HfBLEU", "HfTokenIdBLEU", "hf_13a", "hf_values"]
