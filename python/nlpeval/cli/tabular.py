"""Delimited (CSV/TSV) input with line numbers, and plain result tables, for ``agree`` and ``correlate``."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from nlpeval._tables import csv_text, one_line
from nlpeval.cli.errors import UsageError
from nlpeval.cli.io import read_all

TABLE_FORMATS = ("text", "json", "csv")


@dataclass
class Row:
    """One data row of a delimited file: its 1-based line number and cells."""

    line: int
    cells: list[str]


@dataclass
class Delimited:
    """A delimited file: display name, header (lower-cased, or None) and data rows."""

    name: str
    header: list[str] | None
    rows: list[Row]

    def where(self, line: int) -> str:
        return f"{self.name}:{line}"


def sniff_delimiter(path: str, first_line: str) -> str:
    """Tab for ``.tsv`` files or a first line with a tab, else comma."""
    return "\t" if path.endswith(".tsv") or "\t" in first_line else ","


def read_delimited(path: str, *, header_names: Sequence[set[str]], delimiter: str | None = None) -> Delimited:
    """Read a CSV/TSV file; the first row is a header if it names every column in ``header_names``.

    ``header_names`` lists, per required column, the accepted (lower-case) names.
    Blank lines are skipped.
    """
    lines = read_all(path)
    name = "<stdin>" if path == "-" else path
    first = next((line for line in lines if line.strip()), "")
    sep = delimiter or sniff_delimiter(path, first)
    rows: list[Row] = []
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            cells = next(csv.reader([line], delimiter=sep))
            rows.append(Row(number, [cell.strip() for cell in cells]))
    except csv.Error as exc:
        raise UsageError(f"{name}:{number}: {exc}") from None
    header = None
    if rows:
        lowered = [cell.lower() for cell in rows[0].cells]
        if all(any(n in lowered for n in names) for names in header_names):
            header = lowered
            rows = rows[1:]
    return Delimited(name, header, rows)


def column(table: Delimited, names: set[str], position: int) -> int:
    """Index of the column named one of ``names`` (or ``position`` without a header)."""
    if table.header is None:
        return position
    for index, cell in enumerate(table.header):
        if cell in names:
            return index
    raise UsageError(f"{table.name}:1: no column named {' or '.join(sorted(names))}")


def cells(table: Delimited, indices: Sequence[int]) -> Iterator[tuple[Row, list[str]]]:
    """Each row with the cells at ``indices`` (an error naming the line when a row is short)."""
    need = max(indices) + 1
    for row in table.rows:
        if len(row.cells) < need:
            raise UsageError(f"{table.where(row.line)}: expected at least {need} columns, found {len(row.cells)}")
        yield row, [row.cells[i] for i in indices]


def format_number(value: Any, digits: int = 4) -> str:
    """A float with ``digits`` decimals ("nan" for NaN), ints and text as they are."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return "" if value is None else str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _csv_cell(value: object) -> object:
    if _plain(value) is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return csv_text(value) if isinstance(value, str) else value


def render_table(header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, *, extra: str = "") -> str:
    """A table as aligned text (numbers to 4 decimals), JSON records or CSV (full precision)."""
    if fmt == "json":
        records = [{key: _plain(value) for key, value in zip(header, row, strict=True)} for row in rows]
        return json.dumps(records, ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([_csv_cell(v) for v in row])
        return buffer.getvalue()
    text_rows = [[one_line(format_number(v)) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in [list(header), *text_rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [list(header), *text_rows]
    ]
    return "\n".join(lines) + "\n" + extra


def json_safe(value: Any) -> Any:
    """``value`` with NaN replaced by None (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
