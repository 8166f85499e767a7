"""The sequence labelling report (``nlpeval report --task spans``, ``--conll``; ``report -m span_f1``): systems
labelling the same sentences, compared by span F1.

A task report (:func:`nlpeval.reports.task.task_report`, as ``--task qa|mc|ir``): the leaderboard of span F1 under
its display label with bootstrap intervals over sentences, the paired tests and clusters, the "Span F1 by type"
section, and the sentences with the lowest and highest span F1 (averaged over the systems) with every system's
labels. The generation report's sections (lengths with brevity penalty, sentence BLEU, n-grams, word buckets)
mean nothing over tag sequences and are not built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.reports.titles import DEFAULT_TITLE, task_title

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from nlpeval.core.stats import Stats
    from nlpeval.metrics.span_f1 import SpanF1
    from nlpeval.reports.model import ExamplesSection, Report
    from nlpeval.reports.task import TaskOptions

#: sentences shown in the examples by default (half the lowest, half the highest span F1)
MAX_EXAMPLES = 20
#: the labelling report's title when none is given (``--task spans``, ``--conll``, ``-m span_f1``)
TITLE = "Sequence labelling comparison"


def _labels(item: Any) -> list[Any]:
    """One sentence's labels: a sequence of labels or one space-separated line."""
    return item.split() if isinstance(item, str) else list(item)


def span_report(
    references: Sequence[Any],
    systems: Mapping[str, Sequence[Any]],
    *,
    metric: SpanF1 | None = None,
    name: str = "span_f1",
    tokens: Sequence[Sequence[str]] | None = None,
    max_examples: int | None = None,
    title: str = TITLE,
    **options: Unpack[TaskOptions],
) -> Report:
    """Compare sequence labellers on the same sentences by span F1 and return the report model.

    Parameters
    ----------
    references : sequence
        Per sentence the gold labels (a list of labels or one space-separated line).
    systems : mapping
        System name -> its labels of every sentence, as ``references`` (the first is the default baseline).
    metric : SpanF1, optional
        The span F1 to report (mode, scheme, average...); default ``SpanF1()`` (seqeval's default mode).
    name : str
        The metric's name in the report (``span_f1``); its label is the registry's display label.
    tokens : sequence of sequence of str, optional
        Each sentence's words (a CoNLL file's first column), shown with the examples.
    max_examples : int, optional
        Sentences shown, half with the lowest and half with the highest span F1 averaged over the systems
        (default 20; sentences without any chunk on either side are not ranked).
    title : str
        Shown in the report.
    **options
        ``baseline``, ``seed``, ``n_bootstrap``, ``n_randomization``, ``alpha``, ``confidence`` (resampling over
        sentences), ``command`` and ``inputs``: :class:`~nlpeval.reports.task.TaskOptions`.

    Returns
    -------
    Report

    Examples
    --------
    >>> gold = [["B-PER", "I-PER", "O"], ["B-LOC", "O"], ["O", "B-ORG"]]
    >>> model = span_report(gold, {"A": [["B-PER", "I-PER", "O"], ["B-LOC", "O"], ["O", "O"]],
    ...                            "B": [["B-PER", "O", "O"], ["B-LOC", "O"], ["O", "B-ORG"]]},
    ...                     n_bootstrap=50, n_randomization=50)
    >>> model.task, model.leaderboard.metrics, model.length, model.ngrams, model.span_f1[0].metric
    ('spans', ('span_f1',), None, (), 'span_f1')
    >>> model.provenance.metrics[0].label, [e.id for e in model.examples.examples]
    ('span F1', [0, 2, 1])
    """
    from nlpeval.metrics import registry
    from nlpeval.metrics.span_f1 import SpanF1
    from nlpeval.reports.provenance import memory_inputs
    from nlpeval.reports.sections.span_f1 import metric_section
    from nlpeval.reports.task import TaskMetric, named_systems, task_report, task_resampling

    resampling = task_resampling("span_report", options)
    names, baseline = named_systems(systems, options.get("baseline"))
    metric = SpanF1() if metric is None else dataclasses.replace(metric, lines=False)
    gold = [_labels(item) for item in references]
    if tokens is not None and len(tokens) != len(gold):
        raise InputError(f"{len(tokens)} token sequences for {len(gold)} sentences", side="tokens")
    labelled = {}
    stats: dict[str, Stats] = {}
    for system in names:
        labelled[system] = [_labels(item) for item in systems[system]]
        if len(labelled[system]) != len(gold):
            raise InputError(f"system {system!r}: {len(labelled[system])} sentences but {len(gold)} references")
        try:
            stats[system] = metric.segment_stats(labelled[system], gold)
        except InputError as exc:
            raise InputError(
                f"system {system!r}: {exc.message}", segment=exc.segment, side=exc.side, reference=exc.reference
            ) from None
    bound, shared = metric.shared_columns(stats)
    label = registry.text_entry("span_f1").label
    reported = TaskMetric(name, label, bound, bound.signature(shared[baseline].totals()), shared)
    inputs = options.get("inputs")
    if inputs is None:
        sides = [("reference", "reference", [" ".join(s) for s in gold])]
        inputs = memory_inputs(sides + [("system", n, [" ".join(s) for s in labelled[n]]) for n in names])
    limit = MAX_EXAMPLES if max_examples is None else max_examples
    model = task_report(
        task="spans",
        title=title,
        systems=names,
        baseline=baseline,
        metrics=[reported],
        buckets=[],
        resampling=resampling,
        inputs=inputs,
        options={"sentences": len(gold), "mode": bound.mode, "average": bound.average},
        command=options.get("command"),
        examples=_examples(gold, labelled, names, bound, shared, tokens, limit, name),
    )
    return dataclasses.replace(model, span_f1=(metric_section(name, bound, shared, names, resampling),))


