"""ROUGE: worked examples, definitions of W/S/SU, Unicode, bad input, streaming, token ids."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

import nlpeval
from nlpeval import InputError, _native
from nlpeval.metrics.rouge import make_rouge
from textgen import corpus


def test_seed_example() -> None:
    s = nlpeval.rouge(["The big cat sitting on the rug"], ["The cat sits on the mat"], types=["rouge2", "rougeL"])
    assert (s["rouge2"].precision, s["rouge2"].recall) == (1 / 6, 1 / 5)
    assert (s["rougeL"].precision, s["rougeL"].recall) == (4 / 7, 4 / 6)
    assert s["rougeL"].score == s["rougeL"].fmeasure == 2 * (4 / 7) * (4 / 6) / (4 / 7 + 4 / 6)


def test_segments_are_n_by_3_and_aggregates_are_their_means() -> None:
    hyps, refs = corpus(11, n=50)
    out = nlpeval.rouge(hyps, refs, types=["rouge1", "rougeSU4"], segments=True)
    for score in out.values():
        assert score.segments.shape == (50, 3)
        assert score.precision == pytest.approx(score.segments[:, 0].mean(), abs=1e-15)
        assert score.recall == pytest.approx(score.segments[:, 1].mean(), abs=1e-15)
        assert score.fmeasure == pytest.approx(score.segments[:, 2].mean(), abs=1e-15)
        assert "agg:macro" in score.signature


# -- reference implementations of Lin (2004), to pin the default flavor's W / S / SU ---------------


def _tokens(text: str) -> list[str]:
    return _native.rouge_tokenize([text], "unicode", False)[0]


def _wlcs(x: list[str], y: list[str], w: float) -> float:
    c = [[0.0] * (len(y) + 1) for _ in range(len(x) + 1)]
    k = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
    for i, j in itertools.product(range(1, len(x) + 1), range(1, len(y) + 1)):
        if x[i - 1] == y[j - 1]:
            run = k[i - 1][j - 1]
            c[i][j] = c[i - 1][j - 1] + (run + 1) ** w - run**w
            k[i][j] = run + 1
        else:
            c[i][j] = max(c[i - 1][j], c[i][j - 1])
    return c[-1][-1]


def _skip(tokens: list[str], gap: int | None, unigrams: bool) -> Counter:
    grams: Counter = Counter()
    for i, a in enumerate(tokens):
        if unigrams:
            grams[(a,)] += 1
        for j in range(i + 1, len(tokens) if gap is None else min(len(tokens), i + gap + 2)):
            grams[(a, tokens[j])] += 1
    return grams


def _prf(hits: float, hyp: float, ref: float, inverse: float = 1.0) -> tuple[float, float, float]:
    p = (hits / hyp) ** inverse if hyp else 0.0
    r = (hits / ref) ** inverse if ref else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@pytest.mark.parametrize("name", ["rougeW-1.2", "rougeW-2", "rougeS4", "rougeSU4", "rougeS*", "rougeSU*", "rougeS0"])
def test_weighted_lcs_and_skip_bigrams_follow_lin_2004(name: str) -> None:
    hyps, refs = corpus(5, n=120, max_refs=1)
    refs1 = [r[0] for r in refs]
    got = nlpeval.rouge(hyps, refs1, types=name, segments=True)[name].segments
    rtype = make_rouge(name).type
    for row, hyp, ref in zip(got, hyps, refs1, strict=True):
        x, y = _tokens(ref), _tokens(hyp)
        if rtype.family == "w":
            w = rtype.weight
            want = _prf(_wlcs(x, y, w), len(y) ** w, len(x) ** w, 1 / w) if x and y else (0.0, 0.0, 0.0)
        else:
            hs, rs = _skip(y, rtype.max_gap, rtype.family == "su"), _skip(x, rtype.max_gap, rtype.family == "su")
            want = _prf(sum((hs & rs).values()), sum(hs.values()), sum(rs.values()))
        np.testing.assert_allclose(row, want, rtol=1e-12, atol=1e-12)


def test_alpha_and_beta() -> None:
    hyp, ref = ["a b c d"], ["a b x y z w"]
    p, r = 2 / 4, 2 / 6
    for alpha in (0.0, 0.2, 0.9, 1.0):
        f = nlpeval.rouge(hyp, ref, types="rouge1", alpha=alpha)["rouge1"].fmeasure
        assert f == pytest.approx(p * r / ((1 - alpha) * p + alpha * r))
    f2 = nlpeval.rouge(hyp, ref, types="rouge1", beta=2.0)["rouge1"].fmeasure
    assert f2 == pytest.approx(5 * p * r / (4 * p + r))


def test_unicode_text_is_scored_not_zeroed() -> None:
    texts = ["我们今天去北京", "ภาษาไทยง่ายมาก", "Привет, мир", "नमस्ते दुनिया", "日本語のテキスト"]
    ours = nlpeval.rouge(texts, texts, types=["rouge1", "rougeL"], segments=True)
    theirs = nlpeval.rouge(texts, texts, types=["rouge1"], flavor="rouge-score", segments=True)
    assert (ours["rouge1"].segments == 1.0).all() and (ours["rougeL"].segments == 1.0).all()
    assert (theirs["rouge1"].segments == 0.0).all()  # rouge-score drops every non-ASCII character
    partial = nlpeval.rouge(["我们今天去北京"], ["我们明天去上海"], types="rouge1")["rouge1"]
    assert partial.precision == partial.recall == 4 / 7
    assert "tok:unicode" in partial.signature


def test_lsum_splits_on_newlines_or_with_a_sentence_splitter() -> None:
    hyp = ["the cat sat on the mat. the dog ran away."]
    ref = ["the dog ran away. the cat sat on the mat."]
    plain = nlpeval.rouge(hyp, ref, types=["rougeL", "rougeLsum"])
    assert plain["rougeL"].fmeasure == plain["rougeLsum"].fmeasure < 1
    split = nlpeval.rouge(hyp, ref, types="rougeLsum", sentence_splitter="simple")["rougeLsum"]
    assert split.fmeasure == 1.0 and "split:simple" in split.signature
    newlines = nlpeval.rouge([h.replace(". ", ".\n") for h in hyp], [r.replace(". ", ".\n") for r in ref])
    assert newlines["rougeLsum"].fmeasure == 1.0


def test_empty_segments_follow_the_stated_policy() -> None:
    """Empty hypothesis or reference: P/R = 0 (both reference tools); both empty: 0 too."""
    out = nlpeval.rouge(
        ["", "a b", "", "..."], ["a b", "", "", "!!"], types=["rouge1", "rougeL", "rougeW-1.2"], segments=True
    )
    for score in out.values():
        np.testing.assert_array_equal(score.segments, np.zeros((4, 3)))
    ones = nlpeval.rouge([""], [""], types="rouge1", zero_division=1.0)["rouge1"]
    assert (ones.precision, ones.recall) == (1.0, 1.0)
    with pytest.raises(ZeroDivisionError):
        nlpeval.rouge(["a"], [""], types="rouge1", zero_division="raise")


def test_bad_input_names_the_segment() -> None:
    with pytest.raises(InputError, match="2 hypotheses but 1 references"):
        nlpeval.rouge(["a", "b"], ["a"])
    with pytest.raises(InputError, match="hypotheses: segment 1: is None"):
        nlpeval.rouge(["a", None], ["a", "b"])
    with pytest.raises(InputError, match="references: segment 0: has no reference"):
        nlpeval.rouge(["a"], [[]])
    with pytest.raises(InputError, match=r"segment 0 \(reference 1\): is int"):
        nlpeval.rouge(["a"], [["a", 3]])
    with pytest.raises(ValueError, match="unknown ROUGE type 'rougeX'"):
        nlpeval.rouge(["a"], ["a"], types=["rougeX"])
    with pytest.raises(ValueError, match="rouge-score has no rougeSU4"):
        nlpeval.rouge(["a"], ["a"], types=["rougeSU4"], flavor="rouge-score")
    with pytest.raises(ValueError, match="alpha"):
        nlpeval.rouge(["a"], ["a"], alpha=1.5)


def test_multi_reference_rules() -> None:
    hyp = ["a b c d"]
    refs = [["a b x x x x", "a b c y"]]
    pick = {m: nlpeval.rouge(hyp, refs, types="rouge1", multi_ref=m)["rouge1"] for m in ("max", "average", "best")}
    assert (pick["max"].precision, pick["max"].recall) == (3 / 4, 3 / 4)
    assert (pick["best"].precision, pick["best"].recall) == (3 / 4, 3 / 4)
    assert (pick["average"].precision, pick["average"].recall) == (5 / 8, 5 / 10)


def test_micro_aggregate_sums_counts() -> None:
    out = nlpeval.rouge(["a b", "a b c d"], ["a b", "x y z w"], types="rouge1", aggregate="micro")["rouge1"]
    assert (out.precision, out.recall) == (2 / 6, 2 / 6)
    assert "agg:micro" in out.signature


def test_streaming_equals_one_shot_and_merge_is_associative() -> None:
    hyps, refs = corpus(21, n=90)
    metric = make_rouge("rougeLsum", stemmer=True)
    whole = metric(hyps, refs)
    parts = [metric.accumulator().update(hyps[i : i + 30], refs[i : i + 30]) for i in range(0, 90, 30)]
    merged = parts[0].merge(parts[1]).merge(parts[2]).compute()
    assert merged.fmeasure == pytest.approx(whole.fmeasure, abs=1e-15)
    assert merged.signature == whole.signature


def test_token_ids_equal_text_of_the_same_tokens() -> None:
    rng = random.Random(3)
    hyp_ids = [[rng.randrange(20) for _ in range(rng.randint(0, 15))] for _ in range(40)]
    ref_ids = [[[rng.randrange(20) for _ in range(rng.randint(1, 15))] for _ in range(2)] for _ in range(40)]
    types = ["rouge1", "rouge2", "rougeL", "rougeW-1.2", "rougeSU4"]
    ids = nlpeval.rouge(hyp_ids, ref_ids, types=types, segments=True)
    text = nlpeval.rouge(
        [" ".join(f"w{t}" for t in h) for h in hyp_ids],
        [[" ".join(f"w{t}" for t in r) for r in seg] for seg in ref_ids],
        types=types,
        segments=True,
    )
    for name in types:
        np.testing.assert_array_equal(ids[name].segments, text[name].segments)
        assert "tok:ids" in ids[name].signature
    padded = nlpeval.rouge(np.array([[1, 2, 3, 0, 0]]), np.array([[1, 2, 3, 9, 7]]), types="rouge1", pad_id=0, eos_id=9)
    assert padded["rouge1"].fmeasure == 1.0


def test_bootstrap_is_seeded() -> None:
    hyps, refs = corpus(4, n=60)
    a = nlpeval.rouge(hyps, refs, types="rouge1", n_bootstrap=200, seed=7)["rouge1"]
    b = nlpeval.rouge(hyps, refs, types="rouge1", n_bootstrap=200, seed=7)["rouge1"]
    assert a.ci == b.ci and a.ci.low <= a.fmeasure <= a.ci.high
    assert "bs:200" in a.signature and math.isfinite(a.ci.half_width)


def test_token_id_accumulator_for_training_loops() -> None:
    rng = random.Random(8)
    batches = [
        (
            [[rng.randrange(9) for _ in range(12)] for _ in range(16)],
            [[rng.randrange(9) for _ in range(10)] for _ in range(16)],
        )
        for _ in range(4)
    ]
    metric = make_rouge("rougeL", token_ids=True, pad_id=0)
    acc = metric.accumulator()
    for hyp_ids, ref_ids in batches:
        acc.update(np.array(hyp_ids), np.array(ref_ids))
    everything = nlpeval.rouge(
        [h for b in batches for h in b[0]], [r for b in batches for r in b[1]], types="rougeL", pad_id=0
    )["rougeL"]
    assert acc.compute().fmeasure == pytest.approx(everything.fmeasure, abs=1e-15)
    assert acc.n_segments == 64
