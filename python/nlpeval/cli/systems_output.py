"""Several systems' reports in one output: each system's report as rendered alone, under its name.

Used by the commands that score one system (``classify``, ``perplexity``) when
``--system-col`` splits a long data file into several: JSON becomes
``{"systems": [{"system": NAME, ...}]}``, CSV gains a leading ``system``
column, and text, Markdown and LaTeX show one block per system under a heading.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from nlpeval._tables import csv_text
from nlpeval.cli.formats import to_json


def render_systems(blocks: Sequence[tuple[str, str]], fmt: str) -> str:
    """Join ``(name, rendered report)`` pairs into one output of format ``fmt``.

    Examples
    --------
    >>> print(render_systems([("A", "x,y\\n1,2\\n"), ("B", "x,y\\n3,4\\n")], "csv"), end="")
    system,x,y
    A,1,2
    B,3,4
    >>> print(render_systems([("A", "score  1\\n"), ("B", "score  2\\n")], "text"), end="")
    system: A
    score  1
    <BLANKLINE>
    system: B
    score  2
    """
    if fmt == "json":
        return to_json({"systems": [{"system": name, **json.loads(text)} for name, text in blocks]})
    if fmt == "csv":
        return _csv(blocks)
    heading = {"markdown": "### {}", "latex": "% system: {}"}.get(fmt, "system: {}")
    return "\n".join(f"{heading.format(name)}\n{text}" for name, text in blocks)


def _csv(blocks: Sequence[tuple[str, str]]) -> str:
    """The i-th table of every system under one header with a ``system`` column; tables apart by a blank line."""
    tables: list[list[list[str]]] = []
    for name, text in blocks:
        index, start = 0, True
        for row in csv.reader(io.StringIO(text)):
            if not row:
                index, start = index + 1, True
                continue
            while len(tables) <= index:
                tables.append([])
            if start:
                if not tables[index]:
                    tables[index].append(["system", *row])
                start = False
            else:
                tables[index].append([name, *row])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for number, table in enumerate(tables):
        if number:
            buffer.write("\n")
        writer.writerows([[csv_text(cell) if isinstance(cell, str) else cell for cell in row] for row in table])
    return buffer.getvalue()
