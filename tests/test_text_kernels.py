"""The fused text kernels (issue 13) against sacreBLEU: the single-pass 13a scanner and the
packed-key chrF counts, on WMT17, adversarial Unicode and hypothesis-generated strings."""

from __future__ import annotations

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import nlpeval
from nlpeval import _native

TOL = 1e-9  # on sacreBLEU's 0-100 scale (nlpeval scores are 0-1: x100 can move the last bit)

#: characters where 13a's rules interact: digits next to periods, commas and dashes, symbols,
#: entities, Python-only whitespace (U+001C..U+001F, U+0085, U+00A0, U+3000), zero-width space
TRICKY = "ab9 0.,-'&;<>\"$(/{~`_\t\n\r\x0b\x1c\x1f\x85\xa0\u2009\u3000\u200b\u2028é€😀"


def _sacre_13a(lines: list[str]) -> list[str]:
    tokenizer = Tokenizer13a()
    return [" ".join(tokenizer(line.rstrip()).split()) for line in lines]


def test_13a_scanner_equals_sacrebleu_on_every_wmt17_line(wmt17: dict[str, list[str]]) -> None:
    lines = [line for name in ("reference", "online-B.0", "PROMT-Rule-based.4735") for line in wmt17[name]]
    assert _native.tokenize(lines, "13a") == _sacre_13a(lines)


def test_13a_scanner_on_digit_punctuation_and_entity_cases() -> None:
    lines = [
        "a.,5 1.,a a..b 5. x....y 1-2-3 1--2 a,,,,1 .5 1.5.6 a.1 1.a , - 1- -1 9.-1",
        "é.5 5.é 1,000.50-3 a\xa0.b \u3000,\x851 &amp;.5 <skipped>.5 x-\n5 1\n-2 .,.,.,",
        "&amp;quot; &&amp;lt; 3&gt;-4 <skip<skipped>ped>",
        "trailing dash-\n",
        "",
        " \t ",
    ]
    assert _native.tokenize(lines, "13a") == _sacre_13a(lines)
    hyps, refs = lines, [line[::-1] for line in lines]
    ours = nlpeval.bleu(hyps, refs, segments=True)
    theirs = sacrebleu.corpus_bleu(hyps, [refs])
    assert ours.score * 100 == pytest.approx(theirs.score, abs=TOL)
    expected = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
    assert list(ours.segments * 100) == pytest.approx(expected, abs=TOL)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=TRICKY, max_size=30), min_size=1, max_size=8))
def test_13a_scanner_equals_sacrebleu_on_generated_text(lines: list[str]) -> None:
    assert _native.tokenize(lines, "13a") == _sacre_13a(lines)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet=TRICKY, max_size=40), st.text(alphabet=TRICKY, max_size=40)),
        min_size=1,
        max_size=6,
    )
)
def test_bleu_and_chrf_counts_equal_sacrebleu_on_generated_text(pairs: list[tuple[str, str]]) -> None:
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    ours = nlpeval.bleu(hyps, refs)
    assert ours.components["counts"] == sacrebleu.corpus_bleu(hyps, [refs]).counts
    for word_order in (0, 2):
        chrf = nlpeval.chrf(hyps, refs, word_order=word_order, segments=True)
        assert chrf.score * 100 == pytest.approx(
            sacrebleu.corpus_chrf(hyps, [refs], word_order=word_order).score, abs=TOL
        )
        metric = SacreCHRF(word_order=word_order)
        expected = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
        assert list(chrf.segments * 100) == pytest.approx(expected, abs=TOL)


def test_chrf_with_a_large_alphabet_and_several_references() -> None:
    # 1,500 distinct characters: more than the packed keys' 10-bit lanes hold (the trie path)
    wide = "".join(chr(0x4E00 + i) for i in range(1500))
    hyps = [wide, "the cat sat", wide[::7] + " x"]
    refs = [[wide[5:], "a"], ["the cat sat on", "cat the sat"], [wide[::3], wide[::7]]]
    for word_order in (0, 2):
        ours = nlpeval.chrf(hyps, refs, word_order=word_order, segments=True)
        streams = [list(column) for column in zip(*refs, strict=True)]
        assert ours.score * 100 == pytest.approx(
            sacrebleu.corpus_chrf(hyps, streams, word_order=word_order).score, abs=TOL
        )
        metric = SacreCHRF(word_order=word_order)
        expected = [metric.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]
        assert list(ours.segments * 100) == pytest.approx(expected, abs=TOL)
