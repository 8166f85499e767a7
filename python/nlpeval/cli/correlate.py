"""``nlpeval correlate``: correlation of metric scores with human scores (meta-evaluation)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field
from typing import Any

from nlpeval.cli.errors import UsageError
from nlpeval.cli.tabular import TABLE_FORMATS

SYSTEM_NAMES = {"system", "sys", "model"}
ITEM_NAMES = {"item", "segment", "seg", "seg_id", "segment_id", "doc", "id"}
SCORE_NAMES = {"score", "value", "rating"}
MISSING = {"", "na", "nan", "n/a", "none", "-"}
METHODS = ("pearson", "spearman", "kendall", "kendall_b", "kendall_c", "pairwise_accuracy", "kendall_like")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "correlate",
        help="correlate metric scores with human scores (system and segment level)",
        description="Meta-evaluate a metric against human judgements. Each FILE is either one score per line "
        "(the two files aligned line by line; NA or an empty line in the human file = not judged), or CSV/TSV "
        "with a header naming system and score columns and, for segment level, an item column.",
    )
    parser.add_argument("--metric", required=True, metavar="FILE", help="metric scores")
    parser.add_argument("--human", required=True, metavar="FILE", help="human scores")
    parser.add_argument("--level", default=None, help="system, segment or both (default: every level the files allow)")
    parser.add_argument(
        "--method",
        default="pearson,spearman,kendall",
        help=f"comma-separated methods among {', '.join(METHODS)} (default pearson,spearman,kendall)",
    )
    parser.add_argument(
        "--group-by",
        default="none",
        help="segment-level grouping: none, item, system, or a comma-separated list (default none)",
    )
    parser.add_argument("--threshold", type=float, default=25.0, help="kendall_like: minimum human difference (25)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="95%% bootstrap interval over items")
    parser.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    parser.add_argument("--delimiter", default=None, help="field separator of CSV/TSV files (default: sniffed)")
    parser.add_argument("--format", "-f", choices=TABLE_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


@dataclass
class Scores:
    """Scores read from one file: keyed by (system, item) with the line each came from."""

    name: str
    tabular: bool
    has_items: bool
    values: dict[tuple[str, str], float] = field(default_factory=dict)
    lines: dict[tuple[str, str], int] = field(default_factory=dict)
    systems: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)


def _number(text: str, where: str, allow_missing: bool) -> float:
    if text.strip().lower() in MISSING:
        if allow_missing:
            return math.nan
        raise UsageError(f"{where}: score is missing (only human scores may be missing)")
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{where}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        if math.isnan(value) and allow_missing:
            return math.nan
        raise UsageError(f"{where}: score {text.strip()!r} is not finite")
    return value


def _add(scores: Scores, key: tuple[str, str], value: float, line: int) -> None:
    if key in scores.lines:
        what = f"system {key[0]!r}" + (f" item {key[1]!r}" if scores.has_items else "")
        raise UsageError(f"{scores.name}:{line}: second score for {what} (first on line {scores.lines[key]})")
    if key[0] not in scores.lines and key[0] not in scores.systems:
        scores.systems.append(key[0])
    if scores.has_items and key[1] not in scores.items:
        scores.items.append(key[1])
    scores.values[key] = value
    scores.lines[key] = line


def read_scores(path: str, delimiter: str | None, *, allow_missing: bool) -> Scores:
    """A plain (one number per line) or tabular (system, [item,] score) score file."""
    from nlpeval.cli.io import read_all
    from nlpeval.cli.tabular import cells, column, read_delimited

    name = "<stdin>" if path == "-" else path
    lines = read_all(path)
    first = next((line.strip() for line in lines if line.strip()), None)
    if first is None:
        raise UsageError(f"{name}: no scores")
    plain = first.lower() in MISSING or _is_number(first)
    if plain:
        scores = Scores(name, tabular=False, has_items=True, systems=["-"])
        for number, line in enumerate(lines, start=1):
            scores.items.append(str(number))
            value = _number(line, f"{name}:{number}", allow_missing)
            scores.values[("-", str(number))] = value
            scores.lines[("-", str(number))] = number
        return scores
    table = read_delimited(path, header_names=[SYSTEM_NAMES, SCORE_NAMES], delimiter=delimiter)
    if table.header is None:
        raise UsageError(f"{name}:1: expected one number per line, or a CSV/TSV header naming system and score columns")
    has_items = any(cell in ITEM_NAMES for cell in table.header)
    indices = [column(table, SYSTEM_NAMES, 0), column(table, SCORE_NAMES, 1)]
    if has_items:
        indices.append(column(table, ITEM_NAMES, 2))
    scores = Scores(name, tabular=True, has_items=has_items)
    for row, values in cells(table, indices):
        where = table.where(row.line)
        key = (values[0], values[2] if has_items else "")
        _add(scores, key, _number(values[1], where, allow_missing), row.line)
    if not scores.values:
        raise UsageError(f"{name}: no scores")
    return scores


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def build_matrices(metric: Scores, human: Scores) -> tuple[Any, Any, list[str]]:
    """``(metric, human, systems)`` arrays: systems x items (or 1-D per system), NaN where absent."""
    import numpy as np

    if metric.tabular != human.tabular:
        raise UsageError(f"{metric.name} and {human.name}: use the same layout (plain lines or CSV/TSV) for both")
    systems = list(human.systems)
    for system in systems:
        if system not in metric.systems:
            line = min(v for k, v in human.lines.items() if k[0] == system)
            raise UsageError(f"{human.name}:{line}: system {system!r} has no metric scores in {metric.name}")
    if not metric.tabular and len(metric.items) != len(human.items):
        raise UsageError(f"{metric.name} has {len(metric.items)} lines but {human.name} has {len(human.items)}")
    items = list(dict.fromkeys([*human.items, *(metric.items if metric.has_items else [])]))

    def matrix(scores: Scores) -> Any:
        if not scores.has_items:
            return np.array([scores.values[(s, "")] for s in systems], dtype=np.float64)
        out = np.full((len(systems), len(items)), np.nan)
        position = {item: j for j, item in enumerate(items)}
        row = {system: i for i, system in enumerate(systems)}
        for (system, item), value in scores.values.items():
            if system in row:
                out[row[system], position[item]] = value
        return out

    m, h = matrix(metric), matrix(human)
    if metric.has_items and human.has_items:
        for (system, item), line in human.lines.items():
            if not math.isnan(human.values[(system, item)]) and (system, item) not in metric.values:
                raise UsageError(f"{human.name}:{line}: no metric score for system {system!r} item {item!r}")
    return m, h, systems


def _levels(option: str | None, metric: Scores, human: Scores) -> list[str]:
    segment_ok = metric.has_items and human.has_items
    system_ok = metric.tabular
    if option is None:
        return [level for level, ok in (("system", system_ok), ("segment", segment_ok)) if ok]
    levels = ["system", "segment"] if option == "both" else [option]
    for level in levels:
        if level not in ("system", "segment"):
            raise UsageError(f"unknown level {level!r}; choose system, segment or both")
        if level == "segment" and not segment_ok:
            raise UsageError("segment level needs per-item scores in both files (an item column)")
        if level == "system" and not system_ok:
            raise UsageError("system level needs CSV/TSV files with a system column")
    return levels


def run(options: argparse.Namespace) -> int:
    import warnings

    from nlpeval.cli.io import emit
    from nlpeval.cli.tabular import json_safe, render_table
    from nlpeval.core.errors import InputError, UndefinedMetricWarning
    from nlpeval.correlation import meta_evaluate

    if options.bootstrap < 0 or options.bootstrap == 1:
        raise UsageError("--bootstrap must be 0 or at least 2")
    methods = [m.strip() for m in options.method.split(",") if m.strip()]
    for method in methods:
        if method not in METHODS:
            raise UsageError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    groups = [g.strip() for g in options.group_by.split(",") if g.strip()]
    for group in groups:
        if group not in ("none", "item", "system"):
            raise UsageError(f"unknown --group-by {group!r}; choose none, item or system")
    metric = read_scores(options.metric, options.delimiter, allow_missing=False)
    human = read_scores(options.human, options.delimiter, allow_missing=True)
    m, h, systems = build_matrices(metric, human)
    levels = _levels(options.level, metric, human)
    results = []
    skipped = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        for level in levels:
            for group in groups if level == "segment" else ["none"]:
                for method in methods:
                    group_by = None if group == "none" else group
                    try:
                        results.append(
                            meta_evaluate(
                                m,
                                h,
                                level=level,
                                method=method,
                                group_by=group_by,
                                threshold=options.threshold,
                                n_bootstrap=options.bootstrap,
                                seed=options.seed,
                            )
                        )
                    except InputError as exc:
                        raise UsageError(f"{human.name}: {exc.message}") from None
                    except ValueError as exc:
                        if "bootstrap" in str(exc):
                            raise UsageError(f"{exc} (--bootstrap needs an item column)") from None
                        skipped.append(f"{level} {method} (group by {group}): {exc}")
    if not results:
        raise UsageError("nothing to compute: " + "; ".join(skipped))
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)})
    header = ["level", "method", "group_by", "statistic", "pvalue", "n", "ci_low", "ci_high"]
    rows = [
        [
            r.level,
            r.method,
            r.group_by or "none",
            r.statistic,
            r.pvalue,
            r.n,
            *((r.ci.low, r.ci.high) if r.ci else (math.nan, math.nan)),
        ]
        for r in results
    ]
    if options.format == "json":
        payload = {
            "metric": metric.name,
            "human": human.name,
            "systems": systems if metric.tabular else None,
            "results": [r.to_dict() for r in results],
            "skipped": skipped,
            "notes": notes,
        }
        text = json.dumps(json_safe(payload), ensure_ascii=False, indent=2) + "\n"
    elif options.format == "csv":
        text = render_table(
            [*header, "signature"], [[*row, r.signature] for row, r in zip(rows, results, strict=True)], "csv"
        )
    else:
        width = len(header) if options.bootstrap else len(header) - 2
        text = render_table(header[:width], [row[:width] for row in rows], "text")
        text += "".join(f"skipped: {line}\n" for line in skipped)
        text += "".join(f"note: {note}\n" for note in notes)
        version = results[0].signature.rsplit("version:", 1)[-1]
        text += f"\nversion: {version}"
        if options.bootstrap:
            text += f" (bootstrap: {options.bootstrap} resamples of items, seed {options.seed})"
        text += "\n"
    emit(text, options.output)
    return 0
