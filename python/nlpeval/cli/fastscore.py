"""``nlpeval score``'s NumPy-free path: corpus BLEU and chrF of line files from native totals.

A whole ``nlpeval score -m bleu,chrf`` process spends more time importing NumPy than
scoring. When every metric asked for is sacreBLEU's BLEU (native tokenizer) or chrF/chrF++
and only corpus scores are wanted (no ``--segments``, bootstrap, paired tests, partials,
data files or Dask), the statistics are summed natively (``bleu_totals``/``chrf_totals``,
lists of ints) and scored here with Python floats: the operations of the metrics' one-totals
paths (``_scalar_values`` of :mod:`nlpeval.metrics.bleu.sacrebleu`, ``_scalar_parts`` of
:mod:`nlpeval.metrics.chrf.formula`) in the same order, so the same bits. Anything else, and a
totals vector whose score needs the array path (an undefined ratio), goes through the metric
objects as before; tests/test_cli_fastscore.py pins the two paths to the same output. The path
builds no dataclass either (:class:`CorpusScore`, :func:`signature_text`): importing ``dataclasses``
(and ``inspect``) and building the classes cost more than all the rest of the CLI's imports.

BLEU's ``exp``/``log``: sacreBLEU calls :mod:`math`; the metric's one-totals path calls NumPy's,
which is the C library's (so :mod:`math`'s) unless NumPy has its own AVX-512 kernels. On such a
CPU the BLEU score is computed by the metric object (NumPy imported), so the output is unchanged.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlpeval.cli.engine import wants_dask

if TYPE_CHECKING:
    from nlpeval.core.score import Score

#: sacreBLEU flavor smoothing methods and their default values (``SMOOTH_DEFAULTS`` of
#: :mod:`nlpeval.metrics.bleu.sacrebleu`, which imports NumPy; a test pins them equal).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
_LOG_ZERO = -9999999999.0
#: Tokenizers that run in the Rust core (``nlpeval.tokenizers.NATIVE_TOKENIZERS``).
_NATIVE = ("13a", "intl", "zh", "char", "none")


def fast_metrics(names: Sequence[str], options: argparse.Namespace) -> dict[str, Any] | None:
    """NumPy-free metrics for ``names`` (name -> metric with ``accumulator()``), or None when
    the options or a metric need the general path."""
    if (
        options.segments
        or options.bootstrap > 0
        or options.paired_bs
        or options.paired_ar
        or options.save_partial
        or options.hyp_col is not None
        or wants_dask(options)
    ):
        return None
    metrics: dict[str, Any] = {}
    for name in names:
        metric = _bleu(name, options) if name == "bleu" else _chrf(name, options) if name.startswith("chrf") else None
        if metric is None:
            return None
        metrics[name] = metric
    return metrics


def _bleu(name: str, options: argparse.Namespace) -> FastBLEU | None:
    tokenize = options.tokenize or "13a"
    max_order = options.max_order
    if (
        options.bleu_flavor != "sacrebleu"
        or tokenize not in _NATIVE
        or options.smooth not in SMOOTH_DEFAULTS
        or type(max_order) is not int
        or not 1 <= max_order < 8
        or options.bleu_weights is not None
        or options.auto_reweigh
    ):
        return None  # the metric object accepts or refuses these options with its own messages
    return FastBLEU(name, options, tokenize, max_order)


def _chrf(name: str, options: argparse.Namespace) -> FastCHRF | None:
    if name not in ("chrf", "chrf++"):
        return None
    char_order, beta = options.chrf_char_order, options.chrf_beta
    word_order = (2 if name == "chrf++" else 0) if options.chrf_word_order is None else options.chrf_word_order
    if (
        type(char_order) is not int
        or type(word_order) is not int
        or char_order < 0
        or word_order < 0
        or not 1 <= char_order + word_order <= 255
        or type(beta) not in (int, float)
        or not abs(beta) < 2**53  # also false for NaN
        or beta < 0
    ):
        return None
    return FastCHRF(name, options, char_order, word_order, beta)


class CorpusScore:
    """The fast path's corpus score: what the renderers read of a :class:`~nlpeval.Score` (its
    ``name``, ``score``, ``signature`` text, ``components``, no ``segments`` or ``ci``) and the same
    ``to_dict``. A plain class: building a dataclass imports ``dataclasses`` (and ``inspect``),
    which costs more than everything else the path imports."""

    __slots__ = ("components", "name", "score", "signature")
    segments = None
    ci = None

    def __init__(self, name: str, score: float, signature: str, components: dict[str, Any]) -> None:
        self.name, self.score, self.signature, self.components = name, score, signature, components

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, as ``Score.to_dict``: name, score, signature, then the components."""
        return {"name": self.name, "score": self.score, "signature": self.signature, **self.components}


def signature_text(**fields: object) -> str:
    """``str(Signature.build(**fields))`` without building a :class:`~nlpeval.Signature` (a dataclass):
    ``key:value`` pairs of the fields that are not None (booleans as yes/no), then the version."""
    from nlpeval._version import __version__

    pairs = [f"{key}:{_render(value)}" for key, value in fields.items() if value is not None]
    return "|".join([*pairs, f"version:nlpeval-{__version__}"])


