"""BLEU as sacreBLEU 2.x computes it (the default flavor)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, cast

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import check_order
from nlpeval.metrics.bleu import _pymath
from nlpeval.metrics.bleu.extract import bleu_schema, id_rows, text_rows
from nlpeval.metrics.bleu.fields import (
    SMOOTH_DEFAULTS,
    component_dict,
    native_formula,
    signature_fields,
)
from nlpeval.tokenizers import TokenizerSpec, resolve_tokenizer

#: sacreBLEU's floor for log(0).
_LOG_ZERO = -9999999999.0


def sacrebleu_values(
    totals: np.ndarray,
    *,
    max_order: int,
    smooth: str,
    smooth_value: float | None,
    effective_order: bool,
    ref_len_column: int = 1,
) -> tuple[np.ndarray | np.float64, np.ndarray, np.ndarray | np.float64]:
    """BLEU (0–100), precisions (0–100) and brevity penalty of statistics rows.

    Vectorised over the leading axes of ``totals``; follows sacreBLEU's
    ``BLEU.compute_bleu`` step by step (smoothing, effective order, the
    ``my_log`` floor) so values agree to the last bit: ``log``/``exp`` are the C library's, as sacreBLEU's
    ``math`` calls (NumPy's vectorised ones differ by one unit in the last place on some CPUs, e.g. with
    AVX-512). One integer totals vector is scored
    natively (see :func:`sentence_scores`).
    """
    totals = np.asarray(totals)
    if totals.ndim == 1 and totals.dtype == np.int64 and native_formula(max_order, smooth, smooth_value):
        native = _native.bleu_totals_values(totals, max_order, smooth, smooth_value, effective_order, ref_len_column)
        return np.float64(native[0]), np.array(native[1]), np.float64(native[2])
    totals = np.asarray(totals, dtype=np.float64)
    if totals.ndim == 1 and max_order < 8:
        scalar = _scalar_values(
            totals.tolist(),
            max_order=max_order,
            smooth=smooth,
            smooth_value=smooth_value,
            effective_order=effective_order,
            ref_len_column=ref_len_column,
        )
        if scalar is not None:
            return scalar
    sys_len = totals[..., 0]
    ref_len = totals[..., ref_len_column]
    correct = totals[..., 3 : 3 + max_order].copy()
    total = totals[..., 3 + max_order : 3 + 2 * max_order].copy()
    value = _smooth_value(smooth, smooth_value)

    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sys_len > 0, 1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0), 0.0)
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, _pymath.exp(ratio), 0.0), 1.0)
    shape = sys_len.shape
    any_correct = (correct != 0).any(axis=-1)
    # every order at once: the same elementwise operations as sacreBLEU's loop over orders
    if smooth == "add-k":
        correct[..., 1:] += value
        total[..., 1:] += value
    alive = np.logical_and.accumulate(total != 0, axis=-1)
    if effective_order:
        n_alive = alive.sum(axis=-1)
        eff_order = np.where(n_alive > 0, n_alive, max_order).astype(np.float64)
    else:
        eff_order = np.full(shape, max_order, dtype=np.float64)
    zero = alive & (correct == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if smooth == "exp":
            # sacreBLEU doubles its divisor at each order without matches: exact powers of two
            smoothed = 100.0 / (np.power(2.0, np.cumsum(zero, axis=-1)) * total)
        elif smooth == "floor":
            smoothed = 100.0 * value / total
        else:
            smoothed = np.zeros_like(total)
        direct = 100.0 * correct / total
        precisions = np.where(alive, np.where(zero, smoothed, direct), 0.0)
        logs = np.where(precisions > 0, _pymath.log(np.where(precisions > 0, precisions, 1.0)), _LOG_ZERO)
        used = np.arange(max_order) < eff_order[..., None]
        mean_log = np.where(used, logs, 0.0).sum(axis=-1) / eff_order
    score = np.where(any_correct, bp * _pymath.exp(mean_log), 0.0)
    precisions = np.where(any_correct[..., None], precisions, 0.0)
    return score, precisions, bp


def _smooth_value(smooth: str, smooth_value: float | None) -> float:
    """The value of a smoothing method that takes one (0.0, unused, for ``exp`` and ``none``)."""
    default = SMOOTH_DEFAULTS[smooth] if smooth_value is None else smooth_value
    return 0.0 if default is None else default


def _scalar_values(
    totals: list[float],
    *,
    max_order: int,
    smooth: str,
    smooth_value: float | None,
    effective_order: bool,
    ref_len_column: int,
) -> tuple[np.float64, np.ndarray, np.float64] | None:
    """:func:`sacrebleu_values` of one totals vector: Python floats for the arithmetic (the same IEEE
    operations in the same order) and the C library's ``log``/``exp`` (sacreBLEU's ``math`` functions),
    without the per-call cost of ~60 small array operations. None where a ratio is undefined (the array path
    then gives its inf/nan exactly). ``max_order < 8``: NumPy sums fewer than 8 values in order."""
    sys_len, ref_len = totals[0], totals[ref_len_column]
    correct = totals[3 : 3 + max_order]
    total = totals[3 + max_order : 3 + 2 * max_order]
    value = _smooth_value(smooth, smooth_value)
    try:
        bp = (math.exp(1.0 - ref_len / sys_len) if sys_len > 0 else 0.0) if sys_len < ref_len else 1.0
        any_correct = any(c != 0 for c in correct)
        smooth_mteval = 1.0
        eff_order = float(max_order)
        alive = True
        precisions = [0.0] * max_order
        for n in range(max_order):
            if smooth == "add-k" and n > 0:
                correct[n] += value
                total[n] += value
            alive = alive and total[n] != 0
            if effective_order and alive:
                eff_order = float(n + 1)
            if not alive:
                continue
            if correct[n] == 0:
                if smooth == "exp":
                    smooth_mteval = smooth_mteval * 2
                    precisions[n] = 100.0 / (smooth_mteval * total[n])
                elif smooth == "floor":
                    precisions[n] = 100.0 * value / total[n]
            else:
                precisions[n] = 100.0 * correct[n] / total[n]
        mean_log = 0.0
        for n in range(max_order):
            if n < eff_order:
                mean_log += math.log(precisions[n]) if precisions[n] > 0 else _LOG_ZERO
        mean_log = mean_log / eff_order
    except (ZeroDivisionError, TypeError):
        return None
    score = bp * math.exp(mean_log) if any_correct else 0.0
    if not any_correct:
        precisions = [0.0] * max_order
    return np.float64(score), np.array(precisions), np.float64(bp)


def sentence_scores(
    rows: np.ndarray,
    *,
    max_order: int,
    smooth: str,
    smooth_value: float | None,
    effective_order: bool,
    ref_len_column: int = 1,
    divisor: float = 1.0,
) -> np.ndarray:
    """The BLEU (0–100) of each statistics row, divided by ``divisor``: ``sacrebleu_values(rows, ...)[0]
    / divisor``, bit for bit.

    Integer rows are scored natively (``_native.bleu_row_scores``): sacreBLEU's steps with the same
    IEEE operations in the same order and the C library's ``log``/``exp``, which sacreBLEU's
    ``math.log``/``math.exp`` call too. Float rows and ``max_order >= 8`` (where NumPy's sum of the
    logs is pairwise) take the array path.

    Examples
    --------
    >>> rows = np.array([[4, 4, 4, 3, 2, 1, 0, 4, 3, 2, 1], [0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0]])
    >>> sentence_scores(rows, max_order=4, smooth="exp", smooth_value=None, effective_order=True).tolist()
    [59.460355750136046, 0.0]
    """
    rows = np.asarray(rows)
    if rows.dtype.kind == "i" and rows.dtype != np.int64:
        rows = rows.astype(np.int64)
    if rows.ndim == 2 and rows.dtype == np.int64 and native_formula(max_order, smooth, smooth_value):
        return _native.bleu_row_scores(
            rows, max_order, smooth, smooth_value, effective_order, ref_len_column, float(divisor)
        )
    score = sacrebleu_values(
        rows,
        max_order=max_order,
        smooth=smooth,
        smooth_value=smooth_value,
        effective_order=effective_order,
        ref_len_column=ref_len_column,
    )[0]
    return cast("np.ndarray", score / divisor if divisor != 1.0 else score)  # rows: an array


@dataclass(frozen=True)
class BLEU(CorpusMetric):
    """BLEU exactly as sacreBLEU 2.x computes it.

    Parameters
    ----------
    tokenize : str
        ``13a`` (default), ``intl``, ``zh``, ``char``, ``none``, ``ja-mecab``, ``ko-mecab``,
        ``spm``/``flores101``/``flores200`` (with ``spm_model``).
    lowercase : bool
        Lowercase before tokenizing.
    smooth : {"exp", "floor", "add-k", "none"}
        Smoothing (Chen & Cherry 2014 methods 3, 1, 2 and none).
    smooth_value : float, optional
        Value for ``floor`` (default 0.1) and ``add-k`` (default 1).
    max_order : int
        Largest n-gram order.
    effective_order : bool
        Ignore orders with no n-grams at all in the corpus score.
    spm_model : str, optional
        Local SentencePiece model for the ``spm`` family of tokenizers.

    Examples
    --------
    >>> metric = BLEU()
    >>> round(metric(["the cat sat on the mat"], ["the cat sat on a mat"]).score, 4)
    0.5373
    """

    tokenize: str = "13a"
    lowercase: bool = False
    smooth: str = "exp"
    smooth_value: float | None = None
    max_order: int = 4
    effective_order: bool = False
    spm_model: str | None = None

    name: ClassVar[str] = "bleu"
    flavor: ClassVar[str] = "sacrebleu"

    def __post_init__(self) -> None:
        if self.smooth not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smooth {self.smooth!r}; choose one of {', '.join(SMOOTH_DEFAULTS)}")
        check_order("max_order", self.max_order)

    @cached_property
    def _tokenizer(self) -> TokenizerSpec:
        return resolve_tokenizer(self.tokenize, spm_model=self.spm_model)

    @property
    def schema(self) -> StatsSchema:
        return bleu_schema(self.max_order)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        rows = text_rows(
            hypotheses,
            references,
            tokenizer=self._tokenizer,
            lowercase=self.lowercase,
            max_order=self.max_order,
        )
        return Stats(self.schema, rows)

    def _values(
        self, totals: np.ndarray, *, effective_order: bool
    ) -> tuple[np.ndarray | np.float64, np.ndarray, np.ndarray | np.float64]:
        return sacrebleu_values(
            totals,
            max_order=self.max_order,
            smooth=self.smooth,
            smooth_value=self.smooth_value,
            effective_order=effective_order,
        )

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        score = self._values(totals, effective_order=self.effective_order)[0] / 100.0
        return cast("np.ndarray", score)  # a NumPy scalar for one totals vector

    def segment_values(self, stats: Stats) -> np.ndarray:
        """Sentence BLEU of each segment, as ``sacrebleu.sentence_bleu`` (effective order on)."""
        return sentence_scores(
            stats.rows,
            max_order=self.max_order,
            smooth=self.smooth,
            smooth_value=self.smooth_value,
            effective_order=True,
            divisor=100.0,
        )

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        _, precisions, bp = self._values(totals, effective_order=self.effective_order)
        return self._components(totals, precisions, bp)

    def score_from_totals(self, totals: np.ndarray, *, signature: Signature | None = None) -> Score:
        """The corpus :class:`Score` of merged statistics (the formula evaluated once for the
        value and the components)."""
        kind = type(self)
        if kind.corpus_values is not BLEU.corpus_values or kind.components is not BLEU.components:
            return super().score_from_totals(totals, signature=signature)  # a subclass's own formula
        totals = np.asarray(totals)
        value, precisions, bp = self._values(totals, effective_order=self.effective_order)
        return Score(
            name=self.name,
            score=float(value / 100.0),
            signature=str(signature if signature is not None else self.signature(totals)),
            components=self._components(totals, precisions, bp),
        )

    def _native_summary(self, rows: np.ndarray, segments: bool) -> Score | None:
        if type(self) not in _SUMMARY_CLASSES or not self._native_formula:
            return None
        n = self.max_order
        value, precisions, bp, totals, values = _native.bleu_summary(
            rows, n, self.smooth, self.smooth_value, self.effective_order, segments
        )
        signature = self._signature(totals[3 + 2 * n], totals[4 + 2 * n])
        return Score(self.name, value, str(signature), self._component_dict(totals, precisions, bp), values, None)

    @cached_property
    def _native_formula(self) -> bool:
        return native_formula(self.max_order, self.smooth, self.smooth_value)

    def _components(self, totals: np.ndarray, precisions: np.ndarray, bp: np.ndarray | np.float64) -> dict[str, Any]:
        return self._component_dict(
            np.asarray(totals).tolist(),  # Python numbers: one conversion, not one per element
            [p / 100.0 for p in np.asarray(precisions, dtype=np.float64).tolist()],
            float(bp),
        )

    def _component_dict(self, totals: list, precisions: list[float], bp: float) -> dict[str, Any]:
        """The components of a totals list: precisions (0–1) and brevity penalty as given."""
        return component_dict(totals, precisions, bp, self.max_order)

    def signature(self, totals: np.ndarray) -> Signature:
        width = 3 + 2 * self.max_order  # the nrefs_min, nrefs_max columns follow (see bleu_schema)
        return self._signature(int(totals[width]), int(totals[width + 1]))

    def _signature(self, nrefs_min: int, nrefs_max: int) -> Signature:
        """The signature of these reference counts (kept per metric object: a training loop asks
        for the same one every call)."""
        return self._memo(
            ("signature", nrefs_min, nrefs_max),
            lambda: Signature.build(
                **signature_fields(
                    self, nrefs_field(nrefs_min, nrefs_max), self._tokenizer.signature if self._uses_text else "ids"
                )
            ),
        )

    _uses_text: ClassVar[bool] = True


@dataclass(frozen=True)
class TokenIdBLEU(BLEU):
    """sacreBLEU's BLEU formula on integer token ids (no tokenization).

    For scoring inside a training loop: hypotheses and references are id
    sequences (lists, NumPy arrays, tensors), each cut at its first ``eos_id``
    and stripped of ``pad_id``.

    Examples
    --------
    >>> metric = TokenIdBLEU(max_order=2)
    >>> round(metric([[1, 2, 3, 0, 0]], [[1, 2, 3]]).score, 4)
    0.5477
    >>> round(TokenIdBLEU(max_order=2, pad_id=0)([[1, 2, 3, 0, 0]], [[1, 2, 3]]).score, 4)
    1.0
    """

    pad_id: int | None = None
    eos_id: int | None = None

    _uses_text: ClassVar[bool] = False

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        rows = id_rows(hypotheses, references, max_order=self.max_order, pad_id=self.pad_id, eos_id=self.eos_id)
        return Stats(self.schema, rows)


#: The classes whose :meth:`BLEU.score_from_stats` takes the native summary (a subclass may
#: change the formula).
_SUMMARY_CLASSES = (BLEU, TokenIdBLEU)


__all__ = ["BLEU", "SMOOTH_DEFAULTS", "TokenIdBLEU", "sacrebleu_values", "sentence_scores"]
