"""``nlpeval meta``: scoring the MQM TED systems, the statistics against mt-metrics-eval's goldens, formats, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from meta_golden import assert_close, golden, golden_module
from nlpeval.cli.main import main

MQM = "mqm-ted-ende"


def _systems(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.glob("*.de") if p.name != "reference.de")


def _run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def mqm(shared_data: Path) -> dict[str, Any]:
    return golden_module().mqm_inputs(shared_data / MQM)


def test_meta_on_mqm_ted_equals_the_oracle(shared_data: Path, mqm: dict[str, Any], capsys: Any) -> None:
    """SPA and acc_eq of BLEU, chrF and -TER from the system files equal mt-metrics-eval's on the same scores."""
    folder = shared_data / MQM
    args = ["meta", "--human", str(folder / "mqm.tsv"), "--src", str(folder / "source.en"), "-r"]
    args += [str(folder / "reference.de"), "-m", "bleu,chrf,ter", "--k", "20", "-f", "json", *_systems(folder)]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["systems"] == mqm["systems"] and data["n_items"] == 529 and data["n_judged"] == 13 * 529
    cases = golden()["mqm"]
    for name in ("bleu", "chrf", "ter"):
        spa = {m["metric"]: m for m in data["statistics"]["spa"]["metrics"]}[name]
        assert_close(spa["statistic"], cases[f"{name}/spa"]["value"], f"{name}/spa")
        acc = {m["metric"]: m for m in data["statistics"]["acc_eq"]["metrics"]}[name]
        assert_close(acc["statistic"], cases[f"{name}/acc_eq"]["value"], f"{name}/acc_eq")
        assert acc["epsilon"] == cases[f"{name}/acc_eq"]["epsilon"]
    # system-level Pearson uses each metric's corpus score (what WMT correlates), TER negated
    import scipy.stats

    import nlpeval

    ref = (folder / "reference.de").read_text(encoding="utf-8").split("\n")[:-1]
    human = np.nanmean(mqm["human"], axis=1)
    for name in ("bleu", "ter"):
        corpus = []
        for path in _systems(folder):
            hyp = Path(path).read_text(encoding="utf-8").split("\n")[:-1]
            corpus.append(getattr(nlpeval, name)(hyp, ref).score * (-1 if name == "ter" else 1))
        expected = scipy.stats.pearsonr(human, corpus)[0]
        pearson = {m["metric"]: m for m in data["statistics"]["pearson"]["metrics"]}[name]
        assert_close(pearson["statistic"], expected, f"{name}/pearson")


