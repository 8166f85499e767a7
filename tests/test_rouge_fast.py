"""ROUGE's native text path and its worst-case guard: exact parity with rouge-score on generated
input (one and several references, sentence lines, case, punctuation, non-ASCII), the input
checks of the fast path, and the ``max_cells`` bound with its error message."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.metrics.rouge import make_rouge

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
WORDS = ["the", "The", "cat", "cats", "running", "runs", "on", "mat", "MAT", "a", "dog's", "x1", "naïve", "İs", "3.5"]
SEPARATORS = [" ", " ", " ", "  ", "\n", ", ", ".\n", "-", "\t"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 30))
    parts = []
    for _ in range(n):
        parts.append(draw(st.sampled_from(WORDS)))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


def rouge_score_rows(hyps: list[str], refs: list[list[str]], stemmer: bool) -> dict[str, np.ndarray]:
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stemmer)
    scores = [
        scorer.score_multi(r, h) if len(r) > 1 else scorer.score(r[0], h) for h, r in zip(hyps, refs, strict=True)
    ]
    return {t: np.array([[s[t].precision, s[t].recall, s[t].fmeasure] for s in scores]) for t in TYPES}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(texts(), st.lists(texts(), min_size=1, max_size=3)), min_size=1, max_size=6),
    st.booleans(),
)
def test_generated_input_equals_rouge_score_exactly(segments: list[tuple[str, list[str]]], stemmer: bool) -> None:
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    want = rouge_score_rows(hyps, refs, stemmer)
    # one reference given as a bare str takes the same path as a one-item list
    mixed = [r[0] if len(r) == 1 else r for r in refs]
    got = nlpeval.rouge(hyps, mixed, types=TYPES, stemmer=stemmer, flavor="rouge-score", segments=True)
    # tuples are not read natively: the validator's path must give the same numbers
    slow = nlpeval.rouge(tuple(hyps), tuple(refs), types=TYPES, stemmer=stemmer, flavor="rouge-score", segments=True)
    for name in TYPES:
        assert np.array_equal(got[name].segments, want[name]), name
        assert np.array_equal(slow[name].segments, want[name]), name


def test_long_sentences_with_repeated_words_equal_rouge_score() -> None:
    # several lines of 150-300 tokens from a 4-word vocabulary: the union LCS and the
    # bit-parallel LCS over more than one machine word, with repeated tokens
    rng = np.random.default_rng(5)
    vocab = np.array(["big", "large", "the", "cat"])

    def doc(lines: int) -> str:
        return "\n".join(" ".join(vocab[rng.integers(0, 4, rng.integers(150, 300))]) for _ in range(lines))

    hyps = [doc(2), doc(1), doc(3)]
    refs = [[doc(3)], [doc(1), doc(2)], [doc(1)]]
    want = rouge_score_rows(hyps, refs, False)
    got = nlpeval.rouge(hyps, refs, types=TYPES, flavor="rouge-score", segments=True)
    for name in TYPES:
        assert np.array_equal(got[name].segments, want[name]), name


@pytest.mark.parametrize(
    ("hyps", "refs", "message"),
    [
        (["a", 1], ["a", "b"], "hypotheses: segment 1: is int, expected str"),
        (["a", "b"], ["a", None], "references: segment 1: is None, expected a str or a list of str"),
        (["a", "b"], ["a", []], "references: segment 1: has no reference"),
        (["a", "b"], ["a", ["b", 2]], "references: segment 1 (reference 1): is int, expected str"),
        (["a", "b\udc80"], ["a", "b"], "hypotheses: segment 1: is not valid Unicode text"),
        (["a"], ["a", "b"], "1 hypotheses but 2 references"),
    ],
)
def test_bad_input_is_named_as_before(hyps: list, refs: list, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        nlpeval.rouge(hyps, refs)


def test_max_cells_refuses_a_pair_naming_the_segment() -> None:
    hyps = ["a b c", " ".join(["w"] * 400)]
    refs = ["a b", ["x y", " ".join(["w"] * 300)]]
    with pytest.raises(InputError) as info:
        nlpeval.rouge(hyps, refs, types=["rouge1", "rougeL"], max_cells=100_000)
    assert str(info.value) == (
        "hypotheses: segment 1: reference 1: 120,000 cells of LCS work (hypothesis tokens x reference tokens; "
        "skip-bigrams without a gap limit: their count x 256), more than max_cells=100,000 (time grows in "
        "proportion); pass a larger max_cells, or None for no bound"
    )
    # linear types are never refused; None lifts the bound; the exact product passes
    assert nlpeval.rouge(hyps, refs, types="rouge2", max_cells=0)["rouge2"].score > 0
    assert nlpeval.rouge(hyps, refs, types="rougeL", max_cells=None)["rougeL"].score > 0
    assert nlpeval.rouge(hyps, refs, types="rougeLsum", max_cells=120_000)["rougeLsum"].score > 0


def test_max_cells_guards_skip_bigrams_token_ids_and_rouge155() -> None:
    long = " ".join(["w"] * 100)
    with pytest.raises(InputError, match=r"segment 0: reference 0: 2,560,000 cells"):
        nlpeval.rouge([long], [long], types="rougeS*", max_cells=1_000_000)
    assert nlpeval.rouge([long], [long], types="rougeS4", max_cells=0)["rougeS4"].score == 1.0
    with pytest.raises(InputError, match=r"segment 1: reference 0: 40,000 cells"):
        nlpeval.rouge([[1, 2], [3] * 200], [[1, 2], [3] * 200], types="rougeL", max_cells=1_000)
    metric = make_rouge("rougeL", flavor="rouge155", max_cells=1_000)
    with pytest.raises(InputError, match=r"segment 0: reference 0: 10,000 cells"):
        metric([long], [long])


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_max_cells_must_be_a_non_negative_int(bad: object) -> None:
    with pytest.raises(ValueError, match="max_cells must be a non-negative int or None"):
        make_rouge("rougeL", max_cells=bad)  # type: ignore[arg-type]


def test_the_default_bound_scores_16000_tokens_a_side() -> None:
    # 16,000 x 16,000 tokens: 2.56e8 cells, under the default 10^9; the LCS of "big" x n against
    # "big" x (n - 1) + "cat" is n - 1, in one line and split into two lines
    n = 16_000
    hyp = " ".join(["big"] * n)
    ref = " ".join(["big"] * (n - 1) + ["cat"])
    scores = nlpeval.rouge([hyp], [ref], types=["rougeL"])
    assert scores["rougeL"].recall == (n - 1) / n
    # two lines a side: each reference line's union LCS with the two summary lines is the line
    # but for "cat"; 8,000 x 8,000 tokens per line pair (marking tables kept as checkpoint rows)
    half = n // 2
    hyp2 = " ".join(["big"] * half) + "\n" + " ".join(["big"] * half)
    ref2 = " ".join(["big"] * half) + "\n" + " ".join(["big"] * (half - 1) + ["cat"])
    scores = nlpeval.rouge([hyp2], [ref2], types=["rougeLsum"])
    assert scores["rougeLsum"].recall == (n - 1) / n


@pytest.mark.parametrize("n", [1, 7, 9_000, 20_001])
@pytest.mark.parametrize("several", [False, True])
def test_scores_from_pair_counts_equal_the_statistics_rows_path_bit_for_bit(n: int, several: bool) -> None:
    """``Rouge.score_from_pairs`` sums the columns itself (no statistics rows); every flavor of
    combining, weighting, F and zero division must give the general path's numbers to the last bit
    (sums above numpy's 8,192-element block included)."""
    rng = np.random.default_rng(n)
    ref_counts = rng.integers(1, 4, n) if several else np.ones(n, dtype=np.int64)
    total = int(ref_counts.sum())
    hyp = rng.integers(0, 40, total).astype(np.float64)
    ref = rng.integers(0, 40, total).astype(np.float64)
    hits = np.minimum(hyp, ref) * rng.random(total) // 1
    pairs = np.stack([hits, hyp, ref], axis=1)
    pairs[: min(5, total)] = [[0, 0, 3], [0, 2, 0], [0, 0, 0], [1, 1, 1], [2, 3, 4]][: min(5, total)]
    options: list[dict[str, Any]] = [
        {"rouge_type": "rouge1"},
        {"rouge_type": "rougeL", "multi_ref": "average", "alpha": 0.3},
        {"rouge_type": "rougeW-1.2", "multi_ref": "best", "segment_columns": "f"},
        {"rouge_type": "rouge2", "aggregate": "micro", "zero_division": float("nan")},
        {"rouge_type": "rougeSU4", "zero_division": 1.0, "beta": 2.0},
    ]
    for option in options:
        metric = make_rouge(**option)
        for segments in (False, True):
            fast = metric.score_from_pairs(pairs, ref_counts, segments=segments)
            slow = metric._score_via_stats(pairs, ref_counts, segments=segments, n_bootstrap=0, seed=None)
            assert type(fast) is type(slow)
            assert (fast.name, repr(fast.score), fast.signature) == (slow.name, repr(slow.score), slow.signature)
            assert repr(dict(fast.components)) == repr(dict(slow.components)), option
            if segments:
                assert fast.segments is not None and slow.segments is not None
                assert fast.segments.shape == slow.segments.shape
                assert fast.segments.tobytes() == slow.segments.tobytes(), option
            else:
                assert fast.segments is None and slow.segments is None


#: tokens around the native tokenizer's 8- and 15-byte key boundaries, in both cases, with
#: repeats, digits, non-ASCII letters (separators for rouge-score) and stems
EDGE_WORDS = [
    "a",
    "cat",
    "Cats",
    "running",
    "abcdefg",
    "ABCDEFGH",
    "abcdefghi",
    "generalization",
    "GENERALIZATIONS",
    "internationalization",
    "Internationalizations",
    "x" * 40,
    "2024",
    "naïve",
    "İstanbul",
    "日本語",
    "the",
    "the",
]


def _edge_text(rng: np.random.Generator, n_tokens: int) -> str:
    words = rng.choice(EDGE_WORDS, n_tokens)
    seps = rng.choice([" ", " ", "  ", "\n", ", ", "-", "\t", "..."], n_tokens)
    return "".join(w + s for w, s in zip(words, seps, strict=True)).strip(" ")


@pytest.mark.parametrize("stemmer", [False, True])
def test_short_and_long_segments_around_the_dense_kernels_equal_rouge_score(stemmer: bool) -> None:
    """Each segment's tokens are numbered densely; n-grams are counted in tables and the LCS read
    from per-token masks when a side has at most 64 tokens. Lengths around 64 on either side, empty
    texts, repeated tokens, several references, and more than 64 segments (the thread pool)."""
    rng = np.random.default_rng(11)
    lengths = [0, 1, 2, 8, 63, 64, 65, 130]
    hyps, refs = [], []
    for h in lengths:
        for r in lengths:
            hyps.append(_edge_text(rng, h))
            refs.append([_edge_text(rng, r) for _ in range(1 + (h + r) % 3)])
    hyps.append("the the the the")
    refs.append(["the the", "the " * 70])
    want = rouge_score_rows(hyps, refs, stemmer)
    got = nlpeval.rouge(hyps, refs, types=TYPES, stemmer=stemmer, flavor="rouge-score", segments=True)
    for name in TYPES:
        assert np.array_equal(got[name].segments, want[name]), name


def test_the_dense_kernels_give_the_same_numbers_on_threads() -> None:
    """Four threads score the same batch at once (each worker keeps its own tables); every result
    equals rouge-score's."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(3)
    hyps = [_edge_text(rng, int(rng.integers(0, 40))) for _ in range(300)]
    refs = [[_edge_text(rng, int(rng.integers(0, 40)))] for _ in range(300)]
    want = rouge_score_rows(hyps, refs, True)

    def run(_: int) -> dict[str, np.ndarray]:
        got = nlpeval.rouge(hyps, refs, types=TYPES, stemmer=True, flavor="rouge-score", segments=True)
        return {name: got[name].segments for name in TYPES}

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, range(8)))
    for result in results:
        for name in TYPES:
            assert np.array_equal(result[name], want[name]), name
