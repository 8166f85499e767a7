"""``nlpeval score``'s NumPy-free path: corpus BLEU and chrF of line files from native totals.

A whole ``nlpeval score -m bleu,chrf`` process spends more time importing NumPy than
scoring. When every metric asked for is sacreBLEU's BLEU (native tokenizer) or chrF/chrF++
and only corpus scores are wanted (no ``--segments``, bootstrap, paired tests, partials,
data files or Dask), the statistics are summed natively (``bleu_totals``/``chrf_totals``,
lists of ints) and scored by the same native one-totals formulas the metric objects use
(``bleu_totals_values``, ``chrf_totals_parts``, which take a list as well as an array), so the
same bits without importing NumPy. Anything else goes through the metric objects as before;
tests/test_cli_fastscore.py pins the two paths to the same output. The path builds no dataclass
either (:class:`CorpusScore`, :func:`signature_text`): importing ``dataclasses`` (and ``inspect``)
and building the classes cost more than all the rest of the CLI's imports.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

from nlpeval.cli.engine import wants_dask

#: sacreBLEU flavor smoothing methods and their default values (``SMOOTH_DEFAULTS`` of
#: :mod:`nlpeval.metrics.bleu.sacrebleu`, which imports NumPy; a test pins them equal).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
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
        if name == "meteor":  # METEOR 1.5: nlpeval.cli.fastmeteor
            from nlpeval.cli.fastmeteor import fast_meteor

            metric = fast_meteor(name, options)
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
        or not 1 <= max_order <= 7  # sacrebleu.MAX_NATIVE_ORDER
        or not (options.smooth_value is None or math.isfinite(options.smooth_value))
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
        or not abs(beta**2) < 2**53  # the native formula's factor (chrf.formula.native_factor); false for NaN
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

    #: whether ``--lowercase`` lowercases the lines before :meth:`totals` (METEOR lowercases later)
    lowercases_input = True

    def __init__(self, name: str, options: argparse.Namespace) -> None:
        self.cli_name = name
        self.options = options

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        """The summed statistics of a batch (without the reference-count columns)."""
        raise NotImplementedError

    def score(self, totals: list[int]) -> CorpusScore:
        """The corpus score of merged totals (the metric's native one-totals formula)."""
        raise NotImplementedError

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

        if self.metric.options.lowercase and self.metric.lowercases_input:
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

    def compute(self) -> CorpusScore:
        """The score of everything seen so far."""
        if self._totals is None:
            raise ValueError("nothing to score: call update() first")
        return self.metric.score(self._totals)


class FastBLEU(_FastMetric):
    """sacreBLEU's corpus BLEU with a native tokenizer (``BLEU`` of ``metrics.bleu.sacrebleu``)."""

    def __init__(self, name: str, options: argparse.Namespace, tokenize: str, max_order: int) -> None:
        super().__init__(name, options)
        self.tokenize, self.max_order = tokenize, max_order
        self.smooth, self.smooth_value = options.smooth, options.smooth_value

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native

        return _native.bleu_totals(hypotheses, references, self.tokenize, self.max_order)

    def score(self, totals: list[int]) -> CorpusScore:
        from nlpeval import _native

        value, precisions, bp = _native.bleu_totals_values(
            totals, self.max_order, self.smooth, self.smooth_value, self.options.effective_order
        )
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

    def score(self, totals: list[int]) -> CorpusScore:
        from nlpeval import _native

        orders = self.char_order + self.word_order
        value, precision, recall, precisions, recalls = _native.chrf_totals_parts(
            totals, orders, float(self.factor), self.options.chrf_eps_smoothing
        )
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
