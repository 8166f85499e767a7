"""The one frozen context a report's sections are built from (:mod:`nlpeval.reports.sections`).

:func:`build_context` validates the inputs once, builds the metrics through the registry and computes what
several sections share: every metric's segment statistics, compare-mt's word ids and n-gram counts, the
matched words, the sentence scores. A section is then a function of a :class:`ReportContext` alone: the
inputs, the metrics, the :class:`~nlpeval.reports.settings.Comparison` (systems, baseline, resampling
settings) and the options are all on it, so no section is handed ``n_bootstrap`` or ``seed``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats
from nlpeval.reports.model import InputFile, Leaderboard
from nlpeval.reports.record import FrozenRecord, record
from nlpeval.reports.settings import Comparison, Resampling
from nlpeval.reports.titles import DEFAULT_TITLE


@record
class MetricColumn(FrozenRecord):
    """One reported metric: the configured metric, its label and display scale, its direction and every
    system's segment statistics."""

    metric: CorpusMetric
    label: str
    scale: float
    higher_is_better: bool
    stats: Mapping[str, Stats]
    #: system -> each segment's error spans, for a metric that tags them (xCOMET); else None
    spans: Mapping[str, Any] | None = None


@record
class ReportOptions(FrozenRecord):
    """What the report shows, besides the resampling settings (see :func:`nlpeval.reports.build.report`)."""

    preset: str | None = None
    buckets: str = "fixed"
    quantiles: int = 4
    max_examples: int | None = None
    top_k: int = 50
    all_pairs: bool = True
    metric_options: Mapping[str, Any] | Any = None
    title: str = DEFAULT_TITLE
    command: str | None = None
    inputs: Sequence[InputFile] | None = None
    #: human scores (:class:`~nlpeval.reports.analyses.human_agreement.HumanScores`): the agreement section
    human: Any = None


@record
class Resampled(FrozenRecord):
    """The sections built on the second thread (mostly native resampling, GIL released): the leaderboard
    and the bucket tables that come first (word accuracy by frequency; compare-mt's BLEU by length)."""

    leaderboard: Leaderboard
    tables: tuple[Any, ...]


