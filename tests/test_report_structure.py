"""The report's structure (issue 22): sections are functions of one frozen context, listed in one registry;
no function in ``python/nlpeval/reports/`` is longer than 100 lines."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import nlpeval
import nlpeval.reports.sections.buckets as bucket_sections
from nlpeval.reports import build, sections
from nlpeval.reports.analyses.buckets import Buckets, count_table
from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import Report

REPORTS = Path(__file__).resolve().parents[1] / "python" / "nlpeval" / "reports"
#: the longest a function may be, in lines from ``def`` to its end, its docstring left out
MAX_LINES = 100
#: functions allowed to be longer, with the reason (none today)
EXCEPTIONS: dict[str, str] = {}

HYPS = {
    "A": ["the cat sat on the mat", "a b c d e", "x y z", "one two three four"] * 4,
    "B": ["the cat is on the mat", "a b c e", "x y z w", "one three four"] * 4,
}
REFS = ["the cat sat on the mat", "a b c d e", "x y z", "one two three four"] * 4


def _function_lengths() -> list[tuple[str, int]]:
    found = []
    for path in sorted(REPORTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                assert first.end_lineno is not None
                lines -= first.end_lineno - first.lineno + 1
            found.append((f"{path.relative_to(REPORTS).as_posix()}:{node.name}", lines))
    return found


def test_no_function_in_reports_is_longer_than_100_lines():
    lengths = _function_lengths()
    assert len(lengths) > 100  # the walk found the package's functions
    assert any(name == "build.py:report" for name, _ in lengths)
    too_long = {name: n for name, n in lengths if n > MAX_LINES and name not in EXCEPTIONS}
    assert not too_long, f"functions longer than {MAX_LINES} lines (split them, or justify in EXCEPTIONS): {too_long}"


def test_every_section_fills_a_field_of_the_report_once():
    fields = {f.name for f in dataclasses.fields(Report)}
    names = [section.field for section in sections.SECTIONS]
    assert len(names) == len(set(names))
    assert set(names) <= fields
    assert {"leaderboard", "length", "sentences", "buckets", "ngrams", "examples", "summarization"} <= set(names)


def test_the_context_is_frozen_and_holds_the_resampling_settings(monkeypatch):
    seen: list[ReportContext] = []

    def spy(ctx: ReportContext):
        seen.append(ctx)
        return None

    registry = tuple(dataclasses.replace(s, build=spy) if s.field == "summarization" else s for s in sections.SECTIONS)
    monkeypatch.setattr(sections, "SECTIONS", registry)
    nlpeval.report(HYPS, REFS, metrics=("chrf",), n_bootstrap=50, n_randomization=20, seed=9, alpha=0.1)
    (ctx,) = seen
    assert (ctx.resampling.n_bootstrap, ctx.resampling.n_randomization, ctx.resampling.seed) == (50, 20, 9)
    assert ctx.resampling.alpha == 0.1 and ctx.baseline == "A" and ctx.systems == ("A", "B")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.compared = None  # type: ignore[misc]


def test_a_new_bucket_table_is_one_function_and_one_line(monkeypatch):
    def by_first_letter(ctx: ReportContext):
        head = Buckets(
            "toy-first-letter", "segments by first letter", "first-letter", ["t", "other"], [(None, None)] * 2
        )
        assignment = {s: [0 if h.startswith("t") else 1 for h in ctx.hypotheses[s]] for s in ctx.systems}
        return [count_table(head, {s: np.array(a) for s, a in assignment.items()}, ctx.compared)]

    monkeypatch.setattr(bucket_sections, "TABLES", (*bucket_sections.TABLES, by_first_letter))
    model = nlpeval.report(HYPS, REFS, metrics=("chrf",), n_bootstrap=20, n_randomization=0)
    toy = model.buckets[-1]
    assert toy.id == "toy-first-letter"
    assert [[c.estimate.n for c in row.cells] for row in toy.rows] == [[4, 4], [12, 12]]
    assert build.report is nlpeval.report
