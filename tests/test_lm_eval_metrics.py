"""lm-eval 0.4.13 parity, run live: exact_match (exact_match_hf_evaluate, called per document as
lm-eval's task pipeline calls it), multiple choice (ConfigurableTask.process_results of a real
multiple-choice task over a local JSONL file), the likelihood family and the standard errors."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from lm_eval.api import metrics as lm_metrics
from lm_eval.api.task import ConfigurableTask

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.lm import harness
from nlpeval.lm.choice import MultipleChoice

STRINGS = [
    "The answer is 42.",
    "the answer is 42",
    "THE ANSWER IS 42",
    "answer: 42",
    "42",
    "",
    " ",
    "a\x00",
    "a",
    "İstanbul",
    "i̇stanbul",
    "İİİ",
    "i̇i̇i̇",
    "Straße",
    "STRASSE",
    "naïve!",
    "naive",
    "x1y2z3",
    "xyz",
    "«x»",
    "x",
    "Final answer: B",
    "B",
    "b.",
    "(B)",
    "ΣΟΦΙΑ",
    "σοφια",
    "#### 1,234",
    "1234",
    "$1,234.00",
    "1234.00",
]
OPTIONS = [
    {},
    {"ignore_case": True},
    {"ignore_punctuation": True},
    {"ignore_numbers": True},
    {"ignore_case": True, "ignore_punctuation": True, "ignore_numbers": True},
    {"regexes_to_ignore": [",", r"\$", r"(?s).*#### "]},
    {"regexes_to_ignore": [r"^Final answer: ", r"\x00$"], "ignore_case": True},
    {"regexes_to_ignore": [r"\s+"], "ignore_case": True, "ignore_punctuation": True},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_exact_match_equals_lm_eval(options: dict) -> None:
    rng = random.Random(len(str(options)))
    preds = [rng.choice(STRINGS) for _ in range(600)]
    refs = [rng.choice(STRINGS) for _ in range(600)]
    expected = [
        lm_metrics.exact_match_hf_evaluate(predictions=[p], references=[r], **options)["exact_match"]
        for p, r in zip(preds, refs, strict=False)
    ]
    ours = nlpeval.exact_match(preds, refs, segments=True, **options)
    assert ours.segments.tolist() == [float(v) for v in expected]
    assert ours.score == pytest.approx(lm_metrics.mean(expected), rel=1e-12)
    assert 0 < sum(expected) < len(expected)
    # several gold answers: lm-eval's multiple_target call (references=golds, prediction repeated)
    golds = [[rng.choice(STRINGS) for _ in range(rng.randint(1, 4))] for _ in range(300)]
    multi = [
        lm_metrics.exact_match_hf_evaluate(predictions=[p] * len(g), references=g, **options)["exact_match"] > 0
        for p, g in zip(preds, golds, strict=False)
    ]
    assert nlpeval.exact_match(preds[:300], golds, segments=True, **options).segments.tolist() == [
        float(v) for v in multi
    ]


def test_exact_match_numpy_width_quirk_is_lm_evals() -> None:
    # 'İ'.lower() has two characters; lm-eval's fixed-width array cuts it to the string's width
    assert (
        lm_metrics.exact_match_hf_evaluate(predictions=["İİİ"], references=["i̇i"], ignore_case=True)["exact_match"]
        == 1.0
    )
    assert nlpeval.exact_match(["İİİ"], ["i̇i"], ignore_case=True).score == 1.0
    assert nlpeval.exact_match(["a\x00"], ["a"]).score == 1.0


CHOICE_WORDS = ["a cat", "dog", "zebra crossing", "é", "東京", "", "the end.", "naïve answer", "42", "ß"]


@pytest.fixture(scope="module")
def mc_task(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    rng = random.Random(3)
    docs = []
    for _ in range(300):
        choices = rng.sample(CHOICE_WORDS, 4)
        docs.append({"q": "Q?", "choices": choices, "label": rng.randrange(4)})
    path = tmp_path_factory.mktemp("mc") / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    metrics = ["acc", "acc_norm", "acc_bytes", "brier_score", "acc_mutual_info"]
    config = {
        "task": "nlpeval_mc",
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(path)}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "{{q}}",
        "doc_to_choice": "{{choices}}",
        "doc_to_target": "{{label}}",
        "metric_list": [{"metric": m, "aggregation": "mean" if m != "brier_score" else "brier_score"} for m in metrics],
    }
    task = ConfigurableTask(config=config)
    return task, list(task.test_docs())


def test_multiple_choice_equals_lm_eval_process_results(mc_task: tuple) -> None:
    task, docs = mc_task
    rng = np.random.default_rng(5)
    lls = np.round(rng.normal(-8, 3, size=(len(docs), 4)), 1)  # rounded: ties happen
    lls[::17, :] = -5.0
    uncond = np.round(rng.normal(-9, 3, size=(len(docs), 4)), 1)
    results = [
        task.process_results(d, [(float(x), False) for x in (*a, *u)])
        for d, a, u in zip(docs, lls, uncond, strict=False)
    ]
    ours = nlpeval.multiple_choice(
        lls.tolist(),
        [d["label"] for d in docs],
        choices=[d["choices"] for d in docs],
        unconditional=uncond.tolist(),
        segments=True,
    )
    for name in ("acc", "acc_norm", "acc_bytes", "acc_mutual_info"):
        values = [r[name] for r in results]
        assert ours.components[name] == pytest.approx(lm_metrics.mean(values), rel=1e-12), name
        assert ours.components[f"{name}_stderr"] == pytest.approx(lm_metrics.mean_stderr(values), rel=1e-12), name
    assert ours.segments.tolist() == [r["acc"] for r in results]
    brier = lm_metrics.brier_score([r["brier_score"] for r in results])
    assert ours.components["brier_score"] == pytest.approx(brier, rel=1e-12)
    assert ours.components["acc"] != ours.components["acc_norm"]


def test_multiple_choice_ragged_and_errors(mc_task: tuple) -> None:
    _task, _docs = mc_task
    lls = [[-1.0, -2.0, -3.0], [-2.0, -1.0]]
    with pytest.raises(InputError, match="segment 1: 2 choices where question 0 has 3"):
        nlpeval.multiple_choice(lls, [0, 1])
    ragged = nlpeval.multiple_choice(lls, [0, 1], allow_ragged=True)
    assert ragged.score == 1.0 and "brier_score" not in ragged.components
    with pytest.raises(InputError, match="segment 0: choice 1 is nan"):
        nlpeval.multiple_choice([[-1.0, float("nan")]], [0])
    with pytest.raises(InputError, match="gold index 2 outside"):
        nlpeval.multiple_choice([[-1.0, -2.0]], [2])
    with pytest.raises(InputError, match="needs choices"):
        nlpeval.multiple_choice([[-1.0, -2.0]], [0], target="acc_norm")


def test_multiple_choice_paired_test_between_models() -> None:
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 4, 500)
    good = rng.normal(-5, 1, (500, 4))
    good[np.arange(500), gold] += 1.5
    weak = rng.normal(-5, 1, (500, 4))
    metric = MultipleChoice()
    a, b = metric.choice_stats(weak.tolist(), gold.tolist()), metric.choice_stats(good.tolist(), gold.tolist())
    result = nlpeval.paired_bootstrap(metric, a, b, n_resamples=300)
    assert result.p_value < 0.01


def test_likelihood_family_equals_lm_eval() -> None:
    rng = random.Random(11)
    texts = [" ".join(rng.choice(CHOICE_WORDS + ["word"] * 5) for _ in range(rng.randint(0, 40))) for _ in range(200)]
    texts[3] = " leading and trailing "
    lls = [-abs(rng.gauss(len(t) * 1.1, 5)) for t in texts]
    ours = nlpeval.likelihood(lls, texts)
    words = [(ll, len(__import__("re").split(r"\s+", t))) for ll, t in zip(lls, texts, strict=False)]
    nbytes = [(ll, len(t.encode("utf-8"))) for ll, t in zip(lls, texts, strict=False)]
    assert ours.components["word_perplexity"] == pytest.approx(lm_metrics.weighted_perplexity(words), rel=1e-12)
    assert ours.components["byte_perplexity"] == pytest.approx(lm_metrics.weighted_perplexity(nbytes), rel=1e-12)
    assert ours.components["bits_per_byte"] == pytest.approx(lm_metrics.bits_per_byte(nbytes), rel=1e-12)
    assert ours.components["perplexity"] == pytest.approx(lm_metrics.perplexity(lls), rel=1e-12)


@pytest.mark.parametrize("iters", [1000, 2500])
def test_bootstrap_stderr_equals_lm_eval(monkeypatch: pytest.MonkeyPatch, iters: int) -> None:
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")
    rng = random.Random(iters)
    lls = [-abs(rng.gauss(3, 2)) for _ in range(150)]
    assert harness.bootstrap_stderr("perplexity", lls, iters) == pytest.approx(
        lm_metrics.bootstrap_stderr(lm_metrics.perplexity, lls, iters), rel=1e-12
    )
    assert harness.bootstrap_stderr("lm_eval_median", lls, iters) == pytest.approx(
        lm_metrics.bootstrap_stderr(lm_metrics.median, lls, iters), rel=1e-12
    )
    score = nlpeval.likelihood(lls, target="perplexity", bootstrap_iters=iters)
    assert score.components["perplexity_stderr"] == pytest.approx(
        lm_metrics.bootstrap_stderr(lm_metrics.perplexity, lls, iters), rel=1e-12
    )


def test_closed_form_stderrs_equal_lm_eval() -> None:
    rng = random.Random(2)
    xs = [float(rng.random() < 0.3) for _ in range(777)]
    assert harness.mean_stderr(xs) == pytest.approx(lm_metrics.mean_stderr(xs), rel=1e-12)
    sizes, ses = [100, 250, 3000], [0.05, 0.031, 0.008]
    assert harness.pooled_sample_stderr(ses, sizes) == pytest.approx(
        lm_metrics.pooled_sample_stderr(ses, sizes), rel=1e-12
    )


def test_lm_eval_median_bug_is_pinned() -> None:
    # lm-eval 0.4.13 returns the upper middle element for an even count (PR #4079)
    xs = [4.0, 1.0, 3.0, 2.0]
    assert lm_metrics.median(xs) == 3.0 == harness.lm_eval_median(xs)
    assert harness.median(xs) == 2.5 == float(np.median(xs))
    assert lm_metrics.median([5.0, 1.0, 3.0]) == harness.median([5.0, 1.0, 3.0]) == 3.0


def test_acc_all_stderr_grouping_bug_is_pinned() -> None:
    # two paragraphs, question ids restart at 0 in each: lm-eval's acc_all groups by (paragraph,
    # question), its acc_all_stderr by question alone (PR #4079)
    rng = random.Random(4)
    docs, preds = [], []
    for paragraph in range(40):
        for question in range(3):
            for _ in range(3):
                label = rng.randint(0, 1)
                docs.append({"idx": {"paragraph": paragraph, "question": question}, "label": label})
                preds.append(label if rng.random() < 0.9 else 1 - label)
    items = list(zip(preds, docs, strict=False))
    acc, se = harness.acc_all(
        [bool(p) for p in preds],
        [d["label"] == 1 for d in docs],
        [d["idx"]["paragraph"] for d in docs],
        [d["idx"]["question"] for d in docs],
    )
    assert acc == pytest.approx(lm_metrics.acc_all(items), rel=1e-12)
    per_question = [
        all((d["label"] == 1) == p for p, d in items if (d["idx"]["paragraph"], d["idx"]["question"]) == key)
        for key in dict.fromkeys((d["idx"]["paragraph"], d["idx"]["question"]) for d in docs)
    ]
    assert se == pytest.approx(lm_metrics.mean_stderr([int(x) for x in per_question]), rel=1e-12)
    assert lm_metrics.acc_all_stderr(items) != pytest.approx(se, rel=0.1)  # lm-eval's: 3 groups instead of 120
    assert not math.isnan(se)


def test_multiple_choice_ragged_equals_lm_eval_process_results(mc_task: tuple) -> None:
    # ARC-like: 2 to 6 choices per question (lm-eval's Brier aggregation cannot take them; nlpeval omits it)
    task, _ = mc_task
    rng = random.Random(8)
    nprng = np.random.default_rng(8)
    docs, lls, uncond = [], [], []
    for _ in range(300):
        k = rng.randint(2, 6)
        docs.append({"q": "Q?", "choices": rng.sample(CHOICE_WORDS, k), "label": rng.randrange(k)})
        lls.append(np.round(nprng.normal(-8, 3, k), 1).tolist())
        uncond.append(np.round(nprng.normal(-9, 3, k), 1).tolist())
    results = [
        task.process_results(d, [(x, False) for x in (*a, *u)]) for d, a, u in zip(docs, lls, uncond, strict=True)
    ]
    ours = nlpeval.multiple_choice(
        lls, [d["label"] for d in docs], choices=[d["choices"] for d in docs], unconditional=uncond, allow_ragged=True
    )
    for name in ("acc", "acc_norm", "acc_bytes", "acc_mutual_info"):
        assert ours.components[name] == pytest.approx(lm_metrics.mean([r[name] for r in results]), rel=1e-12), name
    assert "brier_score" not in ours.components


def test_mc_report_leaderboard_equals_lm_eval_process_results(mc_task: tuple) -> None:
    # nlpeval report --task mc's leaderboard: every multiple-choice metric of two models equals lm-eval's
    # process_results aggregated by its own functions (mean; brier_score for the Brier score)
    from nlpeval.reports.qa import mc_report

    task, docs = mc_task
    rng = np.random.default_rng(21)
    systems, uncond, expected = {}, {}, {}
    for name in ("small", "large"):
        lls = np.round(rng.normal(-8, 3, size=(len(docs), 4)), 1)
        lls[::13, :2] = -4.0  # ties between choices
        unc = np.round(rng.normal(-9, 3, size=(len(docs), 4)), 1)
        systems[name], uncond[name] = lls.tolist(), unc.tolist()
        results = [
            task.process_results(d, [(float(x), False) for x in (*a, *u)])
            for d, a, u in zip(docs, lls, unc, strict=True)
        ]
        expected[name] = {m: lm_metrics.mean([r[m] for r in results]) for m in ("acc", "acc_norm", "acc_bytes")}
        expected[name]["acc_mutual_info"] = lm_metrics.mean([r["acc_mutual_info"] for r in results])
        expected[name]["brier_score"] = lm_metrics.brier_score([r["brier_score"] for r in results])
    model = mc_report(
        [d["label"] for d in docs],
        systems,
        choices=[d["choices"] for d in docs],
        unconditional=uncond,
        n_bootstrap=50,
        n_randomization=50,
    )
    assert model.leaderboard.metrics == ("acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score")
    for cell in model.leaderboard.cells:
        assert cell.estimate.value == pytest.approx(expected[cell.system][cell.metric], rel=1e-12), cell.metric
    assert expected["small"]["acc_norm"] != expected["small"]["acc_bytes"]  # the texts make them differ
