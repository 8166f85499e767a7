"""The report's "Error spans" section: an xCOMET metric's most severe segments per system, each hypothesis with
unbabel-comet 2.2.7's spans (goldens of tests/fixtures/neural/make_fixtures.py) highlighted; text, JSON, HTML in
headless Chromium, and ``nlpeval report`` with ``--src``. Reports without such a metric have no section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nlpeval.cli.main import main
from nlpeval.reports.build import report
from nlpeval.reports.html import render_html
from nlpeval.reports.render import render
from nlpeval.reports.sections.error_spans import TOP, penalty
from report_html_browser import browser_session
from xcomet_data import LONG_SEGMENTS, TOLERANCE, XCOMET, golden_spans, ted

pytestmark = LONG_SEGMENTS


def texts() -> dict[str, Any]:
    a, b = ted("ted-a"), ted("ted-b")
    return {"src": a["src"], "ref": a["ref"], "A <sys>": a["mt"], "B": b["mt"]}


@pytest.fixture(scope="module")
def model() -> Any:
    t = texts()
    return report(
        {"A <sys>": t["A <sys>"], "B": t["B"]},
        t["ref"],
        sources=t["src"],
        metrics=["bleu", "comet"],
        metric_options={"comet_model": str(XCOMET)},
        n_bootstrap=20,
        n_randomization=20,
        seed=3,
    )


def test_the_section_holds_the_most_severe_segments_with_unbabel_comets_spans(model: Any) -> None:
    (section,) = model.error_spans
    assert section.metric == "comet" and section.top == TOP
    gold = golden_spans()
    assert section.n_spans["A <sys>"] == sum(len(s) for s in gold)
    assert section.n_segments["A <sys>"] == sum(1 for s in gold if s)
    mine = [seg for seg in section.segments if seg.system == "A <sys>"]
    assert len(mine) == min(TOP, sum(1 for s in gold if s))
    # the most severe first: no segment left out has a larger penalty than one shown
    shown = {seg.id for seg in mine}
    assert min(seg.penalty for seg in mine) >= max(penalty(s) for i, s in enumerate(gold) if i not in shown)
    assert [seg.penalty for seg in mine] == sorted((seg.penalty for seg in mine), reverse=True)
    for seg in mine:
        expected = gold[seg.id]
        assert seg.hypothesis == texts()["A <sys>"][seg.id] and seg.penalty == penalty(expected)
        assert [(s.start, s.end, s.severity, s.text) for s in seg.spans] == [
            (s["start"], s["end"], s["severity"], s["text"]) for s in expected
        ]
        assert all(abs(a.confidence - b["confidence"]) <= TOLERANCE for a, b in zip(seg.spans, expected, strict=True))
    assert {seg.system for seg in section.segments} == {"A <sys>", "B"}


def test_json_and_text_carry_the_section_and_other_reports_do_not(model: Any) -> None:
    record = json.loads(json.dumps(model.to_dict()))
    assert record["error_spans"][0]["segments"][0]["spans"]
    text = render(model, "text")
    assert "Error spans of COMET" in text
    first = model.error_spans[0].segments[0]
    span = first.spans[0]
    assert first.hypothesis[span.start : span.end] in text
    t = texts()
    plain = report({"A": t["A <sys>"], "B": t["B"]}, t["ref"], metrics=["bleu"], n_bootstrap=0, n_randomization=0)
    assert plain.error_spans == () and "error_spans" not in plain.to_dict()
    assert "Error spans" not in render_html(plain) and "err-span" not in render_html(plain)


def test_the_page_highlights_the_spans_in_headless_chromium(model: Any, tmp_path: Path) -> None:
    path = tmp_path / "spans.html"
    path.write_text(render_html(model), encoding="utf-8")
    with browser_session() as browser:
        load = browser.open(path)
        browser.collect(load)
        assert load.errors == [] and load.foreign_requests == []
        assert browser.js("return !!document.querySelector('section#error_spans')")
        toc = browser.js("return [...document.querySelectorAll('.toc a')].map(a => a.getAttribute('href'))")
        assert "#error_spans" in toc
        rows = browser.js("return document.querySelectorAll('#error_spans tbody tr').length")
        assert rows == len(model.error_spans[0].segments)
        marks = browser.js(
            "return [...document.querySelectorAll('#error_spans tbody mark.err-span')]"
            ".map(m => [m.textContent, m.dataset.severity, getComputedStyle(m).backgroundColor])"
        )
        expected = [(seg.hypothesis[s.start : s.end], s.severity) for seg in model.error_spans[0].segments
                    for s in seg.spans]  # fmt: skip
        assert [(text, severity) for text, severity, _ in marks] == expected
        colours = {severity: colour for _, severity, colour in marks}
        assert colours.get("minor") == "rgb(255, 243, 176)"
        first = browser.js("return document.querySelector('#error_spans tbody tr td:last-child').textContent")
        assert first == model.error_spans[0].segments[0].hypothesis  # the highlighting keeps every character


def test_cli_report_with_src_shows_the_section(tmp_path: Path, capsys) -> None:
    files = {}
    for key, name in (("src", "src"), ("ref", "ref"), ("A <sys>", "a"), ("B", "b")):
        files[key] = tmp_path / f"{name}.txt"
        files[key].write_text("".join(line + "\n" for line in texts()[key]), encoding="utf-8")
    out = tmp_path / "r.json"
    code = main(["report", "-m", "comet", "--comet-model", str(XCOMET), "--src", str(files["src"]),
                 "-r", str(files["ref"]), str(files["A <sys>"]), str(files["B"]), "--bootstrap", "20",
                 "--randomization", "20", "-o", str(out), "--format", "json"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    (section,) = json.loads(out.read_text(encoding="utf-8"))["error_spans"]
    assert next(iter(section["n_spans"].values())) == sum(len(s) for s in golden_spans())  # the first system: A
