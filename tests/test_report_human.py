"""``nlpeval report --human``: the "Agreement with humans" section against mt-metrics-eval on MQM TED (issue 24).

SPA and acc_eq (value, tie threshold) of the report's BLEU, chrF and TER equal mt-metrics-eval's on the
13 systems x 529 segments of the WMT21 TED MQM data (goldens of ``tests/fixtures/meta/make_golden.py`` and the
live oracle when its checkout is present); the PERM-BOTH clusters equal ``data.CompareMetrics``' for the same
draws; Pearson is SciPy's between the corpus scores and the systems' mean MQM scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.stats

import nlpeval
from meta_golden import assert_close, golden, golden_module
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.reports.analyses.human_agreement import human_agreement, human_scores
from nlpeval.reports.render import render

METRICS = ("bleu", "chrf", "ter")


def _mqm_files(folder: Path) -> tuple[list[str], list[str], dict[str, list[str]], dict[str, list[float | None]]]:
    systems = sorted(p.name.removesuffix(".de") for p in folder.glob("*.de") if p.name != "reference.de")
    ref = (folder / "reference.de").read_text(encoding="utf-8").split("\n")[:-1]
    hyps = {s: (folder / f"{s}.de").read_text(encoding="utf-8").split("\n")[:-1] for s in systems}
    rows = [line.split("\t") for line in (folder / "mqm.tsv").read_text(encoding="utf-8").split("\n")[1:-1]]
    seg_ids = sorted({int(r[1]) for r in rows})
    column = {s: j for j, s in enumerate(seg_ids)}
    human: dict[str, list[float | None]] = {s: [None] * len(ref) for s in systems}
    for system, seg, value in rows:
        human[system][column[int(seg)]] = float(value) if value else None
    return systems, ref, hyps, human


@pytest.fixture(scope="module")
def mqm_report(shared_data: Path) -> tuple[Any, dict[str, Any]]:
    systems, ref, hyps, human = _mqm_files(shared_data / "mqm-ted-ende")
    model = nlpeval.report(hyps, ref, metrics=("bleu", "chrf", "ter"), human=human, n_bootstrap=20, n_randomization=20)
    return model, {"systems": systems, "human": human}


def _oracle_mqm(shared_data: Path) -> list[dict[str, Any]]:
    """Per metric SPA and acc_eq (value, epsilon): the goldens, then mt-metrics-eval run now when present."""
    gm = golden_module()
    stored = golden()["mqm"]
    cases = [
        {
            m: (stored[f"{m}/spa"]["value"], stored[f"{m}/acc_eq"]["value"], stored[f"{m}/acc_eq"]["epsilon"])
            for m in METRICS
        }
    ]
    root = gm.find_oracle()
    if root is not None:
        stats = gm.load_oracle(root).stats
        mqm = gm.mqm_inputs(shared_data / "mqm-ted-ende")
        gold, n = gm.gold_list(mqm["human"]), len(mqm["systems"])
        live = {}
        for m in METRICS:
            flat = mqm["metrics"][m].ravel().tolist()
            value, eps, _ = stats.KendallWithTiesOpt(gold, flat, "acc23", n, "item", 1.0)
            live[m] = (stats.PairwiseConfidenceError(gold, flat, n)[0], value, eps)
        cases.append(live)
    return cases


def test_mqm_ted_agreement_equals_mt_metrics_eval(shared_data: Path, mqm_report: Any) -> None:
    model, data = mqm_report
    section = model.human_agreement
    assert section.systems == tuple(data["systems"]) and section.unjudged == () and section.notes == ()
    assert (section.n_items, section.negated) == (529, ("ter",))
    rows = {r.metric: r for r in section.rows}
    for expected in _oracle_mqm(shared_data):
        for name, (spa, acc_eq, epsilon) in expected.items():
            assert_close(rows[name].spa, spa, f"{name}/spa")
            assert_close(rows[name].acc_eq, acc_eq, f"{name}/acc_eq")
            assert rows[name].acc_eq_epsilon == epsilon, name
    human = np.array([[np.nan if v is None else v for v in data["human"][s]] for s in data["systems"]])
    board = {(c.system, c.metric): c.estimate.value for c in model.leaderboard.cells}
    for name in METRICS:
        sign = -1.0 if name == "ter" else 1.0
        corpus = [sign * board[(s, name)] for s in data["systems"]]
        expected = scipy.stats.pearsonr(corpus, np.nanmean(human, axis=1))[0]
        assert abs(rows[name].pearson - expected) <= 1e-12, name
        assert {rows[name].spa_rank, rows[name].acc_eq_rank, rows[name].pearson_rank} <= {1, 2, 3}
    # every format shows the section
    text = render(model, "text")
    assert "--- Agreement with humans (13 systems, 6877 judged" in text
    assert "| metric | SPA (rank) |" in render(model, "markdown")
    assert "Agreement with humans" in render(model, "latex")
    page = json.loads(render(model, "json"))
    assert [r["metric"] for r in page["human_agreement"]["rows"]] == ["bleu", "chrf", "ter"]
    assert 'id="human_agreement"' in render(model, "html")


def test_mqm_ted_clusters_are_compare_metrics_of_the_oracle(shared_data: Path) -> None:
    """Same draws as the goldens' ``data.CompareMetrics`` runs (k=10, block 20, seed 25): same clusters."""
    mqm = golden_module().mqm_inputs(shared_data / "mqm-ted-ende")
    systems = mqm["systems"]
    human = human_scores(dict(zip(systems, mqm["human"].tolist(), strict=True)), 529, "mqm.tsv")
    segments = {m: dict(zip(systems, matrix, strict=True)) for m, matrix in mqm["metrics"].items()}
    corpus = {m: {s: float(np.mean(v)) for s, v in per.items()} for m, per in segments.items()}
    higher = dict.fromkeys(segments, True)  # the goldens' TER is negated already
    res = human_agreement(human, segments, corpus, higher, k=10, block_size=20, seed=25)
    rows = {r.metric: r for r in res.rows}
    for cases in [golden()["mqm"]]:  # compare_metrics itself is run against the live oracle in test_meta_compare
        for stat in ("spa", "acc_eq"):
            expected = dict(zip(cases[f"compare/{stat}"]["order"], cases[f"compare/{stat}"]["ranks"], strict=True))
            assert {m: getattr(rows[m], f"{stat}_rank") for m in expected} == expected, stat
        expected = dict(zip(cases["compare/sys_pearson"]["order"], cases["compare/sys_pearson"]["values"], strict=True))
        for m, value in expected.items():
            assert_close(rows[m].pearson, value, f"{m}/sys_pearson")


