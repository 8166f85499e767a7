"""``nlpeval ir``: trec_eval's numbers from TREC files, every format, paired tests, file:line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from nlpeval.cli.main import main


def _write(folder: Path, seed: int, n_queries: int = 40) -> tuple[str, str, str]:
    rng = np.random.default_rng(seed)
    qrels_lines, a_lines, b_lines = [], [], []
    for q in range(n_queries):
        for d in rng.choice(30, 10, replace=False):
            qrels_lines.append(f"t{q} 0 doc{d} {int(rng.integers(0, 3))}")
        for lines, tag in ((a_lines, "A"), (b_lines, "B")):
            for rank, d in enumerate(rng.choice(40, 20, replace=False)):
                lines.append(f"t{q} Q0 doc{d} {rank + 1} {round(float(rng.normal()), 1)} {tag}")
    paths = []
    for name, lines in (("qrels", qrels_lines), ("a.run", a_lines), ("b.run", b_lines)):
        (folder / name).write_text("\n".join(lines) + "\n")
        paths.append(str(folder / name))
    return paths[0], paths[1], paths[2]


def test_json_equals_trec_eval_with_paired_tests(tmp_path: Path, capsys) -> None:
    qrels, a, b = _write(tmp_path, 1)
    code = main(["ir", "-q", qrels, a, b, "-m", "map,ndcg@10,P@5", "--paired", "fisher", "--paired-n", "500"])
    assert code == 0
    capsys.readouterr()
    assert main(["ir", "-q", qrels, a, b, "-m", "map,ndcg@10,P@5", "--format", "json", "--per-query"]) == 0
    payload = json.loads(capsys.readouterr().out)
    with open(qrels) as handle:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(handle), {"map", "ndcg_cut.10", "P.5"})
    for entry, path in zip(payload["runs"], (a, b), strict=True):
        with open(path) as handle:
            reference = evaluator.evaluate(pytrec_eval.parse_run(handle))
        assert entry["name"] == path and entry["tag"] == ("A" if path == a else "B")
        for name in ("map", "ndcg_cut_10", "P_5"):
            expected = [reference[q][name] for q in sorted(reference)]
            assert entry["per_query"] == {q: entry["per_query"][q] for q in sorted(reference)}
            np.testing.assert_allclose([entry["per_query"][q][name] for q in sorted(reference)], expected, atol=1e-12)
            assert entry["scores"][name]["score"] == pytest.approx(np.mean(expected), abs=1e-12)


@pytest.mark.parametrize("fmt", ["text", "csv", "markdown", "latex"])
def test_every_format_renders(tmp_path: Path, fmt: str, capsys) -> None:
    qrels, a, b = _write(tmp_path, 2)
    out = tmp_path / "out.txt"
    argv = ["ir", "-q", qrels, a, b, "-m", "map,mrr@10", "--format", fmt, "-o", str(out), "--paired", "randomization"]
    assert main([*argv, "--paired-n", "200"]) == 0
    text = out.read_text().replace("\\_", "_")  # LaTeX escapes underscores
    assert a in text and b in text
    assert ("RR@10" in text) if fmt != "csv" else ("recip_rank_cut_10" in text)


def test_paired_json_has_holm_adjusted_p_values(tmp_path: Path, capsys) -> None:
    from statsmodels.stats.multitest import multipletests

    qrels, a, b = _write(tmp_path, 3)
    c = str(tmp_path / "c.run")
    Path(c).write_text(Path(b).read_text().replace(" B\n", " C\n").replace("doc1 ", "doc2 ", 3))
    argv = ["ir", "-q", qrels, a, b, c, "-m", "map", "--paired", "fisher", "--paired-n", "300", "-f", "json"]
    assert main(argv) == 0
    tests = json.loads(capsys.readouterr().out)["paired"]["tests"]
    assert [t["run"] for t in tests] == [b, c]
    expected = multipletests([t["p_value"] for t in tests], method="holm")[1]
    np.testing.assert_allclose([t["p_adjusted"] for t in tests], expected, atol=1e-15)
    assert main(["ir", "-q", qrels, a, a]) == 2
    assert "a run file is given twice" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("qrels_text", "run_text", "message"),
    [
        ("t1 0 d1\n", "t1 Q0 d1 1 1.0 x\n", "qrels:1: expected 4 fields"),
        ("t1 0 d1 1\n", "t1 Q0 d1 1 1.0 x\nt1 Q0 d1 2 0.5 x\n", "run:2: document 'd1' ranked twice"),
        ("t1 0 d1 1\n", "t1 Q0 d1 1 NaN x\n", "run:1: score is NaN"),
        ("t1 0 d1 1\n", "t1 Q0 d1 1 1.0\n", "run:1: expected 6 fields"),
        ("t1 0 d1 1\n", "t2 Q0 d1 1 1.0 x\n", "run: no query has both a ranking and judgements"),
    ],
)
def test_bad_input_is_one_line_with_file_and_line(tmp_path: Path, qrels_text, run_text, message, capsys) -> None:
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(run_text)
    assert main(["ir", "-q", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("nlpeval ir: error: ") and message in err


def test_unjudged_queries_are_left_out_with_a_note_or_refused_with_strict(tmp_path: Path, capsys) -> None:
    (tmp_path / "qrels").write_text("t1 0 d1 1\nt3 0 d3 1\n")
    (tmp_path / "run").write_text("t1 Q0 d1 1 1.0 x\nt2 Q0 d1 1 1.0 x\nt2 Q0 d2 2 0.5 x\n")
    run, qrels = str(tmp_path / "run"), str(tmp_path / "qrels")
    assert main(["ir", "-q", qrels, run, "-m", "map", "-f", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split(",")[1] == "1.0"  # t1 only, as trec_eval
    assert f"{run}:2: 1 queries without judgements (first 't2') left out" in captured.err
    assert "1 judged queries not ranked: left out (-c scores them 0)" in captured.err
    assert main(["ir", "-q", qrels, run, "-m", "map", "-f", "csv", "-c"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split(",")[1] == "0.5"  # t1 = 1, t3 = 0
    assert main(["ir", "-q", qrels, run, "--strict"]) == 2
    assert f"{run}:2: query 't2' has no judgements" in capsys.readouterr().err


def test_quiet_still_works_beside_q_for_qrels(tmp_path: Path, capsys) -> None:
    qrels, a, _ = _write(tmp_path, 4, n_queries=3)
    assert main(["ir", "-q", qrels, a, "--quiet", "-m", "P@5"]) == 0
    assert "P@5" in capsys.readouterr().out


def test_run_from_stdin(tmp_path: Path, monkeypatch, capsys) -> None:
    import io
    import sys

    (tmp_path / "qrels").write_text("t1 0 d1 1\nt1 0 d2 1\n")
    stdin = io.TextIOWrapper(io.BytesIO(b"t1 Q0 d2 1 2.0 x\nt1 Q0 d1 2 1.0 x\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["ir", "-q", str(tmp_path / "qrels"), "-", "-m", "P@1,map", "-f", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("<stdin>,1.0,1.0,")
    assert main(["ir", "-q", "-", "-", "-m", "map"]) == 2
    assert "only one input can be stdin" in capsys.readouterr().err


def test_report_task_ir(tmp_path: Path, capsys) -> None:
    qrels, a, b = _write(tmp_path, 5)
    out = tmp_path / "report.json"
    argv = ["report", "--task", "ir", "--qrels", qrels, a, b, "-m", "map,ndcg@10", "--bootstrap", "200", "-o", str(out)]
    assert main(argv) == 0
    payload = json.loads(out.read_text())
    assert payload["task"] == "ir" and payload["systems"] == ["a.run", "b.run"]
    with open(qrels) as handle:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(handle), {"map", "ndcg_cut.10"})
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in payload["leaderboard"]["cells"]}
    for name, path in (("a.run", a), ("b.run", b)):
        with open(path) as handle:
            reference = evaluator.evaluate(pytrec_eval.parse_run(handle))
        for measure in ("map", "ndcg_cut_10"):
            assert cells[name, measure] == pytest.approx(np.mean([v[measure] for v in reference.values()]), abs=1e-12)
    (test,) = payload["leaderboard"]["vs_baseline"][:1]
    assert test["system"] == "b.run" and test["other"] == "a.run"
    buckets = payload["buckets"][0]
    assert buckets["by"] == "relevant-documents"
    assert sum(row["cells"][0]["estimate"]["n"] for row in buckets["rows"]) == 40
    html = tmp_path / "report.html"
    assert main(["report", "--task", "ir", "--qrels", qrels, a, b, "--bootstrap", "50", "-o", str(html)]) == 0
    assert "a.run" in html.read_text()
    assert main(["report", "--task", "ir", a, b]) == 2
    assert "--task ir needs --qrels" in capsys.readouterr().err
