"""WER family (WER, MER, WIL, WIP, CER): parity with jiwer 4, the seed's examples, the input policy."""

from __future__ import annotations

import unicodedata
import warnings

import jiwer
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlpeval
import textgen
from nlpeval.metrics.wer import CER, MER, WER, WIL, WIP

TOL = 1e-12
WORD_MEASURES = ("wer", "mer", "wil", "wip")
COUNTS = ("hits", "substitutions", "deletions", "insertions")


def assert_matches_jiwer(hyps: list[str], refs: list[str], **options: object) -> None:
    """Corpus and per-segment values and counts equal jiwer's (note jiwer's argument order)."""
    out = jiwer.process_words(refs, hyps)
    for measure in WORD_MEASURES:
        score = getattr(nlpeval, measure)(hyps, refs, segments=True, **options)
        assert abs(score.score - getattr(out, measure)) <= TOL, measure
        assert {k: score.components[k] for k in COUNTS} == {k: getattr(out, k) for k in COUNTS}
        expected = [getattr(jiwer.process_words(r, h), measure) for h, r in zip(hyps, refs, strict=True)]
        np.testing.assert_allclose(score.segments, expected, rtol=0, atol=TOL)


def assert_cer_matches_jiwer(hyps: list[str], refs: list[str], **options: object) -> None:
    out = jiwer.process_characters(refs, hyps)
    score = nlpeval.cer(hyps, refs, segments=True, **options)
    assert abs(score.score - out.cer) <= TOL
    assert {k: score.components[k] for k in COUNTS} == {k: getattr(out, k) for k in COUNTS}
    expected = [jiwer.cer(r, h) for h, r in zip(hyps, refs, strict=True)]
    np.testing.assert_allclose(score.segments, expected, rtol=0, atol=TOL)


# --- the seed's worked examples ----------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "hypothesis", "expected"),
    [(["A", "B", "C"], ["A", "A", "C"], 1 / 3), (["A", "B", "C", "D"], ["A", "A", "C", "D"], 0.25)],
)
def test_seed_examples(reference: list[str], hypothesis: list[str], expected: float) -> None:
    # "['A','B','C'] -> ['A','A','C']": the reference is rewritten into the hypothesis (one
    # substitution). Both sides have the same length, so the value is the same either way round;
    # nlpeval takes (hypotheses, references), jiwer (reference, hypothesis).
    as_segments = nlpeval.wer(hypothesis, reference)
    as_sentence = nlpeval.wer([" ".join(hypothesis)], [" ".join(reference)])
    for score in (as_segments, as_sentence):
        assert score.score == pytest.approx(expected, abs=TOL)
        assert score.components["substitutions"] == 1
        assert score.components["hits"] == len(reference) - 1
    assert as_segments.score == jiwer.wer(reference, hypothesis)
    assert nlpeval.wer(reference, hypothesis).score == pytest.approx(expected, abs=TOL)


# --- parity on real data -------------------------------------------------------------------


@pytest.mark.parametrize("system", ["ted.sys1.eng", "ted.sys2.eng", "ted.sys1.detok.eng", "ted.sys2.detok.eng"])
def test_ted_word_measures_match_jiwer(compare_mt: dict[str, list[str]], system: str) -> None:
    reference = "ted.ref.detok.eng" if "detok" in system else "ted.ref.eng"
    assert_matches_jiwer(compare_mt[system], compare_mt[reference])


@pytest.mark.parametrize("system", ["ted.sys1.detok.eng", "ted.sys2.eng"])
def test_ted_cer_matches_jiwer(compare_mt: dict[str, list[str]], system: str) -> None:
    reference = "ted.ref.detok.eng" if "detok" in system else "ted.ref.eng"
    hyps, refs = compare_mt[system][:800], compare_mt[reference][:800]
    assert_cer_matches_jiwer(hyps, refs)
    full = nlpeval.cer(compare_mt[system], compare_mt[reference])
    assert abs(full.score - jiwer.cer(compare_mt[reference], compare_mt[system])) <= TOL


