"""``nlpeval report --task ir``: a leaderboard of runs on retrieval measures (bootstrap intervals over
queries, paired tests against the baseline and between all pairs, Holm-adjusted) and the main measure
per bucket of queries by their number of relevant documents, as a :class:`~nlpeval.reports.model.Report`
that every report renderer (text, Markdown, LaTeX, JSON, HTML) draws."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.stats import Stats
from nlpeval.ir.api import RetrievalMeasure, open_qrels, open_run, retrieval, stats_of
from nlpeval.ir.inputs import check_qrels, checked_run
from nlpeval.ir.measures import Measure, parse_measures
from nlpeval.reports.model import InputFile, Report

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from nlpeval.reports.task import TaskOptions

#: buckets of queries by R, the number of relevant documents
R_BUCKETS = ((1, 1, "R = 1"), (2, 5, "R 2-5"), (6, 20, "R 6-20"), (21, None, "R > 20"))


def _digest(data: Mapping[str, Mapping[str, Any]]) -> str:
    text = "\n".join(f"{q}\t{d}\t{v!r}" for q in sorted(data) for d, v in sorted(data[q].items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def ir_report(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str | Measure] = "map,ndcg@10,P@10,recall@100,recip_rank",
    *,
    relevance_level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    flavor: str = "trec_eval",
    title: str = "Run comparison",
    **options: Unpack[TaskOptions],
) -> Report:
    """Compare retrieval runs on the same judgements: the report model of ``nlpeval report --task ir``.

    Queries are the segments: every run is scored on the queries all runs were evaluated on (with
    ``complete``, every judged query). The first measure is also shown per bucket of queries by
    their number of relevant documents. ``baseline``, ``seed``, ``n_bootstrap``, ``n_randomization``, ``alpha``,
    ``confidence`` (resampling over queries), ``command`` and ``inputs``: :class:`~nlpeval.reports.task.TaskOptions`.

    Examples
    --------
    >>> qrels = {f"q{i}": {"a": 1, "b": i % 3} for i in range(12)}
    >>> runs = {"A": {q: ["a", "b"] for q in qrels}, "B": {q: ["c", "b", "a"] for q in qrels}}
    >>> model = ir_report(qrels, runs, "map,P@1", n_bootstrap=100, n_randomization=100)
    >>> model.task, model.leaderboard.metrics, len(model.buckets[0].rows)
    ('ir', ('map', 'P_1'), 4)
    """
    from nlpeval.reports.analyses.buckets import Buckets
    from nlpeval.reports.task import BucketSpec, TaskMetric, named_systems, task_report, task_resampling

    resampling = task_resampling("ir_report", options)
    names, baseline = named_systems(runs, options.get("baseline"), "run")
    parsed = parse_measures(measures)
    judgements = open_qrels(qrels)  # files and plain dicts are read (and placed) natively
    checked = {name: open_run(run) for name, run in runs.items()}
    settings: dict[str, Any] = {
        "relevance_level": relevance_level,
        "complete": complete,
        "judged_only": judged_only,
        "flavor": flavor,
    }
    results = {name: retrieval(judgements, checked[name], parsed, **settings) for name in names}
    shared = sorted(set.intersection(*(set(r.queries) for r in results.values())))
    if not shared:
        raise InputError("the runs share no query with judgements")
    warnings = []
    for name, result in results.items():
        if len(result.queries) != len(shared):
            warnings.append(f"{name}: {len(result.queries) - len(shared)} of its queries left out (not in every run)")
    metrics = {m.name: RetrievalMeasure(m.name, relevance_level, complete, judged_only, flavor) for m in parsed}
    stats: dict[str, dict[str, Stats]] = {}
    for measure in parsed:
        stats[measure.name] = {}
        for name, result in results.items():
            where = {q: i for i, q in enumerate(result.queries)}
            values = result.query_values(measure.name)[[where[q] for q in shared]]
            stats[measure.name][name] = stats_of(np.asarray(values, dtype=np.float64))
    counts = _relevant_counts(judgements, relevance_level)
    relevant = np.array([counts[q] for q in shared], dtype=np.int64)
    assignment = np.full(len(shared), -1, dtype=np.int64)
    for b, (low, high, _) in enumerate(R_BUCKETS):
        assignment[(relevant >= low) & (relevant <= (high if high is not None else np.iinfo(np.int64).max))] = b
    main = parsed[0]
    by_relevant = BucketSpec(
        Buckets(
            "ir-relevant",
            f"{main.label} by the query's number of relevant documents (R)",
            "relevant-documents",
            [label for *_, label in R_BUCKETS],
            [(float(low), None if high is None else float(high)) for low, high, _ in R_BUCKETS],
        ),
        assignment,
        main.name,
    )
    inputs = options.get("inputs")
    if inputs is None:
        inputs = _described(judgements, {name: checked[name] for name in names})
    reported = [
        TaskMetric(m.name, m.label, metrics[m.name], results[baseline][m.name].signature, stats[m.name]) for m in parsed
    ]
    return task_report(
        task="ir",
        title=title,
        systems=names,
        baseline=baseline,
        metrics=reported,
        buckets=[by_relevant],
        resampling=resampling,
        inputs=inputs,
        options={"queries": len(shared), **{k: str(v) for k, v in settings.items()}},
        command=options.get("command"),
        warnings=warnings,
    )


def _relevant_counts(judgements: Any, relevance_level: int) -> dict[str, int]:
    """Each judged query's number of relevant documents (judged ``>= relevance_level``)."""
    if hasattr(judgements, "handle"):  # read natively: counted there
        return dict(judgements.handle.relevant_counts(relevance_level))
    return {q: sum(1 for rel in judged.values() if rel >= relevance_level) for q, judged in judgements.items()}


def _described(judgements: Any, runs: Mapping[str, Any]) -> list[InputFile]:
    """The inputs of the provenance when no file is named: entries and a digest of each mapping."""
    qrels = check_qrels(judgements.qrels) if hasattr(judgements, "handle") else judgements
    out = [InputFile("qrels", "qrels", None, sum(map(len, qrels.values())), _digest(qrels))]
    for name, opened in runs.items():
        ranked = checked_run(opened.run) if hasattr(opened, "run") else opened
        rankings = {q: r for q, (r, _) in ranked.items()}
        out.append(InputFile("system", name, None, sum(map(len, rankings.values())), _digest(rankings)))
    return out
