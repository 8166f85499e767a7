"""``nlpeval ir``: trec_eval's measures of TREC run files against a qrels file, one row per run,
with paired tests of every run against the first (the baseline)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from nlpeval.cli.errors import UsageError
from nlpeval.cli.formats import FORMATS, ScoreTable

if TYPE_CHECKING:
    from nlpeval.core.score import Score

DEFAULT = "map,ndcg,ndcg@10,P@10,recall@100,recip_rank,Rprec"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ir",
        help="retrieval measures (trec_eval) of TREC runs against qrels",
        description="Score TREC run files ('query Q0 doc rank score tag') against a qrels file "
        "('query iter doc relevance') with trec_eval 9.0.8's definitions. Runs' queries without judgements "
        "are left out, as trec_eval does (a note says how many; --strict makes them an error); judged queries "
        "a run does not rank are left out too, unless -c scores them 0.",
    )
    parser.add_argument("-q", "--qrels", required=True, metavar="QRELS", help="TREC qrels file")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run file(s); the first is the baseline")
    parser.add_argument(
        "-m",
        "--measures",
        default=DEFAULT,
        help=f"comma-separated measures (default {DEFAULT}); see nlpeval explain ndcg",
    )
    parser.add_argument("-l", "--relevance-level", type=int, default=1, help="lowest relevant level (trec_eval -l)")
    parser.add_argument("-c", "--complete", action="store_true", help="average over all judged queries (trec_eval -c)")
    parser.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents (trec_eval -J)")
    parser.add_argument(
        "--flavor",
        choices=("trec_eval", "trec_eval10"),
        default="trec_eval",
        help="trec_eval 9.0.8 (float scores) or 10.0",
    )
    parser.add_argument("--strict", action="store_true", help="a run's query without judgements is an error")
    parser.add_argument("--per-query", action="store_true", help="also the value of every query (trec_eval -q)")
    parser.add_argument(
        "--paired",
        choices=("fisher", "randomization", "bootstrap", "student"),
        default=None,
        help="paired test of every run against the first over the shared queries",
    )
    parser.add_argument("--paired-n", type=int, default=10000, metavar="N", help="permutations/resamples (10000)")
    parser.add_argument(
        "--correction", choices=("holm", "bh", "none"), default="holm", help="adjust p-values over the runs (holm)"
    )
    parser.add_argument("--seed", type=int, default=12345, help="seed of the paired test (default 12345)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


class IrTable(ScoreTable):
    """Runs x measures with trec_eval's four decimals (IR scores are reported on the 0-1 scale)."""

    __slots__ = ()

    def display(self, metric: str, score: Score, p_value: float | None = None, test: Any = None) -> str:
        text = f"{score.score:.4f}"
        if score.ci is not None:
            text += f" (±{score.ci.half_width:.4f})"
        if p_value is not None:
            text += f" (p = {p_value:.4f})"
        return text