@record
class ReportContext(FrozenRecord):
    """Everything a report section reads, built once by :func:`build_context`.

    The values derived on demand (``segment_scores``...) are cached on first use; the resampled
    sections run on a second thread from the start (:meth:`resampled` waits for them).
    """

    hypotheses: Mapping[str, Sequence[str]]
    refs: list[list[str]]
    sources: Sequence[str] | None
    labels: Sequence[str] | None
    freq_corpus: Sequence[str] | None
    compared: Comparison
    options: ReportOptions
    #: name -> reported metric (compare-mt's BLEU alone in the compare-mt preset)
    metrics: Mapping[str, MetricColumn]
    #: every side as compare-mt's word ids (:class:`nlpeval.reports.analyses.ngram_codes.Corpus`)
    corpus: Any
    #: compare-mt's BLEU rows per system (the native BLEU counts on compare-mt's tokens)
    native: Mapping[str, np.ndarray]
    #: compare-mt's matched words per system ("0"/"1" per output token, per segment)
    matched: Mapping[str, Sequence[str]]
    warnings: tuple[str, ...] = ()
    progress: Callable[[str], None] = field(default=lambda _name: None, repr=False)
    background: Any = field(default=None, repr=False, compare=False)

    @property
    def systems(self) -> tuple[str, ...]:
        """System names in report order."""
        return self.compared.systems

    @property
    def baseline(self) -> str:
        """The system the others are tested against."""
        return self.compared.baseline

    @property
    def resampling(self) -> Resampling:
        """The resampling settings."""
        return self.compared.resampling

    @property
    def n_segments(self) -> int:
        """Segments (of every system and the references)."""
        return len(self.refs)

    @property
    def preset(self) -> str | None:
        """``"compare-mt"`` or ``None``."""
        return self.options.preset

    @property
    def shown(self) -> int:
        """Segments in the example browser (the first ones)."""
        limit = self.options.max_examples
        return self.n_segments if limit is None else min(limit, self.n_segments)

    @functools.cached_property
    def ref_lengths(self) -> np.ndarray:
        """compare-mt's reference tokens per segment."""
        from nlpeval.reports.analyses import ngram_codes as nc

        return np.diff(self.corpus.sides[nc.REF][1])

    @functools.cached_property
    def length_diffs(self) -> dict[str, np.ndarray]:
        """Per system, output minus reference tokens per segment (compare-mt's tokens)."""
        return {s: np.diff(self.corpus.sides[s][1]) - self.ref_lengths for s in self.systems}

    @functools.cached_property
    def sentence_bleu(self) -> Any:
        """compare-mt's sentence BLEU (NLTK ``sentence_bleu``, ``method2``): in the compare-mt preset, or when
        BLEU is not among the metrics; else ``None``."""
        if self.preset != "compare-mt" and "bleu" in self.metrics:
            return None
        from nlpeval.metrics.bleu import NltkBLEU

        return NltkBLEU(smooth="method2")

    @functools.cached_property
    def segment_scores(self) -> dict[str, dict[str, np.ndarray]]:
        """Sentence score -> system -> score per segment: compare-mt's sentence BLEU (``sentbleu``) when
        :attr:`sentence_bleu` is set, then (no preset) every metric's segment values."""
        from nlpeval.reports.analyses import comparemt as cm

        scores: dict[str, dict[str, np.ndarray]] = {}
        if self.sentence_bleu is not None:
            metric = self.sentence_bleu
            scores["sentbleu"] = {
                s: np.asarray(metric.segment_values(cm.sentence_bleu_stats(metric, self.native[s])))
                for s in self.systems
            }
        if self.preset is None:
            for name, column in self.metrics.items():
                scores[name] = {
                    s: np.asarray(column.metric.segment_values(column.stats[s]), dtype=np.float64) for s in self.systems
                }
        return scores

    @functools.cached_property
    def higher_is_better(self) -> dict[str, bool]:
        """Direction of every metric and sentence score."""
        higher = {name: column.higher_is_better for name, column in self.metrics.items()}
        if self.sentence_bleu is not None:
            higher["sentbleu"] = True
        return higher

    def resampled(self) -> Resampled:
        """The resampled sections (waits for the second thread)."""
        if self.background is None:
            raise RuntimeError("the resampled sections were not started (see nlpeval.reports.build.report)")
        result: Resampled = self.background.result()
        return result


def check_inputs(
    hypotheses: Mapping[str, Sequence[str]],
    references: Sequence[str | Sequence[str]],
    sources: Sequence[str] | None,
    labels: Sequence[str] | None,
) -> list[list[str]]:
    """The references as a list of reference lists per segment, after checking every input's shape."""
    n_segments = len(references)
    refs = _normalise_references(references, n_segments)
    _validate(hypotheses, n_segments, labels)
    if n_segments == 0:
        raise InputError("the references have no segments")
    if sources is not None and len(sources) != n_segments:
        raise InputError(f"{len(sources)} source segments for {n_segments} segments")
    return refs


def check_options(systems: Sequence[str], baseline: str, options: ReportOptions, n_segments: int) -> ReportOptions:
    """The options, checked (the quantile count clipped to the segments)."""
    if baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {list(systems)}")
    if options.preset not in (None, "compare-mt"):
        raise ValueError(f"unknown preset {options.preset!r}; known: compare-mt")
    if options.buckets not in ("fixed", "quantile"):
        raise ValueError(f"unknown bucket kind {options.buckets!r}; known: fixed, quantile")
    if options.buckets == "quantile":
        from dataclasses import replace

        from nlpeval.reports.analyses.quantiles import check_quantiles

        return replace(options, quantiles=check_quantiles(options.quantiles, n_segments))
    return options


def _normalise_references(references: Sequence[Any], n_segments: int) -> list[list[str]]:
    refs = [[r] if isinstance(r, str) else list(r) for r in references]
    if len(refs) != n_segments:
        raise InputError(f"{len(refs)} references for {n_segments} segments", side="references")
    for i, group in enumerate(refs):
        if not group:
            raise InputError("no reference", segment=i, side="references")
        for j, ref in enumerate(group):
            if not isinstance(ref, str):
                raise InputError(f"is {type(ref).__name__}, expected str", segment=i, side="references", reference=j)
    return refs


