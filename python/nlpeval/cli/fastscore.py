"""``nlpeval score``'s NumPy-free path: corpus BLEU and chrF of line files from native totals.

A whole ``nlpeval score -m bleu,chrf`` process spends more time importing NumPy than
scoring. When every metric asked for is sacreBLEU's BLEU (native tokenizer) or chrF/chrF++
and only corpus scores are wanted (no ``--segments``, bootstrap, paired tests, partials,
data files or Dask), the statistics are summed natively (``bleu_totals``/``chrf_totals``,
lists of ints) and scored by the same native one-totals formulas the metric objects use
(``bleu_totals_values``, ``chrf_totals_parts``, which take a list as well as an array), so the
same bits without importing NumPy. Anything else goes through the metric objects as before;
tests/test_cli_fastscore.py pins the two paths to the same output. This module only chooses the
path and sums totals: the settings, signature fields and components come from the metrics' own
plain-Python modules (``nlpeval.metrics.bleu.fields``, ``nlpeval.metrics.chrf.fields``,
``nlpeval.metrics.meteor.config``), the record and signature text from the core
(:class:`~nlpeval.core.plain_score.PlainScore`, :func:`~nlpeval.core.signature_text.signature_text`),
which build no dataclass: importing ``dataclasses`` (and ``inspect``) costs more than all the rest
of the CLI's imports.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from nlpeval.cli.engine import wants_dask
from nlpeval.core.plain_score import PlainScore
from nlpeval.core.signature_text import nrefs_field, signature_text
from nlpeval.metrics.bleu import fields as bleu_fields
from nlpeval.metrics.chrf import fields as chrf_fields

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
        metric: _FastMetric | None = None
        if name == "bleu":
            metric = _bleu(name, options)
        elif name.startswith("chrf"):
            metric = _chrf(name, options)
        if name == "meteor":  # METEOR 1.5: nlpeval.cli.fastmeteor
            from nlpeval.cli.fastmeteor import fast_meteor

            metric = fast_meteor(name, options)
        if metric is None:
            return None
        metrics[name] = metric
    return metrics


def _bleu(name: str, options: argparse.Namespace) -> FastBLEU | None:
    tokenize = options.tokenize or "13a"
    if (
        options.bleu_flavor != "sacrebleu"
        or tokenize not in _NATIVE
        or not bleu_fields.native_formula(options.max_order, options.smooth, options.smooth_value)
        or options.bleu_weights is not None
        or options.auto_reweigh
    ):
        return None  # the metric object accepts or refuses these options with its own messages
    return FastBLEU(name, options, tokenize, options.max_order)


def _chrf(name: str, options: argparse.Namespace) -> FastCHRF | None:
    if name not in ("chrf", "chrf++"):
        return None
    char_order, beta = options.chrf_char_order, options.chrf_beta
    word_order = (2 if name == "chrf++" else 0) if options.chrf_word_order is None else options.chrf_word_order
    try:
        chrf_fields.check_options(char_order, word_order, beta)
    except ValueError:
        return None  # the metric object refuses them with its own messages
    if type(char_order) is not int or type(word_order) is not int or not chrf_fields.native_factor(beta**2):
        return None
    return FastCHRF(name, options, char_order, word_order, beta)


class _FastMetric:
    """A metric of the fast path: native totals, Python-float formula, metric object as fallback."""

    #: the signature's flavor (the fast path computes sacreBLEU's)
    flavor = "sacrebleu"

    #: whether ``--lowercase`` lowercases the lines before :meth:`totals` (METEOR lowercases later)
    lowercases_input = True

    def __init__(self, name: str, options: argparse.Namespace) -> None:
        self.cli_name = name
        self.options = options

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        """The summed statistics of a batch (without the reference-count columns)."""
        raise NotImplementedError

    def score(self, totals: list[int]) -> PlainScore:
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

    def compute(self) -> PlainScore:
        """The score of everything seen so far."""
        if self._totals is None:
            raise ValueError("nothing to score: call update() first")
        return self.metric.score(self._totals)


class FastBLEU(_FastMetric):
    """sacreBLEU's corpus BLEU with a native tokenizer (``BLEU`` of ``metrics.bleu.sacrebleu``)."""

    def __init__(self, name: str, options: argparse.Namespace, tokenize: str, max_order: int) -> None:
        super().__init__(name, options)
        self.tokenize, self.max_order = tokenize, max_order
        # the attributes bleu_fields.signature_fields reads, named as the metric object's
        self.smooth, self.smooth_value = options.smooth, options.smooth_value
        self.lowercase, self.effective_order = options.lowercase, options.effective_order

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native

        return _native.bleu_totals(hypotheses, references, self.tokenize, self.max_order)

    def score(self, totals: list[int]) -> PlainScore:
        from nlpeval import _native

        value, precisions, bp = _native.bleu_totals_values(
            totals, self.max_order, self.smooth, self.smooth_value, self.effective_order
        )
        width = 3 + 2 * self.max_order
        return PlainScore(
            name="bleu",
            score=value / 100.0,
            signature=self.signature(totals[width], totals[width + 1]),
            components=bleu_fields.component_dict(totals, [p / 100.0 for p in precisions], bp, self.max_order),
        )

    def signature(self, nrefs_min: int, nrefs_max: int) -> str:
        return signature_text(**bleu_fields.signature_fields(self, nrefs_field(nrefs_min, nrefs_max), self.tokenize))


class FastCHRF(_FastMetric):
    """sacreBLEU's corpus chrF / chrF++ (``CHRF`` of ``metrics.chrf.sacrebleu``)."""

    def __init__(self, name: str, options: argparse.Namespace, char_order: int, word_order: int, beta: float) -> None:
        super().__init__(name, options)
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        # the attributes chrf_fields reads, named as the metric object's
        self.lowercase, self.whitespace = options.lowercase, options.chrf_whitespace
        self.eps_smoothing = options.chrf_eps_smoothing
        self.factor = beta**2

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native

        return _native.chrf_totals(
            hypotheses,
            references,
            self.char_order,
            self.word_order,
            self.whitespace,
            float(self.factor),
            self.eps_smoothing,
        )

    def score(self, totals: list[int]) -> PlainScore:
        from nlpeval import _native

        orders = self.char_order + self.word_order
        value, precision, recall, precisions, recalls = _native.chrf_totals_parts(
            totals, orders, float(self.factor), self.eps_smoothing
        )
        width = 3 * orders
        return PlainScore(
            name="chrf" + "+" * self.word_order,
            score=value / 100.0,
            signature=self.signature(totals[width], totals[width + 1]),
            components=chrf_fields.component_dict(self, precision, recall, precisions, recalls),
        )

    def signature(self, nrefs_min: int, nrefs_max: int) -> str:
        return signature_text(**chrf_fields.signature_fields(self, nrefs_field(nrefs_min, nrefs_max)))
