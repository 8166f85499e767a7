"""The neural metrics in ``nlpeval score`` (COMET, BERTScore, MetricX): sources, whole systems, cache, progress.

Metrics whose registry entry ``needs_model`` are scored on a whole system at once rather than chunk by
chunk: their batches are sorted by length over the system, BERTScore's idf weights come from every
reference, and the metric object, built once for the command, keeps the embeddings of the sources and
references it has seen, so every further system reuses them. ``--src`` gives the sources (one segment
per line, read as the references are) to the metrics whose entry ``needs_sources``; ``--cache DIR``
keeps segment scores on disk (:mod:`nlpeval.neural.cache`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from nlpeval.cli.errors import UsageError

#: families whose metrics take one reference per segment (BERTScore takes several)
SINGLE_REFERENCE = frozenset({"comet", "metricx"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--src`` and ``--cache`` of ``nlpeval score``."""
    parser.add_argument(
        "--src",
        metavar="SRC",
        help="source file, one segment per line (metrics that read the sources: comet, metricx)",
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


#: metrics that may be scored without references: COMET with a reference-free checkpoint (CometKiwi), whose
#: check is the model's own (it names the missing side)
REFERENCES_OPTIONAL = frozenset({"comet"})


def reference_free(name: str) -> bool:
    """Whether metric ``name`` may be scored without references (``metricx-qe``; ``comet`` with a CometKiwi
    checkpoint): ``-r`` may then be left out."""
    from nlpeval.metrics.entries.neural import REFERENCE_FREE

    return name in REFERENCE_FREE or name in REFERENCES_OPTIONAL


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


class NeuralScoring:
    """The state of one command's neural metrics: metrics (built once), sources, cache.

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
        from nlpeval.metrics.entries.neural import REFERENCE_FREE

        self.metrics = dict(metrics)
        self.entries = entries
        self.reference_free = REFERENCE_FREE
        self.src_path: str | None = getattr(options, "src", None)
        needs_sources = any(entries[name].needs_sources for name in self.metrics)
        self.sources = read_all(self.src_path) if needs_sources and self.src_path else None
        self.cache = None
        if getattr(options, "cache", None):
            from nlpeval.neural.cache import SegmentCache

            self.cache = SegmentCache(options.cache)

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
        with progress_bar(n * len(self.metrics), desc=f"{label}: {', '.join(self.metrics)}", unit=" segments") as bar:
            for name, metric in self.metrics.items():
                entry = self.entries[name]
                refs: Any = references
                if name in self.reference_free or not any(references):
                    refs = None  # QE, or no -r (COMET with a reference-free checkpoint)
                elif entry.family in SINGLE_REFERENCE:
                    refs = [group[0] for group in references]
                sources = self.sources if entry.needs_sources else None
                try:
                    stats = self._stats(metric, hypotheses, refs, sources)
                except InputError as exc:
                    if exc.side == "sources" and exc.segment is not None:
                        raise UsageError(f"{_shown(self.src_path)}:{exc.segment + 1}: {exc.message}") from None
                    raise locate(exc) from None
                accumulators[name] = metric.accumulator(keep_segments=keep_segments).add(stats)
                bar.update(n)
        return accumulators

    def _stats(self, metric: Any, hypotheses: list[str], references: Any, sources: list[str] | None) -> Any:
        if self.cache is not None:
            return self.cache.stats(metric, hypotheses, references, sources)
        if sources is None:
            return metric.segment_stats(hypotheses, references)
        return metric.segment_stats(hypotheses, references, sources=sources)


def _shown(path: str | None) -> str:
    return "<stdin>" if path in (None, "-") else str(path)
