"""The metrics ``nlpeval score`` scores on whole systems: those that read the sources (SARI, COMET, MetricX) or
load a model (COMET, BERTScore, MetricX); sources, cache, error spans, progress.

Metrics whose registry entry ``needs_model`` or ``needs_sources`` are scored on a whole system at once rather
than chunk by chunk: their batches are sorted by length over the system, BERTScore's idf weights come from
every reference, and the metric object, built once for the command, keeps the embeddings of the sources and
references it has seen, so every further system reuses them. ``--src`` gives the sources (one segment per
line, read as the references are) to the metrics whose entry ``needs_sources``; ``--cache DIR`` keeps
segment scores on disk (:mod:`nlpeval.neural.cache`); ``--error-spans`` keeps the error spans of a model that
tags them (xCOMET) for the output.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from nlpeval.cli.errors import UsageError

#: families whose metrics take one reference per segment (BERTScore takes several)
SINGLE_REFERENCE = frozenset({"comet", "metricx"})


def source_metrics() -> str:
    """The metrics that read the sources, as the registry declares them (``needs_sources``).

    Examples
    --------
    >>> "sari" in source_metrics().split(", ")
    True
    """
    from nlpeval.metrics import registry

    return ", ".join(entry.name for entry in registry.entries() if entry.needs_sources)


def add_arguments(parser: argparse.ArgumentParser, listed: bool = True) -> None:
    """``--src`` and ``--cache`` of ``nlpeval score`` (``listed``: the help of ``--src`` names the metrics that
    read the sources, which loads every registry entry; the parser that ``--help`` never shows leaves it out)."""
    listing = f" (metrics that read the sources: {source_metrics()})" if listed else ""
    parser.add_argument("--src", metavar="SRC", help=f"source file, one segment per line{listing}")
    parser.add_argument(
        "--error-spans",
        action="store_true",
        help="show the error spans of a model that tags them (xCOMET): in the text output a table per span "
        "(segment, severity, confidence, characters, text), with --format json under each score (error_spans, "
        "one list per segment); --segments with an xCOMET model keeps them too",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the neural metrics' segment scores in DIR (private, bounded to 1 GiB; keyed by the "
        "checkpoint's sha256, the options and the texts) and reuse them",
    )


#: the options of the neural metrics that ``nlpeval report`` takes as flags, as ``nlpeval score`` (the others:
#: ``--metric-option NAME=VALUE``)
REPORT_OPTIONS = (
    "comet_model",
    "bertscore_model",
    "bertscore_num_layers",
    "metricx_model",
    "metricx_tokenizer",
    "metricx_version",
    "device",
    "dtype",
)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """The neural metrics' model flags of ``nlpeval report`` (the registry's options, as ``nlpeval score``)."""
    from nlpeval.cli.metric_options import add_option
    from nlpeval.metrics import registry

    group = parser.add_argument_group(
        "neural metrics (COMET, BERTScore, MetricX; their other options: --metric-option NAME=VALUE)"
    )
    known = registry.options()
    for name in REPORT_OPTIONS:
        add_option(group, known[name])


def report_overrides(options: argparse.Namespace) -> dict[str, Any]:
    """The values of the neural flags ``nlpeval report`` was given (those that differ from their default)."""
    from nlpeval.metrics import registry

    known = registry.options()
    values = {name: getattr(options, name, known[name].default) for name in REPORT_OPTIONS}
    return {name: value for name, value in values.items() if value != known[name].default}


def reference_free(name: str) -> bool:
    """Whether metric ``name`` may be scored without references (its registry entry's ``references`` is
    ``optional``, as COMET with a CometKiwi checkpoint, or ``none``, as ``metricx-qe``): ``-r`` may then be left
    out."""
    from nlpeval.metrics.registry import text_entry

    return text_entry(name).reference_free


def split(metrics: Mapping[str, Any], entries: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metrics streamed chunk by chunk, metrics scored on whole systems: those that need a model or the
    sources, which are read whole: SARI)."""
    whole = {
        name: metric for name, metric in metrics.items() if entries[name].needs_model or entries[name].needs_sources
    }
    streamed = {name: metric for name, metric in metrics.items() if name not in whole}
    return streamed, whole


