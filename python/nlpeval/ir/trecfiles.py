"""TREC qrels and run files, read strictly: every problem is an :class:`InputError` naming ``file:line``.

* qrels: ``query iteration document relevance`` (4 fields; relevance an integer);
* run: ``query Q0 document rank score tag`` (6 fields; the rank is ignored, as by trec_eval).

Blank lines and lines starting with ``#`` are skipped (trec_eval 10.0 reads ``#`` lines as comments).
A document listed twice for a query is an error in both files (trec_eval stops with "duplicate
docs"), and so is a NaN score (trec_eval would rank it arbitrarily).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from nlpeval.core.errors import InputError
from nlpeval.core.textfiles import read_utf8_lines


@dataclass
class QrelsFile:
    """Judgements read from a file, with the line of each query's first judgement."""

    path: str
    qrels: dict[str, dict[str, int]]
    first_line: dict[str, int] = field(default_factory=dict)


@dataclass
class RunFile:
    """A run read from a file: scores, the run tag of its first line, and each query's first line."""

    path: str
    run: dict[str, dict[str, float]]
    tag: str | None
    first_line: dict[str, int] = field(default_factory=dict)


def read_qrels(path: str, lines: list[str] | None = None) -> QrelsFile:
    """Read a TREC qrels file (or parse its ``lines`` already read, e.g. by the CLI's bounded reader).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n")
    >>> read_qrels(str(folder / "qrels")).qrels
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d7': 2}}
    """
    qrels: dict[str, dict[str, int]] = {}
    first: dict[str, int] = {}
    lines_of: dict[tuple[str, str], int] = {}
    for number, line in enumerate(read_utf8_lines(path) if lines is None else lines, start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 4:
            raise InputError(
                f"{path}:{number}: expected 4 fields 'query iteration document relevance'; got {len(parts)}"
            )
        query, _, doc, level = parts
        try:
            rel = int(level)
        except ValueError:
            raise InputError(f"{path}:{number}: relevance {level!r} is not an integer") from None
        judged = qrels.setdefault(query, {})
        if doc in judged:
            raise InputError(
                f"{path}:{number}: document {doc!r} judged twice for query {query!r} "
                f"(first on line {lines_of[query, doc]})"
            )
        judged[doc] = rel
        lines_of[query, doc] = number
        first.setdefault(query, number)
    return QrelsFile(path, qrels, first)


def read_run(path: str, lines: list[str] | None = None) -> RunFile:
    """Read a TREC run file (or parse its ``lines`` already read).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run").write_text("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> found = read_run(str(folder / "run"))
    >>> found.run, found.tag
    ({'q1': {'d1': 2.5, 'd2': 1.5}}, 'bm25')
    """
    run: dict[str, dict[str, float]] = {}
    first: dict[str, int] = {}
    tag = None
    lines = read_utf8_lines(path) if lines is None else lines
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 6:
            raise InputError(f"{path}:{number}: expected 6 fields 'query Q0 document rank score tag'; got {len(parts)}")
        query, _, doc, _, text, name = parts
        try:
            score = float(text)
        except ValueError:
            raise InputError(f"{path}:{number}: score {text!r} is not a number") from None
        if math.isnan(score):
            raise InputError(f"{path}:{number}: score is NaN")
        ranked = run.get(query)
        if ranked is None:
            ranked = run[query] = {}
            first[query] = number
        if doc in ranked:
            raise InputError(
                f"{path}:{number}: document {doc!r} ranked twice for query {query!r}" + _earlier(lines, query, doc)
            )
        ranked[doc] = score
        if tag is None:
            tag = name
    return RunFile(path, run, tag, first)


def _earlier(lines: list[str], query: str, doc: str) -> str:
    """`` (first on line N)`` for a duplicate, found by a second pass (only on this error)."""
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if len(parts) == 6 and parts[0] == query and parts[2] == doc:
            return f" (first on line {number})"
    return ""
