"""SQuAD v1.1/v2.0 and MLQA: parity with the official scripts' logic (tests/squad_official.py),
torchmetrics 1.9 (live) and lm-eval's copy of the MLQA script (live), on generated SQuAD-like data."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from lm_eval.tasks.mlqa import utils as mlqa
from torchmetrics.functional.text import squad as tm_squad

import nlpeval
import squad_official as official
from nlpeval.core.errors import InputError
from nlpeval.metrics.squad import SQuAD
from qa_data import squad_like

N = 2000
KEYS = {
    "exact": "exact_match",
    "f1": "f1",
    "HasAns_exact": "has_ans_exact_match",
    "HasAns_f1": "has_ans_f1",
    "NoAns_exact": "no_ans_exact_match",
    "NoAns_f1": "no_ans_f1",
    "best_exact": "best_exact_match",
    "best_f1": "best_f1",
}


@pytest.fixture(scope="module")
def data() -> dict:
    return squad_like(N, seed=7)


def _compare_v2(ours: nlpeval.Score, theirs: dict) -> None:
    for key, name in KEYS.items():
        if key in theirs:
            assert ours.components[name] * 100 == pytest.approx(theirs[key], rel=1e-12, abs=1e-12), key
        else:
            assert name not in ours.components
    for key in ("total", "HasAns_total", "NoAns_total"):
        if key in theirs:
            assert (
                ours.components[{"total": "total", "HasAns_total": "has_ans_total", "NoAns_total": "no_ans_total"}[key]]
                == theirs[key]
            )
    for key in ("best_exact_thresh", "best_f1_thresh"):
        if key in theirs:
            assert ours.components[key.replace("best_exact", "best_exact_match")] == theirs[key]


@pytest.mark.parametrize("threshold", [1.0, 0.5, 0.0])
def test_v2_with_probabilities_equals_official(data: dict, threshold: float) -> None:
    preds = dict(zip(data["ids"], data["predictions"], strict=False))
    probs = dict(zip(data["ids"], data["no_answer_probs"], strict=False))
    theirs = official.v2_evaluate(official.as_dataset(data["ids"], data["answers"]), preds, probs, threshold)
    ours = nlpeval.squad(
        preds,
        dict(zip(data["ids"], data["answers"], strict=False)),
        version="2.0",
        no_answer_probs=probs,
        no_answer_threshold=threshold,
    )
    assert {"best_exact", "NoAns_f1", "HasAns_f1"} <= set(theirs)
    _compare_v2(ours, theirs)
    assert ours.score == ours.components["f1"]


def test_v2_without_probabilities_equals_official(data: dict) -> None:
    preds = dict(zip(data["ids"], data["predictions"], strict=False))
    theirs = official.v2_evaluate(official.as_dataset(data["ids"], data["answers"]), preds)
    ours = nlpeval.squad(data["predictions"], data["answers"], version="2.0")
    _compare_v2(ours, theirs)
    assert "best_f1" not in ours.components


def test_v2_per_question_values(data: dict) -> None:
    preds = dict(zip(data["ids"], data["predictions"], strict=False))
    exact, f1 = official.get_raw_scores(official.as_dataset(data["ids"], data["answers"]), preds)
    ours_f1 = nlpeval.squad(data["predictions"], data["answers"], version="2.0", segments=True)
    ours_em = nlpeval.squad(data["predictions"], data["answers"], version="2.0", segments=True, target="exact_match")
    assert ours_f1.segments.tolist() == [float(f1[q]) for q in data["ids"]]
    assert ours_em.segments.tolist() == [float(exact[q]) for q in data["ids"]]


def test_v2_best_threshold_ties_follow_input_order() -> None:
    # equal probabilities: the script walks them in input order and may stop inside the tie
    ids = ["a", "b", "c", "d"]
    answers = [["x"], [], ["y"], []]
    preds = ["x", "z", "nope", ""]
    probs = [0.5, 0.5, 0.5, 0.2]
    theirs = official.v2_evaluate(
        official.as_dataset(ids, answers), dict(zip(ids, preds, strict=False)), dict(zip(ids, probs, strict=False))
    )
    ours = nlpeval.squad(
        dict(zip(ids, preds, strict=False)),
        dict(zip(ids, answers, strict=False)),
        version="2.0",
        no_answer_probs=dict(zip(ids, probs, strict=False)),
    )
    _compare_v2(ours, theirs)
    assert ours.components["best_f1_thresh"] == theirs["best_f1_thresh"] == 0.5


def test_v1_equals_official(data: dict) -> None:
    keep = [i for i, a in enumerate(data["answers"]) if a]
    ids = [data["ids"][i] for i in keep]
    answers = [data["answers"][i] for i in keep]
    preds = [data["predictions"][i] for i in keep]
    theirs = official.v1_evaluate(official.as_dataset(ids, answers), dict(zip(ids, preds, strict=False)))
    ours = nlpeval.squad(preds, answers)
    assert ours.components["exact_match"] * 100 == pytest.approx(theirs["exact_match"], rel=1e-12)
    assert ours.components["f1"] * 100 == pytest.approx(theirs["f1"], rel=1e-12)
    per_q = nlpeval.squad(preds, answers, segments=True).segments
    expected = [max(official.v1_f1_score(p, g) for g in a) for p, a in zip(preds, answers, strict=False)]
    assert per_q.tolist() == [float(v) for v in expected]


def test_v1_and_v2_differ_on_empty_answers_as_the_scripts_do() -> None:
    # v1.1: no common token -> F1 0, even when both sides normalise to nothing; v2.0: 1
    assert official.v1_f1_score("the", "a") == 0
    assert official.compute_f1("a", "the") == 1
    assert nlpeval.squad(["the"], [["a"]]).components["f1"] == 0.0
    assert nlpeval.squad(["the"], [["a"]], version="2.0").components["f1"] == 1.0


def _torchmetrics(preds: list[str], answers: list[list[str]], ids: list[str]) -> dict[str, float]:
    p = [{"prediction_text": t, "id": q} for t, q in zip(preds, ids, strict=False)]
    t = [{"answers": {"answer_start": [0] * len(a), "text": a}, "id": q} for a, q in zip(answers, ids, strict=False)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = tm_squad(p, t)
    return {k: float(v) for k, v in out.items()}


def test_v1_equals_torchmetrics(data: dict) -> None:
    # torchmetrics' F1 of two answers that normalise to nothing is v2.0's (1), not v1.1's (0); its
    # sums are float32. Compared on answerable questions whose answers keep a token.
    norm = official.normalize_answer
    keep = [i for i, a in enumerate(data["answers"]) if a and norm(data["predictions"][i]) and all(norm(g) for g in a)]
    assert len(keep) > 600
    ids = [data["ids"][i] for i in keep]
    answers = [data["answers"][i] for i in keep]
    preds = [data["predictions"][i] for i in keep]
    theirs = _torchmetrics(preds, answers, ids)
    ours = nlpeval.squad(preds, answers)
    assert ours.components["exact_match"] * 100 == pytest.approx(theirs["exact_match"], rel=1e-6)
    assert ours.components["f1"] * 100 == pytest.approx(theirs["f1"], rel=1e-6)
    # per question, exactly (torchmetrics scores one question per call in float32)
    for i in range(0, len(keep), 97):
        one = _torchmetrics([preds[i]], [answers[i]], [ids[i]])
        single = nlpeval.squad([preds[i]], [answers[i]])
        assert single.components["f1"] * 100 == pytest.approx(one["f1"], rel=1e-6)
        assert single.components["exact_match"] * 100 == one["exact_match"]
    assert torch.__version__  # torchmetrics ran on the installed torch


def test_empty_pair_torchmetrics_differs_from_v1() -> None:
    theirs = _torchmetrics(["the"], [["a"]], ["q"])
    assert theirs["f1"] == 100.0  # torchmetrics: v2.0's rule
    assert nlpeval.squad(["the"], [["a"]]).components["f1"] == 0.0  # official v1.1
    assert nlpeval.squad(["the"], [["a"]], version="2.0").components["f1"] == 1.0


MLQA_TEXT = {
    "en": ["The cat", "a Dog!", "the end.", "An apple, the pie", "U.S. army", "“quoted” — text"],
    "es": ["El gato", "la casa blanca", "Unos perros.", "los años 1990", "¿Qué? ¡Sí!", "una idea"],
    "de": ["Der Hund", "die Katze, das Haus", "eines Tages", "Straße der Einheit", "einem Mann", "des Weges"],
    "vi": ["của tôi", "là một", "cái bàn", "những người", "Hà Nội", "chiếc xe"],
    "hi": ["भारत की राजधानी", "नई दिल्ली।", "गंगा नदी", "१९४७ में", "राजा", "दिल्ली"],
    "ar": ["الكتاب", "في البيت", "القاهرة، مصر", "ال", "محمد علي", "البحر الأبيض"],
    "zh": ["北京大学", "北京 大学。", "中国的首都", "2008年奥运会", "长江", "上海，中国"],
}


@pytest.mark.parametrize("lang", sorted(MLQA_TEXT))
def test_mlqa_equals_lm_eval_copy_of_official_script(lang: str) -> None:
    rng = np.random.default_rng(len(lang) * 31 + ord(lang[0]))
    texts = MLQA_TEXT[lang] + ["", " ", "."]
    preds, golds = [], []
    for _ in range(300):
        preds.append(" ".join(rng.choice(texts, size=rng.integers(1, 3))))
        golds.append([" ".join(rng.choice(texts, size=rng.integers(1, 3))) for _ in range(rng.integers(1, 4))])
    ours = nlpeval.squad(preds, golds, lang=lang, segments=True)
    ours_em = nlpeval.squad(preds, golds, lang=lang, segments=True, target="exact_match")
    expected = [
        mlqa.metric_max_over_ground_truths(mlqa.f1_score, p, g, lang) for p, g in zip(preds, golds, strict=False)
    ]
    expected_em = [
        mlqa.metric_max_over_ground_truths(mlqa.exact_match_score, p, g, lang)
        for p, g in zip(preds, golds, strict=False)
    ]
    assert ours.segments.tolist() == [float(v) for v in expected]
    assert ours_em.segments.tolist() == [float(v) for v in expected_em]
    assert 0 < ours.score < 1


def test_records_and_mappings_equal_lists(data: dict) -> None:
    n = 500
    ids, preds, answers, probs = (data[k][:n] for k in ("ids", "predictions", "answers", "no_answer_probs"))
    records_p = [
        {"id": q, "prediction_text": p, "no_answer_probability": x} for q, p, x in zip(ids, preds, probs, strict=False)
    ]
    records_a = [
        {"id": q, "answers": {"text": a, "answer_start": [0] * len(a)}} for q, a in zip(ids, answers, strict=False)
    ]
    by_records = nlpeval.squad(records_p, records_a, version="2.0")
    by_lists = nlpeval.squad(preds, answers, version="2.0", no_answer_probs=probs)
    # mapping order of answers differs from predictions: questions follow the predictions
    by_maps = nlpeval.squad(
        dict(zip(ids, preds, strict=False)),
        dict(zip(reversed(ids), reversed(answers), strict=False)),
        version="2.0",
        no_answer_probs=dict(zip(ids, probs, strict=False)),
    )
    assert by_records.to_dict() == by_lists.to_dict() == by_maps.to_dict()


def test_statistics_contract(data: dict) -> None:
    metric = SQuAD(version="2.0")
    stats = metric.segment_stats(data["predictions"], data["answers"])
    whole = metric.score_from_stats(stats)
    acc = metric.accumulator()
    for start in range(0, N, 700):
        acc.update(data["predictions"][start : start + 700], data["answers"][start : start + 700])
    streamed = acc.compute()
    assert streamed.score == pytest.approx(whole.score, rel=1e-12)
    assert streamed.components["has_ans_f1"] == pytest.approx(whole.components["has_ans_f1"], rel=1e-12)
    ci = nlpeval.squad(data["predictions"], data["answers"], version="2.0", n_bootstrap=200).ci
    assert ci is not None and ci.low < whole.score < ci.high
    other = metric.segment_stats([""] * N, data["answers"])
    result = nlpeval.paired_bootstrap(metric, other, stats, n_resamples=200)
    assert result.p_value < 0.05 or not math.isnan(result.p_value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nlpeval.squad({"a": "x", "zz": "y"}, {"a": ["x"], "b": ["y"]}), "unknown question id 'zz'"),
        (lambda: nlpeval.squad({"a": "x"}, {"a": ["x"], "b": ["y"]}), "no prediction for question id 'b'"),
        (
            lambda: nlpeval.squad([{"id": 1, "prediction_text": "x"}] * 2, [{"id": 1, "answers": ["x"]}]),
            "duplicate question id 1",
        ),
        (lambda: nlpeval.squad(["x", "y"], [["x"], []]), "segment 1: no gold answer"),
        (lambda: nlpeval.squad(["x"], [["x"]], version="2.0", no_answer_probs=[float("nan")]), "NaN"),
        (lambda: nlpeval.squad(["x"], [["x"], ["y"]]), "1 predictions but 2 answer sets"),
        (lambda: nlpeval.squad([3], [["x"]]), "segment 0: is int"),
        (lambda: nlpeval.squad(["x"], [["x"]], lang="fr"), "unknown MLQA language"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_partials_merge_to_the_one_shot_score(data: dict) -> None:
    # the distributed path (and so nlpeval.dask): per-partition statistics, serialised, merged, scored
    from nlpeval.distributed.partial import Partial
    from nlpeval.distributed.serialize import partial_from_bytes, partial_to_bytes

    metric = SQuAD(version="2.0", target="exact_match")
    parts = [
        Partial.of(metric, data["predictions"][i : i + 700], data["answers"][i : i + 700]) for i in range(0, N, 700)
    ]
    merged = Partial.merge_all([partial_from_bytes(partial_to_bytes(p)) for p in parts])
    whole = nlpeval.squad(data["predictions"], data["answers"], version="2.0", target="exact_match")
    assert merged.score().score == pytest.approx(whole.score, rel=1e-12)
    assert merged.score().components["no_ans_f1"] == pytest.approx(whole.components["no_ans_f1"], rel=1e-12)
