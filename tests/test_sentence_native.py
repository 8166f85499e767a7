"""Sentence-level BLEU and chrF in one native call (issue 13) equal sacreBLEU and the generic path.

``BLEU``/``CHRF.score_from_stats`` take the corpus score, its components and the sentence scores
from ``_native.bleu_summary`` / ``chrf_summary`` (sacreBLEU's formulas on the statistics rows, with
the C library's ``log``/``exp`` as ``math.log``/``math.exp``). These tests compare the public calls
with sacreBLEU on adversarial batches (no match, empty hypotheses and references, one-word
segments, several references, case differences) under every smoothing method, and the native
summary with ``CorpusMetric.score_from_stats`` (the vectorised Python formulas) bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

import nlpeval
from nlpeval.core.metric import CorpusMetric
from nlpeval.metrics.bleu import TokenIdBLEU

#: (hypotheses, references): one reference per segment or a list of them
BATCHES = [
    (["the cat sat on the mat", "a b c d e", "x y z"], ["the cat sat on a mat", "a b c d e", "p q r"]),
    (["", "word", "", "two words"], ["a reference here", "", "", "two words"]),
    (["one", "no overlap at all here", "The Cat SAT"], ["one", "entirely different text now", "the cat sat"]),
    (
        ["the quick brown fox", "jumps over", "the lazy dog ."],
        [["a quick brown fox", "the quick fox"], ["jumps over it"], ["the lazy dog .", "lazy dog", "a dog"]],
    ),
    (["a a a a a a", "b b", "c"], ["a a", "b b b b b b", "c c c"]),
]

SMOOTHING = [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2), ("none", None)]


def _refs(item: str | list[str]) -> list[str]:
    return [item] if isinstance(item, str) else item


def _streams(references: list) -> list[list[str]]:
    """sacreBLEU's layout: reference streams padded with None where a segment has fewer."""
    width = max(len(_refs(r)) for r in references)
    return [[(_refs(r) + [None] * width)[k] for r in references] for k in range(width)]


@pytest.mark.parametrize(("smooth", "smooth_value"), SMOOTHING)
@pytest.mark.parametrize("max_order", [2, 4, 7])
def test_bleu_equals_sacrebleu(smooth: str, smooth_value: float | None, max_order: int) -> None:
    for hyps, refs in BATCHES:
        for lowercase in (False, True):
            options = {"smooth_method": smooth, "smooth_value": smooth_value, "max_ngram_order": max_order}
            sentence = sacrebleu.BLEU(**options, effective_order=True, lowercase=lowercase)
            for effective in (False, True):
                ours = nlpeval.bleu(
                    hyps,
                    refs,
                    smooth=smooth,
                    smooth_value=smooth_value,
                    max_order=max_order,
                    effective_order=effective,
                    lowercase=lowercase,
                    segments=True,
                )
                expected = [sentence.sentence_score(h, _refs(r)).score / 100 for h, r in zip(hyps, refs, strict=True)]
                assert ours.segments.tolist() == expected
                corpus = sacrebleu.BLEU(**options, effective_order=effective, lowercase=lowercase)
                theirs = corpus.corpus_score(hyps, _streams(refs))
                assert ours.score == theirs.score / 100
                assert ours.components["precisions"] == [p / 100 for p in theirs.precisions]
                assert ours.components["brevity_penalty"] == theirs.bp
                assert (ours.components["hyp_len"], ours.components["ref_len"]) == (theirs.sys_len, theirs.ref_len)
                counts, totals = ours.components["counts"], ours.components["totals"]
                if smooth == "add-k":
                    # documented deviation: sacreBLEU's compute_bleu adds k to its counts and totals of
                    # orders above one in place and reports them so; ours stay the raw n-gram counts
                    k = 1 if smooth_value is None else smooth_value
                    counts = counts[:1] + [c + k for c in counts[1:]]
                    totals = totals[:1] + [t + k for t in totals[1:]]
                    assert all(type(c) is int for c in ours.components["counts"])
                assert counts == theirs.counts and totals == theirs.totals


@pytest.mark.parametrize(
    ("word_order", "beta", "eps_smoothing"), [(0, 2, False), (2, 2, False), (2, 1, True), (0, 3, False)]
)
def test_chrf_equals_sacrebleu(word_order: int, beta: int, eps_smoothing: bool) -> None:
    for hyps, refs in BATCHES:
        for lowercase, whitespace in ((False, False), (True, False), (False, True)):
            options = {"word_order": word_order, "beta": beta, "eps_smoothing": eps_smoothing}
            theirs = sacrebleu.CHRF(**options, lowercase=lowercase, whitespace=whitespace)
            ours = nlpeval.chrf(hyps, refs, **options, lowercase=lowercase, whitespace=whitespace, segments=True)
            expected = [theirs.sentence_score(h, _refs(r)).score / 100 for h, r in zip(hyps, refs, strict=True)]
            assert ours.segments.tolist() == expected
            assert ours.score == theirs.corpus_score(hyps, _streams(refs)).score / 100


