"""``nlpeval report --task qa`` with no-answer probabilities and question texts: the official SQuAD v2.0 files
(dataset JSON, ``{id: answer}`` predictions, the script's ``--na-prob-file`` ``{id: probability}``) and line
files. Leaderboard values and each system's best_exact/best_f1 and thresholds equal the official v2.0 script's
logic (tests/squad_official.py) run on the same files; bad ids are one line naming file:line, exit 2."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import squad_official as official
from nlpeval.cli.main import main
from qa_data import perturb, squad_like

N = 400


@pytest.fixture(scope="module")
def data() -> dict:
    base = squad_like(N, seed=23)
    rng = random.Random(5)
    other = [perturb(rng, p) if rng.random() < 0.5 else p for p in base["predictions"]]
    probs_b = [round(rng.random(), 2) for _ in range(N)]  # two decimals: many ties between questions
    base["systems"] = {"A": base["predictions"], "B": other}
    base["probs"] = {"A": base["no_answer_probs"], "B": probs_b}
    base["questions"] = [
        f"Question {i}: what is «{' '.join(a[0].split()) if a else 'nothing'}»?" for i, a in enumerate(base["answers"])
    ]
    return base


def _official_files(folder: Path, data: dict) -> tuple[Path, list[Path], list[Path]]:
    dataset = official.as_dataset(data["ids"], data["answers"])
    for qa, question in zip(dataset[0]["paragraphs"][0]["qas"], data["questions"], strict=True):
        qa["question"] = question
    gold = folder / "dev-v2.0.json"
    gold.write_text(json.dumps({"version": "v2.0", "data": dataset}, indent=1, ensure_ascii=False), encoding="utf-8")
    preds, probs = [], []
    for name in data["systems"]:
        preds.append(folder / f"{name}.json")
        answers = dict(zip(data["ids"], data["systems"][name], strict=True))
        preds[-1].write_text(json.dumps(answers, indent=0, ensure_ascii=False), encoding="utf-8")
        probs.append(folder / f"{name}.na.json")
        probs[-1].write_text(json.dumps(dict(zip(data["ids"], data["probs"][name], strict=True)), indent=2))
    return gold, preds, probs


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main([*argv, "--bootstrap", "20", "-f", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("threshold", [1.0, 0.5])
def test_official_files_equal_the_official_v2_script(data, tmp_path, capsys, threshold):
    gold, preds, probs = _official_files(tmp_path, data)
    argv = ["report", "--task", "qa", "--squad-version", "2.0", "--gold", str(gold), *map(str, preds)]
    argv += ["--na-probs", str(probs[0]), "--na-probs", str(probs[1]), "--na-threshold", str(threshold)]
    payload = _run(argv, capsys)
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in payload["leaderboard"]["cells"]}
    dataset = official.as_dataset(data["ids"], data["answers"])
    split = next(t for t in payload["buckets"] if t["id"] == "qa-has-answer")
    for path, name in zip(preds, data["systems"], strict=True):
        answers = dict(zip(data["ids"], data["systems"][name], strict=True))
        na = dict(zip(data["ids"], data["probs"][name], strict=True))
        theirs = official.v2_evaluate(dataset, answers, na, threshold)
        assert cells[(path.name, "exact_match")] * 100 == pytest.approx(theirs["exact"], rel=1e-12)
        assert cells[(path.name, "f1")] * 100 == pytest.approx(theirs["f1"], rel=1e-12)
        expected = (
            f"{path.name}: best_exact {theirs['best_exact']:.2f} at threshold {theirs['best_exact_thresh']:g}, "
            f"best_f1 {theirs['best_f1']:.2f} at threshold {theirs['best_f1_thresh']:g}"
        )
        assert expected in split["note"], (expected, split["note"])
        has = next(r for r in split["rows"] if r["label"] == "HasAns")
        value = next(c["estimate"]["value"] for c in has["cells"] if c["system"] == path.name)
        assert value * 100 == pytest.approx(theirs["HasAns_f1"], rel=1e-12)
    # the examples show the dataset's question texts and each answer's no-answer probability
    examples = payload["examples"]["examples"]
    assert examples and all(e["source"] == data["questions"][e["id"]] for e in examples)
    first = examples[0]
    assert first["hypotheses"][1] == f"{data['systems']['B'][first['id']]} [no-answer probability " + (
        f"{data['probs']['B'][first['id']]:g}]"
    )
    # no probabilities: no note, plain answers
    payload = _run(argv[: argv.index("--na-probs")], capsys)
    assert next(t for t in payload["buckets"] if t["id"] == "qa-has-answer")["note"] is None


def test_line_files_with_probabilities_and_questions(data, tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(a) + "\n" for a in data["answers"]), encoding="utf-8")
    questions = tmp_path / "questions.txt"
    questions.write_text("".join(q + "\n" for q in data["questions"]), encoding="utf-8")
    paths, probs = [], []
    for name in data["systems"]:
        paths.append(tmp_path / f"{name}.txt")
        paths[-1].write_text("".join(" ".join(p.split()) + "\n" for p in data["systems"][name]), encoding="utf-8")
        probs.append(tmp_path / f"{name}.na")
        probs[-1].write_text("".join(f"{p!r}\n" for p in data["probs"][name]))
    argv = ["report", "--task", "qa", "--squad-version", "2.0", "--gold", str(gold), *map(str, paths)]
    argv += ["--questions", str(questions), "--na-probs", str(probs[0]), "--na-probs", str(probs[1])]
    payload = _run([*argv, "--na-threshold", "0.5"], capsys)
    dataset = official.as_dataset(data["ids"], data["answers"])
    note = next(t for t in payload["buckets"] if t["id"] == "qa-has-answer")["note"]
    for path, name in zip(paths, data["systems"], strict=True):
        answers = dict(zip(data["ids"], (" ".join(p.split()) for p in data["systems"][name]), strict=True))
        theirs = official.v2_evaluate(dataset, answers, dict(zip(data["ids"], data["probs"][name], strict=True)), 0.5)
        cell = next(c for c in payload["leaderboard"]["cells"] if c["system"] == path.name and c["metric"] == "f1")
        assert cell["estimate"]["value"] * 100 == pytest.approx(theirs["f1"], rel=1e-12)
        assert f"best_f1 {theirs['best_f1']:.2f} at threshold {theirs['best_f1_thresh']:g}" in note
    assert all(e["source"] == data["questions"][e["id"]] for e in payload["examples"]["examples"])
    # a bad probability names its file and line
    rows = probs[1].read_text().splitlines()
    rows[9] = "nan"
    probs[1].write_text("\n".join(rows) + "\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{probs[1]}:10: NaN" in err, err
    rows[9] = "0.5"
    probs[1].write_text("\n".join(rows) + "\n")
    questions.write_text("only one\n")
    assert main(argv) == 2
    assert "questions.txt has 1 lines but" in capsys.readouterr().err


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def _line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    lines = [i + 1 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if needle in line]
    return lines[occurrence - 1]


def test_bad_ids_name_file_and_line(data, tmp_path, capsys):
    gold, preds, probs = _official_files(tmp_path, data)
    base = ["report", "--task", "qa", "--squad-version", "2.0", "--gold", str(gold)]
    # a prediction for a question the dataset does not have
    answers = json.loads(preds[1].read_text(encoding="utf-8"))
    answers["zz-unknown"] = "x"
    bad = tmp_path / "unknown.json"
    bad.write_text(json.dumps(answers, indent=0, ensure_ascii=False), encoding="utf-8")
    err = _error([*base, str(preds[0]), str(bad)], capsys)
    assert f"{bad}:{_line_of(bad, 'zz-unknown')}: unknown question id 'zz-unknown'" in err, err
    # a duplicate id (JSON allows it; the official script would silently keep the last)
    text = preds[0].read_text(encoding="utf-8")
    dup = tmp_path / "dup.json"
    dup.write_text(text.replace("{\n", '{\n"q000007": "again",\n', 1), encoding="utf-8")
    err = _error([*base, str(dup)], capsys)
    second = _line_of(dup, '"q000007"', 2)
    assert f"{dup}:{second}: duplicate question id 'q000007' (first on line 2)" in err, err
    # a question without a prediction: names the dataset's line of that question
    del answers["zz-unknown"]
    del answers["q000011"]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(answers), encoding="utf-8")
    err = _error([*base, str(short)], capsys)
    line = _line_of(gold, '"q000011"')
    assert f"{short}: no answer for question id 'q000011' ({gold}:{line}; 1 questions without one)" in err, err
    # no-answer probabilities: an unknown id, a value that is not a number, one file per system, 2.0 only
    na = json.loads(probs[0].read_text())
    na["nope"] = 0.5
    bad_na = tmp_path / "bad.na.json"
    bad_na.write_text(json.dumps(na, indent=1))
    err = _error([*base, str(preds[0]), "--na-probs", str(bad_na)], capsys)
    assert f"{bad_na}:{_line_of(bad_na, 'nope')}: unknown question id 'nope'" in err, err
    del na["nope"]
    na["q000003"] = "high"
    bad_na.write_text(json.dumps(na, indent=1))
    err = _error([*base, str(preds[0]), "--na-probs", str(bad_na)], capsys)
    assert re.search(rf"{re.escape(str(bad_na))}:5: the no-answer probability for 'q000003' is not a number", err), err
    err = _error([*base, *map(str, preds), "--na-probs", str(probs[0])], capsys)
    assert "--na-probs given 1 times for 2 system files" in err
    v1 = [*base[:4], "1.1", *base[5:], str(preds[0]), "--na-probs", str(probs[0])]
    assert "--na-probs needs --squad-version 2.0" in _error(v1, capsys)
    # a dataset with a duplicate question id
    dataset = official.as_dataset([*data["ids"][:5], data["ids"][2]], data["answers"][:6])
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps({"data": dataset}, indent=1))
    err = _error([*base[:-1], str(twice), str(preds[0])], capsys)
    assert f"{twice}:{_line_of(twice, data['ids'][2], 2)}: duplicate question id 'q000002' (first on line" in err
    # JSON predictions with line-file gold
    err = _error(["report", "--task", "qa", "--gold", str(tmp_path / "x.txt"), str(preds[0])], capsys)
    assert "JSON prediction files need the official dataset JSON" in err
