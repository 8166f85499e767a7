"""``nlpeval report --task qa`` and ``--task mc``: the report model equals nlpeval.squad (itself pinned to the
official scripts) and nlpeval.multiple_choice (pinned to lm-eval) per system and per bucket; every format from
the CLI; file:line errors; the HTML pages in headless Chromium (offline, no console error, DOM = model)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.cli.main import main
from nlpeval.reports.qa import mc_report, qa_report
from qa_data import perturb, squad_like
from report_html_browser import Browser, browser_fixture

N = 300


@pytest.fixture(scope="module")
def qa_data() -> dict:
    data = squad_like(N, seed=11)
    rng = random.Random(3)
    other = [perturb(rng, p) if rng.random() < 0.5 else p for p in data["predictions"]]
    third = ["" if rng.random() < 0.3 else p for p in data["predictions"]]
    data["systems"] = {"base": data["predictions"], "perturbed": other, "abstains <b>": third}
    return data


@pytest.fixture(scope="module")
def mc_data() -> dict:
    rng = np.random.default_rng(5)
    sizes = rng.choice([2, 4, 5], N)
    gold = [int(rng.integers(0, k)) for k in sizes]
    choices = [[f"option {'x' * int(rng.integers(1, 9))} {j}" for j in range(k)] for k in sizes]
    systems = {
        name: [[round(float(v), 3) for v in rng.normal(-5, 2, k)] for k in sizes] for name in ("small", "large", "xl")
    }
    return {"gold": gold, "choices": choices, "systems": systems}


def _cell(board, metric: str, system: str) -> float:
    return next(c.estimate.value for c in board.cells if c.metric == metric and c.system == system)


def _bucket(table, label: str, system: str) -> float:
    row = next(r for r in table.rows if r.label == label)
    return next(c.estimate.value for c in row.cells if c.system == system)


@pytest.mark.parametrize("version", ["1.1", "2.0"])
def test_qa_report_equals_squad_per_system_and_split(qa_data, version):
    golds = [a or [] for a in qa_data["answers"]] if version == "2.0" else [a or [""] for a in qa_data["answers"]]
    model = qa_report(golds, qa_data["systems"], version=version, n_bootstrap=100, n_randomization=100)
    assert model.task == "qa" and model.leaderboard.metrics == ("exact_match", "f1")
    for name, predictions in qa_data["systems"].items():
        ours = nlpeval.squad(predictions, golds, version=version)
        assert _cell(model.leaderboard, "exact_match", name) == ours.components["exact_match"]
        assert _cell(model.leaderboard, "f1", name) == ours.components["f1"]
        if version == "2.0":
            split = model.buckets[1]
            assert _bucket(split, "HasAns", name) == pytest.approx(ours.components["has_ans_f1"], rel=1e-12)
            assert _bucket(split, "NoAns", name) == pytest.approx(ours.components["no_ans_f1"], rel=1e-12)
        by_count = model.buckets[0]
        single = [i for i, a in enumerate(golds) if len(a) == 1]
        alone = nlpeval.squad([predictions[i] for i in single], [golds[i] for i in single], version=version)
        assert _bucket(by_count, "1 answer", name) == pytest.approx(alone.components["f1"], rel=1e-12)
    # examples: the worst and best questions by F1 averaged over the systems, with every system's answer
    examples = model.examples
    assert examples is not None and len(examples.examples) == 40 and examples.total == N
    means = [np.mean(e.scores["f1"]) for e in examples.examples]
    assert means[:20] == sorted(means[:20]) and max(means[:20]) <= min(means[20:])
    first = examples.examples[0]
    assert first.hypotheses == tuple(qa_data["systems"][n][first.id] for n in model.systems)


def test_mc_report_equals_multiple_choice(mc_data):
    model = mc_report(mc_data["gold"], mc_data["systems"], choices=mc_data["choices"], n_bootstrap=100)
    assert model.task == "mc" and model.leaderboard.metrics == ("acc", "acc_norm", "acc_bytes")
    table = model.buckets[0]
    assert [r.label for r in table.rows] == ["2 choices", "4 choices", "5 choices"]
    for name, lls in mc_data["systems"].items():
        for target in ("acc", "acc_norm", "acc_bytes"):
            ours = nlpeval.multiple_choice(
                lls, mc_data["gold"], choices=mc_data["choices"], target=target, allow_ragged=True
            )
            assert _cell(model.leaderboard, target, name) == ours.score
        for k in (2, 4, 5):
            keep = [i for i, row in enumerate(lls) if len(row) == k]
            subset = nlpeval.multiple_choice([lls[i] for i in keep], [mc_data["gold"][i] for i in keep])
            assert _bucket(table, f"{k} choices", name) == pytest.approx(subset.score, rel=1e-12)


def _write_lls(path: Path, lls: list) -> Path:
    path.write_text("".join(" ".join(map(repr, row)) + "\n" for row in lls))
    return path


def test_mc_cli_unconditional_bytes_brier_and_errors(tmp_path, capsys):
    # 4 choices everywhere, one gold each: acc, acc_norm, acc_bytes, acc_mutual_info and Brier
    rng = np.random.default_rng(9)
    n = 120
    gold = rng.integers(0, 4, n).tolist()
    words = ["é", "東京 tower", "a cat", "zebra", "ß ß", "naïve", "x", "the end."]
    choices = [[words[int(k)] for k in rng.choice(len(words), 4, replace=False)] for _ in range(n)]
    systems = {f"m{i}": np.round(rng.normal(-6, 2, (n, 4)), 1).tolist() for i in range(2)}
    uncond = {name: np.round(rng.normal(-7, 2, (n, 4)), 1).tolist() for name in systems}
    (tmp_path / "gold.txt").write_text("".join(f"{g}\n" for g in gold))
    (tmp_path / "choices.jsonl").write_text("".join(json.dumps(c) + "\n" for c in choices), encoding="utf-8")
    paths = [_write_lls(tmp_path / f"{name}.ll", lls) for name, lls in systems.items()]
    upaths = [_write_lls(tmp_path / f"{name}.uncond", lls) for name, lls in uncond.items()]
    base = [
        "report",
        "--task",
        "mc",
        "--gold",
        str(tmp_path / "gold.txt"),
        "--choices",
        str(tmp_path / "choices.jsonl"),
    ]
    argv = [*base, *map(str, paths), *(x for p in upaths for x in ("--unconditional", str(p))), "--bootstrap", "20"]
    assert main([*argv, "-f", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    names = ["acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score"]
    assert payload["leaderboard"]["metrics"] == names
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in payload["leaderboard"]["cells"]}
    for path, name in zip(paths, systems, strict=True):
        ours = nlpeval.multiple_choice(systems[name], gold, choices=choices, unconditional=uncond[name])
        for metric in names:
            assert cells[(path.name, metric)] == ours.components[metric], metric
    info = {m["name"]: m for m in payload["provenance"]["metrics"]}
    assert info["brier_score"]["higher_is_better"] is False and info["acc"]["higher_is_better"] is True
    # one --unconditional per system
    assert main([*base, *map(str, paths), "--unconditional", str(upaths[0])]) == 2
    assert "--unconditional given 1 times for 2 system files" in capsys.readouterr().err
    # a bad value in the second system's unconditional file names that file and line
    rows = upaths[1].read_text().splitlines()
    rows[4] = "-1.0 -2.0 inf -3.0"
    upaths[1].write_text("\n".join(rows) + "\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{upaths[1]}:5: choice 2 is inf" in err, err
    # and in the second system's log-likelihoods, that file
    rows = paths[1].read_text().splitlines()
    rows[7] = "-1.0 inf -2.0 -3.0"
    paths[1].write_text("\n".join(rows) + "\n")
    assert main([*base, *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{paths[1]}:8: choice 1 is inf" in err, err
    # a system with fewer choices than the gold answer needs: that system's line, naming the gold's
    rows = paths[0].read_text().splitlines()
    at = next(i for i, g in enumerate(gold) if g == 3)
    rows[at] = "-1.0 -2.0 -3.0"
    paths[0].write_text("\n".join(rows) + "\n")
    assert main(["report", "--task", "mc", "--gold", str(tmp_path / "gold.txt"), *map(str, paths)]) == 2
    err = capsys.readouterr().err
    expected = (
        f"{paths[0]}:{at + 1}: 3 choices, but the gold answer at {tmp_path / 'gold.txt'}:{at + 1} is choice index 3"
    )
    assert err.count("\n") == 1 and expected in err, err
    # with the choice texts, a shorter system is named, not the choices file
    rows[at] = "-1.0 -2.0 -3.0 -4.0"
    short = next(i for i, g in enumerate(gold) if g == 0)
    rows[short] = "-1.0 -2.0 -3.0"
    paths[0].write_text("\n".join(rows) + "\n")
    assert main([*base, *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{paths[0]}:{short + 1}: 3 log-likelihoods for 4 choice texts" in err, err


def _write_qa(folder: Path, data: dict) -> tuple[Path, list[Path]]:
    gold = folder / "gold.jsonl"
    gold.write_text("".join(json.dumps(a) + "\n" for a in data["answers"]), encoding="utf-8")
    paths = []
    for i, (name, predictions) in enumerate(data["systems"].items()):
        path = folder / f"sys{i} {name}.txt"
        path.write_text("".join(" ".join(p.split()) + "\n" for p in predictions), encoding="utf-8")
        paths.append(path)
    return gold, paths


def _write_mc(folder: Path, data: dict) -> tuple[Path, Path, list[Path]]:
    gold, choices = folder / "gold.txt", folder / "choices.jsonl"
    gold.write_text("".join(f"{g}\n" for g in data["gold"]))
    choices.write_text("".join(json.dumps(c) + "\n" for c in data["choices"]))
    paths = []
    for name, lls in data["systems"].items():
        paths.append(folder / f"{name}.ll")
        paths[-1].write_text("".join(" ".join(map(repr, row)) + "\n" for row in lls))
    return gold, choices, paths


def test_cli_every_format_and_line_errors(qa_data, mc_data, tmp_path, capsys):
    gold, systems = _write_qa(tmp_path, qa_data)
    base = ["report", "--task", "qa", "--squad-version", "2.0", "--gold", str(gold), *map(str, systems)]
    assert main([*base, "--bootstrap", "50", "-f", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    predictions = [(p.read_text(encoding="utf-8").split("\n"))[:-1] for p in systems]
    golds = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines()]
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in payload["leaderboard"]["cells"]}
    for path, preds in zip(systems, predictions, strict=True):
        assert cells[(path.name, "f1")] == nlpeval.squad(preds, golds, version="2.0").components["f1"]
    for fmt, marker in (("text", "--- Leaderboard"), ("markdown", "| system |"), ("latex", "\\begin{tabular}")):
        assert main([*base, "--bootstrap", "20", "-f", fmt]) == 0
        assert marker in capsys.readouterr().out, fmt
    mc_gold, choices, lls = _write_mc(tmp_path, mc_data)
    mc = ["report", "--task", "mc", "--gold", str(mc_gold), "--choices", str(choices), *map(str, lls)]
    assert main([*mc, "--bootstrap", "20", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["leaderboard"]["metrics"] == ["acc", "acc_norm", "acc_bytes"]
    # bad input: one line naming the file and line, exit 2
    broken = tmp_path / "broken.ll"
    rows = lls[0].read_text().splitlines()
    rows[6] = "-1.0 nan"
    broken.write_text("\n".join(rows) + "\n")
    assert main(["report", "--task", "mc", "--gold", str(mc_gold), str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{broken}:7" in err
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n")
    assert main(["report", "--task", "qa", "--gold", str(gold), str(short)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "short.txt has 2 lines" in err
    assert main(["report", "--task", "mc", str(short)]) == 2
    assert "--task mc needs --gold FILE" in capsys.readouterr().err


browser = browser_fixture()


def _leaderboard_values(browser: Browser) -> dict[str, list[str]]:
    rows = browser.js(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map("
        "r => [r.cells[0].querySelector('[dir]').textContent].concat("
        "Array.from(r.querySelectorAll('td.num:not(.delta) .val')).map(v => v.textContent)))"
    )
    return {name: values for name, *values in rows}


def test_qa_and_mc_pages_in_chromium(browser, qa_data, mc_data, tmp_path):
    gold, systems = _write_qa(tmp_path, qa_data)
    page = tmp_path / "qa.html"
    argv = ["report", "--task", "qa", "--squad-version", "2.0", "--gold", str(gold), *map(str, systems)]
    assert main([*argv, "--bootstrap", "100", "-o", str(page)]) == 0
    load = browser.open(page)
    browser.collect(load)
    assert load.errors == [] and load.foreign_requests == [], (load.errors, load.foreign_requests)
    for section in ("leaderboard", "buckets", "examples", "provenance"):
        assert browser.js(f"return !!document.querySelector('section#{section}')"), section
    golds = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines()]
    expected = {}
    for path in systems:
        preds = path.read_text(encoding="utf-8").split("\n")[:-1]
        score = nlpeval.squad(preds, golds, version="2.0")
        expected[path.name] = [f"{score.components[k] * 100:.2f}" for k in ("exact_match", "f1")]
    assert _leaderboard_values(browser) == expected
    assert browser.js("return document.querySelectorAll('section#leaderboard b').length") == 0  # '<b>' is text
    assert browser.js("return document.querySelectorAll('#ex-list .ex-card').length") > 0
    assert browser.screenshot(tmp_path / "qa.png", full_page=True).stat().st_size > 10_000
    mc_gold, choices, lls = _write_mc(tmp_path, mc_data)
    page = tmp_path / "mc.html"
    argv = ["report", "--task", "mc", "--gold", str(mc_gold), "--choices", str(choices), *map(str, lls)]
    assert main([*argv, "--bootstrap", "100", "-o", str(page)]) == 0
    load = browser.open(page)
    browser.collect(load)
    assert load.errors == [] and load.foreign_requests == [], (load.errors, load.foreign_requests)
    expected = {}
    for path, name in zip(lls, mc_data["systems"], strict=True):
        values = mc_data["systems"][name]
        scores = [
            nlpeval.multiple_choice(values, mc_data["gold"], choices=mc_data["choices"], target=t, allow_ragged=True)
            for t in ("acc", "acc_norm", "acc_bytes")
        ]
        expected[path.name] = [f"{score.score * 100:.2f}" for score in scores]
    assert _leaderboard_values(browser) == expected
    assert browser.screenshot(tmp_path / "mc.png", full_page=True).stat().st_size > 10_000
    browser.collect(load)
    assert load.errors == []
