"""``nlpeval meta``: which metric agrees with humans here (WMT23-25 meta-evaluation, significance clusters).

Every system is scored with every metric (the ``nlpeval score`` metrics and options),
or metric scores computed elsewhere are read from ``--scores``; then each statistic
(SPA, acc_eq, Pearson ...) is computed per metric with mt-metrics-eval's permutation
tests between metrics, and a table shows each statistic with the metric's rank cluster.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError

FORMATS = ("text", "json", "csv", "markdown", "latex", "html")
#: statistic -> (level, method, group_by) of compare_metrics
STATISTICS = {
    "spa": ("system", "spa", None),
    "acc_eq": ("segment", "acc_eq", "item"),
    "pearson": ("system", "pearson", None),
    "seg_pearson": ("segment", "pearson", None),
    "pairwise_accuracy": ("system", "pairwise_accuracy", None),
    "kendall": ("system", "kendall", None),
    "seg_kendall": ("segment", "kendall", "item"),
}
#: metrics whose scores are "lower is better" (negated before meta-evaluation)
LOWER_IS_BETTER = {"ter", "wer", "cer", "mer", "wil"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "meta",
        help="which metric agrees with human judgements (SPA, acc_eq, PERM-BOTH clusters)",
        description="Score every system with every metric (or read --scores), then meta-evaluate each metric "
        "against human scores as the WMT23-25 metrics tasks do (google-research/mt-metrics-eval's statistics, "
        "same draws for the same seed): one row per metric, each statistic with its significance cluster.",
    )
    parser.add_argument("systems", nargs="*", metavar="SYS", help="system output files (one segment per line)")
    parser.add_argument(
        "--human",
        required=True,
        metavar="FILE",
        help="human scores: CSV/TSV with system, item (seg_id) and score columns; empty/NA = not judged; "
        "higher must be better (MQM penalties: negate them)",
    )
    parser.add_argument("--src", metavar="FILE", help="source segments (checked to align with the references)")
    parser.add_argument("-r", "--refs", action="append", default=[], metavar="REF", help="reference file(s)")
    parser.add_argument(
        "-m", "--metrics", default="bleu,chrf,ter", help="comma-separated metrics (default bleu,chrf,ter)"
    )
    parser.add_argument(
        "--scores",
        metavar="TSV",
        help="metric scores computed elsewhere instead of SYS files: CSV/TSV with system, item and one column "
        "per metric (segment scores; system scores are their means)",
    )
    parser.add_argument(
        "--stats",
        default="spa,acc_eq,pearson",
        help=f"comma-separated statistics among {', '.join(STATISTICS)} (default spa,acc_eq,pearson)",
    )
    parser.add_argument(
        "--lower-is-better",
        default=None,
        metavar="NAMES",
        help="metrics negated before meta-evaluation (default: those the metric registry marks lower-is-better, "
        "e.g. ter, wer; with --scores: cer,mer,ter,wer,wil)",
    )
    parser.add_argument(
        "--item-ids",
        metavar="FILE",
        help="the human file's item id of each line of the system files (default: the human file's items in "
        "order of first appearance)",
    )
    parser.add_argument(
        "--k", type=argtypes.count(0), default=1000, metavar="N", help="resamples per permutation test (1000; 0: none)"
    )
    parser.add_argument(
        "--block-size", type=argtypes.count(1), default=100, metavar="N", help="early-stopping block (100, WMT)"
    )
    parser.add_argument(
        "--pval", type=argtypes.fraction, default=0.05, help="significance level of the clusters (0.05)"
    )
    parser.add_argument(
        "--seed", type=argtypes.seed, default=12345, help="seed of the permutation tests (default 12345)"
    )
    parser.add_argument("--delimiter", default=None, help="field separator of CSV/TSV files (default: sniffed)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def system_name(path: str) -> str:
    """A system file's name without folder and last extension (``out/Nemo.de`` -> ``Nemo``)."""
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    return stem if ext and stem else base


def score_systems(
    paths: list[str], refs: list[str], metrics: list[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]], int]:
    """Per metric: system -> per-segment scores and system -> corpus score; and the number of segments."""
    import numpy as np

    from nlpeval.cli.io import read_all
    from nlpeval.core.errors import InputError
    from nlpeval.metrics.registry import UnknownMetricError, build

    try:
        built = {name: build(name) for name in metrics}
    except UnknownMetricError as exc:
        raise UsageError(str(exc)) from None
    ref_lines = [read_all(path) for path in refs]
    n = len(ref_lines[0])
    for path, lines in zip(refs, ref_lines, strict=True):
        if len(lines) != n:
            raise UsageError(f"{path} has {len(lines)} lines but {refs[0]} has {n}")
    references = [list(seg) for seg in zip(*ref_lines, strict=True)]
    segments: dict[str, dict[str, Any]] = {m: {} for m in metrics}
    corpus: dict[str, dict[str, float]] = {m: {} for m in metrics}
    for path in paths:
        hyps = read_all(path)
        if len(hyps) != n:
            raise UsageError(f"{path} has {len(hyps)} lines but {refs[0]} has {n}")
        name = system_name(path)
        if name in segments[metrics[0]]:
            raise UsageError(f"{path}: a second system named {name!r}")
        for metric_name, metric in built.items():
            try:
                score = metric.score_from_stats(metric.segment_stats(hyps, references), segments=True)
            except InputError as exc:
                where = f"{path}:{exc.segment + 1}" if exc.segment is not None else path
                raise UsageError(f"{where}: {exc.message}") from None
            segments[metric_name][name] = np.asarray(score.segments, dtype=np.float64)
            corpus[metric_name][name] = float(score.score)
    return segments, corpus, n


