"""Fixes from the review of ``nlpeval report``: resamples for large test families, API metrics, empty buckets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.reports.analyses.leaderboard import family_resamples, leaderboard
from nlpeval.significance.paired import paired_bootstrap


def test_family_resamples_make_holm_reachable():
    for n_tests in (1, 15, 120, 496):
        r = family_resamples(1000, n_tests, 0.05)
        assert r >= 1000
        # a pair the null never reaches (count 0) is still significant after Holm
        assert n_tests / (r + 1) < 0.05 / 2 + 1e-12
    assert family_resamples(1000, 0, 0.05) == 1000
    assert family_resamples(20_000, 120, 0.05) == 20_000


def test_wmt17_clusters_separate_systems(wmt17):
    from statsmodels.stats import multitest

    refs = [[r] for r in wmt17["reference"]]
    systems = [s for s in wmt17 if s != "reference"]
    assert len(systems) == 16
    metric = nlpeval.BLEU()
    stats = {"bleu": {s: metric.segment_stats(wmt17[s], refs) for s in systems}}
    board = leaderboard(
        systems,
        {"bleu": metric},
        stats,
        higher_is_better={"bleu": True},
        baseline=systems[0],
        n_bootstrap=1000,
        n_randomization=0,
        seed=12345,
    )
    clusters = [c.systems for c in board.clusters]
    assert len(clusters) >= 4, clusters
    scores = {c.system: c.estimate.value for c in board.cells}
    best, worst = max(scores, key=scores.get), min(scores, key=scores.get)
    assert best in clusters[0] and worst in clusters[-1] and best not in clusters[-1]
    # the best system (uedin-nmt, about 28 BLEU) is significantly ahead of the rule-based one (about 16)
    pair = next(t for t in board.all_pairs if {t.system, t.other} == {best, worst})
    assert pair.significant and pair.p_holm < 0.05
    # Holm over the 120 raw bootstrap p-values equals statsmodels
    raw = [t.p_bootstrap for t in board.all_pairs]
    assert len(raw) == 120
    np.testing.assert_allclose(
        [t.p_holm for t in board.all_pairs], multitest.multipletests(raw, method="holm")[1], rtol=0, atol=1e-15
    )
    # the raw p-values are nlpeval.paired_bootstrap's with the family's resample count
    r = family_resamples(1000, 120, 0.05)
    a, b = systems[3], systems[5]
    pair = next(t for t in board.all_pairs if (t.system, t.other) == (b, a))
    expected = paired_bootstrap(metric, stats["bleu"][a], stats["bleu"][b], n_resamples=r, seed=12345)
    assert pair.p_bootstrap == pytest.approx(expected.p_value, abs=1e-15)


def _score_metric_names() -> list[str]:
    from nlpeval.metrics import registry

    # without options: not the metrics that need a model file (none offline) or the sources (SARI: the
    # report hands sources only to the neural metrics so far), nor span_f1 (its lines are label sequences)
    return [
        e.name
        for e in registry.entries()
        if e.pattern is None and e.family != "rouge" and not (e.needs_model or e.needs_sources) and e.name != "span_f1"
    ] + [
        "rouge1",
        "rouge2",
        "rougeL",
        "rougeLsum",
        "rougeW-1.2",
        "rougeS4",
        "rougeSU4",
    ]


@pytest.mark.parametrize("name", _score_metric_names())
def test_api_any_score_metric_without_options(name):
    hyps = {"A": ["the cat sat on the mat", "a dog ran"], "B": ["the cat on a mat", "the dog ran fast"]}
    refs = ["the cat sat on the mat", "the dog ran"]
    model = nlpeval.report(hyps, refs, metrics=(name,), n_bootstrap=20, n_randomization=20)
    assert [c.metric for c in model.leaderboard.cells] == [name, name]
    if name == "rougeLsum":
        assert model.summarization.lsum_sentence_splitter == "newline"
        with_options = nlpeval.report(
            hyps,
            refs,
            metrics=(name,),
            n_bootstrap=20,
            n_randomization=20,
            metric_options={"sentence_splitter": "simple"},
        )
        assert with_options.summarization.lsum_sentence_splitter == "simple"


def test_empty_and_one_sided_buckets_are_not_tested():
    from nlpeval.reports.demo import demo_lines
    from nlpeval.reports.render import render

    refs = demo_lines("ref.en")
    # B writes only unknown words: its output-word buckets other than "<1" are empty, A's are not
    model = nlpeval.report(
        {"A": demo_lines("system-a.en"), "B": ["zzz qqq"] * len(refs)},
        refs,
        metrics=("bleu",),
        n_bootstrap=200,
        n_randomization=0,
    )
    prec = next(t for t in model.buckets if t.id == "word-prec-frequency")
    checked = 0
    for row in prec.rows:
        a, b = row.cells
        assert a.p_value is None and a.marker is None
        if a.estimate.n == 0 or b.estimate.n == 0:
            assert b.p_value is None and b.p_adjusted is None and b.marker is None, row
            checked += 1
        else:
            assert b.p_value is not None
    assert checked >= 2
    assert any(b.estimate.n == 0 and a.estimate.n > 0 for a, b in (r.cells for r in prec.rows))
    for table in model.buckets:
        for row in table.rows:
            for cell in row.cells:
                if cell.estimate.n == 0:
                    assert cell.p_value is None and cell.marker is None, (table.id, row.label)
    # an empty cell shows "–" (no value, interval or test), not "0.0000 [0.0000, 0.0000] n=0"
    text = render(model, "text")
    block = text.split("--- word precision by frequency")[1].split("\n\n")[0]
    empty_rows = [line for line in block.splitlines()[2:] if line.rstrip().endswith("–")]
    assert len(empty_rows) == checked and "n=0" not in block
    page = render(model, "html")
    assert '<span class="val">–</span>' in page


def test_figures_with_long_system_names_fit_without_warnings(tmp_path):
    import warnings

    import matplotlib  # noqa: F401 - the test needs it installed

    from nlpeval.reports.figures import write_figures

    long = [
        "uedin-nmt-ensemble-of-eight-right-to-left-reranked-models-submission-4722",
        "LMU-nmt-reranked-with-a-very-long-descriptive-name-that-goes-on-4934",
        "PROMT-Rule-based-system-with-an-even-longer-name-for-the-figure-4735",
        "online-B",
    ]
    refs = ["the cat sat on the mat", "the dog ran", "a bird sang in the tree", "it rained all day"]
    hyps = [
        ["the cat sat on the mat", "the dog ran", "a bird sang in a tree", "it rained all day"],
        ["the cat on a mat", "the dog ran fast", "a bird sang", "it rained"],
        ["cat mat", "dog", "bird tree", "rain day"],
        ["the cat sat on a mat", "a dog ran", "the bird sang in the tree", "it rained the whole day"],
    ]
    model = nlpeval.report(
        dict(zip(long, hyps, strict=True)), refs, metrics=("bleu", "chrf"), n_bootstrap=20, n_randomization=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paths = write_figures(model, tmp_path, formats=("svg",))
    assert paths
    board = (tmp_path / "leaderboard.svg").read_text(encoding="utf-8")
    # the full names are kept in the figure (a key), the tick labels are short
    for name in long:
        assert name in board


@pytest.mark.parametrize(
    ("metric", "score_options", "report_options"),
    [
        ("meteor", [], []),
        (
            "meteor",
            ["--meteor-norm", "--meteor-modules", "exact,stem"],
            ["--metric-option", "meteor_norm=true", "--metric-option", "meteor_modules=exact,stem"],
        ),
        ("rougeLsum", [], []),
        ("rougeLsum", ["--sentence-splitter", "simple"], ["--metric-option", "sentence_splitter=simple"]),
        ("wer", [], []),
        ("wer", ["--lowercase"], ["--lowercase"]),
    ],
)
def test_report_scores_equal_nlpeval_score(shared_data, tmp_path, capsys, metric, score_options, report_options):
    import json

    from nlpeval.cli.main import main

    folder = shared_data / "compare-mt"
    files = []
    for name in ("ted.ref.eng", "ted.sys1.eng", "ted.sys2.eng"):
        path = tmp_path / name
        lines = (folder / name).read_text(encoding="utf-8").split("\n")[:400]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    ref, *systems = files
    assert main(["score", "-f", "json", "-m", metric, *score_options, "-r", ref, *systems]) == 0
    scored = json.loads(capsys.readouterr().out)
    expected = {Path(s["name"]).name: s["scores"][metric] for s in scored["systems"]}
    out = tmp_path / "report.json"
    argv = ["report", "-q", "-m", metric, *report_options, "--bootstrap", "20", "--randomization", "0"]
    assert main([*argv, "-r", ref, "-o", str(out), *systems]) == 0
    model = json.loads(out.read_text(encoding="utf-8"))
    got = {c["system"]: c["estimate"]["value"] for c in model["leaderboard"]["cells"]}
    assert got == {name: expected[name]["score"] for name in got}
    signature = next(m["signature"] for m in model["provenance"]["metrics"] if m["name"] == metric)
    assert signature == next(iter(expected.values()))["signature"]


def _report_json(argv, tmp_path, name):
    import json

    from nlpeval.cli.main import main

    out = tmp_path / name
    assert main(["report", "-q", "--bootstrap", "50", "--randomization", "50", "-o", str(out), *argv]) == 0
    model = json.loads(out.read_text(encoding="utf-8"))
    del model["provenance"]["inputs"], model["provenance"]["command"]
    return model


def test_report_from_data_files_equals_line_files(tmp_path, capsys):
    import json

    from nlpeval.cli.main import main
    from nlpeval.reports.demo import demo_lines

    refs = demo_lines("ref.en")
    hyps = {"A": demo_lines("system-a.en"), "B": demo_lines("system-b.en")}
    for name, lines in [("ref", refs), *hyps.items()]:
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = [str(tmp_path / "A"), str(tmp_path / "B")]
    expected = _report_json(["-r", str(tmp_path / "ref"), *lines], tmp_path, "lines.json")
    # one long JSONL file: a row per system and segment, ids shuffled, references as a list column
    rows = [
        {"id": i, "model": s, "output": hyps[s][i], "refs": [refs[i]]}
        for i in reversed(range(len(refs)))
        for s in ("A", "B")
    ]
    rows.sort(key=lambda r: (r["model"] != "A", r["id"] % 3, r["id"]))
    data = tmp_path / "evals.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    order = sorted(range(len(refs)), key=lambda i: (i % 3, i))
    # without --id-col the rows are in file order: the line files in that order are the reference
    for name, values in [("ref", refs), *hyps.items()]:
        (tmp_path / f"{name}.o").write_text("\n".join(values[i] for i in order) + "\n", encoding="utf-8")
    shuffled = _report_json(
        [
            "-r",
            str(tmp_path / "ref.o"),
            "--metric-option",
            "tokenize=13a",
            str(tmp_path / "A.o"),
            str(tmp_path / "B.o"),
        ],
        tmp_path,
        "shuffled.json",
    )
    got = _report_json(
        [
            "--hyp-col",
            "output",
            "--ref-col",
            "refs",
            "--system-col",
            "model",
            "--metric-option",
            "tokenize=13a",
            str(data),
        ],
        tmp_path,
        "data.json",
    )
    shuffled["systems"] = got["systems"]
    assert json.dumps(got["leaderboard"]["cells"]) == json.dumps(shuffled["leaderboard"]["cells"]).replace(
        "A.o", "A"
    ).replace("B.o", "B")
    # with --id-col the segments follow the first system's id order; sorted ids give the line files' report
    rows.sort(key=lambda r: (r["model"], r["id"]))
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    aligned = _report_json(
        ["--hyp-col", "output", "--ref-col", "refs", "--system-col", "model", "--id-col", "id", str(data)],
        tmp_path,
        "aligned.json",
    )
    assert aligned == expected
    # references from -r line files work too
    assert (
        _report_json(
            ["--hyp-col", "output", "--system-col", "model", "-r", str(tmp_path / "ref"), str(data)], tmp_path, "r.json"
        )
        == expected
    )
    # bad input: file:row, exit 2, nothing written
    bad = [{"model": "A", "output": "a", "refs": ["x"]}, {"model": "A", "output": 3, "refs": ["y"]}]
    data.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
    out = tmp_path / "bad.html"
    argv = ["report", "--hyp-col", "output", "--ref-col", "refs", "--system-col", "model", "-o", str(out), str(data)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{data}:2: 'output' is not text" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