def test_ted_lowercase_punctuation_match_jiwer_transforms(compare_mt: dict[str, list[str]]) -> None:
    hyps, refs = compare_mt["ted.sys1.detok.eng"], compare_mt["ted.ref.detok.eng"]
    transform = jiwer.Compose(
        [
            jiwer.ToLowerCase(),
            jiwer.RemovePunctuation(),
            jiwer.RemoveMultipleSpaces(),
            jiwer.Strip(),
            jiwer.ReduceToListOfListOfWords(),
        ]
    )
    out = jiwer.process_words(refs, hyps, reference_transform=transform, hypothesis_transform=transform)
    score = nlpeval.wer(hyps, refs, lowercase=True, remove_punctuation=True)
    assert abs(score.score - out.wer) <= TOL
    assert abs(score.components["wip"] - out.wip) <= TOL
    assert score.components["substitutions"] == out.substitutions


# --- parity on generated adversarial text ----------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_adversarial_text_matches_jiwer(seed: int) -> None:
    hyps, refs = textgen.corpus(seed, n=150)
    first = [r[0] for r in refs]
    assert_matches_jiwer(hyps, first)
    assert_cer_matches_jiwer(hyps, first)


def test_adversarial_options_match_jiwer() -> None:
    hyps, refs = textgen.corpus(99, n=300)
    first = [r[0] for r in refs]
    lower_punct = jiwer.Compose(
        [
            jiwer.ToLowerCase(),
            jiwer.RemovePunctuation(),
            jiwer.RemoveMultipleSpaces(),
            jiwer.Strip(),
            jiwer.ReduceToListOfListOfWords(),
        ]
    )
    out = jiwer.process_words(first, hyps, reference_transform=lower_punct, hypothesis_transform=lower_punct)
    score = nlpeval.wer(hyps, first, lowercase=True, remove_punctuation=True)
    assert abs(score.score - out.wer) <= TOL and score.components["hits"] == out.hits

    def nfkc(texts: list[str]) -> list[str]:
        return [unicodedata.normalize("NFKC", t) for t in texts]

    assert_matches_jiwer(nfkc(hyps), nfkc(first))
    assert nlpeval.wer(hyps, first, nfkc=True).score == pytest.approx(jiwer.wer(nfkc(first), nfkc(hyps)), abs=TOL)

    def collapse(texts: list[str], sep: str = " ") -> list[str]:
        return [sep.join(t.split()) for t in texts]

    collapsed = nlpeval.mer(hyps, first, whitespace="collapse")
    assert collapsed.score == pytest.approx(jiwer.mer(collapse(first), collapse(hyps)), abs=TOL)
    removed = nlpeval.cer(hyps, first, whitespace="remove")
    assert removed.score == pytest.approx(jiwer.cer(collapse(first, ""), collapse(hyps, "")), abs=TOL)


def test_jiwer_whitespace_quirk_is_reproduced() -> None:
    # jiwer collapses runs of 2+ whitespace characters but does not split on a lone tab or
    # no-break space; whitespace="collapse" splits on any whitespace.
    hyp, ref = ["a\tb c\u00a0d"], ["a b c d"]
    assert nlpeval.wer(hyp, ref).score == jiwer.wer(ref, hyp) == 1.0
    assert nlpeval.wer(hyp, ref, whitespace="collapse").score == 0.0


def test_best_of_several_references() -> None:
    hyps, refs = textgen.corpus(5, n=200, max_refs=3)
    chosen = []
    for hyp, seg in zip(hyps, refs, strict=True):
        errors = [(lambda o: o.substitutions + o.deletions + o.insertions)(jiwer.process_words(r, hyp)) for r in seg]
        chosen.append(seg[errors.index(min(errors))])
    score = nlpeval.wer(hyps, refs, segments=True)
    assert abs(score.score - jiwer.wer(chosen, hyps)) <= TOL
    np.testing.assert_allclose(score.segments, [jiwer.wer(r, h) for h, r in zip(hyps, chosen, strict=True)], atol=TOL)
    assert score.signature.startswith("nrefs:var|")