def _unjudged_queries(qrels_path: str, judged: set[str], run: Any, ranked: set[str], strict: bool) -> list[str]:
    """A note on the run's queries without judgements (trec_eval skips them), or an error with ``strict``."""
    unknown = ranked - judged
    if not unknown:
        return []
    first = min(unknown, key=run.first_line.__getitem__)
    where = f"{run.path}:{run.first_line[first]}"
    if strict:
        raise UsageError(
            f"{where}: query {first!r} has no judgements in {_name(qrels_path)} ({len(unknown)} such queries)"
        )
    return [f"{where}: {len(unknown)} queries without judgements (first {first!r}) left out, as trec_eval does"]


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli import io
    from nlpeval.cli.formats import SystemScores, render, to_json
    from nlpeval.cli.io import emit
    from nlpeval.ir import compare_runs, parse_measures, retrieval
    from nlpeval.ir.native import query_ids, read_qrels, read_run

    if options.relevance_level < 1:
        raise UsageError("-l/--relevance-level must be at least 1")
    if options.paired_n < 1:
        raise UsageError("--paired-n must be at least 1")
    measures = parse_measures(options.measures)
    if options.runs.count("-") + (options.qrels == "-") > 1:
        raise UsageError("only one input can be stdin ('-')")
    bounded: dict[str, Any] = {"max_line_bytes": io.max_line_bytes, "read_lines": io.read_all}  # '-': stdin
    qrels = read_qrels(options.qrels, **bounded)
    judged = set(query_ids(qrels))
    if not judged:
        raise UsageError(f"{options.qrels}: no judgements")
    if len(set(options.runs)) != len(options.runs):
        raise UsageError("a run file is given twice")
    runs = {path: read_run(path, **bounded) for path in options.runs}
    notes: list[str] = []
    for path, found in runs.items():
        ranked = set(query_ids(found))
        notes += _unjudged_queries(options.qrels, judged, found, ranked, options.strict)
        missing = len(judged - ranked)
        if missing:
            fate = "scored 0 (-c)" if options.complete else "left out (-c scores them 0)"
            notes.append(f"{path}: {missing} judged queries not ranked: {fate}")
    settings = {
        "relevance_level": options.relevance_level,
        "complete": options.complete,
        "judged_only": options.judged_only,
        "flavor": options.flavor,
    }
    if options.paired and len(runs) > 1:
        comparison = compare_runs(
            qrels,
            runs,
            measures,
            test=options.paired,
            correction=options.correction,
            n_resamples=options.paired_n,
            seed=options.seed,
            **settings,
        )
        results = comparison.results
        p_values = {(t.run, t.measure): t.p_adjusted for t in comparison.tests}
    else:
        if options.paired:
            notes.append("one run: no paired test")
        comparison = None
        results = {path: retrieval(qrels, found, measures, **settings) for path, found in runs.items()}
        p_values = {}
    for path, result in results.items():
        if not result.queries:
            raise UsageError(f"{path}: no query has both a ranking and judgements in {options.qrels}")
    names = [m.name for m in measures]
    systems = [
        SystemScores(
            _name(path),
            {name: result[name] for name in names},
            {name: p_values[path, name] for name in names if (path, name) in p_values},
        )
        for path, result in results.items()
    ]
    table = IrTable(names, {m.name: m.label for m in measures}, dict.fromkeys(names, 1.0), systems)
    if options.format == "json":
        payload: dict[str, Any] = {
            "qrels": options.qrels,
            "runs": [
                {
                    "name": path,
                    "tag": runs[path].tag,
                    "queries": len(result.queries),
                    "scores": {name: result[name].to_dict() for name in names}
                    if options.per_query
                    else {name: {k: v for k, v in result[name].to_dict().items() if k != "segments"} for name in names},
                    **({"per_query": result.per_query()} if options.per_query else {}),
                }
                for path, result in results.items()
            ],
            "notes": notes,
        }
        if comparison is not None:
            payload["paired"] = {
                "baseline": comparison.baseline,
                "test": comparison.test,
                "correction": comparison.correction,
                "n_resamples": comparison.n_resamples,
                "seed": comparison.seed,
                "tests": [t.to_dict() for t in comparison.tests],
            }
        text = to_json(payload)
    else:
        text = render(table, options.format)
        if comparison is not None and options.format in ("text", "markdown"):
            text += (
                f"\np: paired {comparison.test} test against {comparison.baseline} over shared queries, "
                f"{comparison.n_resamples} resamples, seed {comparison.seed}, {comparison.correction}-adjusted\n"
            )
        if options.per_query:
            text += _per_query(results, names, options.format)
    emit(text, options.output)
    for note in notes:
        print(f"nlpeval ir: note: {note}", file=sys.stderr)
    return 0


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _per_query(results: dict, names: list[str], fmt: str) -> str:
    """trec_eval -q lines: run, measure, query, value (CSV with a header for --format csv)."""
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["run", "measure", "query", "value"])
        for path, result in results.items():
            for name in names:
                for query, value in zip(result.queries, result[name].segments.tolist(), strict=True):
                    writer.writerow([path, name, query, repr(value)])
        return buffer.getvalue()
    lines = ["", "run\tmeasure\tquery\tvalue"]
    for path, result in results.items():
        for name in names:
            for query, value in zip(result.queries, result[name].segments.tolist(), strict=True):
                lines.append(f"{path}\t{name}\t{query}\t{value:.4f}")
    return "\n".join(lines) + "\n"