def test_a_report_without_human_scores_has_no_section_key() -> None:
    model = nlpeval.report({"A": ["a b", "c d"], "B": ["a c", "c d"]}, ["a b", "c d"], n_bootstrap=10)
    assert model.human_agreement is None
    assert "human_agreement" not in json.loads(render(model, "json"))


# ------------------------------------------------------------------ bad input: named, or a documented None


HYPS = {"A": ["a b c", "d e f", "g h", "i j"], "B": ["a b", "d e", "g h i", "x"], "C": ["a", "d", "g", "i j k"]}
REFS = ["a b c", "d e f", "g h i", "i j k"]


def _agreement(human: dict[str, Any]) -> Any:
    return nlpeval.report(HYPS, REFS, metrics=("chrf", "ter"), human=human, n_bootstrap=10).human_agreement


def test_human_scores_for_an_unknown_system_or_the_wrong_count_name_the_system() -> None:
    with pytest.raises(InputError, match="system 'Z' has human scores but is not in the report"):
        _agreement({"A": [1, 2, 3, 4], "Z": [1, 2, 3, 4]})
    with pytest.raises(InputError, match="system 'B' has 3 human scores but the report has 4 segments"):
        _agreement({"A": [1, 2, 3, 4], "B": [1, 2, 3]})
    with pytest.raises(InputError, match="system 'A', segment 1: infinite score"):
        _agreement({"A": [1, float("inf"), 3, 4], "B": [1, 2, 3, 4]})


