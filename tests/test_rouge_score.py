"""Parity with Google's rouge-score 0.1.2: per-segment P/R/F on real and adversarial data."""

from __future__ import annotations

import numpy as np
import pytest
from rouge_score import rouge_scorer

import nlpeval
from nlpeval import _native
from textgen import corpus

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


def expected(hyps: list[str], refs: list[list[str]], types: list[str], stemmer: bool, **kwargs: object) -> dict:
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stemmer, **kwargs)
    scores = [
        scorer.score_multi(r, h) if len(r) > 1 else scorer.score(r[0], h) for h, r in zip(hyps, refs, strict=True)
    ]
    return {t: np.array([[s[t].precision, s[t].recall, s[t].fmeasure] for s in scores]) for t in types}


def assert_parity(hyps: list[str], refs: list[list[str]], types: list[str], stemmer: bool, **kwargs: object) -> None:
    want = expected(hyps, refs, types, stemmer)
    got = nlpeval.rouge(hyps, refs, types=types, stemmer=stemmer, flavor="rouge-score", segments=True, **kwargs)
    for name in types:
        np.testing.assert_allclose(got[name].segments, want[name], rtol=0, atol=1e-12, err_msg=name)
        assert got[name].fmeasure == pytest.approx(want[name][:, 2].mean(), abs=1e-12)
        assert got[name].precision == pytest.approx(want[name][:, 0].mean(), abs=1e-12)


@pytest.fixture(scope="module")
def summaries(compare_mt: dict[str, list[str]]) -> tuple[list[str], list[str], list[str]]:
    return compare_mt["sum.sys1.eng"], compare_mt["sum.ref.eng"], compare_mt["sum.sys2.eng"]


@pytest.mark.parametrize("stemmer", [False, True])
def test_one_reference_on_2000_summaries(summaries, stemmer: bool) -> None:
    hyps, ref, _ = summaries
    assert len(hyps) == 2000
    assert_parity(hyps, [[r] for r in ref], TYPES, stemmer)


@pytest.mark.parametrize("stemmer", [False, True])
def test_two_references_take_the_max_f(summaries, stemmer: bool) -> None:
    hyps, ref, other = summaries
    assert_parity(hyps, [[a, b] for a, b in zip(ref, other, strict=True)], TYPES, stemmer)


@pytest.mark.parametrize("stemmer", [False, True])
def test_multi_sentence_documents_for_lsum(summaries, stemmer: bool) -> None:
    hyps, ref, other = summaries
    docs = ["\n".join(hyps[i : i + 4]) for i in range(0, 1200, 4)]
    ref_docs = ["\n".join(ref[i : i + 3]) for i in range(0, 900, 3)]
    other_docs = ["\n".join(other[i : i + 5]) for i in range(0, 1500, 5)]
    refs = [[a, b] if i % 2 else [a] for i, (a, b) in enumerate(zip(ref_docs, other_docs, strict=True))]
    assert_parity(docs, refs, ["rougeL", "rougeLsum", "rouge2"], stemmer)


@pytest.mark.parametrize(("seed", "stemmer"), [(1, False), (2, True), (3, False)])
def test_adversarial_text(seed: int, stemmer: bool) -> None:
    hyps, refs = corpus(seed, n=300, max_refs=3)
    # multi-line documents too, so that rougeLsum sees several sentences
    hyps = [h if i % 3 else h + "\n" + hyps[(i + 1) % len(hyps)] for i, h in enumerate(hyps)]
    assert_parity(hyps, refs, [*TYPES, "rouge4"], stemmer)


def test_the_default_flavor_equals_rouge_score_on_ascii(summaries) -> None:
    hyps, ref, other = summaries
    refs = [[a, b] for a, b in zip(ref, other, strict=True)]
    for stemmer in (False, True):
        want = expected(hyps, refs, TYPES, stemmer)
        got = nlpeval.rouge(hyps, refs, types=TYPES, stemmer=stemmer, segments=True)
        for name in TYPES:
            np.testing.assert_allclose(got[name].segments, want[name], rtol=0, atol=1e-12)


def test_porter_stemmer_equals_nltk_on_every_word_of_the_data(compare_mt: dict[str, list[str]]) -> None:
    from nltk.stem import porter

    words = sorted({w for lines in compare_mt.values() for line in lines for w in line.lower().split() if w.isalnum()})
    words += ["sky", "skies", "dying", "innings", "proceed", "ies", "ied", "tied", "yyyy", "syzygy", "eed", "bled"]
    nltk_stemmer = porter.PorterStemmer()
    ours = _native.porter_stem(words)
    mismatches = [(w, s, nltk_stemmer.stem(w)) for w, s in zip(words, ours, strict=True) if s != nltk_stemmer.stem(w)]
    assert len(words) > 10000
    assert mismatches == []


def test_rouge_score_tokenizer_equals_rouge_score_on_adversarial_text() -> None:
    from rouge_score import tokenizers

    hyps, refs = corpus(7, n=300)
    texts = hyps + [r for seg in refs for r in seg] + ["İSTANBUL \u212aELVIN ﬁne ǅ"]
    for stem in (False, True):
        theirs = tokenizers.DefaultTokenizer(use_stemmer=stem)
        assert _native.rouge_tokenize(texts, "rouge-score", stem) == [theirs.tokenize(t) for t in texts]


def test_nltk_sentence_splitting_matches_split_summaries() -> None:
    """rouge-score's ``split_summaries=True`` uses ``nltk.sent_tokenize``; so does ours."""
    import nltk

    try:
        nltk.sent_tokenize("A b. C d.")
    except LookupError:
        with pytest.raises(ValueError, match="punkt"):
            nlpeval.rouge(
                ["A b. C d."], ["A b. C d."], types="rougeLsum", sentence_splitter="nltk", flavor="rouge-score"
            )
        return
    hyps = ["The cat sat. The dog ran away! Birds fly.", "One sentence only"]
    refs = [["A cat sat. The dog ran."], ["Only one sentence here. And another."]]
    assert_parity(hyps, refs, ["rougeLsum"], False, sentence_splitter="nltk")
