"""BERTScore: parity with bert-score 0.3.13 (goldens written by tests/fixtures/neural/make_fixtures.py in
its pinned venv: transformers 4.57), offline loading, errors, batching invariance, reuse across systems."""

from __future__ import annotations

import json
import shutil
import socket
import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)

from embed_counting import counted  # noqa: E402
from nlpeval.metrics.bertscore import BERTScore, TruncationWarning, bertscore  # noqa: E402
from nlpeval.neural.local import ModelNotFoundError  # noqa: E402

GOLDEN = json.loads((FIXTURES / "bertscore_golden.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-6


@cache
def cases() -> dict[str, dict]:
    return {case["name"]: case for case in make_fixtures.bertscore_cases(make_fixtures.real_texts())}


@cache
def metric(model: str, num_layers: int, idf: bool, batch_size: int, baseline: str | None) -> BERTScore:
    return BERTScore(
        model=FIXTURES / model,
        num_layers=num_layers,
        idf=idf,
        batch_size=batch_size,
        rescale_with_baseline=baseline is not None,
        baseline_path=FIXTURES / baseline if baseline else None,
        device="cpu",
    )


def scored(gold: dict):
    case = cases()[gold["name"]]
    m = metric(gold["model"], gold["num_layers"], gold["idf"], gold["batch_size"], gold["baseline"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        return m(case["hyps"], case["refs"], segments=True)


@pytest.mark.parametrize("gold", GOLDEN["cases"], ids=lambda gold: gold["name"])
def test_parity_with_bert_score(gold: dict) -> None:
    score = scored(gold)
    expected = np.array([gold["precision"], gold["recall"], gold["f1"]]).T
    assert score.segments.shape == expected.shape
    assert np.abs(score.segments - expected).max() <= TOLERANCE
    assert abs(score.score - float(np.mean(np.float64(gold["f1"])))) <= TOLERANCE
    assert abs(score.components["precision"] - float(np.mean(gold["precision"]))) <= TOLERANCE
    assert abs(score.components["recall"] - float(np.mean(gold["recall"]))) <= TOLERANCE
    # bert-score's hash names the same settings the signature records
    sig = score.signature
    assert f"_L{sig.split('layer:')[1].split('|')[0]}_" in gold["hash"]
    assert ("_idf_" in gold["hash"]) == ("idf:yes" in sig)
    assert ("rescaled" in gold["hash"]) == ("rescaled:custom-" in sig)


def test_golden_records_the_reference_stack() -> None:
    assert GOLDEN["transformers"].startswith("4.57.")
    assert "0.3.12" in GOLDEN["cases"][0]["hash"]  # 0.3.13 reports itself as 0.3.12
    # the adversarial cases hold empty segments, which bert-score scores 0 and nlpeval too
    adversarial = next(g for g in GOLDEN["cases"] if g["name"] == "roberta-tiny-adv-idf1")
    assert adversarial["f1"][0] == adversarial["f1"][1] == 0.0


def test_truncation_warning_names_the_segments() -> None:
    case = cases()["bert-tiny-adv-idf0"]
    with pytest.warns(TruncationWarning, match=r"longer than 64 tokens.*hypotheses 9 \(1\); references 9 \(1\)"):
        bertscore(case["hyps"], case["refs"], model=FIXTURES / "bert-tiny", num_layers=2)


def test_batch_size_and_order_do_not_change_the_scores() -> None:
    case = cases()["roberta-tiny-ted-idf1"]
    hyps, refs = case["hyps"][:80], case["refs"][:80]
    base = metric("roberta-tiny", 2, True, 64, None)(hyps, refs, segments=True)
    one = BERTScore(model=FIXTURES / "roberta-tiny", num_layers=2, idf=True, batch_size=1)(hyps, refs, segments=True)
    order = np.random.default_rng(0).permutation(len(hyps))
    shuffled = metric("roberta-tiny", 2, True, 64, None)(
        [hyps[i] for i in order], [refs[i] for i in order], segments=True
    )
    assert np.abs(one.segments - base.segments).max() <= TOLERANCE
    assert np.abs(shuffled.segments - base.segments[order]).max() <= TOLERANCE
    assert base.signature == one.signature  # batch size is not part of the signature


def test_reference_embeddings_are_reused_across_systems() -> None:
    texts = make_fixtures.real_texts()
    refs = texts["wmt_ref"][:40]
    m = BERTScore(model=FIXTURES / "bert-tiny", num_layers=3)
    embedded = counted(m)
    first = m(texts["wmt_a"][:40], refs, segments=True)
    second = m(texts["wmt_b"][:40], refs, segments=True)
    n_refs = len(set(refs))
    assert embedded[0] == len(set(texts["wmt_a"][:40]) | set(refs))
    assert embedded[1] == len(set(texts["wmt_b"][:40]) - set(refs))  # only the new hypotheses
    alone = BERTScore(model=FIXTURES / "bert-tiny", num_layers=3)(texts["wmt_b"][:40], refs, segments=True)
    assert np.abs(second.segments - alone.segments).max() <= TOLERANCE
    assert n_refs > 30 and first.score != second.score


def test_statistics_apply_to_the_segment_mean() -> None:
    texts = make_fixtures.real_texts()
    hyps, refs = texts["ted_a"][:60], texts["ted_ref"][:60]
    m = metric("bert-tiny", 3, False, 64, None)
    whole = m(hyps, refs, segments=True)
    acc = m.accumulator()
    acc.update(hyps[:25], refs[:25]).update(hyps[25:], refs[25:])
    assert abs(acc.compute().score - whole.score) <= TOLERANCE  # other batches: float32 rounding only
    with_ci = m.score_from_stats(m.segment_stats(hyps, refs), n_bootstrap=200, seed=1)
    assert with_ci.ci is not None and with_ci.ci.low < whole.score < with_ci.ci.high
    assert whole.score == pytest.approx(float(whole.segments[:, 2].mean()), abs=1e-12)


class _NoNetworkError(RuntimeError):
    pass


def _refuse(*args, **kwargs):
    raise _NoNetworkError("network access attempted")


def test_loading_attempts_no_network(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    # a hub name resolved inside a local cache laid out as huggingface_hub writes it
    repo = tmp_path / "hub" / "models--someone--tiny-roberta"
    shutil.copytree(FIXTURES / "roberta-tiny", repo / "snapshots" / "0123abcd")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    by_name = bertscore(["Das ist gut."], ["Das ist sehr gut."], model="someone/tiny-roberta", num_layers=2)
    by_path = bertscore(["Das ist gut."], ["Das ist sehr gut."], model=FIXTURES / "roberta-tiny", num_layers=2)
    assert by_name.score == by_path.score
    assert by_name.signature.split("sha256:")[1][:16] == by_path.signature.split("sha256:")[1][:16]


def test_missing_model_is_one_clear_error(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    with pytest.raises(ModelNotFoundError, match=r"'roberta-large' not found.*models--roberta-large/snapshots"):
        bertscore(["a"], ["b"], model="roberta-large")
    with pytest.raises(ModelNotFoundError, match="no such file or folder"):
        bertscore(["a"], ["b"], model=str(tmp_path / "nowhere" / "model"), num_layers=1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFoundError, match=r"model configuration not found in .*empty: looked for config.json"):
        bertscore(["a"], ["b"], model=tmp_path / "empty", num_layers=1)
    with pytest.raises(ValueError, match="num_layers is required"):
        bertscore(["a"], ["b"], model=FIXTURES / "bert-tiny")
    with pytest.raises(ValueError, match="baseline_path"):
        bertscore(["a"], ["b"], model=FIXTURES / "bert-tiny", num_layers=1, rescale_with_baseline=True)
    with pytest.raises(ValueError, match="between 0 and 4"):
        bertscore(["a"], ["b"], model=FIXTURES / "bert-tiny", num_layers=9)


def test_bad_input_names_the_segment() -> None:
    from nlpeval.core.errors import InputError

    with pytest.raises(InputError, match="segment 1"):
        bertscore(["a", None], ["b", "c"], model=FIXTURES / "bert-tiny", num_layers=1)
