"""COMET: parity with unbabel-comet 2.2.7 (goldens written by tests/fixtures/neural/make_fixtures.py in its
pinned venv: transformers 4.57, Lightning), offline loading, errors, batching invariance, reuse across systems."""

from __future__ import annotations

import json
import shutil
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

from nlpeval.metrics.comet import COMET, comet  # noqa: E402
from nlpeval.neural.local import ModelNotFoundError  # noqa: E402

GOLDEN = json.loads((FIXTURES / "comet_golden.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-6


@cache
def cases() -> dict[str, dict]:
    return {case["name"]: case for case in make_fixtures.comet_cases(make_fixtures.real_texts())}


@cache
def metric(model: str, batch_size: int = 16) -> COMET:
    return COMET(model=FIXTURES / model, batch_size=batch_size, device="cpu")


@pytest.mark.parametrize("gold", GOLDEN["cases"], ids=lambda gold: f"{gold['model']}-{gold['case']}")
def test_parity_with_unbabel_comet(gold: dict) -> None:
    case = cases()[gold["case"]]
    score = metric(gold["model"], gold["batch_size"])(case["mt"], case["ref"], sources=case["src"], segments=True)
    assert score.segments.shape == (len(gold["scores"]),)
    assert np.abs(score.segments - np.array(gold["scores"])).max() <= TOLERANCE
    assert abs(score.score - gold["system_score"]) <= TOLERANCE


def test_golden_records_the_reference_stack() -> None:
    assert GOLDEN["reference"].startswith("unbabel-comet")
    assert GOLDEN["transformers"].startswith("4.57.")
    spread = np.std(GOLDEN["cases"][0]["scores"])
    assert spread > 0.01  # the tiny model's scores are not constant


def test_sources_and_references_are_embedded_once_across_systems() -> None:
    case_a, case_b = cases()["ted-a"], cases()["ted-b"]
    m = COMET(model=FIXTURES / "comet-tiny")
    m(case_a["mt"][:30], case_a["ref"][:30], sources=case_a["src"][:30])
    cached = len(m._embeddings)
    assert cached == len(set(case_a["src"][:30]) | set(case_a["ref"][:30]))
    second = m(case_b["mt"][:30], case_b["ref"][:30], sources=case_b["src"][:30], segments=True)
    assert len(m._embeddings) == cached  # nothing new to keep: sources and references were reused
    alone = COMET(model=FIXTURES / "comet-tiny")(
        case_b["mt"][:30], case_b["ref"][:30], sources=case_b["src"][:30], segments=True
    )
    assert np.abs(second.segments - alone.segments).max() <= TOLERANCE


def test_batch_size_and_order_do_not_change_the_scores() -> None:
    case = cases()["ted-b"]
    src, mt, ref = case["src"][:60], case["mt"][:60], case["ref"][:60]
    base = metric("comet-tiny-ln")(mt, ref, sources=src, segments=True)
    one = COMET(model=FIXTURES / "comet-tiny-ln", batch_size=1)(mt, ref, sources=src, segments=True)
    big = COMET(model=FIXTURES / "comet-tiny-ln", batch_size=64)(mt, ref, sources=src, segments=True)
    order = np.random.default_rng(1).permutation(len(mt))
    shuffled = COMET(model=FIXTURES / "comet-tiny-ln")(
        [mt[i] for i in order], [ref[i] for i in order], sources=[src[i] for i in order], segments=True
    )
    for other in (one, big):
        assert np.abs(other.segments - base.segments).max() <= TOLERANCE
        assert other.signature == base.signature
    assert np.abs(shuffled.segments - base.segments[order]).max() <= TOLERANCE


def test_corpus_score_is_the_segment_mean_with_statistics() -> None:
    case = cases()["ted-a"]
    m = metric("comet-tiny")
    stats = m.segment_stats(case["mt"][:50], case["ref"][:50], sources=case["src"][:50])
    score = m.score_from_stats(stats, segments=True, n_bootstrap=200, seed=3)
    assert score.score == pytest.approx(float(score.segments.mean()), abs=1e-12)
    assert score.ci is not None and score.ci.low < score.score < score.ci.high


def _refuse(*args, **kwargs):
    raise RuntimeError("network access attempted")


def test_loading_attempts_no_network_and_resolves_the_hub_cache(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    repo = tmp_path / "hub" / "models--Unbabel--tiny-comet"
    shutil.copytree(FIXTURES / "comet-tiny", repo / "snapshots" / "feed")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("feed")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    case = cases()["adversarial"]
    by_name = comet(case["mt"], case["ref"], sources=case["src"], model="Unbabel/tiny-comet", segments=True)
    by_file = comet(
        case["mt"], case["ref"], sources=case["src"], model=FIXTURES / "comet-tiny" / "checkpoints" / "model.ckpt"
    )
    assert by_name.score == pytest.approx(by_file.score, abs=1e-12)
    gold = next(g for g in GOLDEN["cases"] if g["model"] == "comet-tiny" and g["case"] == "adversarial")
    assert np.abs(by_name.segments - np.array(gold["scores"])).max() <= TOLERANCE


def test_relative_encoder_resolves_against_the_hparams_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # not the model folder: ./encoder must still be found
    score = comet(["Hallo"], ["Hallo!"], sources=["Hello!"], model=FIXTURES / "comet-tiny")
    assert np.isfinite(score.score)


def test_missing_files_give_one_clear_error(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    with pytest.raises(ModelNotFoundError, match=r"'Unbabel/wmt22-comet-da' not found.*models--Unbabel--wmt22"):
        comet(["a"], ["b"], sources=["c"], model="Unbabel/wmt22-comet-da")
    broken = tmp_path / "broken"
    shutil.copytree(FIXTURES / "comet-tiny", broken, ignore=shutil.ignore_patterns("encoder"))
    with pytest.raises(ModelNotFoundError, match=r"encoder './encoder' of .*hparams.yaml not found: looked for"):
        comet(["a"], ["b"], sources=["c"], model=broken)
    (broken / "checkpoints" / "model.ckpt").unlink()
    with pytest.raises(ModelNotFoundError, match=r"checkpoint of .* not found in .*checkpoints: looked for model.ckpt"):
        comet(["a"], ["b"], sources=["c"], model=broken)


def test_bad_input_names_the_side() -> None:
    from nlpeval.core.errors import InputError

    with pytest.raises(InputError, match="sources"):
        comet(["a", "b"], ["b", "c"], sources=["x"], model=FIXTURES / "comet-tiny")
    with pytest.raises(InputError, match="segment 1"):
        comet(["a", None], ["b", "c"], sources=["x", "y"], model=FIXTURES / "comet-tiny")


def test_truncation_warning_names_the_segments() -> None:
    from nlpeval.metrics.bertscore import TruncationWarning

    case = cases()["adversarial"]
    with pytest.warns(TruncationWarning, match=r"longer than 62 tokens.*sources 4 \(1\)"):
        comet(case["mt"], case["ref"], sources=case["src"], model=FIXTURES / "comet-tiny")
