"""``nlpeval agree``: inter-annotator agreement of a CSV/TSV file of (unit, rater, label) rows."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError
from nlpeval.cli.tabular import TABLE_FORMATS

UNIT_NAMES = {"unit", "item", "segment", "seg", "id"}
RATER_NAMES = {"rater", "annotator", "coder", "judge", "worker"}
LABEL_NAMES = {"label", "rating", "score", "value", "category"}
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agree",
        help="inter-annotator agreement (Cohen, Fleiss, Krippendorff) of a ratings file",
        description="Agreement between annotators. FILE is CSV or TSV ('-' reads stdin) with one rating per row: "
        "unit, rater, label columns (a header naming them may give any order; without one, those three in order).",
    )
    parser.add_argument("file", metavar="FILE", help="ratings file (CSV, or TSV: .tsv or tab-separated)")
    parser.add_argument(
        "--level",
        default=None,
        help="comma-separated Krippendorff levels (default: nominal, plus ordinal,interval for numeric labels)",
    )
    parser.add_argument("--weights", choices=("none", "linear", "quadratic"), default="none", help="Cohen's weights")
    parser.add_argument(
        "--bootstrap", type=argtypes.resamples, default=0, metavar="N", help="95%% bootstrap interval from N resamples"
    )
    parser.add_argument("--seed", type=argtypes.seed, default=12345, help="bootstrap seed (default 12345)")
    parser.add_argument(
        "--delimiter", default=None, help="field separator (default: tab for .tsv or tabbed files, else comma)"
    )
    parser.add_argument("--format", "-f", choices=TABLE_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


@dataclass
class Ratings:
    """Ratings read from a file: raters x units labels (None = missing) and where each label came from."""

    units: list[str]
    raters: list[str]
    labels: list[list[str | None]]
    lines: dict[tuple[int, int], int]
    name: str


def read_ratings(path: str, delimiter: str | None) -> Ratings:
    """Parse the ratings file, rejecting short rows, empty labels and repeated (unit, rater) pairs."""
    from nlpeval.cli.tabular import cells, column, read_delimited

    table = read_delimited(path, header_names=[UNIT_NAMES, RATER_NAMES, LABEL_NAMES], delimiter=delimiter)
    indices = [column(table, UNIT_NAMES, 0), column(table, RATER_NAMES, 1), column(table, LABEL_NAMES, 2)]
    units: dict[str, int] = {}
    raters: dict[str, int] = {}
    entries: dict[tuple[int, int], tuple[str, int]] = {}
    for row, (unit, rater, label) in cells(table, indices):
        if not label:
            raise UsageError(f"{table.where(row.line)}: empty label (leave the row out for a missing rating)")
        u = units.setdefault(unit, len(units))
        r = raters.setdefault(rater, len(raters))
        if (r, u) in entries:
            first = entries[(r, u)][1]
            raise UsageError(f"{table.where(row.line)}: rater {rater!r} already rated unit {unit!r} (line {first})")
        entries[(r, u)] = (label, row.line)
    if not entries:
        raise UsageError(f"{table.name}: no ratings")
    labels: list[list[str | None]] = [[None] * len(units) for _ in raters]
    for (r, u), (label, _) in entries.items():
        labels[r][u] = label
    return Ratings(list(units), list(raters), labels, {k: v[1] for k, v in entries.items()}, table.name)


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numeric_matrix(ratings: Ratings) -> list[list[float]] | None:
    """Labels as floats (NaN missing), or None if some label is not a finite number."""
    out = []
    for row in ratings.labels:
        values = []
        for label in row:
            if label is None:
                values.append(math.nan)
                continue
            number = _as_number(label)
            if number is None:
                return None
            values.append(number)
        out.append(values)
    return out


def _first_non_number(ratings: Ratings) -> str:
    for (r, u), line in sorted(ratings.lines.items(), key=lambda item: item[1]):
        label = ratings.labels[r][u]
        if label is not None and _as_number(label) is None:
            return f"{ratings.name}:{line}: label {label!r} is not a number"
    return f"{ratings.name}: labels are not numbers"


def _levels(option: str | None, numeric: bool, ratings: Ratings) -> list[str]:
    if option is None:
        return ["nominal", "ordinal", "interval"] if numeric else ["nominal"]
    levels = [level.strip() for level in option.split(",") if level.strip()]
    for level in levels:
        if level not in LEVELS:
            raise UsageError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
        if level != "nominal" and not numeric:
            raise UsageError(f"{_first_non_number(ratings)} (needed for --level {level})")
    return levels


def run(options: argparse.Namespace) -> int:
    import warnings

    import numpy as np

    from nlpeval.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement, rating_summary
    from nlpeval.cli.io import emit
    from nlpeval.cli.tabular import json_safe, render_table
    from nlpeval.core.errors import InputError, UndefinedMetricWarning

    if options.bootstrap < 0 or options.bootstrap == 1:
        raise UsageError("--bootstrap must be 0 or at least 2")
    ratings = read_ratings(options.file, options.delimiter)
    numbers = numeric_matrix(ratings)
    levels = _levels(options.level, numbers is not None, ratings)
    labels = np.array(numbers, dtype=np.float64) if numbers is not None else np.array(ratings.labels, dtype=object)
    boot = {"n_bootstrap": options.bootstrap, "seed": options.seed}
    results: list[tuple[str, Any]] = []
    skipped: list[tuple[str, str]] = []
    units_by_raters = labels.T  # units x raters
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        try:
            results.append(("percent agreement", percent_agreement(units_by_raters, **boot)))
            if len(ratings.raters) == 2:
                both = [u for u in range(len(ratings.units)) if all(row[u] is not None for row in ratings.labels)]
                if both:
                    weights = None if options.weights == "none" else options.weights
                    a, b = labels[0, both], labels[1, both]
                    results.append((f"Cohen's kappa ({options.weights})", cohen_kappa(a, b, weights=weights, **boot)))
                else:
                    skipped.append(("Cohen's kappa", "no unit was rated by both raters"))
            else:
                skipped.append(("Cohen's kappa", f"needs exactly 2 raters, found {len(ratings.raters)}"))
            counts = [sum(row[u] is not None for row in ratings.labels) for u in range(len(ratings.units))]
            if len(set(counts)) == 1 and counts[0] >= 2:
                results.append(("Fleiss' kappa", fleiss_kappa(units_by_raters, **boot)))
            else:
                skipped.append(("Fleiss' kappa", "units have different numbers of ratings, or fewer than 2"))
            for level in levels:
                results.append((f"Krippendorff's alpha ({level})", krippendorff_alpha(labels, level=level, **boot)))
        except InputError as exc:
            raise UsageError(f"{ratings.name}: {exc.message}") from None
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)})
    summary = rating_summary(labels, raters=ratings.raters) if numbers is not None else None

    header = ["coefficient", "value", "ci_low", "ci_high", "signature"]
    rows = [
        [name, score.score, *((score.ci.low, score.ci.high) if score.ci else (math.nan, math.nan)), score.signature]
        for name, score in results
    ]
    if options.format == "json":
        payload: dict[str, Any] = {
            "file": ratings.name,
            "n_units": len(ratings.units),
            "n_raters": len(ratings.raters),
            "n_ratings": len(ratings.lines),
            "coefficients": [{"coefficient": name, **score.to_dict()} for name, score in results],
            "skipped": [{"coefficient": name, "reason": reason} for name, reason in skipped],
            "notes": notes,
        }
        if summary is not None:
            payload["summary"] = summary.to_dict()
        text = json.dumps(json_safe(payload), ensure_ascii=False, indent=2) + "\n"
    elif options.format == "csv":
        text = render_table(header, rows, "csv")
    else:
        intro = (
            f"{ratings.name}: {len(ratings.lines)} ratings of {len(ratings.units)} units "
            f"by {len(ratings.raters)} raters\n\n"
        )
        width = 4 if options.bootstrap else 2
        text = intro + render_table(header[:width], [row[:width] for row in rows], "text")
        text += "".join(f"{name}: not computed ({reason})\n" for name, reason in skipped)
        text += "".join(f"note: {note}\n" for note in notes)
        text += "\n" + "".join(f"{name}: {score.signature}\n" for name, score in results)
        if summary is not None:
            text += (
                f"\nratings: mean {summary.mean:.4f}, std {summary.std:.4f}, "
                f"mean within-unit std {summary.unit_std:.4f}\n\n"
            )
            text += render_table(
                ["rater", "n", "mean", "std", "bias"],
                [[r.rater, r.n, r.mean, r.std, r.bias] for r in summary.raters],
                "text",
            )
    emit(text, options.output)
    return 0
