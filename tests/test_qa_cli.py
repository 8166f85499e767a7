"""``nlpeval squad / exact-match / mc / pass-at-k`` on line files, the official SQuAD JSON files and data-file
columns: the numbers equal the API's (whose parity is tested elsewhere); bad input is one line with file:line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nlpeval
import squad_official as official
from nlpeval.cli.main import main
from qa_data import squad_like


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _json_out(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_squad_official_files_equal_the_official_logic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = squad_like(400, seed=3)
    dataset = official.as_dataset(data["ids"], data["answers"])
    gold = tmp_path / "dev-v2.0.json"
    gold.write_text(json.dumps({"version": "v2.0", "data": dataset}), encoding="utf-8")
    preds = dict(zip(data["ids"], data["predictions"], strict=True))
    probs = dict(zip(data["ids"], data["no_answer_probs"], strict=True))
    (tmp_path / "pred.json").write_text(json.dumps(preds), encoding="utf-8")
    (tmp_path / "na.json").write_text(json.dumps(probs), encoding="utf-8")
    out = _json_out(
        capsys,
        [
            "squad",
            "--gold",
            str(gold),
            "--pred",
            str(tmp_path / "pred.json"),
            "--na-probs",
            str(tmp_path / "na.json"),
            "--version",
            "2.0",
        ],
    )["squad"]
    theirs = official.v2_evaluate(dataset, preds, probs)
    assert out["f1"] * 100 == pytest.approx(theirs["f1"], rel=1e-12)
    assert out["has_ans_exact_match"] * 100 == pytest.approx(theirs["HasAns_exact"], rel=1e-12)
    assert out["best_f1"] * 100 == pytest.approx(theirs["best_f1"], rel=1e-12)
    assert out["best_f1_thresh"] == theirs["best_f1_thresh"]


def test_squad_line_files_and_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = squad_like(300, seed=4, unanswerable=0.0)
    pred = _write(tmp_path / "pred.txt", [p.replace("\n", " ") for p in data["predictions"]])
    gold = _write(tmp_path / "gold.txt", [json.dumps(a) for a in data["answers"]])
    lines = _json_out(capsys, ["squad", "--pred", pred, "--gold", gold, "--segments"])["squad"]
    api = nlpeval.squad([p.replace("\n", " ") for p in data["predictions"]], data["answers"], segments=True)
    assert lines["f1"] == api.components["f1"] and lines["segments"] == api.segments.tolist()
    rows = [
        {"id": q, "prediction": p, "answers": a}
        for q, p, a in zip(data["ids"], data["predictions"], data["answers"], strict=True)
    ]
    jsonl = _write(tmp_path / "qa.jsonl", [json.dumps(r) for r in rows])
    shuffled = _write(tmp_path / "gold.jsonl", [json.dumps(r) for r in reversed(rows)])
    cols = _json_out(
        capsys,
        [
            "squad",
            "--pred",
            jsonl,
            "--gold",
            shuffled,
            "--pred-col",
            "prediction",
            "--gold-col",
            "answers",
            "--id-col",
            "id",
        ],
    )["squad"]
    assert cols["f1"] == pytest.approx(nlpeval.squad(data["predictions"], data["answers"]).components["f1"], rel=1e-12)


def test_squad_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pred = _write(tmp_path / "pred.txt", ["a", "b", "c"])
    gold = _write(tmp_path / "gold.txt", ['["a"]', '["b"]', ""])
    assert main(["squad", "--pred", pred, "--gold", gold]) == 2
    assert "gold.txt:3: no gold answer" in capsys.readouterr().err
    rows = [{"id": "q1", "p": "a", "g": ["a"]}, {"id": "q1", "p": "b", "g": ["b"]}]
    dup = _write(tmp_path / "dup.jsonl", [json.dumps(r) for r in rows])
    assert main(["squad", "--pred", dup, "--gold", dup, "--pred-col", "p", "--gold-col", "g", "--id-col", "id"]) == 2
    assert "dup.jsonl:2: duplicate question id 'q1' (first at" in capsys.readouterr().err
    gold_rows = _write(tmp_path / "g.jsonl", [json.dumps({"id": "q1", "g": ["a"]})])
    pred_rows = _write(tmp_path / "p.jsonl", [json.dumps({"id": "q1", "p": "a"}), json.dumps({"id": "zz", "p": "b"})])
    assert (
        main(
            ["squad", "--pred", pred_rows, "--gold", gold_rows, "--pred-col", "p", "--gold-col", "g", "--id-col", "id"]
        )
        == 2
    )
    assert "p.jsonl:2: prediction for unknown question id 'zz'" in capsys.readouterr().err
    (tmp_path / "p.json").write_text('{"q1": "a", "q1": "b"}', encoding="utf-8")
    (tmp_path / "d.json").write_text(json.dumps({"data": official.as_dataset(["q1"], [["a"]])}), encoding="utf-8")
    assert main(["squad", "--pred", str(tmp_path / "p.json"), "--gold", str(tmp_path / "d.json")]) == 2
    assert "p.json:1: duplicate question id 'q1' (first on line 1)" in capsys.readouterr().err


def test_squad_duplicate_json_ids_name_their_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the official dataset indented as the SQuAD files are, an id repeated three questions later
    dataset = official.as_dataset(["q1", "q2", "q3", "q2"], [["a"], ["b"], ["c"], ["d"]])
    gold = tmp_path / "dev.json"
    text = json.dumps({"data": dataset}, indent=1)
    gold.write_text(text, encoding="utf-8")
    lines = [i + 1 for i, line in enumerate(text.split("\n")) if '"id": "q2"' in line]
    assert len(lines) == 2
    pred = tmp_path / "pred.json"
    pred.write_text('{\n "q1": "a",\n "q2": "b",\n "q3": "c",\n "q2": "x"\n}\n', encoding="utf-8")
    assert main(["squad", "--pred", str(pred), "--gold", str(gold)]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(f"{gold}:{lines[1]}: duplicate question id 'q2' (first on line {lines[0]})")
    )
    unique = official.as_dataset(["q1", "q2", "q3"], [["a"], ["b"], ["c"]])
    gold.write_text(json.dumps({"data": unique}, indent=1), encoding="utf-8")
    assert main(["squad", "--pred", str(pred), "--gold", str(gold)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"{pred}:5: duplicate question id 'q2' (first on line 3)")
    pred.write_text('{"q1": "a", "q2": "b", "q3": "c"}', encoding="utf-8")
    probs = tmp_path / "na.json"
    probs.write_text('{"q1": 0.1,\n"q2": 0.2,\n"q3": 0.3,\n"q1": 0.4}', encoding="utf-8")
    args = ["squad", "--pred", str(pred), "--gold", str(gold), "--version", "2.0", "--na-probs", str(probs)]
    assert main(args) == 2
    assert capsys.readouterr().err.strip().endswith(f"{probs}:4: duplicate question id 'q1' (first on line 1)")


def test_exact_match_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pred = _write(tmp_path / "pred.txt", ["The answer is 42.", "#### 1,234", "no"])
    gold = _write(tmp_path / "gold.txt", ["the answer is 42", "1234", '["yes", "No"]'])
    out = _json_out(
        capsys,
        [
            "exact-match",
            "--pred",
            pred,
            "--gold",
            gold,
            "--regex",
            ",",
            "--regex",
            "#### ",
            "--ignore-case",
            "--ignore-punctuation",
        ],
    )
    assert out["exact_match"]["score"] == 1.0
    short = _write(tmp_path / "short.txt", ["x"])
    assert main(["exact-match", "--pred", pred, "--gold", short]) == 2
    assert "has 3 entries but" in capsys.readouterr().err


def test_mc_cli_line_files_and_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lls = [[-4.0, -6.0, -9.0], [-8.0, -7.5, -9.0], [-3.0, -2.5, -2.0]]
    choices = [["a cat", "a big dog", "xyzzy"], ["no", "yes please", "maybe"], ["red", "green", "navy blue"]]
    gold = [1, 1, 2]
    api = nlpeval.multiple_choice(lls, gold, choices=choices)
    ll_file = _write(tmp_path / "ll.txt", [" ".join(map(str, row)) for row in lls])
    gold_file = _write(tmp_path / "gold.txt", [str(g) for g in gold])
    choice_file = _write(tmp_path / "choices.txt", [json.dumps(c) for c in choices])
    out = _json_out(capsys, ["mc", "--ll", ll_file, "--gold", gold_file, "--choices", choice_file])["multiple_choice"]
    assert out["acc_norm"] == api.components["acc_norm"] and out["acc_stderr"] == api.components["acc_stderr"]
    data = _write(
        tmp_path / "mc.jsonl",
        [json.dumps({"ll": a, "gold": g, "choices": c}) for a, g, c in zip(lls, gold, choices, strict=True)],
    )
    cols = _json_out(capsys, ["mc", "--ll", data, "--ll-col", "ll", "--gold-col", "gold", "--choices-col", "choices"])
    assert cols["multiple_choice"]["brier_score"] == api.components["brier_score"]
    bad = _write(tmp_path / "bad.txt", ["-1 -2 -3", "-1 -2"])
    assert main(["mc", "--ll", bad, "--gold", _write(tmp_path / "g2.txt", ["0", "1"])]) == 2
    assert "bad.txt:2: 2 choices where question 0 has 3" in capsys.readouterr().err
    # a system with fewer choices than the gold answer needs: the system's line, naming the gold's
    short = _write(tmp_path / "short.txt", ["-1 -2 -3", "-1 -2"])
    gold_file = _write(tmp_path / "g4.txt", ["0", "2"])
    assert main(["mc", "--ll", short, "--gold", gold_file, "--allow-ragged"]) == 2
    assert f"short.txt:2: 2 choices, but the gold answer at {gold_file}:2 is choice index 2" in capsys.readouterr().err
    three = _write(tmp_path / "three.txt", ['["a", "b", "c"]'] * 2)
    assert (
        main(
            [
                "mc",
                "--ll",
                short,
                "--gold",
                _write(tmp_path / "g5.txt", ["0", "1"]),
                "--allow-ragged",
                "--choices",
                three,
            ]
        )
        == 2
    )
    assert "short.txt:2: 2 log-likelihoods for 3 choice texts" in capsys.readouterr().err
    nan = _write(tmp_path / "nan.txt", ["-1 -2", "-1 nan"])
    assert main(["mc", "--ll", nan, "--gold", _write(tmp_path / "g3.txt", ["0", "1"])]) == 2
    assert "nan.txt:2: NaN" in capsys.readouterr().err


def test_pass_at_k_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    correct = _write(tmp_path / "c.txt", ["0", "13", "200"])
    out = _json_out(capsys, ["pass-at-k", "--correct", correct, "--n", "200", "-k", "1", "-k", "10"])["pass_at_k"]
    assert [o["score"] for o in out] == [nlpeval.pass_at_k(200, [0, 13, 200], k).score for k in (1, 10)]
    assert main(["pass-at-k", "--correct", correct, "--n", "5", "-k", "1"]) == 2
    assert "c.txt:2: 13 correct of 5 samples" in capsys.readouterr().err
    rows = _write(tmp_path / "p.csv", ["task,n,c", "a,10,3", "b,6,4"])
    csv_out = _json_out(capsys, ["pass-at-k", "--correct", rows, "--correct-col", "c", "--n-col", "n", "-k", "5"])
    assert csv_out["pass_at_k"]["score"] == nlpeval.pass_at_k([10, 6], [3, 4], 5).score
    assert main(["pass-at-k", "--correct", rows, "--correct-col", "c", "--n-col", "n", "-k", "7"]) == 2
    assert "p.csv:3: k=7 exceeds the 6 samples" in capsys.readouterr().err


def test_score_command_runs_the_registered_qa_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref1 = _write(tmp_path / "r1.txt", ["Eiffel Tower", "1889", "x"])
    ref2 = _write(tmp_path / "r2.txt", ["the tower", "in 1887", "y"])
    hyp = _write(tmp_path / "h.txt", ["the eiffel tower!", "in 1889", "The answer: X"])
    out = _json_out(
        capsys,
        [
            "score",
            "-m",
            "squad,squad_v2,exact_match",
            "-r",
            ref1,
            "-r",
            ref2,
            hyp,
            "--em-ignore-case",
            "--em-regex",
            "^The answer: ",
        ],
    )
    scores = out["systems"][0]["scores"]
    preds = ["the eiffel tower!", "in 1889", "The answer: X"]
    golds = [["Eiffel Tower", "the tower"], ["1889", "in 1887"], ["x", "y"]]
    assert scores["squad"]["f1"] == nlpeval.squad(preds, golds).components["f1"]
    assert scores["squad_v2"]["exact_match"] == nlpeval.squad(preds, golds, version="2.0").components["exact_match"]
    em = nlpeval.exact_match(preds, golds, ignore_case=True, regexes_to_ignore=["^The answer: "])
    assert scores["exact_match"]["score"] == em.score == 1 / 3


def test_report_leaderboard_with_squad_and_exact_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = squad_like(120, seed=9, unanswerable=0.0)
    golds = [a[0].replace("\n", " ") for a in data["answers"]]
    preds = [p.replace("\n", " ") for p in data["predictions"]]
    ref = _write(tmp_path / "ref.txt", golds)
    sys_a = _write(tmp_path / "A.txt", preds)
    sys_b = _write(tmp_path / "B.txt", golds[:60] + preds[60:])
    out = tmp_path / "report.json"
    assert main(["report", "-r", ref, sys_a, sys_b, "-m", "squad,exact_match", "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    cells = {(c["system"], c["metric"]): c["estimate"] for c in json.loads(out.read_text())["leaderboard"]["cells"]}
    assert cells[("A.txt", "squad")]["value"] == pytest.approx(nlpeval.squad(preds, golds).score, rel=1e-12)
    em_b = nlpeval.exact_match(golds[:60] + preds[60:], golds).score
    assert cells[("B.txt", "exact_match")]["value"] == pytest.approx(em_b, rel=1e-12)
    assert cells[("B.txt", "squad")]["low"] < cells[("B.txt", "squad")]["value"] < cells[("B.txt", "squad")]["high"]
