"""nlpeval.squad against the official SQuAD v1.1 and v2.0 scripts' own output (goldens written by
``tests/fixtures/squad/make_goldens.py``, which runs the scripts from huggingface/evaluate's ``metrics/``),
on generated and real-size (SQuAD dev-sized) inputs: every aggregate of the scripts to 1e-12 relative
(best thresholds and totals exactly), every question's exact match and F1 bit for bit. When the scripts
are at ``$NLPEVAL_SQUAD_OFFICIAL`` (default ``/work/venvs/squad-official``) with the recorded SHA-256,
the small cases are also run live and must reproduce the goldens."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.metrics.squad import SQuAD
from qa_data import squad_like

FIXTURES = Path(__file__).parent / "fixtures" / "squad"
GOLDENS = json.loads((FIXTURES / "goldens.json").read_text(encoding="utf-8"))
CASES = {case["name"]: case for case in GOLDENS["cases"]}
#: the scripts' keys -> nlpeval's component names (0-1 scale)
V2_KEYS = {
    "exact": "exact_match",
    "f1": "f1",
    "HasAns_exact": "has_ans_exact_match",
    "HasAns_f1": "has_ans_f1",
    "NoAns_exact": "no_ans_exact_match",
    "NoAns_f1": "no_ans_f1",
    "best_exact": "best_exact_match",
    "best_f1": "best_f1",
}
V1_KEYS = {"exact_match": "exact_match", "f1": "f1"}
EXACT_KEYS = {
    "total": "total",
    "HasAns_total": "has_ans_total",
    "NoAns_total": "no_ans_total",
    "best_exact_thresh": "best_exact_match_thresh",
    "best_f1_thresh": "best_f1_thresh",
}


def _inputs(case: dict) -> tuple[dict, dict, dict | None]:
    data = squad_like(case["n"], seed=case["seed"], unanswerable=case["unanswerable"])
    preds = dict(zip(data["ids"], data["predictions"], strict=True))
    answers = dict(zip(data["ids"], data["answers"], strict=True))
    probs = None if case["threshold"] is None else dict(zip(data["ids"], data["no_answer_probs"], strict=True))
    return preds, answers, probs


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(values, dtype=np.float64).tobytes()).hexdigest()


@pytest.mark.parametrize("name", list(CASES))
def test_squad_equals_the_official_scripts_output(name: str) -> None:
    case = CASES[name]
    preds, answers, probs = _inputs(case)
    threshold = 1.0 if case["threshold"] is None else case["threshold"]
    ours = nlpeval.squad(preds, answers, version=case["version"], no_answer_probs=probs, no_answer_threshold=threshold)
    official = case["official"]
    keys = V2_KEYS if case["version"] == "2.0" else V1_KEYS
    assert {k for k in official if k not in EXACT_KEYS} == {k for k in keys if k in official}
    for key, component in keys.items():
        if key in official:
            assert ours.components[component] * 100 == pytest.approx(official[key], rel=1e-12, abs=1e-12), key
        else:
            assert component not in ours.components, key
    for key, component in EXACT_KEYS.items():
        if key in official:
            assert ours.components[component] == official[key], key
    # every question, bit for bit
    metric = SQuAD(version=case["version"], no_answer_threshold=threshold)
    stats = metric.segment_stats(preds, answers, probs)
    for field, digest in case["sha256"].items():
        column = np.asarray(stats[field], dtype=np.float64)
        if "values" in case:
            assert column.tolist() == case["values"][field], field
        assert _digest(column) == digest, field


def _live_scripts() -> Path | None:
    folder = Path(os.environ.get("NLPEVAL_SQUAD_OFFICIAL", "/work/venvs/squad-official"))
    for file, digest in GOLDENS["source"]["files"].items():
        path = folder / file
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            return None
    return folder


def test_the_goldens_are_what_the_scripts_print_when_they_are_here() -> None:
    """Runs the official scripts live (subprocesses) on the small cases when they are installed; the
    goldens' own consistency (aggregates = mean of the stored per-question values) always."""
    for case in CASES.values():
        if "values" in case:
            f1 = case["values"]["f1"]
            key = "f1"
            assert 100.0 * sum(f1) / len(f1) == pytest.approx(case["official"][key], rel=1e-12)
    scripts = _live_scripts()
    if scripts is None:
        return
    spec = importlib.util.spec_from_file_location("make_goldens", FIXTURES / "make_goldens.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    for name in ("v2-generated-2000", "v1-generated-2000"):
        case = CASES[name]
        data = squad_like(case["n"], seed=case["seed"], unanswerable=case["unanswerable"])
        live = make.run_case(scripts, case["version"], data, case["threshold"])
        assert live["official"] == case["official"] and live["sha256"] == case["sha256"], name