def check(options: argparse.Namespace, entries: Mapping[str, Any]) -> None:
    """One-line usage errors before any model is loaded: sources missing, several references for a metric
    that takes one."""
    needing = [name for name, entry in entries.items() if entry.needs_sources]
    if needing and not getattr(options, "src", None):
        raise UsageError(f"{needing[0]} needs the sources: give --src SRC (one source segment per line)")
    single = [name for name, entry in entries.items() if entry.family in SINGLE_REFERENCE]
    if single and len(options.ref or []) + len(getattr(options, "ref_col", None) or []) > 1:
        raise UsageError(f"{single[0]} takes one reference per segment: give one -r file")


def check_spans(options: argparse.Namespace, metrics: Mapping[str, Any]) -> None:
    """``--error-spans`` needs a metric that tags them (an xCOMET checkpoint; read from its ``hparams.yaml``, no
    model loaded) and a format that shows them (text, json): else one usage line."""
    if not getattr(options, "error_spans", False):
        return
    from nlpeval.neural.worker import tags_errors

    if not any(tags_errors(metric) for metric in metrics.values()):
        raise UsageError(
            f"--error-spans: none of the metrics ({', '.join(metrics)}) tags error spans; only a COMET model that "
            "tags them does (xCOMET, given as -m comet --comet-model MODEL)"
        )
    if options.format not in ("text", "json"):
        raise UsageError(f"--error-spans is shown in the text and json formats, not {options.format}")


