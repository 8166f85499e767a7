"""The report's "Span F1 by type" section (``nlpeval report -m span_f1``): every system's per-type and averaged
precision, recall and F1 equal to seqeval 1.2.2's ``classification_report`` (run live), F1 intervals equal to
seqeval's F1 on the same sentence resamples, systems with different entity types on one schema (the
leaderboard's macro F1 equals seqeval's), text/JSON/HTML (headless Chromium) and the command line."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from seqeval.metrics import classification_report, f1_score

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

from nlpeval.cli.main import main  # noqa: E402
from nlpeval.reports.build import report  # noqa: E402
from nlpeval.reports.html import render_html  # noqa: E402
from nlpeval.reports.render import render  # noqa: E402
from nlpeval.significance.bootstrap import resample_indices  # noqa: E402
from report_html_browser import browser_session  # noqa: E402
from span_f1_data import corpus  # noqa: E402

N_BOOTSTRAP = 30
SEED = 7


def _data() -> tuple[dict[str, list[list[str]]], list[list[str]]]:
    hyps, refs = corpus(40, "IOB2", 200, 0.0)
    other = corpus(41, "IOB2", 200, 0.0)[0]
    for i, ref in enumerate(refs):  # the same length as the reference; B never predicts MISC
        other[i] = [label.replace("MISC", "ORG") for label in other[i][: len(ref)]] + ["O"] * (len(ref) - len(other[i]))
    return {"A": hyps, "B": other}, refs


def _lines(sequences: list[list[str]]) -> list[str]:
    return [" ".join(labels) for labels in sequences]


@pytest.fixture(scope="module")
def model() -> Any:
    systems, refs = _data()
    warnings.simplefilter("ignore")
    return report(
        {name: _lines(h) for name, h in systems.items()},
        _lines(refs),
        metrics=["span_f1"],
        metric_options={"span_average": "macro"},
        n_bootstrap=N_BOOTSTRAP,
        n_randomization=20,
        seed=SEED,
    )


def test_rows_equal_seqevals_classification_report(model: Any) -> None:
    systems, refs = _data()
    (section,) = model.span_f1
    assert section.mode == "lenient" and section.n_bootstrap == N_BOOTSTRAP
    for name, hyps in systems.items():
        want = classification_report(refs, hyps, output_dict=True, zero_division=0)
        rows = {r.type: r for r in section.rows if r.system == name}
        assert list(rows) == [
            *sorted(k for k in want if not k.endswith(" avg")),
            "micro avg",
            "macro avg",
            "weighted avg",
        ]
        for kind, row in rows.items():
            expected = want[kind]
            got = [row.precision, row.recall, row.f1]
            np.testing.assert_allclose(
                got, [expected["precision"], expected["recall"], expected["f1-score"]], atol=1e-12
            )
            assert row.support == expected["support"]


def test_intervals_are_seqevals_f1_on_the_same_resamples(model: Any) -> None:
    systems, refs = _data()
    (section,) = model.span_f1
    draws = resample_indices(len(refs), N_BOOTSTRAP, SEED)
    cut = int(N_BOOTSTRAP * 0.05 / 2)
    for name, hyps in systems.items():
        values = np.sort(
            [f1_score([refs[i] for i in idx], [hyps[i] for i in idx], average="micro") for idx in draws.tolist()]
        )
        (micro,) = [r for r in section.rows if r.system == name and r.type == "micro avg"]
        assert micro.f1_low == pytest.approx(values[cut], abs=1e-12)
        assert micro.f1_high == pytest.approx(values[N_BOOTSTRAP - cut - 1], abs=1e-12)
        assert all(r.f1_low is not None and r.f1_low <= r.f1 + 1e-12 for r in section.rows)


def test_systems_with_other_types_share_one_schema(model: Any) -> None:
    systems, refs = _data()
    cells = {c.system: c for c in model.leaderboard.cells if c.metric == "span_f1"}
    for name, hyps in systems.items():  # -m span_f1 --span-average macro: seqeval's macro F1 of each system
        assert cells[name].estimate.value == pytest.approx(f1_score(refs, hyps, average="macro"), abs=1e-12)
    assert not any(r.type == "MISC" and r.predicted for r in model.span_f1[0].rows if r.system == "B")


def test_text_and_json_carry_the_section_and_other_reports_do_not(model: Any) -> None:
    text = render(model, "text")
    assert "Span F1 by type (span F1, mode lenient, F1 with 95% bootstrap intervals" in text  # the display label
    for fmt in ("markdown", "latex"):
        assert "Span F1 by type (span F1, mode lenient" in render(model, fmt)
    assert '<p class="note">span F1 (mode lenient)' in render_html(model)
    assert "span_f1" not in text.split("Span F1 by type")[1].split("\n")[0]
    record = json.loads(json.dumps(model.to_dict()))
    assert record["span_f1"][0]["rows"][0]["system"] == "A"
    assert "Span F1 by type" in render(model, "markdown") and "Span F1 by type" in render(model, "latex")
    plain = report({"A": ["a b c", "d e"], "B": ["a c", "d"]}, ["a b c", "d e f"], metrics=["bleu"], n_bootstrap=0)
    assert plain.span_f1 == () and "span_f1" not in plain.to_dict()
    assert "Span F1 by type" not in render_html(plain) and "Span F1 by type" not in render(plain, "text")


def test_the_section_renders_in_headless_chromium(model: Any, tmp_path: Path) -> None:
    path = tmp_path / "spans.html"
    path.write_text(render_html(model), encoding="utf-8")
    with browser_session() as browser:
        load = browser.open(path)
        browser.collect(load)
        assert load.errors == [] and load.foreign_requests == []
        assert browser.js("return !!document.querySelector('section#span_f1')")
        toc = browser.js("return [...document.querySelectorAll('.toc a')].map(a => a.getAttribute('href'))")
        assert "#span_f1" in toc
        cells = browser.js(
            "return [...document.querySelectorAll('#span_f1 tbody tr')]"
            ".map(tr => [...tr.children].map(td => td.textContent))"
        )
        rows = model.span_f1[0].rows
        assert len(cells) == len(rows)
        assert [c[:2] for c in cells] == [[r.system, r.type] for r in rows]
        assert cells[0][4] == f"{100 * rows[0].f1:.2f}"
        averages = browser.js("return document.querySelectorAll('#span_f1 tbody tr.span-average').length")
        assert averages == 6


def test_cli_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    systems, refs = _data()
    files = {}
    for name, sequences in [("ref", refs), *systems.items()]:
        files[name] = tmp_path / f"{name}.tags"
        files[name].write_text("".join(line + "\n" for line in _lines(sequences)), encoding="utf-8")
    out = tmp_path / "r.json"
    argv = [
        "report",
        "-m",
        "span_f1",
        "--metric-option",
        "span_mode=conlleval",
        "-r",
        str(files["ref"]),
        str(files["A"]),
    ]
    code = main([*argv, str(files["B"]), "--bootstrap", "20", "--randomization", "20", "-o", str(out), "-f", "json"])
    assert code == 0, capsys.readouterr().err
    (section,) = json.loads(out.read_text(encoding="utf-8"))["span_f1"]
    assert section["mode"] == "conlleval"
    # conlleval.pl's counts (nlpeval.span_f1 mode conlleval equals it on these sentences' goldens)
    import nlpeval

    want = nlpeval.span_f1(systems["A"], refs, mode="conlleval").components
    micro = next(r for r in section["rows"] if r["system"] == section["rows"][0]["system"] and r["type"] == "micro avg")
    assert micro["f1"] == pytest.approx(want["f1"], abs=1e-12) and micro["predicted"] == want["predicted"]


def test_cli_paired_tests_when_systems_predict_other_types(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import nlpeval
    from nlpeval.significance.paired import approximate_randomization, paired_bootstrap

    systems, refs = _data()
    systems["A"] = [[label.replace("PER", "NEW") for label in labels] for labels in systems["A"]]  # a type B lacks
    files = {}
    for name, sequences in [("ref", refs), *systems.items()]:
        files[name] = tmp_path / f"{name}.tags"
        files[name].write_text("".join(line + "\n" for line in _lines(sequences)), encoding="utf-8")
    types = tuple(sorted({label[2:] for s in [refs, *systems.values()] for labels in s for label in labels} - {""}))
    fixed = nlpeval.SpanF1(average="macro", types=types)  # the same columns, given up front
    a, b = (fixed.segment_stats(systems[k], refs) for k in ("A", "B"))
    tests = (
        ("--paired-bs", lambda: paired_bootstrap(fixed, a, b, n_resamples=200, seed=12345)),
        ("--paired-ar", lambda: approximate_randomization(fixed, a, b, n_trials=200, seed=12345)),
    )
    for flag, test in tests:
        argv = ["score", "-m", "span_f1", "--span-average", "macro", "-r", str(files["ref"]), str(files["A"])]
        assert main([*argv, str(files["B"]), flag, "--paired-n", "200", "-f", "json"]) == 0, capsys.readouterr().err
        first, second = (s["scores"]["span_f1"] for s in json.loads(capsys.readouterr().out)["systems"])
        assert first["score"] == pytest.approx(f1_score(refs, systems["A"], average="macro"), abs=1e-12)
        assert second["score"] == pytest.approx(f1_score(refs, systems["B"], average="macro"), abs=1e-12)
        assert second["p_value"] == test().p_value


def test_library_paired_tests_put_both_systems_on_one_schema() -> None:
    import nlpeval
    from nlpeval.significance.paired import approximate_randomization, paired_bootstrap
    from nlpeval.significance.poisson import paired_poisson

    refs = [["B-PER", "O"], ["B-LOC", "O"], ["B-PER", "I-PER"]]
    a_hyps = [["B-PER", "B-ORG"], ["B-LOC", "O"], ["B-PER", "I-PER"]]
    b_hyps = [["B-PER", "O"], ["O", "O"], ["B-PER", "O"]]
    metric, fixed = nlpeval.SpanF1(average="macro"), nlpeval.SpanF1(average="macro", types=("LOC", "ORG", "PER"))
    a, b = metric.segment_stats(a_hyps, refs), metric.segment_stats(b_hyps, refs)
    assert a.schema != b.schema  # B never predicts ORG
    fa, fb = fixed.segment_stats(a_hyps, refs), fixed.segment_stats(b_hyps, refs)
    for test in (
        lambda m, x, y: paired_bootstrap(m, x, y, n_resamples=100, seed=2),
        lambda m, x, y: approximate_randomization(m, x, y, n_trials=100, seed=2),
        lambda m, x, y: paired_poisson(m, x, y, n_resamples=100, seed=2),
    ):
        got, want = test(metric, a, b), test(fixed, fa, fb)
        assert (got.baseline, got.system, got.p_value) == (want.baseline, want.system, want.p_value)
        assert got.baseline == pytest.approx(f1_score(refs, a_hyps, average="macro"), abs=1e-12)
