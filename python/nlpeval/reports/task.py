"""The report of a task whose segments are questions or queries (``nlpeval report --task ir|qa|mc``):
one :class:`~nlpeval.reports.model.Report` from each system's statistics rows per metric, with the
leaderboard (bootstrap intervals, paired tests, Holm), bucket tables of one metric, examples and provenance.

The task modules (``nlpeval.ir.report``, ``nlpeval.reports.qa``) compute the statistics and say how
segments are bucketed; this module is the one place that turns them into a report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.stats import Stats
    from nlpeval.reports.analyses.buckets import Buckets
    from nlpeval.reports.model import ExamplesSection, InputFile, Report
    from nlpeval.reports.settings import Resampling


@dataclass(frozen=True)
class TaskMetric:
    """One reported metric: its name, display label, metric object, signature and scale, and every
    system's statistics rows (one row per segment, segments in the same order for every system)."""

    name: str
    label: str
    metric: CorpusMetric
    signature: object
    stats: Mapping[str, Stats]
    scale: float = 100.0
    higher_is_better: bool = True


@dataclass(frozen=True)
class BucketSpec:
    """A bucket table: its head, each segment's bucket (``-1``: in none) and the metric it shows."""

    buckets: Buckets
    assignment: np.ndarray
    metric: str
    note: str | None = None


class TaskOptions(TypedDict, total=False):
    """The keyword arguments every task report takes beside its own (:func:`~nlpeval.reports.spans.span_report`,
    :func:`~nlpeval.reports.qa.qa_report`, :func:`~nlpeval.reports.qa.mc_report`,
    :func:`~nlpeval.ir.report.ir_report`), as :func:`nlpeval.report`'s:
    ``baseline`` (the system the others are tested against, default the first), the resampling over segments
    ``seed`` (default 12345), ``n_bootstrap`` and ``n_randomization`` (1000 each), ``alpha`` (0.05) and
    ``confidence`` (0.95), and the provenance's ``command`` and ``inputs`` (default: digests of the data in
    memory)."""

    baseline: str | None
    seed: int | None
    n_bootstrap: int
    n_randomization: int
    alpha: float
    confidence: float
    command: str | None
    inputs: Sequence[InputFile] | None


#: the :class:`TaskOptions` that are :class:`~nlpeval.reports.settings.Resampling`'s fields
_RESAMPLING = ("n_bootstrap", "n_randomization", "seed", "alpha", "confidence")


def task_resampling(function: str, options: Mapping[str, Any]) -> Resampling:
    """The resampling settings among ``options`` (:class:`TaskOptions`; the others default as
    :class:`~nlpeval.reports.settings.Resampling`'s); a keyword that is no task option is a ``TypeError`` naming
    ``function``, as Python's own.

    Examples
    --------
    >>> task_resampling("qa_report", {"seed": 3, "baseline": "A"})
    Resampling(n_bootstrap=1000, n_randomization=1000, seed=3, alpha=0.05, confidence=0.95)
    >>> task_resampling("qa_report", {"n_boostrap": 3})
    Traceback (most recent call last):
    TypeError: qa_report() got an unexpected keyword argument 'n_boostrap'
    """
    from nlpeval.reports.settings import Resampling

    unknown = sorted(set(options) - TaskOptions.__optional_keys__)
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    return Resampling(**{key: options[key] for key in _RESAMPLING if key in options})


def named_systems(systems: Mapping[str, Any], baseline: str | None, what: str = "system") -> tuple[list[str], str]:
    """The systems' names in order and the baseline (default the first); an error for none or an unknown baseline.

    Examples
    --------
    >>> named_systems({"A": [], "B": []}, None)
    (['A', 'B'], 'A')
    """
    from nlpeval.core.errors import InputError

    if not systems:
        raise InputError(f"no {what} to report on")
    names = list(systems)
    baseline = names[0] if baseline is None else baseline
    if baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not one of the {what}s: {', '.join(names)}")
    return names, baseline


def task_report(
    *,
    task: str,
    title: str,
    systems: Sequence[str],
    baseline: str,
    metrics: Sequence[TaskMetric],
    buckets: Sequence[BucketSpec],
    resampling: Resampling,
    inputs: Sequence[InputFile],
    options: Mapping[str, Any],
    command: str | None = None,
    examples: ExamplesSection | None = None,
    warnings: Sequence[str] = (),
) -> Report:
    """The report model: leaderboard of ``metrics``, one table per bucket spec, provenance."""
    import dataclasses

    from nlpeval.reports.analyses.buckets import metric_table
    from nlpeval.reports.analyses.leaderboard import leaderboard
    from nlpeval.reports.model import SCHEMA_VERSION, Report
    from nlpeval.reports.provenance import metric_info, provenance
    from nlpeval.reports.settings import Comparison

    names = list(systems)
    by_name = {m.name: m for m in metrics}
    board = leaderboard(
        names,
        {m.name: m.metric for m in metrics},
        {m.name: dict(m.stats) for m in metrics},
        higher_is_better={m.name: m.higher_is_better for m in metrics},
        baseline=baseline,
        **resampling.leaderboard_options(),
    )
    tables = tuple(
        dataclasses.replace(table, note=spec.note) if spec.note is not None else table
        for spec, table in (
            (
                spec,
                metric_table(
                    spec.buckets,
                    spec.assignment,
                    statistic=spec.metric,
                    metric=by_name[spec.metric].metric,
                    stats=by_name[spec.metric].stats,
                    compared=Comparison(tuple(names), baseline, resampling),
                    higher_is_better=by_name[spec.metric].higher_is_better,
                ),
            )
            for spec in buckets
        )
    )
    info = [metric_info(m.name, m.label, m.signature, m.scale, m.higher_is_better) for m in metrics]
    return Report(
        schema_version=SCHEMA_VERSION,
        title=title,
        task=task,
        systems=tuple(names),
        provenance=provenance(resampling, command=command, inputs=inputs, metrics=info, options=dict(options)),
        leaderboard=board,
        length=None,
        sentences=None,
        buckets=tables,
        ngrams=(),
        examples=examples,
        warnings=tuple(warnings),
    )