def _validate(hypotheses_by_system: Mapping[str, Sequence[str]], n_segments: int, labels: Sequence[str] | None) -> None:
    if not hypotheses_by_system:
        raise InputError("no system to report on")
    for name, hyps in hypotheses_by_system.items():
        if len(hyps) == 0:
            raise InputError(f"system {name!r} has no segments")
        if len(hyps) != n_segments:
            raise InputError(f"system {name!r} has {len(hyps)} segments, the references {n_segments}")
        for i, hyp in enumerate(hyps):
            if not isinstance(hyp, str):
                raise InputError(f"is {type(hyp).__name__}, expected str", segment=i, side="hypotheses")
    if labels is not None and len(labels) != n_segments:
        raise InputError(f"{len(labels)} labels for {n_segments} segments")


def build_context(
    hypotheses: Mapping[str, Sequence[str]],
    refs: list[list[str]],
    *,
    metrics: Sequence[str],
    compared: Comparison,
    options: ReportOptions,
    sources: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    freq_corpus: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReportContext:
    """The context of checked inputs (:func:`check_inputs`, :func:`check_options`): the metrics built and
    every system's statistics computed (the step ``"statistics"``)."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses import ngram_codes as nc

    step = progress or (lambda _name: None)
    step("statistics")
    systems = compared.systems
    # every side as word ids of compare-mt's tokens (cm.tokenize; one vocabulary): the n-gram counts
    # against the first reference, shared by compare-mt's BLEU and its sentence BLEU, the word buckets
    # and the salient n-grams
    corpus = nc.Corpus.encode_lines({nc.REF: [group[0] for group in refs], **hypotheses})
    native = {s: cm.native_rows_ids(corpus.sides[s], corpus.sides[nc.REF]) for s in systems}
    warnings: list[str] = []
    if options.preset == "compare-mt":
        if any(len(group) > 1 for group in refs):
            warnings.append("compare-mt uses the first reference only")
        cm_bleu = cm.CompareMtBLEU()
        columns = {
            "bleu": MetricColumn(
                cm_bleu, "BLEU", 100.0, True, {s: cm_bleu.stats_from_native(native[s]) for s in systems}
            )
        }
    else:
        columns = _metric_columns(hypotheses, refs, tuple(metrics), options.metric_options, systems, sources)
    # compare-mt's matched words: the word tables count them, the example browser highlights them
    matched = {s: nc.matched_strings(corpus, s, len(refs)) for s in systems}
    return ReportContext(
        hypotheses=hypotheses,
        refs=refs,
        sources=sources,
        labels=labels,
        freq_corpus=freq_corpus,
        compared=compared,
        options=options,
        metrics=columns,
        corpus=corpus,
        native=native,
        matched=matched,
        warnings=tuple(warnings),
        progress=step,
    )


def _metric_columns(
    hypotheses: Mapping[str, Sequence[str]],
    refs: list[list[str]],
    names: tuple[str, ...],
    metric_options: Any,
    systems: Sequence[str],
    sources: Sequence[str] | None = None,
) -> dict[str, MetricColumn]:
    """Every metric built through the registry, with every system's segment statistics (the neural metrics
    through :func:`nlpeval.neural.worker.stats_and_spans`: sources passed on, one model and one embedding of the
    sources and references for all systems, and the error spans of a metric that tags them)."""
    from nlpeval.neural.worker import prefetch, stats_and_spans
    from nlpeval.reports.metrics import build_metrics, higher_is_better

    columns = {}
    for name, (metric, label, scale) in build_metrics(names, metric_options).items():
        stats, spans = {}, {}
        for k, s in enumerate(systems):
            prefetch(metric, ((list(hypotheses[t]), refs, sources) for t in systems[k:]))  # neural: pooled batches
            try:
                stats[s], found = stats_and_spans(metric, list(hypotheses[s]), refs, sources)
            except InputError as exc:
                raise InputError(
                    f"system {s!r}: {exc.message}", segment=exc.segment, side=exc.side, reference=exc.reference
                ) from None
            if found is not None:
                spans[s] = found
        shared = getattr(metric, "shared_columns", None)  # span F1: one schema (entity types) for all systems
        if shared is not None:
            metric, stats = shared(stats)
        columns[name] = MetricColumn(metric, label, scale, higher_is_better(name), stats, spans or None)
    return columns
