"""Metrics named as on the command line (``bleu``, ``chrf``, ``rougeL``…: the registry), shared by the integrations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nlpeval.core.metric import CorpusMetric


def default_metric(name: str) -> CorpusMetric:
    """The metric ``nlpeval score -m NAME`` builds with every option at its default.

    Examples
    --------
    >>> default_metric("bleu").name, default_metric("chrf++").word_order
    ('bleu', 2)
    """
    from nlpeval.metrics import registry

    return registry.text_entry(name).build(name)


def resolve_metrics(
    metrics: str | CorpusMetric | Sequence[str | CorpusMetric] | Mapping[str, CorpusMetric],
) -> dict[str, CorpusMetric]:
    """``name -> metric`` from CLI names, configured metrics, or a mapping of both.

    Examples
    --------
    >>> import nlpeval
    >>> sorted(resolve_metrics(["bleu", nlpeval.TER()]))
    ['bleu', 'ter']
    """
    if isinstance(metrics, (str, CorpusMetric)):
        metrics = [metrics]
    if isinstance(metrics, Mapping):
        items = list(metrics.items())
    else:
        items = [(m, m) if isinstance(m, str) else (m.name, m) for m in metrics]
    resolved: dict[str, CorpusMetric] = {}
    for name, metric in items:
        if name in resolved:
            raise ValueError(f"metric {name!r} is given twice; pass a mapping to name them apart")
        resolved[name] = default_metric(metric) if isinstance(metric, str) else metric
    if not resolved:
        raise ValueError("no metric given")
    return resolved