def read_metric_scores(path: str, delimiter: str | None) -> tuple[dict[str, dict[str, dict[str, float]]], list[str]]:
    """``--scores``: metric -> system -> item -> score, and the items in file order."""
    from nlpeval.cli.correlate import ITEM_NAMES, SYSTEM_NAMES, _number
    from nlpeval.cli.tabular import read_delimited

    table = read_delimited(path, header_names=[SYSTEM_NAMES, ITEM_NAMES], delimiter=delimiter)
    if table.header is None:
        raise UsageError(f"{table.name}:1: expected a header naming system, item and metric columns")
    system_col = next(i for i, c in enumerate(table.header) if c in SYSTEM_NAMES)
    item_col = next(i for i, c in enumerate(table.header) if c in ITEM_NAMES)
    metric_cols = [i for i in range(len(table.header)) if i not in (system_col, item_col)]
    if not metric_cols:
        raise UsageError(f"{table.name}:1: no metric column besides system and item")
    out: dict[str, dict[str, dict[str, float]]] = {table.header[i]: {} for i in metric_cols}
    seen: dict[tuple[str, str], int] = {}
    items: list[str] = []
    for row in table.rows:
        where = table.where(row.line)
        if len(row.cells) != len(table.header):
            raise UsageError(f"{where}: {len(row.cells)} fields, the header has {len(table.header)}")
        system, item = row.cells[system_col], row.cells[item_col]
        if (system, item) in seen:
            raise UsageError(
                f"{where}: second row for system {system!r} item {item!r} (first on line {seen[system, item]})"
            )
        seen[system, item] = row.line
        if item not in items:
            items.append(item)
        for i in metric_cols:
            out[table.header[i]].setdefault(system, {})[item] = _number(row.cells[i], where, allow_missing=False)
    return out, items


def _human(path: str, delimiter: str | None) -> Any:
    """The human file: system, item and one score column (named score/value/rating/mqm/da/..., or the only other)."""
    from nlpeval.cli.correlate import ITEM_NAMES, SCORE_NAMES, SYSTEM_NAMES, Scores, _add, _number
    from nlpeval.cli.tabular import read_delimited

    table = read_delimited(path, header_names=[SYSTEM_NAMES, ITEM_NAMES], delimiter=delimiter)
    if table.header is None:
        raise UsageError(f"{table.name}:1: expected a CSV/TSV header naming system, item (seg_id) and score columns")
    system_col = next(i for i, c in enumerate(table.header) if c in SYSTEM_NAMES)
    item_col = next(i for i, c in enumerate(table.header) if c in ITEM_NAMES)
    others = [i for i in range(len(table.header)) if i not in (system_col, item_col)]
    named = [i for i in others if table.header[i] in SCORE_NAMES | {"mqm", "da", "human", "gold", "z", "raw"}]
    if len(named) == 1 or len(others) == 1:
        score_col = named[0] if len(named) == 1 else others[0]
    else:
        raise UsageError(f"{table.name}:1: which column holds the human scores? name it 'score'")
    human = Scores(table.name, tabular=True, has_items=True)
    for row in table.rows:
        where = table.where(row.line)
        if len(row.cells) <= max(system_col, item_col, score_col):
            raise UsageError(f"{where}: {len(row.cells)} fields, the header has {len(table.header)}")
        key = (row.cells[system_col], row.cells[item_col])
        _add(human, key, _number(row.cells[score_col], where, allow_missing=True), row.line)
    if not human.values:
        raise UsageError(f"{table.name}: no human scores")
    return human


