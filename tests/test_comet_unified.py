"""CometKiwi (reference-free unified_metric) and xCOMET (xcomet_metric, error spans): parity with unbabel-comet
2.2.7's ``predict`` (goldens written by tests/fixtures/neural/make_fixtures.py, stage ``comet-unified``, in its
pinned venv: transformers 4.57, Lightning) on MQM TED en-de and adversarial segments, at its batch size."""

from __future__ import annotations

import json
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

from nlpeval.core.errors import InputError  # noqa: E402
from nlpeval.metrics.comet import COMET, comet  # noqa: E402

GOLDEN = json.loads((FIXTURES / "comet_unified_golden.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-6


@cache
def cases() -> dict[str, dict]:
    return {case["name"]: case for case in make_fixtures.unified_cases(make_fixtures.real_texts())}


@cache
def metric(model: str, batch_size: int = 16) -> COMET:
    return COMET(model=FIXTURES / model, batch_size=batch_size, device="cpu")


def _without_confidence(spans) -> list[list[dict]]:
    return [[{k: v for k, v in dict(span).items() if k != "confidence"} for span in segment] for segment in spans]


def _confidence_gap(ours, theirs) -> float:
    gaps = [
        abs(a["confidence"] - b["confidence"])
        for x, y in zip(ours, theirs, strict=True)
        for a, b in zip(x, y, strict=True)
    ]
    return max(gaps, default=0.0)


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
@pytest.mark.parametrize("gold", GOLDEN["cases"], ids=lambda gold: f"{gold['model']}-{gold['case']}")
def test_parity_with_unbabel_comet_predict(gold: dict) -> None:
    case = cases()[gold["case"]]
    m = metric(gold["model"], gold["batch_size"])
    score = m(case["mt"], case["ref"], sources=case["src"], segments=True)
    assert np.abs(score.segments - np.array(gold["scores"])).max() <= TOLERANCE
    assert abs(score.score - gold["system_score"]) <= TOLERANCE
    metadata = gold["metadata"]
    if "error_spans" not in metadata:
        assert score.error_spans is None
        return
    # the spans: the same text, offsets and severities, confidence within float32 rounding
    assert _without_confidence(score.error_spans) == _without_confidence(metadata["error_spans"])
    assert _confidence_gap(score.error_spans, metadata["error_spans"]) <= TOLERANCE
    found = m.predict(case["mt"], case["ref"], sources=case["src"])
    for key in ("mqm_scores", "src_scores", "ref_scores", "unified_scores"):
        if key in metadata and not (key == "src_scores" and "ref_scores" not in metadata):
            assert np.abs(found[key] - np.array(metadata[key])).max() <= TOLERANCE, key


def test_goldens_cover_spans_caps_and_every_input_variant() -> None:
    assert GOLDEN["reference"] == "unbabel-comet 2.2.7" and GOLDEN["transformers"].startswith("4.57.")
    xcomet = [g for g in GOLDEN["cases"] if g["model"] == "xcomet-tiny"]
    spans = [span for g in xcomet for segment in g["metadata"]["error_spans"] for span in segment]
    assert {span["severity"] for span in spans} == {"minor", "major", "critical"}
    assert any(
        score > 1.0 for g in xcomet for score in g["metadata"].get("src_scores", []) if "ref_scores" in g["metadata"]
    )
    assert len({round(x, 6) for g in xcomet for x in g["metadata"]["mqm_scores"]}) > 5
    assert {g["case"] for g in xcomet} >= {"ted-a", "ted-a-qe", "ted-a-ref-only", "adversarial"}


def test_cometkiwi_is_reference_free_and_ignores_references() -> None:
    case = cases()["ted-a"]
    m = metric("cometkiwi-tiny")
    free = m(case["mt"][:40], None, sources=case["src"][:40], segments=True)
    given = m(case["mt"][:40], case["ref"][:40], sources=case["src"][:40], segments=True)
    assert np.array_equal(free.segments, given.segments)
    assert "inputs:src|" in free.signature and "type:unified" in free.signature
    with pytest.raises(InputError, match="needs sources"):
        m(case["mt"][:3], case["ref"][:3], sources=None)


def test_xcomet_signature_records_the_inputs_and_spans_serialise() -> None:
    case = cases()["ted-a"]
    m = metric("xcomet-tiny")
    both = m(case["mt"][:20], case["ref"][:20], sources=case["src"][:20])
    qe = m(case["mt"][:20], None, sources=case["src"][:20])
    ref_only = m(case["mt"][:20], case["ref"][:20], sources=None)
    assert "inputs:src+ref|" in both.signature and "inputs:src|" in qe.signature and "inputs:ref|" in ref_only.signature
    assert both.score != qe.score
    record = both.to_dict()
    assert len(record["error_spans"]) == 20
    assert all(
        set(span) == {"text", "start", "end", "severity", "confidence"} for s in record["error_spans"] for span in s
    )
    with pytest.raises(InputError, match="needs sources or references"):
        m(case["mt"][:3], None, sources=None)


def test_xcomet_batch_size_and_order_keep_scores_and_spans() -> None:
    case = cases()["ted-b"]
    src, mt, ref = case["src"][:48], case["mt"][:48], case["ref"][:48]
    base = metric("xcomet-tiny")(mt, ref, sources=src, segments=True)
    one = COMET(model=FIXTURES / "xcomet-tiny", batch_size=1)(mt, ref, sources=src, segments=True)
    assert np.abs(one.segments - base.segments).max() <= TOLERANCE
    assert _without_confidence(one.error_spans) == _without_confidence(base.error_spans)
    order = np.random.default_rng(2).permutation(len(mt))
    shuffled = metric("xcomet-tiny")(
        [mt[i] for i in order], [ref[i] for i in order], sources=[src[i] for i in order], segments=True
    )
    assert np.abs(shuffled.segments - base.segments[order]).max() <= TOLERANCE


def test_regression_model_still_needs_both_and_unified_bad_lengths_name_the_side() -> None:
    with pytest.raises(InputError, match="needs references"):
        comet(["a"], None, sources=["b"], model=FIXTURES / "comet-tiny")
    with pytest.raises(InputError, match="needs sources"):
        comet(["a"], ["b"], sources=None, model=FIXTURES / "comet-tiny")
    with pytest.raises(InputError, match="sources"):
        comet(["a", "b"], None, sources=["x"], model=FIXTURES / "cometkiwi-tiny")
    with pytest.raises(InputError, match="segment 1"):
        comet(["a", None], ["b", "c"], sources=["x", "y"], model=FIXTURES / "xcomet-tiny")


def test_comet_function_returns_the_spans() -> None:
    case = cases()["adversarial"]
    score = comet(case["mt"], case["ref"], sources=case["src"], model=FIXTURES / "xcomet-tiny", segments=True)
    gold = next(g for g in GOLDEN["cases"] if g["model"] == "xcomet-tiny" and g["case"] == "adversarial")
    assert _without_confidence(score.error_spans) == _without_confidence(gold["metadata"]["error_spans"])
    assert np.abs(score.segments - np.array(gold["scores"])).max() <= TOLERANCE


QE_GOLDEN = json.loads((FIXTURES / "comet_qe_golden.json").read_text(encoding="utf-8"))


@pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")
@pytest.mark.parametrize("gold", QE_GOLDEN["cases"], ids=lambda gold: gold["case"])
def test_referenceless_regression_parity_with_unbabel_comet(gold: dict) -> None:
    """wmt20/21-comet-qe-style referenceless_regression_metric: [h, s, h*s, |h-s|] over pooled embeddings."""
    case = cases()[gold["case"]]
    m = metric("comet-qe-tiny", gold["batch_size"])
    score = m(case["mt"], None, sources=case["src"], segments=True)
    assert np.abs(score.segments - np.array(gold["scores"])).max() <= TOLERANCE
    assert abs(score.score - gold["system_score"]) <= TOLERANCE
    assert "type:referenceless_regression|inputs:src|" in score.signature
    with_refs = m(case["mt"][:10], case["ref"][:10] if case["ref"] else case["mt"][:10], sources=case["src"][:10])
    without = m(case["mt"][:10], None, sources=case["src"][:10])
    assert with_refs.score == without.score and with_refs.signature == without.signature  # references are not read
    with pytest.raises(InputError, match="needs sources"):
        m(case["mt"][:3], None, sources=None)
