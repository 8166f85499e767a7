"""The ``nlpeval meta`` table: a plain model (metrics x statistics with ranks) and its renderers.

Examples
--------
>>> from nlpeval.correlation.compare import compare_metrics
>>> human = [[1, 2, 3], [2, 3, 4], [0, 1, 1]]
>>> cmp = compare_metrics({"a": [[1, 2, 3], [2, 3, 5], [0, 1, 2]]}, human, level="system", method="spa", k=0)
>>> table = MetaTable("h.tsv", ["x", "y", "z"], 3, 9, ["a"], [], {"spa": cmp}, [], 0, 1)
>>> print(render(table, "markdown").splitlines()[2])
| a | 1.0000 (1) |
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass
from typing import Any

from nlpeval._tables import latex_table, markdown_table

LABELS = {
    "spa": "SPA",
    "acc_eq": "acc_eq",
    "pearson": "sys Pearson",
    "seg_pearson": "seg Pearson",
    "pairwise_accuracy": "pairwise acc",
    "kendall": "sys Kendall",
    "seg_kendall": "seg Kendall (item)",
}


@dataclass
class MetaTable:
    """What ``nlpeval meta`` found: per statistic, a :class:`~nlpeval.correlation.MetricComparison`."""

    human: str
    systems: list[str]
    n_items: int
    n_judged: int
    metrics: list[str]
    negated: list[str]
    comparisons: dict[str, Any]
    unjudged_systems: list[str]
    k: int
    seed: int | None

    def order(self) -> list[str]:
        """Metrics in the order of the first statistic (best first)."""
        first = next(iter(self.comparisons.values()), None)
        return list(first.metrics) if first is not None else list(self.metrics)

    def cells(self) -> tuple[list[str], list[list[str]]]:
        header = ["metric", *(LABELS.get(s, s) for s in self.comparisons)]
        rows = []
        for metric in self.order():
            row = [metric]
            for cmp in self.comparisons.values():
                value = cmp.statistics[metric]
                row.append("nan" if math.isnan(value) else f"{value:.4f} ({cmp.ranks[metric]})")
            rows.append(row)
        return header, rows

    def notes(self) -> list[str]:
        out = [
            f"{len(self.systems)} systems x {self.n_items} items, {self.n_judged} judged cells ({self.human}); "
            "(n) = significance cluster (1 = best; PERM-BOTH, p < "
            f"{next(iter(self.comparisons.values())).pval if self.comparisons else 0.05}, k={self.k}, seed={self.seed})"
        ]
        if self.negated:
            out.append(f"negated (lower is better): {', '.join(self.negated)}")
        if self.unjudged_systems:
            out.append(f"systems without human scores, left out: {', '.join(self.unjudged_systems)}")
        for stat, cmp in self.comparisons.items():
            if cmp.epsilons:
                eps = ", ".join(f"{m} {e:.4g}" for m, e in cmp.epsilons.items())
                out.append(f"{LABELS.get(stat, stat)} tie thresholds: {eps}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "human": self.human,
            "systems": self.systems,
            "n_items": self.n_items,
            "n_judged": self.n_judged,
            "negated": self.negated,
            "unjudged_systems": self.unjudged_systems,
            "statistics": {stat: cmp.to_dict() for stat, cmp in self.comparisons.items()},
        }


def _json(model: MetaTable) -> str:
    def safe(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: safe(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [safe(v) for v in value]
        return value

    return json.dumps(safe(model.to_dict()), ensure_ascii=False, indent=2) + "\n"


def _text(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]


def _html(model: MetaTable, header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>\n" for row in rows)
    notes = "".join(f"<li>{e(n)}</li>" for n in model.notes())
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        "<title>Agreement with humans</title>\n<style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ccc;text-align:right}"
        "td:first-child,th:first-child{text-align:left}</style></head><body>\n"
        f"<h1>Agreement with humans</h1>\n<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n"
        f"<ul>{notes}</ul>\n</body></html>\n"
    )


def render(model: MetaTable, fmt: str) -> str:
    """The table as text, JSON, CSV, Markdown, LaTeX or a self-contained HTML page."""
    if fmt == "json":
        return _json(model)
    header, rows = model.cells()
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["metric", *(f"{s}{suffix}" for s in model.comparisons for suffix in ("", "_rank"))])
        for metric in model.order():
            cells: list[Any] = [metric]
            for cmp in model.comparisons.values():
                cells += [repr(cmp.statistics[metric]), cmp.ranks[metric]]
            writer.writerow(cells)
        return buffer.getvalue()
    if fmt == "markdown":
        return "\n".join([*markdown_table(header, rows), "", *(f"- {n}" for n in model.notes())]) + "\n"
    if fmt == "latex":
        return "\n".join([*latex_table(header, rows), *(f"% {n}" for n in model.notes())]) + "\n"
    if fmt == "html":
        return _html(model, header, rows)
    return "\n".join([*_text(header, rows), "", *model.notes()]) + "\n"