def run(options: argparse.Namespace) -> int:
    import numpy as np

    from nlpeval.cli.io import emit, read_all
    from nlpeval.cli.meta_render import MetaTable, render
    from nlpeval.core.errors import InputError
    from nlpeval.correlation.compare import compare_metrics

    stats = _split(options.stats)
    for name in stats:
        if name not in STATISTICS:
            raise UsageError(f"unknown statistic {name!r}; choose from {', '.join(STATISTICS)}")
    if options.k < 0 or options.block_size < 1:
        raise UsageError("--k must be >= 0 and --block-size >= 1")
    human = _human(options.human, options.delimiter)
    lower = set(_split(options.lower_is_better)) if options.lower_is_better is not None else None
    if options.scores:
        if options.systems:
            raise UsageError("give SYS files or --scores, not both")
        table, items = read_metric_scores(options.scores, options.delimiter)
        metric_names = list(table)
        if lower is None:
            lower = set(LOWER_IS_BETTER)
        segment_maps = table
        corpus = None
        source = options.scores
    else:
        if not options.systems:
            raise UsageError("give system output files (SYS ...) or --scores")
        if not options.refs:
            raise UsageError("give the reference file(s) with -r")
        metric_names = _split(options.metrics)
        seg_arrays, corpus, n_lines = score_systems(options.systems, options.refs, metric_names)
        if lower is None:
            from nlpeval.metrics.registry import get

            lower = {name.lower() for name in metric_names if not get(name).higher_is_better}
        if options.src:
            src = read_all(options.src)
            if len(src) != n_lines:
                raise UsageError(f"{options.src} has {len(src)} lines but {options.refs[0]} has {n_lines}")
        if options.item_ids:
            items = [line.strip() for line in read_all(options.item_ids)]
            if len(items) != n_lines:
                raise UsageError(f"{options.item_ids} has {len(items)} lines but the systems have {n_lines}")
        else:
            items = list(human.items)
            if len(items) != n_lines:
                raise UsageError(
                    f"{human.name} has {len(items)} items but the systems have {n_lines} lines; "
                    "map lines to items with --item-ids"
                )
        segment_maps = {
            m: {s: dict(zip(items, values.tolist(), strict=True)) for s, values in per_sys.items()}
            for m, per_sys in seg_arrays.items()
        }
        source = None
    assert lower is not None
    # align: the human file's systems x the items; each metric must cover every judged cell
    systems = list(human.systems)
    position = {item: j for j, item in enumerate(items)}
    human_matrix = np.full((len(systems), len(items)), np.nan)
    for (system, item), value in human.values.items():
        if item not in position:
            line = human.lines[(system, item)]
            raise UsageError(f"{human.name}:{line}: item {item!r} of system {system!r} is not among the scored items")
        human_matrix[systems.index(system), position[item]] = value
    for i, system in enumerate(systems):
        if not np.isfinite(human_matrix[i]).any():
            line = min(v for k, v in human.lines.items() if k[0] == system)
            raise UsageError(f"{human.name}:{line}: system {system!r} has no human score (every item is NA)")
    judged = human_matrix[np.isfinite(human_matrix)]
    if len(systems) < 2:
        raise UsageError(f"{human.name}: one system ({systems[0]!r}); meta-evaluation compares at least two")
    if np.all(judged == judged[0]):
        raise UsageError(f"{human.name}: every human score is {judged[0]:g}: no agreement statistic is defined")
    metric_matrices: dict[str, Any] = {}
    for metric in metric_names:
        per_system = segment_maps[metric]
        sign = -1.0 if metric.lower() in lower else 1.0
        matrix = np.full((len(systems), len(items)), np.nan)
        for i, system in enumerate(systems):
            if system not in per_system:
                line = min(v for k, v in human.lines.items() if k[0] == system)
                where = source or "the system files"
                raise UsageError(f"{human.name}:{line}: system {system!r} has no {metric} scores in {where}")
            for item, value in per_system[system].items():
                matrix[i, position[item]] = sign * value
        missing = np.isnan(matrix) & ~np.isnan(human_matrix)
        if missing.any():
            i, j = (int(v) for v in np.argwhere(missing)[0])
            line = human.lines[(systems[i], items[j])]
            raise UsageError(f"{human.name}:{line}: no {metric} score for system {systems[i]!r} item {items[j]!r}")
        metric_matrices[metric] = matrix
    extra = sorted({s for per in segment_maps.values() for s in per} - set(systems))
    comparisons = {}
    for stat in stats:
        level, method, group_by = STATISTICS[stat]
        if level == "system" and method not in ("spa",) and corpus is not None:
            scores: dict[str, Any] = {
                m: np.asarray([sign_of(m, lower) * corpus[m][s] for s in systems]) for m in metric_names
            }
        else:
            scores = metric_matrices
        try:
            comparisons[stat] = compare_metrics(
                scores,
                human_matrix,
                level=level,
                method=method,
                group_by=group_by,
                k=options.k,
                block_size=options.block_size,
                pval=options.pval,
                seed=options.seed,
            )
        except InputError as exc:
            raise UsageError(f"{human.name}: {stat}: {exc.message}") from None
    model = MetaTable(
        human=human.name,
        systems=systems,
        n_items=len(items),
        n_judged=int(np.isfinite(human_matrix).sum()),
        metrics=metric_names,
        negated=[m for m in metric_names if m.lower() in lower],
        comparisons=comparisons,
        unjudged_systems=extra,
        k=options.k,
        seed=options.seed,
    )
    emit(render(model, options.format), options.output)
    return 0


def sign_of(metric: str, lower: set[str]) -> float:
    return -1.0 if metric.lower() in lower else 1.0
