"""GLEU, NIST and RIBES parity with NLTK 3.10 (run live): corpus scores, sentence scores, options.

Real data: WMT17 en-de (two systems' outputs as references of a third), compare-mt TED and
summaries; generated adversarial text (many scripts, odd whitespace, empty segments, up to five
references) and a two-letter alphabet (ties everywhere: repeated words, equal references).
HF evaluate's ``google_bleu`` loads its script from the Hub, so the ``hf`` GLEU flavor is checked
as what that script does: evaluate's 13a tokenizer (sacreBLEU's ``Tokenizer13a`` here) then NLTK.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from nltk.translate.gleu_score import corpus_gleu, sentence_gleu
from nltk.translate.nist_score import corpus_nist, sentence_nist
from nltk.translate.ribes_score import corpus_ribes, sentence_ribes
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.metrics.nltk_lexical import NIST
from textgen import corpus


def split(hyps: list[str], refs: list[list[str]]) -> tuple[list[list[str]], list[list[list[str]]]]:
    return [h.split() for h in hyps], [[r.split() for r in seg] for seg in refs]


def wmt_data(wmt17: dict[str, list[str]], n: int) -> tuple[list[str], list[list[str]]]:
    hyps = wmt17["uedin-nmt.4722"][:n]
    refs = [[wmt17["reference"][i], wmt17["online-B.0"][i]] for i in range(n)]
    return hyps, refs


def tie_data(seed: int, n: int = 300) -> tuple[list[list[str]], list[list[list[str]]]]:
    rng = random.Random(seed)
    hyps = [[rng.choice("ab") for _ in range(rng.randint(0, 14))] for _ in range(n)]
    refs = [[[rng.choice("abc") for _ in range(rng.randint(0, 14))] for _ in range(rng.randint(1, 3))] for _ in hyps]
    for seg in refs[::7]:
        seg.append(list(seg[0]))  # an equal reference: ties between references
    return hyps, refs


def nist_or_nan(refs: list[list[str]], hyp: list[str], n: int = 5) -> float:
    try:
        return sentence_nist(refs, hyp, n)
    except ZeroDivisionError:
        return float("nan")


@pytest.mark.parametrize("source", ["wmt17", "ted", "sum", "adversarial"])
def test_gleu_equals_nltk(source, wmt17, compare_mt):
    if source == "wmt17":
        hyps, refs = wmt_data(wmt17, 1000)
    elif source == "adversarial":
        hyps, refs = corpus(11, 400, 5)
    else:
        hyps = compare_mt[f"{source}.sys1.eng"][:1000]
        refs = [[compare_mt[f"{source}.ref.eng"][i], compare_mt[f"{source}.sys2.eng"][i]] for i in range(len(hyps))]
    hyp_tokens, ref_tokens = split(hyps, refs)
    got = nlpeval.gleu(hyps, refs, segments=True)
    assert got.score == corpus_gleu(ref_tokens, hyp_tokens)
    expected = [sentence_gleu(r, h) for h, r in zip(hyp_tokens, ref_tokens, strict=True)]
    assert got.segments.tolist() == expected


@pytest.mark.parametrize(("min_len", "max_len"), [(1, 1), (2, 6), (3, 2), (1, 9)])
def test_gleu_orders_and_ties_equal_nltk(min_len, max_len):
    hyps, refs = tie_data(min_len * 10 + max_len)
    got = nlpeval.gleu(hyps, refs, min_len=min_len, max_len=max_len, segments=True)
    assert got.score == corpus_gleu(refs, hyps, min_len=min_len, max_len=max_len)
    expected = [sentence_gleu(r, h, min_len=min_len, max_len=max_len) for h, r in zip(hyps, refs, strict=True)]
    assert got.segments.tolist() == expected
    assert "min_len:" in got.signature and "flavor:nltk" in got.signature


def test_gleu_hf_flavor_is_evaluate_google_bleu(compare_mt):
    hyps = compare_mt["ted.sys1.detok.eng"][:600]
    refs = [[compare_mt["ted.ref.detok.eng"][i], compare_mt["ted.sys2.detok.eng"][i]] for i in range(600)]
    tok = Tokenizer13a()
    expected = corpus_gleu([[tok(r).split() for r in seg] for seg in refs], [tok(h).split() for h in hyps])
    got = nlpeval.gleu(hyps, refs, flavor="hf")
    assert got.score == expected
    assert "tok:13a" in got.signature and "flavor:hf" in got.signature


@pytest.mark.parametrize("source", ["wmt17", "sum", "adversarial", "ties"])
def test_nist_equals_nltk(source, wmt17, compare_mt):
    if source == "wmt17":
        hyps, refs = wmt_data(wmt17, 800)
        hyp_tokens, ref_tokens = split(hyps, refs)
    elif source == "sum":
        hyps = compare_mt["sum.sys1.eng"][:1000]
        refs = [[compare_mt["sum.ref.eng"][i], compare_mt["sum.sys2.eng"][i]] for i in range(1000)]
        hyp_tokens, ref_tokens = split(hyps, refs)
    elif source == "adversarial":
        hyps, refs = corpus(12, 400, 5)
        hyp_tokens, ref_tokens = split(hyps, refs)
    else:
        hyp_tokens, ref_tokens = tie_data(5)
        hyps, refs = hyp_tokens, ref_tokens
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # segments without 5-grams: NLTK raises there
        got = nlpeval.nist(hyps, refs, segments=True)
    expected = corpus_nist(ref_tokens, hyp_tokens)
    assert abs(got.score - expected) <= 1e-12 * max(1.0, abs(expected))
    sentence = np.array([nist_or_nan(r, h) for h, r in zip(hyp_tokens, ref_tokens, strict=True)])
    defined = ~np.isnan(sentence)
    np.testing.assert_allclose(got.segments[defined], sentence[defined], rtol=1e-12, atol=1e-12)
    assert defined.sum() > 0


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_nist_orders_equal_nltk(n):
    hyps, refs = corpus(20 + n, 300, 3)
    hyp_tokens, ref_tokens = split(hyps, refs)
    got = nlpeval.nist(hyps, refs, n=n, zero_division="raise")
    expected = corpus_nist(ref_tokens, hyp_tokens, n)
    assert abs(got.score - expected) <= 1e-12 * max(1.0, expected)
    short = [h[:5] for h in hyps]
    with pytest.raises(ZeroDivisionError):
        corpus_nist(ref_tokens, [h.split()[:2] for h in short], 3)
    with pytest.raises(ZeroDivisionError, match="NIST precision"):
        nlpeval.nist([" ".join(h.split()[:2]) for h in short], refs, n=3, zero_division="raise")


def test_nist_zero_division_where_nltk_raises():
    with pytest.raises(ZeroDivisionError):
        sentence_nist([["a", "b", "c"]], ["a", "b"])
    with pytest.warns(nlpeval.UndefinedMetricWarning):
        value = nlpeval.nist(["a b"], ["a b c"]).score
    assert value == nlpeval.nist(["a b"], ["a b c"], zero_division=0).score
    assert np.isnan(nlpeval.nist(["a b"], ["a b c"], zero_division=np.nan).score)
    with pytest.raises(ZeroDivisionError):
        NIST(zero_division="raise")(["a b"], ["a b c"])


@pytest.mark.parametrize("source", ["wmt17", "ted", "adversarial", "ties"])
def test_ribes_equals_nltk(source, wmt17, compare_mt):
    if source == "wmt17":
        hyps, refs = wmt_data(wmt17, 500)
        hyp_tokens, ref_tokens = split(hyps, refs)
    elif source == "ted":
        hyps = compare_mt["ted.sys1.eng"][:500]
        refs = [[compare_mt["ted.ref.eng"][i], compare_mt["ted.sys2.eng"][i]] for i in range(500)]
        hyp_tokens, ref_tokens = split(hyps, refs)
    elif source == "adversarial":
        hyps, refs = corpus(13, 300, 5)
        hyp_tokens, ref_tokens = split(hyps, refs)
    else:
        hyp_tokens, ref_tokens = tie_data(9)
        hyps, refs = hyp_tokens, ref_tokens
    got = nlpeval.ribes(hyps, refs, segments=True)
    assert abs(got.score - corpus_ribes(ref_tokens, hyp_tokens)) <= 1e-12
    expected = [sentence_ribes(r, h) for h, r in zip(hyp_tokens, ref_tokens, strict=True)]
    assert got.segments.tolist() == expected


@pytest.mark.parametrize(("alpha", "beta"), [(0.0, 0.0), (0.5, 0.3), (1.0, 2.0)])
def test_ribes_options_equal_nltk(alpha, beta):
    hyp_tokens, ref_tokens = tie_data(int(alpha * 10 + beta * 100))
    got = nlpeval.ribes(hyp_tokens, ref_tokens, alpha=alpha, beta=beta, segments=True)
    assert abs(got.score - corpus_ribes(ref_tokens, hyp_tokens, alpha=alpha, beta=beta)) <= 1e-12
    expected = [sentence_ribes(r, h, alpha=alpha, beta=beta) for h, r in zip(hyp_tokens, ref_tokens, strict=True)]
    assert got.segments.tolist() == expected
    assert f"alpha:{alpha}|beta:{beta}" in got.signature


def test_bootstrap_and_paired_test(wmt17):
    hyps, refs = wmt_data(wmt17, 300)
    for function in (nlpeval.gleu, nlpeval.nist, nlpeval.ribes):
        score = function(hyps, refs, n_bootstrap=100, seed=2)
        assert score.ci is not None and score.ci.low <= score.score <= score.ci.high
    metric = nlpeval.GLEU()
    a = metric.segment_stats(hyps, refs)
    b = metric.segment_stats(wmt17["online-A.0"][:300], refs)
    assert 0.0 <= nlpeval.paired_bootstrap(metric, a, b, n_resamples=100).p_value <= 1.0


def test_bad_input_names_the_segment():
    for function in (nlpeval.gleu, nlpeval.nist, nlpeval.ribes):
        with pytest.raises(InputError, match="segment 1: has no reference"):
            function(["a", "b"], [["a"], []])
        with pytest.raises(InputError, match="hypotheses: segment 0: is None"):
            function([None], [["a"]])
        with pytest.raises(InputError, match="segment 0 \\(reference 0\\): is not valid Unicode"):
            function(["a"], [["b \ud800"]])
        with pytest.raises(InputError, match="2 hypotheses but 1 references"):
            function(["a", "b"], [["a"]])
    with pytest.raises(InputError, match="references must be a list of token lists"):
        nlpeval.gleu([["a", "b"]], [["a", "b"]])
    with pytest.raises(ValueError, match="unknown GLEU flavor"):
        nlpeval.gleu(["a"], ["a"], flavor="sacrebleu")
    with pytest.raises(ValueError, match="alpha must be"):
        nlpeval.ribes(["a"], ["a"], alpha=-1)


def test_ribes_single_pair_helpers_equal_nltk():
    from nltk.translate.ribes_score import kendall_tau as nltk_tau
    from nltk.translate.ribes_score import word_rank_alignment

    from nlpeval.metrics.nltk_lexical.ribes import kendall_tau, sentence_value, word_order

    hyp_tokens, ref_tokens = tie_data(31, 150)
    for hyp, refs in zip(hyp_tokens, ref_tokens, strict=True):
        for ref in refs:
            assert word_order(ref, hyp) == word_rank_alignment(ref, hyp)
            assert kendall_tau(word_order(ref, hyp)) == nltk_tau(word_rank_alignment(ref, hyp))
        assert sentence_value(refs, hyp, 0.25, 0.1) == sentence_ribes(refs, hyp)