def _render(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def nrefs_field(min_refs: int, max_refs: int) -> str:
    """sacreBLEU's ``nrefs`` value (``nlpeval.core.signature.nrefs_field``)."""
    return str(min_refs) if min_refs == max_refs else "var"


class _FastMetric:
    """A metric of the fast path: native totals, Python-float formula, metric object as fallback."""

    def __init__(self, name: str, options: argparse.Namespace) -> None:
        self.cli_name = name
        self.options = options

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        """The summed statistics of a batch (without the reference-count columns)."""
        raise NotImplementedError

    def score(self, totals: list[int]) -> CorpusScore | None:
        """The corpus score of merged totals, or None where the metric object must compute it."""
        raise NotImplementedError

    def slow_score(self, totals: list[int]) -> Score:
        """The metric object's score of these totals (imports NumPy)."""
        import numpy as np

        from nlpeval.cli.registry import resolve

        metric = resolve(self.cli_name).build(self.cli_name, self.options)
        return metric.score_from_totals(np.array(totals, dtype=np.int64))

    def accumulator(self, *, keep_segments: bool = False) -> FastAccumulator:
        if keep_segments:  # pragma: no cover - fast_metrics() refuses options that keep rows
            raise ValueError("the fast path keeps only totals")
        return FastAccumulator(self)


class FastAccumulator:
    """Running totals of one fast metric (``update`` and ``compute``, as the CLI uses them)."""

    def __init__(self, metric: _FastMetric) -> None:
        self.metric = metric
        self._totals: list[int] | None = None

    def update(self, hypotheses: list[str], references: list[list[str]]) -> FastAccumulator:
        """Add a batch of line-file segments (one list of references per hypothesis)."""
        from nlpeval.core.validation import unicode_checked

        if self.metric.options.lowercase:
            hypotheses = [h.lower() for h in hypotheses]
            references = [[r.lower() for r in seg] for seg in references]
        with unicode_checked(hypotheses, references):
            totals = self.metric.totals(hypotheses, references)
        counts = list(map(len, references))
        totals += [min(counts), max(counts)]  # the nrefs_min, nrefs_max columns
        old = self._totals
        if old is not None:  # integer sums, and the least and most references
            sums = [a + b for a, b in zip(old[:-2], totals[:-2], strict=True)]
            totals = [*sums, min(old[-2], totals[-2]), max(old[-1], totals[-1])]
        self._totals = totals
        return self

    def compute(self) -> CorpusScore | Score:
        """The score of everything seen so far."""
        if self._totals is None:
            raise ValueError("nothing to score: call update() first")
        score = self.metric.score(self._totals)
        return self.metric.slow_score(self._totals) if score is None else score


class FastBLEU(_FastMetric):
    """sacreBLEU's corpus BLEU with a native tokenizer (``BLEU`` of ``metrics.bleu.sacrebleu``)."""

    def __init__(self, name: str, options: argparse.Namespace, tokenize: str, max_order: int) -> None:
        super().__init__(name, options)
        self.tokenize, self.max_order = tokenize, max_order
        self.smooth, self.smooth_value = options.smooth, options.smooth_value

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native

        return _native.bleu_totals(hypotheses, references, self.tokenize, self.max_order)

    def score(self, totals: list[int]) -> CorpusScore | None:
        if not _math_is_numpy():
            return None
        values = _bleu_values([float(v) for v in totals], self)
        if values is None:
            return None
        value, precisions, bp = values
        n = self.max_order
        hyp_len, ref_len = totals[0], totals[1]
        width = 3 + 2 * n
        return CorpusScore(
            name="bleu",
            score=value / 100.0,
            signature=self.signature(totals[width], totals[width + 1]),
            components={
                "precisions": [p / 100.0 for p in precisions],
                "brevity_penalty": bp,
                "length_ratio": hyp_len / ref_len if ref_len else 0.0,
                "hyp_len": hyp_len,
                "ref_len": ref_len,
                "counts": totals[3 : 3 + n],
                "totals": totals[3 + n : 3 + 2 * n],
            },
        )

    def signature(self, nrefs_min: int, nrefs_max: int) -> str:
        default = SMOOTH_DEFAULTS[self.smooth]
        if default is None:
            smooth = self.smooth
        else:
            smooth = f"{self.smooth}[{default if self.smooth_value is None else self.smooth_value:.2f}]"
        return signature_text(
            nrefs=nrefs_field(nrefs_min, nrefs_max),
            case="lc" if self.options.lowercase else "mixed",
            eff=self.options.effective_order,
            tok=self.tokenize,
            smooth=smooth,
            flavor="sacrebleu",
        )


def _bleu_values(totals: list[float], metric: FastBLEU) -> tuple[float, list[float], float] | None:
    """BLEU (0-100), precisions (0-100) and brevity penalty of one totals vector: sacreBLEU's
    ``compute_bleu`` as ``_scalar_values`` performs it; None where a ratio is undefined."""
    max_order, smooth, effective_order = metric.max_order, metric.smooth, metric.options.effective_order
    sys_len, ref_len = totals[0], totals[1]
    correct = totals[3 : 3 + max_order]
    total = totals[3 + max_order : 3 + 2 * max_order]
    value = SMOOTH_DEFAULTS[smooth] if metric.smooth_value is None else metric.smooth_value
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
        score = bp * math.exp(mean_log) if any_correct else 0.0
    except (ZeroDivisionError, TypeError, OverflowError, ValueError):
        return None
    if not any_correct:
        precisions = [0.0] * max_order
    return score, precisions, bp


class FastCHRF(_FastMetric):
    """sacreBLEU's corpus chrF / chrF++ (``CHRF`` of ``metrics.chrf.sacrebleu``)."""

    def __init__(self, name: str, options: argparse.Namespace, char_order: int, word_order: int, beta: float) -> None:
        super().__init__(name, options)
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        self.factor = beta**2

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native

        options = self.options
        return _native.chrf_totals(
            hypotheses,
            references,
            self.char_order,
            self.word_order,
            options.chrf_whitespace,
            float(self.factor),
            options.chrf_eps_smoothing,
        )

    def score(self, totals: list[int]) -> CorpusScore | None:
        orders = self.char_order + self.word_order
        parts = _chrf_parts([float(v) for v in totals], orders, self.factor, self.options.chrf_eps_smoothing)
        if parts is None:
            return None
        value, precision, recall, precisions, recalls = parts
        c = self.char_order
        width = 3 * orders
        return CorpusScore(
            name="chrf" + "+" * self.word_order,
            score=value / 100.0,
            signature=self.signature(totals[width], totals[width + 1]),
            components={
                "precision": precision,
                "recall": recall,
                "char_precisions": precisions[:c],
                "char_recalls": recalls[:c],
                "word_precisions": precisions[c:],
                "word_recalls": recalls[c:],
                "beta": self.beta,
                "char_order": self.char_order,
                "word_order": self.word_order,
            },
        )

    def signature(self, nrefs_min: int, nrefs_max: int) -> str:
        return signature_text(
            nrefs=nrefs_field(nrefs_min, nrefs_max),
            case="lc" if self.options.lowercase else "mixed",
            eff=not self.options.chrf_eps_smoothing,
            nc=self.char_order,
            nw=self.word_order,
            space=self.options.chrf_whitespace,
            beta=None if self.beta == 2 else self.beta,
            flavor="sacrebleu",
        )


_EPS = 1e-16


def _chrf_parts(
    t: list[float], orders: int, factor: float, eps_smoothing: bool
) -> tuple[float, float, float, list[float], list[float]] | None:
    """chrF (0-100), average precision and recall, per-order precisions and recalls of one totals
    vector, as ``_scalar_parts`` computes them; None where a ratio is undefined."""
    score = sum_prec = sum_rec = effective = 0.0
    precisions: list[float] = []
    recalls: list[float] = []
    try:
        for i in range(orders):
            n_hyp, n_ref, n_match = t[3 * i], t[3 * i + 1], t[3 * i + 2]
            prec = n_match / n_hyp if n_hyp > 0 else _EPS
            rec = n_match / n_ref if n_ref > 0 else _EPS
            denom = factor * prec + rec
            score = score + ((1 + factor) * prec * rec / denom if denom > 0 else _EPS)
            if n_hyp > 0 and n_ref > 0:
                sum_prec = sum_prec + prec
                sum_rec = sum_rec + rec
                effective = effective + 1.0
            precisions.append(prec if n_hyp > 0 else 0.0)
            recalls.append(rec if n_ref > 0 else 0.0)
        avg_prec = sum_prec / effective if effective > 0 else 0.0
        avg_rec = sum_rec / effective if effective > 0 else 0.0
        if eps_smoothing:
            value = 100 * score / orders
        elif avg_prec + avg_rec != 0:
            f = (1 + factor) * avg_prec * avg_rec
            value = 100 * (f / (factor * avg_prec + avg_rec))
        else:
            value = 0.0
    except (ZeroDivisionError, OverflowError):
        return None
    return value, avg_prec, avg_rec, precisions, recalls


_MATH_IS_NUMPY: list[bool] = []


def _math_is_numpy() -> bool:
    """Whether NumPy's float64 ``exp``/``log`` here are the C library's (those of :mod:`math`).

    NumPy has its own float64 ``exp``/``log`` kernels only for AVX-512 x86 CPUs; elsewhere it
    calls the C library. Unknown platforms count as AVX-512 (the metric object then scores).
    """
    if not _MATH_IS_NUMPY:
        _MATH_IS_NUMPY.append(_no_avx512())
    return _MATH_IS_NUMPY[0]


def _no_avx512() -> bool:
    machine = os.uname().machine if hasattr(os, "uname") else ""
    if machine in ("aarch64", "arm64"):
        return True
    if machine != "x86_64" or not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return "avx512" not in line
    except OSError:
        pass
    return False