def _same_score(native: nlpeval.Score, generic: nlpeval.Score) -> None:
    assert native.to_dict() == generic.to_dict()
    assert [type(v) for v in native.to_dict().values()] == [type(v) for v in generic.to_dict().values()]
    if generic.segments is None:
        assert native.segments is None
    else:
        assert native.segments.dtype == np.float64 and not native.segments.flags.writeable
        assert native.segments.tobytes() == generic.segments.tobytes()


def _generic(metric: CorpusMetric, stats: object, segments: bool) -> nlpeval.Score:
    return CorpusMetric.score_from_stats(metric, stats, segments=segments)  # the vectorised formulas


@pytest.mark.parametrize(("smooth", "smooth_value"), SMOOTHING)
def test_bleu_summary_equals_the_generic_path(wmt17: dict[str, list[str]], smooth: str, smooth_value: float) -> None:
    hyps, refs = wmt17["online-B.0"], wmt17["reference"]
    batches = [*BATCHES, (hyps[:16], refs[:16]), (hyps[:300], refs[:300])]
    for max_order in (1, 4, 7, 9):  # 9: NumPy's pairwise sum, the Python formula
        for effective in (False, True):
            metric = nlpeval.BLEU(
                max_order=max_order, smooth=smooth, smooth_value=smooth_value, effective_order=effective
            )
            for batch_hyps, batch_refs in batches:
                stats = metric.segment_stats(batch_hyps, batch_refs)
                for segments in (False, True):
                    _same_score(metric.score_from_stats(stats, segments=segments), _generic(metric, stats, segments))


def test_token_id_bleu_summary_equals_the_generic_path() -> None:
    rng = np.random.default_rng(5)
    hyps = rng.integers(0, 12, size=(16, 10))
    refs = rng.integers(0, 12, size=(16, 9))
    hyps[2] = 0  # empty after padding
    refs[3] = 0
    hyps[4, 1:] = 0  # one id
    metric = TokenIdBLEU(pad_id=0)
    stats = metric.segment_stats(hyps, refs)
    _same_score(metric.score_from_stats(stats, segments=True), _generic(metric, stats, True))
    _same_score(nlpeval.bleu(hyps, refs, pad_id=0, segments=True), _generic(metric, stats, True))


def test_chrf_summary_equals_the_generic_path(wmt17: dict[str, list[str]]) -> None:
    hyps, refs = wmt17["online-B.0"], wmt17["reference"]
    batches = [*BATCHES, (hyps[:16], refs[:16]), ([" ", "", "a"], ["", " ", "a"])]
    for word_order, beta, eps in ((0, 2, False), (2, 2, False), (2, 0.5, True), (1, 0, False), (6, 3, True)):
        metric = nlpeval.CHRF(word_order=word_order, beta=beta, eps_smoothing=eps)
        for batch_hyps, batch_refs in batches:
            stats = metric.segment_stats(batch_hyps, batch_refs)
            for segments in (False, True):
                _same_score(metric.score_from_stats(stats, segments=segments), _generic(metric, stats, segments))


def test_bootstrap_and_empty_batches_keep_the_generic_path() -> None:
    hyps, refs = ["the cat sat on the mat", "a b c"], ["the cat sat on a mat", "a b d"]
    for metric in (nlpeval.BLEU(), nlpeval.CHRF()):
        stats = metric.segment_stats(hyps, refs)
        ours = metric.score_from_stats(stats, segments=True, n_bootstrap=10, seed=3)
        assert ours.ci is not None and ours.ci == _bootstrap(metric, stats).ci
        empty = metric.segment_stats([], [])  # an empty batch: no score on either path
        with pytest.raises(nlpeval.InputError, match="no segments"):
            metric.score_from_stats(empty, segments=True)
        with pytest.raises(nlpeval.InputError, match="no segments"):
            _generic(metric, empty, True)


def _bootstrap(metric: CorpusMetric, stats: object) -> nlpeval.Score:
    return CorpusMetric.score_from_stats(metric, stats, segments=True, n_bootstrap=10, seed=3)


def test_reference_count_columns_and_their_errors() -> None:
    from nlpeval import _native

    rows = np.arange(6, dtype=np.int64).reshape(2, 3)
    out = _native.with_reference_counts(rows, [["a"], ["b", "c", "d"]])
    assert out.tolist() == [[0, 1, 2, 1, 1], [3, 4, 5, 3, 3]]
    with pytest.raises(ValueError, match="one reference list per row"):
        _native.with_reference_counts(rows, [["a"]])
    with pytest.raises(nlpeval.InputError, match="references: segment 1: has no reference"):
        nlpeval.chrf(["a", "b"], ["a", []], segments=True)