def test_split_unspaced_scores_characters_as_words() -> None:
    hyps, refs = ["我们喜欢 NLP 中文", "ภาษาไทย ok"], ["我们爱 NLP 中文", "ภาษาไทย ok"]
    spaced_h, spaced_r = ["我 们 喜 欢 NLP 中 文", "ภ า ษ า ไ ท ย ok"], ["我 们 爱 NLP 中 文", "ภ า ษ า ไ ท ย ok"]
    score = nlpeval.wer(hyps, refs, split_unspaced=True)
    assert score.score == pytest.approx(jiwer.wer(spaced_r, spaced_h), abs=TOL)
    assert nlpeval.wer(hyps, refs).score == pytest.approx(jiwer.wer(refs, hyps), abs=TOL)
    assert score.components["ref_len"] == 6 + 8


def test_corpus_value_is_total_edits_over_total_reference_words() -> None:
    hyps, refs = ["a b c d e f g h", "x"], ["a b c d e f g h", "y z"]
    score = nlpeval.wer(hyps, refs, segments=True)
    assert score.score == pytest.approx(2 / 10, abs=TOL)
    assert score.segments.tolist() == [0.0, 1.0]  # the mean of segment rates would be 0.5


# --- components, signature, stats -> merge -> score -------------------------------------------


def test_components_and_signature() -> None:
    score = nlpeval.wer(["the cat sat"], ["the cat sat down"])
    assert set(score.components) >= {*WORD_MEASURES, *COUNTS, "ref_len", "hyp_len"}
    assert score.components["deletions"] == 1 and score.components["ref_len"] == 4
    assert score.signature.split("|version:")[0] == (
        "nrefs:1|unit:word|case:mixed|punct:kept|nfkc:no|ws:jiwer|unspaced:kept|flavor:jiwer"
    )
    options = nlpeval.cer(["a"], ["b"], lowercase=True, remove_punctuation=True, nfkc=True, whitespace="remove")
    assert options.signature.split("|version:")[0] == (
        "nrefs:1|unit:char|case:lc|punct:removed|nfkc:yes|ws:remove|flavor:jiwer"
    )
    assert set(options.components) == {"cer", *COUNTS, "ref_len", "hyp_len"}


def test_metric_objects_share_statistics() -> None:
    hyps, refs = textgen.corpus(3, n=120, max_refs=1)
    refs = [r[0] for r in refs]
    stats = WER().segment_stats(hyps, refs)
    assert stats.schema.fields[:6] == ("hits", "substitutions", "deletions", "insertions", "ref_len", "hyp_len")
    for cls, function in ((WER, nlpeval.wer), (MER, nlpeval.mer), (WIL, nlpeval.wil), (WIP, nlpeval.wip)):
        assert cls().score_from_stats(stats).score == function(hyps, refs).score
    assert CER()(hyps, refs).score == nlpeval.cer(hyps, refs).score


def test_accumulator_streams_exactly() -> None:
    hyps, refs = textgen.corpus(11, n=240)
    one_shot = nlpeval.wer(hyps, refs)
    acc = WER().accumulator()
    for start in range(0, 240, 70):
        acc.update(hyps[start : start + 70], refs[start : start + 70])
    other = WER().accumulator().update(hyps[:10], refs[:10])
    assert acc.compute().score == one_shot.score
    assert acc.compute().components == one_shot.components
    merged = WER().accumulator().update(hyps[10:], refs[10:]).merge(other)
    assert merged.compute().score == one_shot.score


