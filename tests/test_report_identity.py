"""Report pages are byte-identical to the committed goldens (compare-mt TED and sum, WMT17 with 2 and 4 systems).

The cases are in ``tests/report_identity.py``; the goldens in ``tests/fixtures/report_identity/`` were written
by ``tests/fixtures/report_identity/make_goldens.py`` (see there how and when to write them again).
"""

from __future__ import annotations

import difflib
import json
import lzma

import pytest

from report_identity import CASES, FIXTURES, FORMATS, pages, sha256

GOLDENS = json.loads((FIXTURES / "goldens.json").read_text(encoding="utf-8"))


def _first_difference(case: str, fmt: str, text: str) -> str:
    """The first lines that differ from the golden copy (when one is committed)."""
    path = FIXTURES / f"{case}.{fmt}.xz"
    if not path.is_file():
        return "(no copy of this page is committed; compare the JSON page's difference)"
    golden = lzma.decompress(path.read_bytes()).decode("utf-8")
    if fmt == "json":  # one line: show it indented
        golden, text = (json.dumps(json.loads(t), indent=1) for t in (golden, text))
    diff = difflib.unified_diff(golden.splitlines(), text.splitlines(), "golden", "now", n=1, lineterm="")
    return "\n".join(list(diff)[:40])


def test_the_goldens_cover_every_case_and_format():
    assert sorted(GOLDENS) == sorted(CASES)
    for case in CASES:
        assert sorted(GOLDENS[case]) == sorted(FORMATS)


@pytest.mark.parametrize("case", list(CASES))
def test_report_pages_are_byte_identical_to_the_goldens(case):
    built = pages(case)
    differ = [fmt for fmt in FORMATS if sha256(built[fmt]) != GOLDENS[case][fmt]]
    details = "\n\n".join(f"{fmt}:\n{_first_difference(case, fmt, built[fmt])}" for fmt in differ)
    assert not differ, f"{case}: pages differ from the goldens: {differ}\n{details}"


def test_the_committed_copies_hash_to_the_goldens():
    copies = sorted(FIXTURES.glob("*.xz"))
    assert len(copies) == 4 * len(CASES)  # JSON, Markdown, text, LaTeX
    for path in copies:
        case, fmt, _ = path.name.rsplit(".", 2)
        assert sha256(lzma.decompress(path.read_bytes()).decode("utf-8")) == GOLDENS[case][fmt], path.name
