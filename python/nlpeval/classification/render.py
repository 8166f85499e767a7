"""Renderers of a :class:`~nlpeval.classification.report.ClassificationReport`: text, JSON, CSV, Markdown, LaTeX."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any

from nlpeval._tables import csv_text, latex_table, markdown_escape, markdown_table, one_line

if TYPE_CHECKING:
    from nlpeval.classification.report import ClassificationReport

FORMATS = ("text", "json", "csv", "markdown", "latex")

_SUMMARY_NAMES = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "majority_baseline": "majority-class baseline",
    "macro_precision": "macro precision",
    "macro_recall": "macro recall",
    "macro_f1": "macro F1",
    "weighted_precision": "weighted precision",
    "weighted_recall": "weighted recall",
    "weighted_f1": "weighted F1",
    "micro_precision": "micro precision",
    "micro_recall": "micro recall",
    "micro_f1": "micro F1",
    "matthews_corrcoef": "Matthews correlation",
    "cohen_kappa": "Cohen's kappa",
    "average_precision": "average precision (non-interpolated)",
    "interpolated_ap_11pt": "average precision (11-point interpolated)",
    "roc_auc": "ROC AUC",
}


def _num(value: Any, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _count(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _class_table(rep: ClassificationReport, digits: int) -> tuple[list[str], list[list[str]]]:
    scored = rep.rows and rep.rows[0].average_precision is not None
    header = ["class", "precision", "recall", "F1", "support", "predicted"]
    if scored:
        header += ["AP", "AP (11-pt interp.)", "ROC AUC"]
    rows = []
    for row in rep.rows:
        cells = [str(row.label), *(_num(v, digits) for v in (row.precision, row.recall, row.f1))]
        cells += [_count(row.support), _count(row.predicted)]
        if scored:
            cells += [_num(v, digits) for v in (row.average_precision, row.interpolated_ap, row.roc_auc)]
        rows.append(cells)
    return header, rows


def _matrix_table(rep: ClassificationReport) -> tuple[list[str], list[list[str]]]:
    labels = [str(label) for label in rep.confusion.labels.tolist()]
    header = ["observed \\ predicted", *labels]
    rows = [
        [label, *(_count(v) for v in row)] for label, row in zip(labels, rep.confusion.matrix.tolist(), strict=True)
    ]
    return header, rows


def _align(header: list[str], rows: list[list[str]]) -> list[str]:
    header, rows = [one_line(h) for h in header], [[one_line(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
        for r in [header, *rows]
    ]


def render_text(rep: ClassificationReport, digits: int = 4) -> str:
    lines = ["Confusion matrix (rows observed, columns predicted)", ""]
    lines += _align(*_matrix_table(rep))
    lines += ["", "Per class", ""]
    lines += _align(*_class_table(rep, digits))
    lines += ["", "Summary", ""]
    summary = [[_SUMMARY_NAMES.get(k, k), _num(v, digits)] for k, v in rep.summary.items()]
    lines += _align(["metric", "value"], summary)
    if rep.warnings:
        lines += ["", "Warnings", ""]
        lines += [f"- {note}" for note in rep.warnings]
    return "\n".join(lines) + "\n"


def render_json(rep: ClassificationReport, digits: int = 4) -> str:
    """Strict JSON: undefined (NaN) and infinite values become ``null``."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(rep.to_dict()), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def render_csv(rep: ClassificationReport, digits: int = 4) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header, _ = _class_table(rep, digits)
    writer.writerow(header)
    for row in rep.rows:
        values = [row.label, row.precision, row.recall, row.f1, row.support, row.predicted]
        if row.average_precision is not None:
            values += [row.average_precision, row.interpolated_ap, row.roc_auc]
        writer.writerow([repr(v) if isinstance(v, float) else csv_text(v) if isinstance(v, str) else v for v in values])
    writer.writerow([])
    writer.writerow(["metric", "value"])
    for key, value in rep.summary.items():
        writer.writerow([key, repr(value)])
    return buffer.getvalue()


def render_markdown(rep: ClassificationReport, digits: int = 4) -> str:
    lines = ["**Confusion matrix** (rows observed, columns predicted)", ""]
    lines += markdown_table(*_matrix_table(rep))
    lines += ["", "**Per class**", ""]
    lines += markdown_table(*_class_table(rep, digits))
    lines += ["", "**Summary**", ""]
    lines += markdown_table(
        ["metric", "value"], [[_SUMMARY_NAMES.get(k, k), _num(v, digits)] for k, v in rep.summary.items()]
    )
    if rep.warnings:
        lines += ["", "**Warnings**", ""]
        lines += [f"- {markdown_escape(note)}" for note in rep.warnings]
    return "\n".join(lines) + "\n"


def render_latex(rep: ClassificationReport, digits: int = 4) -> str:
    lines = ["% confusion matrix: rows observed, columns predicted"]
    lines += latex_table(*_matrix_table(rep))
    lines += ["", "% per class"]
    lines += latex_table(*_class_table(rep, digits))
    lines += ["", "% summary"]
    lines += latex_table(
        ["metric", "value"], [[_SUMMARY_NAMES.get(k, k), _num(v, digits)] for k, v in rep.summary.items()]
    )
    lines += [f"% warning: {note}" for note in rep.warnings]
    return "\n".join(lines) + "\n"


_RENDERERS = {
    "text": render_text,
    "json": render_json,
    "csv": render_csv,
    "markdown": render_markdown,
    "latex": render_latex,
}


def render(rep: ClassificationReport, fmt: str = "text", *, digits: int = 4) -> str:
    """The report in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in _RENDERERS:
        raise ValueError(f"unknown format {fmt!r}; one of {FORMATS}")
    return _RENDERERS[fmt](rep, digits)