TIE_TEXT = st.text(alphabet="ab \t\u00a0", max_size=14)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(TIE_TEXT, TIE_TEXT), min_size=1, max_size=8), st.data())
def test_properties_batched_streamed_and_jiwer(pairs: list[tuple[str, str]], data: st.DataObject) -> None:
    # tiny alphabets make many tied alignments: the counts must still be jiwer's
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    stats = WER().segment_stats(hyps, refs)
    one_by_one = np.concatenate([WER().segment_stats([h], [r]).rows for h, r in pairs])
    assert np.array_equal(stats.rows, one_by_one)
    split = data.draw(st.integers(0, len(pairs)))
    acc = WER().accumulator().update(hyps[:split], refs[:split]).update(hyps[split:], refs[split:])
    assert acc.compute().components == WER().score_from_stats(stats).components
    out = jiwer.process_words(refs, hyps)
    assert [int(stats.totals()[k]) for k in range(4)] == [getattr(out, k) for k in COUNTS]
    assert WIP().score_from_stats(stats).score == pytest.approx(out.wip, abs=TOL)
    chars = jiwer.process_characters(refs, hyps)
    assert [CER()(hyps, refs).components[k] for k in COUNTS] == [getattr(chars, k) for k in COUNTS]


def test_bootstrap_interval_brackets_the_score(compare_mt: dict[str, list[str]]) -> None:
    score = nlpeval.wer(compare_mt["ted.sys1.eng"], compare_mt["ted.ref.eng"], n_bootstrap=200, seed=1)
    assert score.ci is not None and score.ci.low < score.score < score.ci.high
    assert "|bs:200|rs:1|" in score.signature


# --- bad input: the stated policy ----------------------------------------------------------------


def test_mismatched_counts_raise() -> None:
    with pytest.raises(nlpeval.InputError, match="2 hypotheses but 1 references"):
        nlpeval.wer(["a", "b"], ["a"])
    with pytest.raises(nlpeval.InputError, match="got one str"):
        nlpeval.cer("a b", ["a b"])


def test_non_text_items_name_the_segment() -> None:
    with pytest.raises(nlpeval.InputError) as info:
        nlpeval.wer(["a", None], ["a", "b"])  # type: ignore[list-item]
    assert info.value.segment == 1 and info.value.side == "hypotheses"
    with pytest.raises(nlpeval.InputError, match="has no reference"):
        nlpeval.wer(["a"], [[]])


@pytest.mark.parametrize(
    ("hyps", "refs"),
    [
        (["", "a b"], ["x y", "a b"]),  # empty hypothesis: all deletions
        (["   ", "a"], ["x y", "a"]),  # whitespace-only hypothesis: the same
        (["a b", "c"], ["", "c"]),  # empty reference: insertions, no reference words
        (["a b", "c"], ["\t \u3000", "c"]),  # whitespace-only reference: the same
        (["a b"], [""]),  # no reference words at all: WER = number of insertions
        ([" "], [""]),  # nothing on either side: 0
    ],
)
def test_empty_segments_follow_jiwer(hyps: list[str], refs: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_matches_jiwer(hyps, refs)
        assert_cer_matches_jiwer(hyps, refs)


def test_invalid_unicode_names_the_segment() -> None:
    with pytest.raises(nlpeval.InputError, match="lone surrogate") as info:
        nlpeval.wer(["a", "b"], ["a", ["b", "c\ud800"]])
    assert (info.value.segment, info.value.side, info.value.reference) == (1, "references", 1)
    with pytest.raises(nlpeval.InputError, match="hypotheses: segment 0"):
        nlpeval.edit_alignment(["\udcff"], ["a"])


def test_empty_reference_values() -> None:
    score = nlpeval.wer(["a b", ""], ["", ""], segments=True)
    assert score.score == 2.0 and score.segments.tolist() == [2.0, 0.0]
    assert score.components["mer"] == 1.0 and score.components["wip"] == 0.0
    assert jiwer.wer([], []) == 0  # jiwer defines an empty corpus as 0; nlpeval refuses it, as its CLI does
    with pytest.raises(nlpeval.InputError, match="no segments"):
        nlpeval.wer([], [])


def test_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="unknown whitespace"):
        nlpeval.wer(["a"], ["a"], whitespace="tabs")
    with pytest.raises(ValueError, match="option of cer only"):
        nlpeval.wer(["a"], ["a"], whitespace="remove")
    with pytest.raises(ValueError, match="flavor"):
        nlpeval.wer(["a"], ["a"], flavor="sclite")
    with pytest.raises(ValueError, match="split_unspaced"):
        CER(split_unspaced=True)