def test_degenerate_human_scores_give_documented_nones() -> None:
    single = _agreement({"A": [1, 2, 3, 4]})
    assert single.unjudged == ("B", "C")
    assert all(r.spa is None and r.acc_eq is None and r.pearson is None for r in single.rows)
    assert any("1 judged system" in n for n in single.notes)
    constant = _agreement({"A": [2, 2, 2, 2], "B": [2, 2, 2, 2], "C": [2, 2, None, 2]})
    assert all(r.spa is None and r.pearson is None for r in constant.rows)
    assert any("all equal" in n for n in constant.notes)
    unjudged = _agreement({"A": [1, 2, 3, 4], "B": [None] * 4, "C": [0, 1, 1, 2]})
    assert unjudged.systems == ("A", "C") and any("'B' has no judged segment" in n for n in unjudged.notes)
    system_level = _agreement({"A": 80.0, "B": 60.0, "C": 70.0})
    assert system_level.level == "system" and all(r.spa is None and r.pearson is not None for r in system_level.rows)


# ------------------------------------------------------------------ the command line


def _cli(tmp_path: Path, human: str, capsys: Any) -> tuple[int, str, str]:
    paths = []
    for name, lines in HYPS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(tmp_path / f"{name}.txt"))
    (tmp_path / "ref.txt").write_text("\n".join(REFS) + "\n", encoding="utf-8")
    (tmp_path / "human.tsv").write_text(human, encoding="utf-8")
    args = ["report", "-r", str(tmp_path / "ref.txt"), *paths, "-m", "chrf", "--bootstrap", "10"]
    code = main([*args, "--human", str(tmp_path / "human.tsv"), "-f", "text"])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_human_file_segment_and_system_level(tmp_path: Path, capsys: Any) -> None:
    rows = "".join(
        f"{s}\t{i}\t{v}\n"
        for s in "ABC"
        for i, v in zip("1234", [1, 3, 2, "NA"] if s == "B" else [4, 2, 1, 3], strict=True)
    )
    code, out, err = _cli(tmp_path, "system\tseg_id\tmqm\n" + rows, capsys)
    assert code == 0, err
    assert "--- Agreement with humans (3 systems" in out
    code, out, err = _cli(tmp_path, "system\tscore\nA\t3\nB\t1\nC\t2\n", capsys)
    assert code == 0, err
    assert "human scores: " in out and "SPA and acc_eq need one human score per segment" in out


@pytest.mark.parametrize(
    ("human", "message"),
    [
        (
            "system\tseg_id\tscore\n" + "".join(f"A\t{i}\t1\n" for i in range(4)) + "Z\t1\t2\n",
            "human.tsv:6: system 'Z' has human scores but is not among",
        ),
        ("system\tseg_id\tscore\nA\t1\t1\nA\t2\t2\n", "human.tsv: 2 items but the systems have 4 segments"),
        ("system\tscore\nA\t3\nA\t1\n", "human.tsv:3: second row for system 'A' (first on line 2)"),
        ("a\tb\n1\t2\n", "human.tsv:1: expected a CSV/TSV header naming system"),
        ("system\tscore\nA\tx\n", "human.tsv:2: 'x' is not a number"),
    ],
)
def test_cli_bad_human_file_is_one_line_exit_2(tmp_path: Path, capsys: Any, human: str, message: str) -> None:
    code, out, err = _cli(tmp_path, human, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_compare_mt_preset_and_other_tasks(tmp_path: Path, capsys: Any) -> None:
    """The compare-mt preset reports its BLEU's agreement; --human with --task classify is one line, exit 2."""
    human = {"A": [1.0, 3.0, 2.0, 0.0], "B": [0.0, 1.0, 2.0, 2.0], "C": [2.0, 2.0, 1.0, 0.0]}
    model = nlpeval.report(HYPS, REFS, preset="compare-mt", human=human, n_bootstrap=10)
    assert [r.metric for r in model.human_agreement.rows] == list(model.leaderboard.metrics)
    (tmp_path / "gold.txt").write_text("a\nb\n", encoding="utf-8")
    (tmp_path / "h.tsv").write_text("system\tscore\nA\t1\n", encoding="utf-8")
    code = main(
        [
            "report",
            "--task",
            "classify",
            "--gold",
            str(tmp_path / "gold.txt"),
            "--pred",
            str(tmp_path / "gold.txt"),
            "--human",
            str(tmp_path / "h.tsv"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "--human applies to generation reports, not --task classify" in err
