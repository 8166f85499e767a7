"""``score --paired-bs``/``--paired-ar``: the baseline marked, each system's Δ with its interval, p-value and marker,
the test's resamples and seed in the signature, per-segment arrays only with ``--segments``; against sacreBLEU."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.significance import _compute_p_value

from nlpeval.cli.main import main

N_SEGMENTS, N_RESAMPLES, SEED = 400, 200, 7


@pytest.fixture(scope="module")
def files(wmt17: dict[str, list[str]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("paired")
    names = ["reference", "C-3MA.4959", "FBK.4870", "online-F.0"]
    out = {}
    for name in names:
        out[name] = folder / f"{name}.de"
        out[name].write_text("\n".join(wmt17[name][:N_SEGMENTS]) + "\n", encoding="utf-8")
    return out


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


def _sacrebleu_pair(lines: dict[str, list[str]], baseline: str, system: str) -> tuple[float, float, float, float]:
    """(difference, interval low, high, p) of sacreBLEU's paired bootstrap on the same resamples, exact sums."""
    reference = SacreBLEU()
    refs = [lines["reference"]]
    bl = np.array(reference._extract_corpus_statistics(lines[baseline], refs), dtype=np.int64)
    sy = np.array(reference._extract_corpus_statistics(lines[system], refs), dtype=np.int64)
    idxs = np.random.default_rng(SEED).choice(len(bl), size=(N_RESAMPLES, len(bl)), replace=True)
    bl_scores = np.array([reference._compute_score_from_stats(list(bl[i].sum(0))).score for i in idxs])
    sy_scores = np.array([reference._compute_score_from_stats(list(sy[i].sum(0))).score for i in idxs])
    observed = reference._aggregate_and_compute(list(sy)).score - reference._aggregate_and_compute(list(bl)).score
    diffs = np.abs(sy_scores - bl_scores)
    p = _compute_p_value(diffs - diffs.mean(), abs(observed))
    deltas = np.sort(sy_scores - bl_scores)
    cut = int(N_RESAMPLES * 0.05 / 2)  # sacreBLEU's percentile rule (estimate_ci)
    return observed / 100, deltas[cut] / 100, deltas[N_RESAMPLES - cut - 1] / 100, p


def test_paired_bootstrap_json_against_sacrebleu(files, capsys) -> None:
    systems = [str(files[n]) for n in ("C-3MA.4959", "FBK.4870", "online-F.0")]
    args = ["score", "-r", str(files["reference"]), *systems, "--paired-bs", "--paired-n", str(N_RESAMPLES)]
    payload = json.loads(_run([*args, "--seed", str(SEED), "--format", "json"], capsys))
    assert payload["paired"] == {
        "test": "paired bootstrap",
        "baseline": systems[0],
        "n": N_RESAMPLES,
        "seed": SEED,
        "alpha": 0.05,
    }
    lines = {n: p.read_text(encoding="utf-8").splitlines() for n, p in files.items()}
    base = payload["systems"][0]["scores"]["bleu"]
    assert "difference" not in base and "p_value" not in base
    for entry, name in zip(payload["systems"][1:], ("FBK.4870", "online-F.0"), strict=True):
        bleu = entry["scores"]["bleu"]
        difference, low, high, p = _sacrebleu_pair(lines, "C-3MA.4959", name)
        assert bleu["difference"] == pytest.approx(difference, abs=1e-12)
        assert bleu["difference_ci"] == pytest.approx([low, high], abs=1e-12)
        assert bleu["p_value"] == p and bleu["significant"] == (p < 0.05)
    for entry in payload["systems"]:
        assert "segments" not in entry["scores"]["bleu"]  # only with --segments
        assert f"|pt:bs|pn:{N_RESAMPLES}|rs:{SEED}|" in entry["scores"]["bleu"]["signature"]
    with_segments = json.loads(_run([*args, "--seed", str(SEED), "--format", "json", "--segments"], capsys))
    assert len(with_segments["systems"][1]["scores"]["bleu"]["segments"]) == N_SEGMENTS


def test_paired_text_marks_the_baseline_the_interval_and_significance(files, capsys) -> None:
    systems = [str(files[n]) for n in ("C-3MA.4959", "FBK.4870", "online-F.0")]
    args = ["score", "-r", str(files["reference"]), *systems, "-m", "bleu,ter", "--paired-bs"]
    text = _run([*args, "--paired-n", str(N_RESAMPLES), "--seed", str(SEED)], capsys)
    rows = text.splitlines()
    assert rows[1].startswith(f"{systems[0]} (baseline)") and "Δ" not in rows[1]
    lines = {n: p.read_text(encoding="utf-8").splitlines() for n, p in files.items()}
    for row, name in zip(rows[2:4], ("FBK.4870", "online-F.0"), strict=True):
        difference, low, high, p = _sacrebleu_pair(lines, "C-3MA.4959", name)
        bleu = row.split(" Δ ")[1]
        expected = f"{difference * 100:+.2f} [{low * 100:+.2f}, {high * 100:+.2f}] p = {p:.4f}" + (
            " *" if p < 0.05 else ""
        )
        assert bleu.startswith(expected)
    assert (
        f"Paired bootstrap against the baseline {systems[0]} ({N_RESAMPLES} resamples, seed {SEED}): "
        "Δ = system - baseline [95% interval], p-value; * p < 0.05"
    ) in text
    assert "TER: " in text and f"|pt:bs|pn:{N_RESAMPLES}|rs:{SEED}|" in text


def test_paired_ar_and_csv(files, capsys) -> None:
    systems = [str(files[n]) for n in ("C-3MA.4959", "FBK.4870")]
    args = ["score", "-r", str(files["reference"]), *systems, "--paired-ar", "--paired-n", "300", "--seed", "3"]
    text = _run(args, capsys)
    assert "Approximate randomization against the baseline" in text and "(300 trials, seed 3)" in text
    assert "|pt:ar|pn:300|rs:3|" in text
    table = list(csv.DictReader(io.StringIO(_run([*args, "--format", "csv"], capsys))))
    assert table[0]["bleu_p_value"] == "" and 0 < float(table[1]["bleu_p_value"]) <= 1
    assert table[1]["bleu_delta_low"] == ""  # randomization gives no interval
    assert float(table[1]["bleu_delta"]) == pytest.approx(float(table[1]["bleu"]) - float(table[0]["bleu"]), abs=1e-15)


def test_json_without_a_paired_test_is_unchanged(files, capsys) -> None:
    payload = json.loads(
        _run(["score", "-r", str(files["reference"]), str(files["FBK.4870"]), "--format", "json"], capsys)
    )
    assert "paired" not in payload and "segments" not in payload["systems"][0]["scores"]["bleu"]