def labelling_report(
    hypotheses_by_system: Mapping[str, Sequence[Any]],
    refs: Sequence[Sequence[str]],
    metrics: Sequence[str],
    metric_options: Any,
    *,
    sources: Sequence[str] | None = None,
    generation: Mapping[str, bool] | None = None,
    title: str = DEFAULT_TITLE,
    **options: Any,
) -> Report | None:
    """:func:`nlpeval.report` of span F1: the labelling report of label lines (one reference line per sentence,
    ``sources`` the sentences' words, shown with the examples); ``None`` when no metric is span F1. Its title is
    :data:`TITLE` unless one other than :func:`nlpeval.report`'s default is given (as ``--task spans``).

    Span F1 scores label sequences, which no other text metric and no section of the generation report reads:
    span F1 with another metric, or with a setting of the generation report only (``generation``: whether labels,
    human scores, a preset, a frequency corpus, other than fixed buckets were asked for, by name), is a
    ``ValueError`` that names it.

    Examples
    --------
    >>> labelling_report({"A": ["B-PER O"]}, [["B-PER O"]], ["span_f1", "bleu"], None)
    Traceback (most recent call last):
    ValueError: span F1 gives the sequence labelling report, which scores no other metric (bleu): report span_f1 alone
    """
    from nlpeval.metrics import registry

    spans = [m for m in metrics if _family(registry, m) == "span_f1"]
    if not spans:
        return None  # (the span F1 modules are imported only for a labelling report: a tenth of a small one)
    from nlpeval.metrics.span_f1 import SpanF1
    from nlpeval.reports.metrics import build_metrics

    others = [m for m in metrics if m not in spans]
    if others:
        raise ValueError(
            f"span F1 gives the sequence labelling report, which scores no other metric ({', '.join(others)}): "
            f"report {spans[0]} alone"
        )
    asked = [name for name, given in (generation or {}).items() if given]
    if asked:
        raise ValueError(f"span F1 gives the sequence labelling report, which takes no {', '.join(asked)}")
    metric = build_metrics((spans[0],), metric_options)[spans[0]][0]
    if not isinstance(metric, SpanF1):  # pragma: no cover - the span_f1 family builds SpanF1
        raise TypeError(f"{spans[0]} built {type(metric).__name__}, not SpanF1")
    for index, group in enumerate(refs):
        if len(group) != 1:
            raise InputError(
                f"span F1 takes one reference per sentence; got {len(group)}", segment=index, side="references"
            )
    tokens = None if sources is None else [str(source).split() for source in sources]
    gold = [group[0] for group in refs]
    title = task_title(title, TITLE)
    return span_report(gold, hypotheses_by_system, metric=metric, name=spans[0], tokens=tokens, title=title, **options)


def _family(registry: Any, name: str) -> str | None:
    """The registry family of ``name`` (``None`` for no text metric: the generation report says so)."""
    try:
        return str(registry.text_entry(name).family)
    except ValueError:
        return None


def sentence_f1(metric: SpanF1, stats: Stats) -> np.ndarray:
    """Each sentence's span F1 under ``metric``'s average (NaN for a sentence without any chunk on either side).

    Examples
    --------
    >>> from nlpeval.metrics.span_f1 import SpanF1
    >>> metric = SpanF1()
    >>> stats = metric.segment_stats([["B-PER", "O"], ["O"], ["B-LOC"]], [["B-PER", "B-LOC"], ["O"], ["O"]])
    >>> sentence_f1(metric.bound(stats), stats).round(4).tolist()
    [0.6667, nan, 0.0]
    """
    from nlpeval.metrics.span_f1.metric import averaged

    rows = np.asarray(stats.rows, dtype=np.float64)
    f1 = averaged(rows, metric.average, float(metric.zero_division))[2]
    return np.where((rows[:, 3] + rows[:, 4]) > 0, f1, np.nan)


def _examples(
    gold: list[list[str]],
    labelled: Mapping[str, list[list[str]]],
    names: Sequence[str],
    metric: SpanF1,
    stats: Mapping[str, Stats],
    tokens: Sequence[Sequence[str]] | None,
    limit: int,
    name: str,
) -> ExamplesSection:
    """The sentences of lowest and highest span F1 (mean over the systems) with every system's labels."""
    from nlpeval.reports.model import Example, ExamplesSection
    from nlpeval.reports.qa import _extremes

    f1 = np.stack([sentence_f1(metric, stats[n]) for n in names])
    ranked = np.flatnonzero(~np.isnan(f1).all(axis=0))
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(f1[:, ranked], axis=0) if ranked.size else np.zeros(0)
    shown = [int(ranked[i]) for i in _extremes(mean, limit // 2)] if limit else []

    def score(value: float) -> float | None:
        return None if np.isnan(value) else float(value)

    return ExamplesSection(
        total=len(gold),
        max_examples=limit,
        metric=name,
        examples=tuple(
            Example(
                id=i,
                source=" ".join(tokens[i]) if tokens is not None else None,
                references=(" ".join(gold[i]),),
                hypotheses=tuple(" ".join(labelled[n][i]) for n in names),
                scores={name: tuple(score(v) for v in f1[:, i].tolist())},
            )
            for i in shown
        ),
    )