class WholeScoring:
    """The state of one command's metrics scored on whole systems: metrics (built once), sources, cache, spans.

    Parameters
    ----------
    metrics : mapping
        Name -> metric of the metrics that need a model.
    entries : mapping
        Name -> registry entry.
    options : argparse.Namespace
        ``src``, ``cache`` and the accumulator options of ``nlpeval score``.
    """

    def __init__(self, metrics: Mapping[str, Any], entries: Mapping[str, Any], options: argparse.Namespace) -> None:
        from nlpeval.cli.io import read_all

        self.metrics = dict(metrics)
        self.entries = entries
        self.src_path: str | None = getattr(options, "src", None)
        needs_sources = any(entries[name].needs_sources for name in self.metrics)
        self.sources = read_all(self.src_path) if needs_sources and self.src_path else None
        #: keep the error spans of the metrics that tag them (``--error-spans``, or ``--segments``)
        self.keep_spans = bool(getattr(options, "error_spans", False) or getattr(options, "segments", False))
        #: per scored system, in order: metric name -> its segments' error spans (metrics that tag them)
        self.spans: list[dict[str, Any]] = []
        self.cache = None
        if getattr(options, "cache", None):
            from nlpeval.neural.cache import SegmentCache

            self.cache = SegmentCache(options.cache)
        #: every system's (hypotheses, references) in scoring order, when read ahead (:meth:`look_ahead`)
        self.coming: list[tuple[list[str], list[list[str]]]] | None = None
        #: systems scored so far
        self.scored = 0

    def look_ahead(self, systems: list[str], refs: list[str]) -> None:
        """Read every system file and the references ahead, so that a metric that embeds texts ahead
        (:meth:`nlpeval.BERTScore.prefetch`, :meth:`nlpeval.COMET.prefetch`) pools the texts of several systems.
        Skipped with ``--cache`` (cached systems need no embedding), when no metric does so, when a file is stdin,
        or when the files cannot be read or their segment counts differ (the scoring then reports it at its file
        and line)."""
        from nlpeval.cli.io import read_all

        wanted = any(hasattr(metric, "prefetch") for metric in self.metrics.values())
        if not wanted or self.cache is not None or "-" in [*systems, *refs]:
            return
        try:
            columns = [read_all(path) for path in refs]
            hypotheses = [read_all(path) for path in systems]
        except (OSError, UnicodeDecodeError, UsageError):
            return
        if any(len(lines) != len(hypotheses[0]) for lines in [*columns, *hypotheses]):
            return
        references = [list(group) for group in zip(*columns, strict=True)] or [[] for _ in hypotheses[0]]
        self.coming = [(hyps, references) for hyps in hypotheses]

    def _prefetch(self, name: str, metric: Any) -> None:
        """Let ``metric`` embed ahead the texts of the systems still to score (see :meth:`look_ahead`)."""
        if self.coming is None or not hasattr(metric, "prefetch"):
            return
        entry = self.entries[name]
        sources = self.sources if entry.needs_sources else None
        metric.prefetch((hyps, self._references(entry, refs), sources) for hyps, refs in self.coming[self.scored :])

    def score(
        self,
        label: str,
        hypotheses: list[str],
        references: list[list[str]],
        keep_segments: bool,
        locate: Callable[[Exception], UsageError],
    ) -> dict[str, Any]:
        """Name -> accumulator of every neural metric on one whole system (``references``: one list per segment).

        ``locate`` turns an :class:`~nlpeval.core.errors.InputError` about the hypotheses or references
        into the command's ``file:line`` error; sources' errors name ``--src``'s file and line here.
        """
        from nlpeval.core.errors import InputError
        from nlpeval.core.progress import progress_bar

        n = len(hypotheses)
        if self.sources is not None and len(self.sources) != n:
            shown = _shown(self.src_path)
            raise UsageError(f"segment counts differ: {label} has {n} segments, {shown} has {len(self.sources)} lines")
        accumulators = {}
        spans: dict[str, Any] = {}
        with progress_bar(n * len(self.metrics), desc=f"{label}: {', '.join(self.metrics)}", unit=" segments") as bar:
            for name, metric in self.metrics.items():
                entry = self.entries[name]
                refs = self._references(entry, references)
                sources = self.sources if entry.needs_sources else None
                self._prefetch(name, metric)
                try:
                    stats, found = self._stats(metric, hypotheses, refs, sources)
                except InputError as exc:
                    if exc.side == "sources" and exc.segment is not None:
                        raise UsageError(f"{_shown(self.src_path)}:{exc.segment + 1}: {exc.message}") from None
                    raise locate(exc) from None
                accumulators[name] = metric.accumulator(keep_segments=keep_segments).add(stats)
                if found is not None:
                    spans[name] = found
                bar.update(n)
        self.spans.append(spans)
        self.scored += 1
        return accumulators

    @staticmethod
    def _references(entry: Any, references: list[list[str]]) -> Any:
        """The references as ``entry``'s metric takes them (None: QE, or no ``-r``; one per segment: COMET,
        MetricX)."""
        if entry.references == "none" or not any(references):
            return None  # QE, or no -r (COMET with a reference-free checkpoint)
        if entry.family in SINGLE_REFERENCE:
            return [group[0] for group in references]
        return references

    def _stats(self, metric: Any, hypotheses: list[str], references: Any, sources: list[str] | None) -> tuple[Any, Any]:
        """(statistics, error spans or None): the spans computed with the scores (cached with them) when kept."""
        from nlpeval.neural.worker import tags_errors

        if self.keep_spans and tags_errors(metric):
            if self.cache is not None:
                return self.cache.stats_and_spans(metric, hypotheses, references, sources)
            return metric.segment_stats_and_spans(hypotheses, references, sources=sources)
        if self.cache is not None:
            return self.cache.stats(metric, hypotheses, references, sources), None
        if sources is None:
            return metric.segment_stats(hypotheses, references), None
        return metric.segment_stats(hypotheses, references, sources=sources), None

    def attach(self, systems: list[Any]) -> None:
        """Give each system's scores (:class:`~nlpeval.cli.formats.SystemScores`, in scoring order) the error spans
        kept for them (:attr:`nlpeval.Score.error_spans`)."""
        from dataclasses import replace

        for system, spans in zip(systems, self.spans, strict=True):
            for name, found in spans.items():
                system.scores[name] = replace(system.scores[name], error_spans=found)


def _shown(path: str | None) -> str:
    return "<stdin>" if path in (None, "-") else str(path)