def test_meta_scores_file_and_formats(tmp_path: Path, shared_data: Path, mqm: dict[str, Any], capsys: Any) -> None:
    """--scores (metric scores computed elsewhere) gives the same SPA/acc_eq; every format renders."""
    folder = shared_data / MQM
    seg_ids = sorted({int(line.split("\t")[1]) for line in (folder / "mqm.tsv").read_text().split("\n")[1:-1]})
    lines = ["system\tseg_id\tbleu\tchrf\tter"]
    for i, system in enumerate(mqm["systems"]):
        for j, seg in enumerate(seg_ids):
            values = [mqm["metrics"][m][i, j] * (-1 if m == "ter" else 1) for m in ("bleu", "chrf", "ter")]
            lines.append(f"{system}\t{seg}\t" + "\t".join(repr(float(v)) for v in values))
    scores = tmp_path / "scores.tsv"
    scores.write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = ["meta", "--human", str(folder / "mqm.tsv"), "--scores", str(scores), "--k", "0", "--stats", "spa,acc_eq"]
    code, out, err = _run([*base, "-f", "json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    cases = golden()["mqm"]
    for name in ("bleu", "chrf", "ter"):
        spa = {m["metric"]: m for m in data["statistics"]["spa"]["metrics"]}[name]
        assert_close(spa["statistic"], cases[f"{name}/spa"]["value"], f"{name}/spa")
        acc = {m["metric"]: m for m in data["statistics"]["acc_eq"]["metrics"]}[name]
        assert_close(acc["statistic"], cases[f"{name}/acc_eq"]["value"], f"{name}/acc_eq")
    expected_rows = {"bleu", "chrf", "ter"}
    for fmt, marker in (("text", "SPA"), ("markdown", "| metric |"), ("latex", r"\toprule"), ("csv", "spa_rank")):
        code, out, err = _run([*base, "-f", fmt], capsys)
        assert code == 0 and marker in out, (fmt, err)
        assert all(name in out for name in expected_rows)
    code, out, _ = _run([*base, "-f", "html", "-o", str(tmp_path / "meta.html")], capsys)
    page = (tmp_path / "meta.html").read_text(encoding="utf-8")
    assert code == 0 and page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page and "<td>bleu</td>" in page


def test_meta_bad_input_names_file_line_system_item(tmp_path: Path, capsys: Any) -> None:
    human = tmp_path / "human.tsv"
    human.write_text("system\tseg_id\tmqm\nA\t1\t-1\nA\t2\t0\nB\t1\t-5\nB\t2\t\nC\t1\t-2\nC\t2\t-3\n", encoding="utf-8")
    scores = tmp_path / "scores.tsv"
    scores.write_text("system\tseg_id\tm\nA\t1\t0.5\nA\t2\t0.7\nB\t1\t0.1\nB\t2\t0.2\nC\t1\t0.3\n", encoding="utf-8")
    code, _, err = _run(["meta", "--human", str(human), "--scores", str(scores), "--k", "0"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{human}:7: no m score for system 'C' item '2'" in err
    scores.write_text("system\tseg_id\tm\nA\t1\t0.5\nA\t2\t0.7\nB\t1\t0.1\nB\t2\t0.2\n", encoding="utf-8")
    code, _, err = _run(["meta", "--human", str(human), "--scores", str(scores), "--k", "0"], capsys)
    assert code == 2 and f"{human}:6: system 'C' has no m scores in {scores}" in err
    scores.write_text("system\tseg_id\tm\nA\t1\t0.5\nA\t1\t0.7\n", encoding="utf-8")
    code, _, err = _run(["meta", "--human", str(human), "--scores", str(scores)], capsys)
    assert code == 2 and f"{scores}:3: second row for system 'A' item '1'" in err
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\ng h\n", encoding="utf-8")
    sys_a = tmp_path / "A.txt"
    sys_a.write_text("a b c\nd e f\ng h\n", encoding="utf-8")
    code, _, err = _run(["meta", "--human", str(human), "-r", str(ref), str(sys_a)], capsys)
    assert code == 2 and "2 items but the systems have 3 lines" in err
    code, _, err = _run(["meta", "--human", str(human), "--scores", str(scores), "--stats", "nope"], capsys)
    assert code == 2 and "unknown statistic 'nope'" in err


@pytest.mark.parametrize(
    ("human", "message"),
    [
        (
            "system\tseg_id\tmqm\nA\t1\t-1\nA\t2\t0\nB\t1\t-5\nB\t2\t-1\nC\t1\tNA\nC\t2\t\n",
            ":6: system 'C' has no human score",
        ),
        ("system\tseg_id\tmqm\nA\t1\t-1\nA\t2\t0\n", ": one system ('A'); meta-evaluation compares at least two"),
        (
            "system\tseg_id\tmqm\nA\t1\t-2\nA\t2\t-2\nB\t1\t-2\nB\t2\tNA\nC\t1\t-2\nC\t2\t-2\n",
            ": every human score is -2",
        ),
    ],
)
def test_meta_unjudged_system_single_system_constant_scores(
    tmp_path: Path, capsys: Any, human: str, message: str
) -> None:
    """An all-NA system, a single system, constant human scores: one line naming the file (and line), exit 2."""
    path = tmp_path / "human.tsv"
    path.write_text(human, encoding="utf-8")
    scores = tmp_path / "scores.tsv"
    rows = "".join(f"{s}\t{i}\t{0.1 * k + 0.3 * i}\n" for k, s in enumerate("ABC") for i in (1, 2))
    scores.write_text("system\tseg_id\tm\n" + rows, encoding="utf-8")
    code, out, err = _run(["meta", "--human", str(path), "--scores", str(scores), "--k", "10"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{path}{message}" in err, err
