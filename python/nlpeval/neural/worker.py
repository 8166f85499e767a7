"""Neural metrics in worker processes (Dask, process pools): one loaded model per process, sources passed on.

A task receives its metric as a pickled copy of the options (:func:`nlpeval.distributed.partial.bare_metric`):
scored as is, every partition would load the model again. :func:`resident` maps each copy to the one
instance this process keeps per configuration (metrics compare by their options), so a worker loads a model
once and scores all its partitions with it. :func:`segment_stats` calls a metric with the sources when it
reads them (COMET, MetricX), and gives those metrics, which take one reference per segment, the single
reference of each segment.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from nlpeval.core.errors import InputError
from nlpeval.core.stats import Stats

#: packages whose metrics load a model (kept resident in each process)
NEURAL_PACKAGES = ("nlpeval.metrics.comet", "nlpeval.metrics.bertscore", "nlpeval.metrics.metricx")

#: resident metrics kept at most per process (the least recently added goes first)
MAX_RESIDENT = 4

_LIVE: dict[Any, Any] = {}
_LOCK = threading.Lock()
#: how many resident metrics this process has created (each loads its model once, when first used)
created = 0
#: how many calls :func:`segment_stats` has served in this process
calls = 0


def is_neural(metric: Any) -> bool:
    """Whether ``metric`` loads a model (a COMET, BERTScore or MetricX object).

    Examples
    --------
    >>> import nlpeval
    >>> is_neural(nlpeval.BLEU()), is_neural(nlpeval.COMET(model="unused"))
    (False, True)
    """
    return type(metric).__module__.startswith(NEURAL_PACKAGES)


def resident(metric: Any) -> Any:
    """This process's instance of ``metric``'s configuration (``metric`` itself the first time).

    Examples
    --------
    >>> import nlpeval
    >>> a, b = nlpeval.COMET(model="/m", batch_size=8), nlpeval.COMET(model="/m", batch_size=8)
    >>> resident(a) is resident(b) is a, resident(nlpeval.BLEU()) is not None
    (True, True)
    """
    global created
    if not is_neural(metric):
        return metric
    with _LOCK:
        live = _LIVE.get(metric)
        if live is None:
            while len(_LIVE) >= MAX_RESIDENT:
                _LIVE.pop(next(iter(_LIVE)))
            _LIVE[metric] = live = metric
            created += 1
    return live


def reads_sources(metric: Any) -> bool:
    """Whether ``metric.segment_stats`` takes ``sources``.

    Examples
    --------
    >>> import nlpeval
    >>> reads_sources(nlpeval.COMET(model="unused")), reads_sources(nlpeval.BLEU())
    (True, False)
    """
    return "sources" in inspect.signature(metric.segment_stats).parameters


def segment_stats(
    metric: Any, hypotheses: Sequence[Any], references: Sequence[Any] | None, sources: Sequence[Any] | None
) -> Stats:
    """``metric``'s statistics of the segments, through this process's resident instance (a neural metric), or
    ``metric.segment_stats(hypotheses, references)`` (any other).

    ``references`` holds one list of references per segment (as the Dask inputs give them); a metric
    that reads sources takes one reference per segment, so a single-element list is unwrapped.

    Examples
    --------
    >>> import nlpeval
    >>> segment_stats(nlpeval.BLEU(), ["a b c d"], [["a b c d"]], None).rows.shape[0]
    1
    """
    return _called(metric, hypotheses, references, sources, spans=False)[0]


def stats_and_spans(
    metric: Any, hypotheses: Sequence[Any], references: Sequence[Any] | None, sources: Sequence[Any] | None
) -> tuple[Stats, Any]:
    """:func:`segment_stats` and, from the same forward pass, each segment's error spans when ``metric`` tags
    them (xCOMET: :attr:`nlpeval.COMET.tags_errors`), else ``None``.

    Examples
    --------
    >>> import nlpeval
    >>> stats, spans = stats_and_spans(nlpeval.BLEU(), ["a b c d"], [["a b c d"]], None)
    >>> len(stats), spans
    (1, None)
    """
    return _called(metric, hypotheses, references, sources, spans=True)


def prefetch(metric: Any, calls: Iterable[tuple[Sequence[Any], Sequence[Any] | None, Sequence[Any] | None]]) -> int:
    """Let this process's instance of ``metric`` embed ahead, in one pool, the texts of the coming calls
    (``(hypotheses, references, sources)`` each, in calling order, as :func:`segment_stats` takes them) when it does
    so (:meth:`nlpeval.BERTScore.prefetch`, :meth:`nlpeval.COMET.prefetch`); return how many texts it embedded (0
    for any other metric).

    Examples
    --------
    >>> import nlpeval
    >>> prefetch(nlpeval.BLEU(), [(["a b c d"], [["a b c d"]], None)])
    0
    """
    live = resident(metric) if is_neural(metric) else None
    ahead = getattr(live, "prefetch", None)
    if ahead is None:
        return 0
    if not reads_sources(live):
        return int(ahead(calls))
    return int(ahead((hyps, _single(refs), sources) for hyps, refs, sources in calls))


def _single(references: Sequence[Any] | None) -> Any:
    """One reference per segment where each segment's list holds one (as :func:`segment_stats` gives them)."""
    if references is not None and all(not isinstance(r, str) and len(r) == 1 for r in references):
        return [r[0] for r in references]
    return references


def tags_errors(metric: Any) -> bool:
    """Whether ``metric`` gives error spans (an xCOMET checkpoint; reads its ``hparams.yaml`` only).

    Examples
    --------
    >>> import nlpeval
    >>> tags_errors(nlpeval.BLEU())
    False
    """
    return bool(getattr(metric, "tags_errors", False))


def _called(
    metric: Any, hypotheses: Sequence[Any], references: Sequence[Any] | None, sources: Sequence[Any] | None, *,
    spans: bool,
) -> tuple[Stats, Any]:  # fmt: skip
    """The statistics (and the error spans, when asked for and tagged) of :func:`segment_stats`."""
    if not is_neural(metric):  # any other metric: called as everywhere else (SARI also takes the sources)
        if sources is not None and "sources" in inspect.signature(metric.segment_stats).parameters:
            return metric.segment_stats(hypotheses, references, sources=sources), None
        return metric.segment_stats(hypotheses, references), None
    global calls
    calls += 1
    live = resident(metric)
    if not reads_sources(live):
        return live.segment_stats(hypotheses, references), None
    parameter = inspect.signature(live.segment_stats).parameters["sources"]
    if sources is None and parameter.default is inspect.Parameter.empty:
        raise InputError(f"{live.name} needs the sources (--src, sources=, or the source column: src=)", side="sources")
    refs = _single(references)
    if spans and tags_errors(live):
        return live.segment_stats_and_spans(hypotheses, refs, sources=sources)
    return live.segment_stats(hypotheses, refs, sources=sources), None
