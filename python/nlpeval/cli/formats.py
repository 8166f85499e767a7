"""Render a score table as text, JSON, CSV, Markdown or LaTeX.

The table model (systems x metrics of :class:`~nlpeval.Score`) is kept apart
from the renderers. Text-like formats show scores x100 with two decimals, as
the MT community prints them; JSON and CSV keep the exact 0–1 values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nlpeval._tables import latex_table, markdown_escape, markdown_table

if TYPE_CHECKING:
    from nlpeval.core.score import Score

FORMATS = ("text", "json", "csv", "markdown", "latex")


class SystemScores:
    """One system's row: its name and a score per metric (in column order).

    Plain classes here and in :class:`ScoreTable` (not dataclasses): ``nlpeval score``'s
    NumPy-free path imports no ``dataclasses`` (and so no ``inspect``) at all.
    """

    __slots__ = ("name", "p_values", "scores")

    def __init__(
        self, name: str, scores: dict[str, Score] | None = None, p_values: dict[str, float] | None = None
    ) -> None:
        self.name = name
        self.scores: dict[str, Score] = {} if scores is None else scores
        #: p-value per metric of a paired test against the baseline (the first system)
        self.p_values: dict[str, float] = {} if p_values is None else p_values

    def __repr__(self) -> str:
        return f"SystemScores(name={self.name!r}, scores={self.scores!r}, p_values={self.p_values!r})"


class ScoreTable:
    """Systems x metrics, with each metric's column label and display scale."""

    __slots__ = ("labels", "metrics", "scales", "systems")

    def __init__(
        self, metrics: list[str], labels: dict[str, str], scales: dict[str, float], systems: list[SystemScores]
    ) -> None:
        self.metrics, self.labels, self.scales, self.systems = metrics, labels, scales, systems

    def display(self, metric: str, score: Score, p_value: float | None = None) -> str:
        text = f"{score.score * self.scales[metric]:.2f}"
        if score.ci is not None:
            text += f" (±{score.ci.half_width * self.scales[metric]:.2f})"
        if p_value is not None:
            text += f" (p = {p_value:.4f})"
        return text

    def signatures(self) -> dict[str, str]:
        """Signature per metric (from the first system that has one)."""
        out: dict[str, str] = {}
        for system in self.systems:
            for metric, score in system.scores.items():
                out.setdefault(metric, score.signature)
        return out


def _rows(table: ScoreTable) -> tuple[list[str], list[list[str]]]:
    header = ["system", *(table.labels[m] for m in table.metrics)]
    rows = [[s.name, *(table.display(m, s.scores[m], s.p_values.get(m)) for m in table.metrics)] for s in table.systems]
    return header, rows


def render_text(table: ScoreTable, *, segments: bool = False) -> str:
    header, rows = _rows(table)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]
    lines.append("")
    for metric, signature in table.signatures().items():
        lines.append(f"{table.labels[metric]}: {signature}")
    if segments:
        lines.append("")
        lines.append("system\tmetric\tsegment\tscore")
        for system in table.systems:
            for metric in table.metrics:
                values = system.scores[metric].segments
                for index, value in enumerate([] if values is None else values.tolist()):
                    lines.append(f"{system.name}\t{metric}\t{index + 1}\t{value:.6f}")
    return "\n".join(lines) + "\n"


def render_json(table: ScoreTable, *, segments: bool = False) -> str:
    payload = {
        "systems": [
            {
                "name": s.name,
                "scores": {m: _with_p_value(s.scores[m].to_dict(), s.p_values.get(m)) for m in table.metrics},
            }
            for s in table.systems
        ]
    }
    return to_json(payload)


def _finite_or_null(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(item) for item in value]
    return value


def to_json(payload: object) -> str:
    """Strict JSON (undefined values such as NaN become ``null``), indented, with a final newline.

    Examples
    --------
    >>> to_json({"score": float("nan"), "parts": [1.5, float("inf")]})
    '{\\n  "score": null,\\n  "parts": [\\n    1.5,\\n    null\\n  ]\\n}\\n'
    """
    import json  # here: a text table does not need it

    return json.dumps(_finite_or_null(payload), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def _with_p_value(entry: dict, p_value: float | None) -> dict:
    if p_value is not None:
        entry["p_value"] = p_value
    return entry


def render_csv(table: ScoreTable, *, segments: bool = False) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if segments:
        writer.writerow(["system", "metric", "segment", "score"])
        for system in table.systems:
            for metric in table.metrics:
                values = system.scores[metric].segments
                for index, value in enumerate([] if values is None else values.tolist()):
                    writer.writerow([system.name, metric, index + 1, repr(value)])
        return buffer.getvalue()
    writer.writerow(["system", *table.metrics, *(f"{m}_signature" for m in table.metrics)])
    for system in table.systems:
        writer.writerow(
            [
                system.name,
                *(repr(system.scores[m].score) for m in table.metrics),
                *(system.scores[m].signature for m in table.metrics),
            ]
        )
    return buffer.getvalue()


def render_markdown(table: ScoreTable, *, segments: bool = False) -> str:
    lines = markdown_table(*_rows(table))
    lines.append("")
    lines += [f"- {markdown_escape(table.labels[m])}: `{sig}`" for m, sig in table.signatures().items()]
    return "\n".join(lines) + "\n"


def render_latex(table: ScoreTable, *, segments: bool = False) -> str:
    lines = latex_table(*_rows(table))
    lines += [f"% {table.labels[m]}: {sig}" for m, sig in table.signatures().items()]
    return "\n".join(lines) + "\n"


RENDERERS = {
    "text": render_text,
    "json": render_json,
    "csv": render_csv,
    "markdown": render_markdown,
    "latex": render_latex,
}


def render(table: ScoreTable, fmt: str, *, segments: bool = False) -> str:
    """The table in format ``fmt`` (one of :data:`FORMATS`)."""
    return RENDERERS[fmt](table, segments=segments)


def metric_list(text: str) -> Sequence[str]:
    """Split a ``-m`` value such as ``bleu,chrf`` into names."""
    return [name.strip() for name in text.split(",") if name.strip()]
