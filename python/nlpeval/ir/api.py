"""``nlpeval.retrieval``: trec_eval's measures on qrels and runs, per query and averaged, on the project's contract."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.ir.compute import evaluate
from nlpeval.ir.inputs import CheckedRun, Qrels, check_qrels, checked_run
from nlpeval.ir.measures import DEFAULT_MEASURES, Measure, parse_measures
from nlpeval.ir.ranking import Judged, Placed, place

#: flavor -> (scores compared in single precision, description)
FLAVORS = {
    "trec_eval": (True, "trec_eval 9.0.8 as pytrec_eval 0.5.11 bundles it: scores stored as float (single precision)"),
    "trec_eval10": (False, "trec_eval 10.0 (2026): scores stored as double"),
}

_SCHEMA = StatsSchema.of("value", "queries")


def _check_options(relevance_level: Any, flavor: str) -> None:
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)) or relevance_level < 1:
        raise InputError(f"relevance_level must be an integer >= 1 (trec_eval -l); got {relevance_level!r}")
    if flavor not in FLAVORS:
        raise InputError(f"unknown flavor {flavor!r}; choose from {', '.join(FLAVORS)}")


def open_qrels(qrels: Any, *, native: bool = True) -> Any:
    """Judgements as given: a file path read natively (:class:`~nlpeval.ir.native.NativeQrels`, kept so),
    a read file, or a mapping (read natively when the core takes its form and ``native``, else checked)."""
    from nlpeval.ir.native import NativeQrels, qrels_from_mapping, read_qrels
    from nlpeval.ir.trecfiles import QrelsFile

    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    if isinstance(qrels, NativeQrels):
        return qrels
    mapping = qrels.qrels if isinstance(qrels, QrelsFile) else qrels
    found = qrels_from_mapping(mapping) if native else None
    return check_qrels(mapping) if found is None else found


def open_run(run: Any, *, native: bool = True) -> Any:
    """A run as given: a file path read natively (:class:`~nlpeval.ir.native.NativeRun`, kept so), a read
    file, or a mapping: with ``native``, a plain dict is kept as a :class:`~nlpeval.ir.native.PlainRun` (read
    by the core when it is placed), any other mapping is checked."""
    from nlpeval import _native
    from nlpeval.ir.native import NativeRun, PlainRun, read_run
    from nlpeval.ir.trecfiles import RunFile

    if isinstance(run, (str, os.PathLike)):
        run = read_run(run)
    if isinstance(run, (NativeRun, PlainRun)):
        return run if native or isinstance(run, NativeRun) else checked_run(run.run)
    mapping = run.run if isinstance(run, RunFile) else run
    if native and type(mapping) is dict and _native.trec_place_mapping is not None:
        return PlainRun(mapping)
    return checked_run(mapping)


def load_qrels(qrels: Any) -> Qrels:
    """Judgements from a mapping or a TREC qrels file path (checked)."""
    opened = open_qrels(qrels, native=False)
    return check_qrels(opened.qrels) if hasattr(opened, "handle") else opened


def load_run(run: Any) -> CheckedRun:
    """A checked run from a mapping or a TREC run file path."""
    opened = open_run(run, native=False)
    return checked_run(opened.run) if hasattr(opened, "handle") else opened


@dataclass(frozen=True)
class RetrievalMeasure(CorpusMetric):
    """One retrieval measure as a corpus metric: a statistics row ``(value, 1)`` per evaluated query,
    the mean over queries as the score.

    ``segment_stats(run, qrels)`` takes the run as the hypotheses and the judgements as the references,
    so paired bootstrap and approximate randomisation (:mod:`nlpeval.significance.paired`) apply to
    two runs' statistics over the same queries.

    Examples
    --------
    >>> metric = RetrievalMeasure("ndcg@2")
    >>> stats = metric.segment_stats({"q1": ["a", "b"], "q2": ["c", "d"]}, {"q1": {"b": 1}, "q2": {"c": 2}})
    >>> [round(v, 4) for v in metric.segment_values(stats).tolist()], round(metric.score_from_stats(stats).score, 4)
    ([0.6309, 1.0], 0.8155)
    """

    measure: str = "ndcg@10"
    relevance_level: int = 1
    complete: bool = False
    judged_only: bool = False
    flavor: str = "trec_eval"

    def __post_init__(self) -> None:
        _check_options(self.relevance_level, self.flavor)
        object.__setattr__(self, "measure", Measure.parse(self.measure).name)  # one spelling per measure

    @property
    def name(self) -> str:
        """The measure's canonical (trec_eval) name, e.g. ``ndcg_cut_10``."""
        return Measure.parse(self.measure).name

    @property
    def parsed(self) -> Measure:
        """The measure this metric computes."""
        return Measure.parse(self.measure)

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def placed(self, run: Any, qrels: Any) -> Placed:
        """Where the judged documents of ``run`` land, for the evaluated queries."""
        judged = qrels if isinstance(qrels, Judged) else load_qrels(qrels)
        return place(
            judged,
            load_run(run),
            complete=self.complete,
            judged_only=self.judged_only,
            float32_scores=FLAVORS[self.flavor][0],
        )

    def segment_stats(self, hypotheses: Any, references: Any) -> Stats:
        """Rows ``(value, 1)``, one per evaluated query in sorted query order (``hypotheses``: the run;
        ``references``: the qrels)."""
        values = evaluate(self.placed(hypotheses, references), [self.parsed], self.relevance_level)
        return stats_of(values[self.parsed.name])

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], np.nan)

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.asarray(stats.rows[:, 0], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"queries": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return measure_signature(self.parsed, self.relevance_level, self.complete, self.judged_only, self.flavor)


def stats_of(values: np.ndarray) -> Stats:
    """Statistics rows ``(value, 1)`` of per-query values."""
    rows = np.ones((len(values), 2), dtype=np.float64)
    rows[:, 0] = values
    return Stats(_SCHEMA, rows)


def measure_signature(measure: Measure, level: int, complete: bool, judged_only: bool, flavor: str) -> Signature:
    """The signature of one measure's score: the measure, trec_eval's switches and the flavor."""
    return Signature.build(
        measure=measure.name,
        l=level,
        c=complete,
        J=judged_only,
        flavor=flavor,
    )


class RetrievalResult(Mapping[str, Score]):
    """Scores of several measures on one run: a read-only mapping of measure name to :class:`~nlpeval.Score`.

    Keys are the canonical (trec_eval) names (``ndcg_cut_10``); any spelling of a measure
    (``"nDCG@10"``) finds it too. Each score's ``segments`` holds the per-query values in the order
    of :attr:`queries`.

    Attributes
    ----------
    queries : tuple of str
        The evaluated queries, sorted.
    skipped : tuple of str
        Queries of the run without judgements: left out, as trec_eval does.
    unranked : tuple of str
        Judged queries the run does not rank: left out, or scored 0 with ``complete=True`` (``-c``).
    """

    def __init__(
        self,
        scores: dict[str, Score],
        queries: Sequence[str],
        skipped: Sequence[str],
        unranked: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self._scores = scores
        self.queries = tuple(queries)
        self.skipped = tuple(skipped)
        self.unranked = tuple(unranked)
        self._settings = dict(settings or {})

    def metric(self, name: str) -> RetrievalMeasure:
        """The :class:`RetrievalMeasure` (a corpus metric) of one measure, with this result's settings."""
        return RetrievalMeasure(self[name].name, **self._settings)

    def stats(self, name: str) -> Stats:
        """One measure's statistics rows ``(value, 1)`` per query, in :attr:`queries` order: with another
        run's over the same queries (e.g. both with ``complete=True``), they feed
        :func:`nlpeval.paired_bootstrap` and :func:`nlpeval.approximate_randomization`.

        Examples
        --------
        >>> import nlpeval
        >>> qrels = {f"q{i}": {"a": 1} for i in range(6)}
        >>> a = nlpeval.retrieval(qrels, {q: ["a", "b"] for q in qrels}, "mrr", complete=True)
        >>> b = nlpeval.retrieval(qrels, {q: ["b", "a"] for q in qrels}, "mrr", complete=True)
        >>> test = nlpeval.paired_bootstrap(a.metric("mrr"), a.stats("mrr"), b.stats("mrr"), n_resamples=100)
        >>> test.baseline, test.system
        (1.0, 0.5)
        """
        return stats_of(self.query_values(name))

    def query_values(self, name: str) -> np.ndarray:
        """One measure's per-query values (float64), in :attr:`queries` order."""
        return np.asarray(self[name].segments, dtype=np.float64)

    def __getitem__(self, name: str) -> Score:
        if name in self._scores:
            return self._scores[name]
        return self._scores[Measure.parse(name).name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scores)

    def __len__(self) -> int:
        return len(self._scores)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={score.score:.4f}" for name, score in self._scores.items())
        return f"RetrievalResult({inner}; {len(self.queries)} queries)"

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}``, the shape of pytrec_eval's ``evaluate`` (and ``trec_eval -q``)."""
        columns = {name: self.query_values(name).tolist() for name in self._scores}
        return {query: {name: column[i] for name, column in columns.items()} for i, query in enumerate(self.queries)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: each measure's score dict, the queries, and the skipped and unranked queries."""
        return {
            "measures": {name: score.to_dict() for name, score in self._scores.items()},
            "queries": list(self.queries),
            "skipped": list(self.skipped),
            "unranked": list(self.unranked),
        }


def _placed(
    judgements: Any, ranked: Any, complete: bool, judged_only: bool, float32: bool
) -> tuple[Placed, list[str], list[str]]:
    """The placed queries, the run's unjudged queries and the judgements' unranked ones: natively when both
    inputs were read natively (from files or plain dicts), else from the mappings."""
    from nlpeval.ir.native import NativeQrels, NativeRun, PlainRun, place_mapping, place_native

    if isinstance(judgements, NativeQrels) and isinstance(ranked, NativeRun):
        return place_native(judgements, ranked, complete=complete, judged_only=judged_only, float32_scores=float32)
    if isinstance(judgements, NativeQrels) and isinstance(ranked, PlainRun):
        found = place_mapping(judgements, ranked, complete=complete, judged_only=judged_only, float32_scores=float32)
        if found is not None:
            return found
    if isinstance(ranked, PlainRun):
        ranked = checked_run(ranked.run)  # the Python reader: its checks and messages
    if isinstance(judgements, NativeQrels):
        judgements = check_qrels(judgements.qrels)
    if isinstance(ranked, NativeRun):
        ranked = checked_run(ranked.run)
    placed = place(judgements, ranked, complete=complete, judged_only=judged_only, float32_scores=float32)
    skipped = sorted(q for q in ranked if q not in judgements)
    unranked = sorted(q for q in judgements if q not in ranked)
    return placed, skipped, unranked


def retrieval(
    qrels: Any,
    run: Any,
    measures: str | Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    flavor: str = "trec_eval",
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> RetrievalResult:
    """trec_eval's measures of a run against judgements: per query (``segments``) and their mean (``score``).

    Parameters
    ----------
    qrels : mapping or path
        ``{query: {doc: relevance}}`` (integer levels; negative: in the pool but unjudged), ``{query: [doc, ...]}``
        (binary), or the path of a TREC qrels file (``query iter doc relevance``).
    run : mapping or path
        ``{query: {doc: score}}``, ``{query: [doc, ...]}`` ranked best first, or a TREC run file
        (``query Q0 doc rank score tag``; the rank field is ignored, as by trec_eval).
    measures : str or sequence of str
        Names such as ``"map"``, ``"ndcg@10"`` (= ``ndcg_cut_10``), ``"P@5"``, ``"recall@100"``, ``"Rprec"``,
        ``"mrr"`` / ``"mrr@10"``, ``"map@100"``, ``"ndcg_exp@10"``, ``"success@1"``; a comma-separated string works too.
    relevance_level : int
        Minimum level that counts as relevant (trec_eval ``-l``; nDCG uses every level's gain regardless).
    complete : bool
        trec_eval ``-c``: average over every judged query; those the run does not rank score 0.
    judged_only : bool
        trec_eval ``-J``: drop unjudged documents from the ranking before evaluating.
    flavor : {"trec_eval", "trec_eval10"}
        ``trec_eval`` (9.0.8, as pytrec_eval, ir_measures): scores are rounded to single precision before
        ranking, so scores equal in float32 tie (and the tie goes to the greater document id);
        ``trec_eval10``: doubles.
    n_bootstrap : int
        If > 0, a bootstrap 95% interval over queries for each measure.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    RetrievalResult
        Measure name -> :class:`~nlpeval.Score` (``score`` the mean over evaluated queries, ``segments`` per query).

    Examples
    --------
    >>> import nlpeval
    >>> qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d2": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "q2": ["d1", "d2"]}
    >>> result = nlpeval.retrieval(qrels, run, ["map", "ndcg@2", "mrr"])
    >>> round(result["map"].score, 4), result["map"].segments.round(4).tolist()
    (0.6667, [0.8333, 0.5])
    >>> round(result["nDCG@2"].score, 4), result["mrr"].score
    (0.5055, 0.75)
    """
    _check_options(relevance_level, flavor)
    parsed = parse_measures(measures)
    placed, skipped, unranked = _placed(open_qrels(qrels), open_run(run), complete, judged_only, FLAVORS[flavor][0])
    per_query = evaluate(placed, parsed, int(relevance_level))
    scores: dict[str, Score] = {}
    for measure in parsed:
        values = per_query[measure.name]
        metric = RetrievalMeasure(measure.name, int(relevance_level), complete, judged_only, flavor)
        stats = stats_of(values)
        if len(values) == 0:
            signature = str(metric.signature(stats.totals()))
            scores[measure.name] = Score(measure.name, float("nan"), signature, {"queries": 0}, values)
            continue
        score = metric.score_from_stats(stats, segments=True, n_bootstrap=n_bootstrap, seed=seed)
        scores[measure.name] = Score(measure.name, score.score, score.signature, score.components, values, score.ci)
    settings = {"relevance_level": int(relevance_level), "complete": complete, "judged_only": judged_only}
    return RetrievalResult(scores, placed.queries, skipped, unranked, {**settings, "flavor": flavor})
