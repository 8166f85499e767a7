"""Metrics named as on the command line (``bleu``, ``chrf``, ``rougeL``…: the registry), shared by the integrations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nlpeval.core.metric import CorpusMetric


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
