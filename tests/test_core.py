"""The generic core: statistics and merge rules, Score, Signature, validation, zero_division, accumulators."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlpeval
from nlpeval.core.errors import InputError, UndefinedMetricWarning
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import validate_text
from nlpeval.core.zero_division import check_zero_division, safe_divide

SCHEMA = StatsSchema.of("a", "b", low="min", high="max")


def test_schema_reduce_applies_each_rule() -> None:
    rows = np.array([[1, 2, 5, 5], [3, 4, 2, 9], [0, 1, 7, 1]])
    assert SCHEMA.reduce(rows).tolist() == [4, 7, 2, 9]


def test_schema_reduce_of_no_rows_is_the_identity() -> None:
    empty = np.empty((0, 4), dtype=np.int64)
    identity = SCHEMA.reduce(empty)
    rows = np.array([[1, 2, 5, 5]])
    assert SCHEMA.combine(identity, SCHEMA.reduce(rows)).tolist() == [1, 2, 5, 5]


def test_schema_rejects_bad_definitions() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        StatsSchema.of("a", "a")
    with pytest.raises(ValueError, match="unknown merge"):
        StatsSchema(("a",), ("mean",))  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no field 'zz'"):
        SCHEMA.index("zz")


def test_stats_named_columns_take_and_concat() -> None:
    stats = Stats(SCHEMA, np.array([[1, 2, 3, 4], [5, 6, 7, 8]]))
    assert stats["b"].tolist() == [2, 6]
    assert stats.take([1, 1]).totals().tolist() == [10, 12, 7, 8]
    assert len(Stats.concat([stats, stats])) == 4
    with pytest.raises(ValueError, match="shape"):
        Stats(SCHEMA, np.zeros((2, 3)))


def test_resampled_totals_equal_explicit_resampling() -> None:
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 50, size=(30, 4))
    indices = rng.integers(0, 30, size=(7, 30))
    expected = np.stack([SCHEMA.reduce(rows[idx]) for idx in indices])
    assert np.array_equal(SCHEMA.resampled_totals(rows, indices), expected)
    summed = StatsSchema.of("x", "y")
    expected_sum = np.stack([rows[idx, :2].sum(axis=0) for idx in indices])
    assert np.array_equal(summed.resampled_totals(rows[:, :2], indices), expected_sum)


row_lists = st.lists(st.lists(st.integers(-1000, 1000), min_size=4, max_size=4), min_size=0, max_size=12).map(
    lambda rows: np.array(rows, dtype=np.int64).reshape(-1, 4)
)


@given(row_lists, row_lists, row_lists)
def test_merge_is_associative_and_commutative(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    ta, tb, tc = (SCHEMA.reduce(x) for x in (a, b, c))
    left = SCHEMA.combine(SCHEMA.combine(ta, tb), tc)
    right = SCHEMA.combine(ta, SCHEMA.combine(tb, tc))
    assert np.array_equal(left, right)
    assert np.array_equal(SCHEMA.combine(ta, tb), SCHEMA.combine(tb, ta))
    assert np.array_equal(left, SCHEMA.reduce(np.concatenate([a, b, c])))


def test_signature_format_and_fields() -> None:
    sig = Signature.build(nrefs=2, case="lc", eff=True, skipped=None, flavor="x")
    text = str(sig)
    assert text.startswith("nrefs:2|case:lc|eff:yes|flavor:x|version:nlpeval-")
    assert "skipped" not in text
    assert str(sig.with_fields(bs=1000, rs=7)).split("|version")[0].endswith("flavor:x|bs:1000|rs:7")
    assert sig.as_dict()["eff"] == "yes"
    assert (nrefs_field(1, 1), nrefs_field(1, 2)) == ("1", "var")


def test_score_is_frozen_and_serialises() -> None:
    score = Score("m", 0.5, "sig", {"parts": np.array([1, 2]), "n": np.int64(3)}, segments=np.array([0.1, 0.9]))
    with pytest.raises(AttributeError):
        score.score = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        score.components["new"] = 1  # type: ignore[index]
    with pytest.raises(ValueError):
        score.segments[0] = 3.0  # type: ignore[index]
    assert score.to_dict() == {
        "name": "m",
        "score": 0.5,
        "signature": "sig",
        "parts": [1, 2],
        "n": 3,
        "segments": [0.1, 0.9],
    }


def test_validation_normalises_and_names_the_segment() -> None:
    assert validate_text(("a", "b"), ("x", ("y", "z"))) == (["a", "b"], [["x"], ["y", "z"]])
    with pytest.raises(InputError, match=r"hypotheses: segment 1: is int, expected str") as info:
        validate_text(["a", 3], ["x", "y"])
    assert info.value.segment == 1 and info.value.side == "hypotheses"
    with pytest.raises(InputError, match=r"references: segment 0 \(reference 1\): is None"):
        validate_text(["a"], [["x", None]])
    with pytest.raises(InputError, match="2 hypotheses but 3 references"):
        validate_text(["a", "b"], ["x", "y", "z"])
    with pytest.raises(InputError, match="reference streams"):
        validate_text(["a", "b", "c"], [["x", "y", "z"], ["p", "q", "r"]])
    with pytest.raises(InputError, match="got one str"):
        validate_text("a b c", ["a b c"])
    with pytest.raises(InputError, match="has no reference"):
        validate_text(["a"], [[]])
    assert isinstance(InputError("x"), ValueError)


def test_zero_division_policies() -> None:
    assert safe_divide([1, 0], [2, 0], zero_division=1).tolist() == [0.5, 1.0]
    assert math.isnan(safe_divide(0, 0, zero_division=np.nan))
    with pytest.warns(UndefinedMetricWarning, match="precision is undefined"):
        assert safe_divide(0, 0, what="precision") == 0.0
    with pytest.raises(ZeroDivisionError):
        safe_divide(1, 0, zero_division="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert safe_divide(3, 4).item() == 0.75
    with pytest.raises(ValueError, match="zero_division"):
        check_zero_division(2)


texts = st.lists(st.text(alphabet="ab c.,", max_size=20), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_accumulator_equals_one_shot_and_merge_is_order_free(data: st.DataObject) -> None:
    hyps = data.draw(texts)
    refs = data.draw(st.lists(st.text(alphabet="ab c.,", max_size=20), min_size=len(hyps), max_size=len(hyps)))
    cut = data.draw(st.integers(0, len(hyps)))
    metric = nlpeval.BLEU()
    one_shot = metric(hyps, refs, segments=True)
    first = metric.accumulator(keep_segments=True).update(hyps[:cut], refs[:cut])
    second = metric.accumulator(keep_segments=True).update(hyps[cut:], refs[cut:])
    merged = first.merge(second).compute()
    assert merged.score == one_shot.score
    assert merged.signature == one_shot.signature
    assert np.array_equal(merged.segments, one_shot.segments)
    totals_only = metric.accumulator()
    for hyp, ref in zip(hyps, refs, strict=True):
        totals_only.update([hyp], [ref])
    assert totals_only.compute().score == one_shot.score
    totals_only.reset()
    with pytest.raises(ValueError, match="nothing to score"):
        totals_only.compute()


def test_accumulator_rejects_different_configurations() -> None:
    with pytest.raises(ValueError, match="differently configured"):
        nlpeval.BLEU().accumulator().merge(nlpeval.BLEU(lowercase=True).accumulator())


def test_bootstrap_interval_matches_sacrebleu() -> None:
    """Same seed, same resamples as sacreBLEU's bootstrap.

    Documented deviation: sacreBLEU sums resampled statistics in float32, we sum
    exact integers. So we equal sacreBLEU's own scorer applied to exact int64 sums
    of the same resamples (1e-9), and its float32 result to about 1e-5 BLEU points.
    """
    import sacrebleu

    hyps = ["the cat sat on the mat", "a dog barks", "hello there world", "it is raining today", "x y z"]
    refs = ["the cat sat on a mat", "the dog barks", "hello world", "it rains today", "x y"]
    ours = nlpeval.bleu(hyps, refs, n_bootstrap=200, seed=12345)
    assert ours.ci is not None
    assert "|bs:200|rs:12345|" in ours.signature

    reference = sacrebleu.BLEU()
    stats = np.array(reference._extract_corpus_statistics(hyps, [refs]), dtype=np.int64)
    indices = np.random.default_rng(12345).choice(len(hyps), size=(200, len(hyps)), replace=True)
    exact = np.sort([reference._compute_score_from_stats(list(stats[idx].sum(0))).score for idx in indices])
    assert ours.ci.mean * 100 == pytest.approx(exact.mean(), abs=1e-9)
    assert ours.ci.low * 100 == pytest.approx(exact[200 // 40], abs=1e-9)
    assert ours.ci.high * 100 == pytest.approx(exact[200 - 200 // 40 - 1], abs=1e-9)

    float32 = reference.corpus_score(hyps, [refs], n_bootstrap=200)
    assert ours.ci.mean * 100 == pytest.approx(float32._mean, abs=1e-5)
    assert ours.ci.half_width * 100 == pytest.approx(float32._ci, abs=1e-5)


@pytest.mark.parametrize("score", ["bleu", "chrf", "ter", "wer", "cer", "rouge"])
def test_text_that_is_not_valid_unicode_is_named(score: str) -> None:
    function = getattr(nlpeval, score)
    with pytest.raises(InputError, match=r"references: segment 1 \(reference 1\): is not valid Unicode"):
        function(["a b", "c d"], [["a b"], ["c d", "c \ud800"]])
    with pytest.raises(InputError, match="hypotheses: segment 0: is not valid Unicode"):
        function(["\udc80"], ["x"])
