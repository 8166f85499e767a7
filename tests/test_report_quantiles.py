"""``--buckets quantile`` / ``report(buckets="quantile", quantiles=N)``: equal-frequency buckets checked
against edges computed from the sorted data, sacreBLEU on exactly each bucket's segments, the core
bootstrap, and bad values (ValueError in the API; one line, exit 2, no file on the command line)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.cli.main import main
from nlpeval.significance.bootstrap import bootstrap_interval
from nlpeval.significance.paired import paired_bootstrap


def _lower_edges(values: list[float], n: int) -> list[float]:
    """``method="lower"`` quantiles by integer arithmetic on the sorted values: ``sorted[floor(k (m - 1) / n)]``,
    without repeats and without the minimum (it would leave the first bucket empty)."""
    ordered = sorted(values)
    edges = sorted({ordered[(k * (len(ordered) - 1)) // n] for k in range(1, n)})
    return [e for e in edges if e > ordered[0]]


def _members(values: list[float], row_index: int, edges: list[float]) -> list[int]:
    low = edges[row_index - 1] if row_index else -np.inf
    high = edges[row_index] if row_index < len(edges) else np.inf
    return [i for i, x in enumerate(values) if low <= x < high]


def model_buckets(key: str, name: str, model):
    return next(t for t in model.buckets if t.id == f"{name}-by-quantile-{key}")


@pytest.fixture(scope="module")
def ted(compare_mt):
    systems = {"sys1": compare_mt["ted.sys1.eng"], "sys2": compare_mt["ted.sys2.eng"]}
    # any second text of the same segments stands in for a source: the detokenised reference
    source = compare_mt["ted.ref.detok.eng"]
    model = nlpeval.report(
        systems,
        compare_mt["ted.ref.eng"],
        sources=source,
        metrics=("bleu", "chrf"),
        buckets="quantile",
        quantiles=5,
        n_bootstrap=100,
        n_randomization=10,
        seed=3,
    )
    return systems, compare_mt["ted.ref.eng"], source, model


def test_length_quantiles_are_sacrebleu_on_each_buckets_segments(ted):
    import sacrebleu
    from statsmodels.stats import multitest

    systems, refs, source, model = ted
    assert model.provenance.options["quantiles"] == 5
    for key, texts in (("ref-length", refs), ("src-length", source)):
        lengths = [len(t.strip().split(" ")) for t in texts]
        edges = _lower_edges(lengths, 5)
        assert np.array_equal(
            edges, [e for e in np.unique(np.quantile(lengths, np.linspace(0, 1, 6)[1:-1], method="lower"))]
        )
        for name, metric, reference in (
            ("bleu", nlpeval.BLEU(), lambda h, r: sacrebleu.corpus_bleu(h, [r]).score / 100),
            ("chrf", nlpeval.CHRF(), lambda h, r: sacrebleu.corpus_chrf(h, [r]).score / 100),
        ):
            table = next(t for t in model.buckets if t.id == f"{name}-by-quantile-{key}")
            if name == "chrf" and key == "src-length":  # the same code path as ref-length: membership only
                assert list(table.segment_buckets) == list(model_buckets(key, "bleu", model).segment_buckets)
                continue
            assert table.by == f"quantile:{key}" and table.kind == "sentence" and not table.depends_on_hypothesis
            assert table.title.endswith("quintiles")
            assert len(table.rows) == len(edges) + 1 == 5 and table.note is None
            bounds = [min(lengths), *edges, max(lengths)]
            tested = []
            for b, row in enumerate(table.rows):
                closing = "]" if b == len(edges) else ")"
                assert row.label == f"[{bounds[b]},{bounds[b + 1]}{closing}"
                members = _members(lengths, b, edges)
                assert [i for i, x in enumerate(table.segment_buckets) if x == b] == members
                sub_ref = [refs[i] for i in members]
                stats = {
                    s: metric.segment_stats([h[i] for i in members], [[r] for r in sub_ref]) for s, h in systems.items()
                }
                for cell in row.cells:
                    assert cell.estimate.n == len(members)
                    hyps = [systems[cell.system][i] for i in members]
                    assert cell.estimate.value == pytest.approx(reference(hyps, sub_ref), abs=1e-12)
                    if name == "bleu" and key == "ref-length":  # intervals, tests: the core bootstrap on the subset
                        ci = bootstrap_interval(metric, stats[cell.system], n_resamples=100, seed=3)
                        assert (cell.estimate.low, cell.estimate.high) == (ci.low, ci.high)
                    if cell.system == "sys2":
                        if name == "bleu" and key == "ref-length":
                            boot = paired_bootstrap(metric, stats["sys1"], stats["sys2"], n_resamples=100, seed=3)
                            assert cell.p_value == boot.p_value
                        tested.append(cell)
                    else:
                        assert cell.marker is None
            adjusted = multitest.multipletests([c.p_value for c in tested], method="fdr_bh")[1]
            for cell, q in zip(tested, adjusted, strict=True):
                assert cell.p_adjusted == pytest.approx(q, abs=1e-15)
                assert (cell.marker != "") == (q < 0.05)


def test_length_difference_and_sentence_score_use_the_baselines_edges(ted):
    import sacrebleu

    systems, refs, _, model = ted
    diffs = {
        s: [len(h.strip().split(" ")) - len(r.strip().split(" ")) for h, r in zip(hyps, refs, strict=True)]
        for s, hyps in systems.items()
    }
    chrf = sacrebleu.metrics.CHRF()
    scores = {
        s: [chrf.sentence_score(h, [r]).score for h, r in zip(hyps, refs, strict=True)]  # the leaderboard's scale
        for s, hyps in systems.items()
    }
    for table_id, by, values in (
        ("count-by-quantile-length-diff", "quantile:length-diff", diffs),
        ("count-by-quantile-sentence-chrf", "quantile:sentence-score:chrf", scores),
    ):
        table = next(t for t in model.buckets if t.id == table_id)
        assert table.by == by and table.statistic == "count" and table.depends_on_hypothesis
        assert table.note.startswith("edges: the baseline sys1's quantiles") and table.title.endswith(
            "quintiles of sys1"
        )
        edges = _lower_edges(values["sys1"], 5)
        assert [r.lower for r in table.rows[1:]] == pytest.approx(edges, abs=1e-12)
        pooled = values["sys1"] + values["sys2"]
        assert (table.rows[0].lower, table.rows[-1].upper) == pytest.approx((min(pooled), max(pooled)), abs=1e-12)
        edges = [r.lower for r in table.rows[1:]]  # the exact floats, for membership
        for s in systems:
            counts = [next(c for c in row.cells if c.system == s).estimate.n for row in table.rows]
            expected = [_members(values[s], b, edges) for b in range(len(table.rows))]
            assert counts == [len(m) for m in expected]
            assert [
                [i for i, x in enumerate(table.segment_buckets_by_system[s]) if x == b] for b in range(len(edges) + 1)
            ] == expected
        if by.endswith("chrf"):  # few ties: the baseline's own segments split (almost) evenly
            base = [next(c for c in row.cells if c.system == "sys1").estimate.n for row in table.rows]
            assert max(base) - min(base) <= 3
    ids = {t.id for t in model.buckets}
    # one sentence BLEU: sacreBLEU's (compare-mt's is the compare-mt preset's)
    assert "count-by-quantile-sentence-bleu" in ids and "count-by-quantile-sentence-sentbleu" not in ids


def test_ties_merge_buckets_and_say_so():
    refs = ["a", "a", "a", "a", "a b", "a b c", "a b c d", "a b c d e"]
    hyps = {"A": refs, "B": ["a"] * len(refs)}
    model = nlpeval.report(hyps, refs, metrics=("chrf",), buckets="quantile", quantiles=4, n_bootstrap=0)
    table = next(t for t in model.buckets if t.id == "chrf-by-quantile-ref-length")
    # sorted[floor(k * 7 / 4)] = 1, 1, 3: edges {3} once the minimum is dropped -> 2 buckets
    assert [r.label for r in table.rows] == ["[1,3)", "[3,5]"]
    assert [r.cells[0].estimate.n for r in table.rows] == [5, 3]
    assert table.note.startswith("2 buckets instead of 4")
    from nlpeval.reports.render import render

    for fmt in ("text", "markdown"):  # the note shows with the table's title
        assert f"{table.title} ({table.note})" in render(model, fmt)
    assert all(r.few for r in table.rows)  # fewer than 10 segments each


@pytest.mark.parametrize("bad", [1, 0, -3, 9, 2.5, True, "4", None])
def test_bad_quantiles_are_a_value_error(bad):
    refs = ["a b", "c d e", "f", "g h i j", "k", "l m", "n o p", "q"]
    with pytest.raises(ValueError, match=r"quantiles must be an integer from 2 to the number of segments \(8\)"):
        nlpeval.report({"A": refs}, refs, metrics=("chrf",), buckets="quantile", quantiles=bad, n_bootstrap=0)


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--buckets", "quantile", "--quantiles", "1"], "--quantiles: expected an integer from 2 to 5"),
        (["--buckets", "quantile", "--quantiles", "6"], "--quantiles: expected an integer from 2 to 5"),
        (["--buckets", "quantile", "--quantiles", "abc"], "--quantiles: expected an integer from 2 to 5"),
        (["--buckets", "quantile", "--quantiles", "2.5"], "--quantiles: expected an integer from 2 to 5"),
        (["--quantiles", "3"], "--quantiles needs --buckets quantile"),
    ],
)
def test_cli_bad_quantiles_one_line_exit_2_no_file(tmp_path, capsys, extra, message):
    ref = _write(tmp_path / "ref.txt", ["a b c", "d e", "f g h i", "j", "k l"])
    hyp = _write(tmp_path / "hyp.txt", ["a b", "d e", "f g h", "j k", "k l"])
    out = tmp_path / "r.json"
    assert main(["report", "-r", ref, "-m", "chrf", "--bootstrap", "10", *extra, "-o", str(out), hyp]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hyp.txt", "ref.txt"]  # no output, no temporary file


def test_cli_default_quantiles_need_four_segments(tmp_path, capsys):
    ref = _write(tmp_path / "ref.txt", ["a b c", "d e", "f"])
    out = tmp_path / "r.json"
    assert main(["report", "-r", ref, "-m", "chrf", "--buckets", "quantile", "-o", str(out), ref]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--quantiles" in err and not out.exists()


def test_cli_json_equals_the_api_and_the_page_lists_the_buckets(tmp_path):
    refs = [" ".join(f"w{j}" for j in range(1 + (i * 7) % 13)) for i in range(40)]
    hyp_a = [r.rsplit(" ", 1)[0] if i % 3 else r + " x" for i, r in enumerate(refs)]
    hyp_b = [r if i % 4 else "y" for i, r in enumerate(refs)]
    paths = [_write(tmp_path / n, lines) for n, lines in (("ref.txt", refs), ("a.txt", hyp_a), ("b.txt", hyp_b))]
    argv = ["report", "-r", paths[0], "-m", "bleu,ter", "--bootstrap", "30", "--buckets", "quantile"]
    argv += ["--quantiles", "3", "--seed", "5", paths[1], paths[2]]
    assert main([*argv, "-o", str(tmp_path / "r.json")]) == 0
    assert main([*argv, "-o", str(tmp_path / "r.html")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    model = nlpeval.report(
        {"a.txt": hyp_a, "b.txt": hyp_b},
        refs,
        metrics=("bleu", "ter"),
        buckets="quantile",
        quantiles=3,
        n_bootstrap=30,
        seed=5,
    )
    quantile = [t.to_dict() for t in model.buckets if t.by.startswith("quantile:")]
    assert [t for t in data["buckets"] if t["by"].startswith("quantile:")] == json.loads(json.dumps(quantile))
    assert {t["by"] for t in quantile} == {
        "quantile:ref-length",
        "quantile:length-diff",
        "quantile:sentence-score:bleu",  # sacreBLEU's sentence BLEU only: compare-mt's is the compare-mt preset's
        "quantile:sentence-score:ter",
    }
    assert data["provenance"]["options"]["quantiles"] == 3
    from nlpeval.reports.html.data import examples_data

    browser = examples_data(data, {m["name"]: m for m in data["provenance"]["metrics"]})
    filters = {entry["id"]: entry for entry in browser["buckets"]}  # the example browser's bucket filter
    for table in quantile:
        assert filters[table["id"]]["rows"] == [row["label"] for row in table["rows"]]
        assert table["id"] in (tmp_path / "r.html").read_text(encoding="utf-8")
