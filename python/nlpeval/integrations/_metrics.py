"""Metrics named as on the command line (``bleu``, ``chrf``, ``rougeL``…: the registry), shared by the integrations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score


def default_metric(name: str, options: Mapping[str, object] | None = None) -> CorpusMetric:
    """The metric ``nlpeval score -m NAME`` builds with every option at its default, or as ``options`` say
    (option names as in the registry: ``{"comet_model": "/models/wmt22-comet-da"}``).

    Examples
    --------
    >>> default_metric("bleu").name, default_metric("chrf++").word_order
    ('bleu', 2)
    """
    from nlpeval.metrics import registry

    if options:
        registry.check_options(options)
    return registry.text_entry(name).build(name, options)


def resolve_metrics(
    metrics: str | CorpusMetric | Sequence[str | CorpusMetric] | Mapping[str, CorpusMetric],
    options: Mapping[str, object] | None = None,
) -> dict[str, CorpusMetric]:
    """``name -> metric`` from CLI names (built with ``options`` over the defaults), configured metrics, or a
    mapping of both.

    Examples
    --------
    >>> import nlpeval
    >>> sorted(resolve_metrics(["bleu", nlpeval.TER()]))
    ['bleu', 'ter']
    """
    if isinstance(metrics, (str, CorpusMetric)):
        metrics = [metrics]
    items: list[tuple[str, str | CorpusMetric]]
    if isinstance(metrics, Mapping):
        items = list(metrics.items())
    else:
        items = [(m, m) if isinstance(m, str) else (m.name, m) for m in metrics]
    resolved: dict[str, CorpusMetric] = {}
    for name, metric in items:
        if name in resolved:
            raise ValueError(f"metric {name!r} is given twice; pass a mapping to name them apart")
        resolved[name] = default_metric(metric, options) if isinstance(metric, str) else metric
    if not resolved:
        raise ValueError("no metric given")
    return resolved


def corpus_score(
    name: str,
    metric: CorpusMetric,
    hypotheses: Sequence[Any],
    references: Sequence[Sequence[Any]] | None,
    sources: Sequence[str] | None = None,
) -> Score:
    """``metric``'s corpus score of the texts, the sources passed on to the metrics that read them (COMET,
    MetricX, SARI) and references left out for a reference-free name (``metricx-qe``): the statistics of
    :func:`nlpeval.neural.worker.segment_stats` (one resident model per process), as the other integrations.

    Examples
    --------
    >>> import nlpeval
    >>> corpus_score("sari", nlpeval.SARI(), ["About 95 species."], [["About 95 species."]],
    ...              sources=["About 95 species are currently accepted."]).score > 0.5
    True
    """
    from nlpeval.neural.worker import reads_sources, segment_stats

    if sources is not None and len(sources) != len(hypotheses):
        raise ValueError(f"{name}: {len(hypotheses)} hypotheses but {len(sources)} sources")
    if not reads_sources(metric) and not _is_neural(metric):  # every other metric as it scores itself
        return metric(hypotheses, references)  # type: ignore[arg-type]  # the metric names a missing side
    refs = None if references is None or _reference_free(name) else references
    return metric.score_from_stats(segment_stats(metric, hypotheses, refs, sources))


def _is_neural(metric: CorpusMetric) -> bool:
    from nlpeval.neural.worker import is_neural

    return is_neural(metric)


def _reference_free(name: str) -> bool:
    """Whether the registry name ``name`` never reads references (``metricx-qe``)."""
    from nlpeval.metrics import registry

    try:
        return registry.text_entry(name).references == "none"
    except ValueError:  # a configured metric under a name of the caller's
        return False
