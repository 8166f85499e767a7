"""MetricX-23/24: parity with google-research/metricx's MT5ForRegression under its pinned transformers 4.30.2
(goldens written by tests/fixtures/neural/make_fixtures.py), offline loading, errors, batching."""

from __future__ import annotations

import json
import socket
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)

from nlpeval.metrics.bertscore import TruncationWarning  # noqa: E402
from nlpeval.metrics.metricx import MetricX, metricx, metricx_input  # noqa: E402
from nlpeval.neural.local import ModelNotFoundError  # noqa: E402

GOLDEN = json.loads((FIXTURES / "metricx_golden.json").read_text(encoding="utf-8"))
#: at the goldens' batch of 1 (no padding) nlpeval equals MetricX under transformers 4.30.2 bit for bit: the model
#: runs with eager attention, 4.30.2's op order (5.x's default SDPA kernel was 2.5e-5 off). Padded batches change
#: float32 rounding, which the tiny fixture's score row (large weights spreading a 4-dimensional state over
#: [0, 25], see make_fixtures.build_metricx_model) amplifies to 2.3e-5 on the 0-25 scale (~1e-6 relative); the
#: padding is not the cause: batched rows without padding differ as much (tests/test_metricx_batching.py)
EXACT = 0.0
TOLERANCE = 5e-5
SYSTEM_TOLERANCE = 5e-6


@cache
def cases() -> dict[str, dict]:
    return {case["name"]: case for case in make_fixtures.metricx_cases(make_fixtures.real_texts())}


@cache
def metric(version: str, batch_size: int) -> MetricX:
    return MetricX(
        model=FIXTURES / "metricx-tiny",
        tokenizer=FIXTURES / "metricx-tokenizer",
        version=version,
        max_input_length=GOLDEN["max_input_length"],
        batch_size=batch_size,
        device="cpu",
    )


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
@pytest.mark.parametrize("batch_size", [1, 8])
@pytest.mark.parametrize("gold", GOLDEN["cases"], ids=lambda g: f"{g['version']}-{g['case']}-qe{int(g['qe'])}")
def test_parity_with_metricx(gold: dict, batch_size: int) -> None:
    case = cases()[gold["case"]]
    score = metric(gold["version"], batch_size)(
        case["mt"], None if gold["qe"] else case["ref"], sources=case["src"], segments=True
    )
    expected = np.array(gold["scores"])
    assert np.abs(score.segments - expected).max() <= (EXACT if batch_size == 1 else TOLERANCE)
    assert abs(score.score - float(expected.mean())) <= (1e-12 if batch_size == 1 else SYSTEM_TOLERANCE)


def test_goldens_cross_the_clamp() -> None:
    scores = np.concatenate([g["scores"] for g in GOLDEN["cases"]])
    assert GOLDEN["transformers"] == "4.30.2"
    assert scores.min() == 0.0 and scores.max() == 25.0 and ((scores > 0) & (scores < 25)).mean() > 0.3


def test_prompts_are_metricx_predict_inputs() -> None:
    for version in ("23", "24"):
        for ref in ("R", None):
            assert metricx_input(version, "H", ref, "S") == make_fixtures.metricx_prompt(version, "S", "H", ref)


def test_truncation_warning_and_errors(monkeypatch, tmp_path: Path) -> None:
    case = cases()["adversarial"]
    with pytest.warns(TruncationWarning, match="MetricX: segments longer than 48 tokens"):
        metric("24", 8)(case["mt"], case["ref"], sources=case["src"])
    with pytest.raises(Exception, match="MetricX-24 needs sources"):
        metric("24", 8)(["a"], ["b"])
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    with pytest.raises(ModelNotFoundError, match=r"'google/metricx-24-hybrid-large-v2p6' not found"):
        metricx(["a"], ["b"], sources=["c"], model="google/metricx-24-hybrid-large-v2p6")


def _refuse(*args, **kwargs):
    raise RuntimeError("network access attempted")


def test_loading_attempts_no_network(monkeypatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    case = cases()["ted"]
    score = metricx(
        case["mt"][:5],
        case["ref"][:5],
        sources=case["src"][:5],
        model=FIXTURES / "metricx-tiny",
        tokenizer=FIXTURES / "metricx-tokenizer",
        max_input_length=48,
        segments=True,
    )
    gold = next(g for g in GOLDEN["cases"] if g["version"] == "24" and g["case"] == "ted" and not g["qe"])
    assert np.abs(score.segments - np.array(gold["scores"][:5])).max() <= TOLERANCE
