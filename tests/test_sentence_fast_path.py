"""The small-batch sentence BLEU and chrF (Python floats) equal the array path bit for bit.

Training loops score 8-16 segments per call; for them ``sentence_scores`` of BLEU and chrF
skip ~25-60 small array operations. These tests pin that the shortcut returns the very same
float64 values as the vectorised formula (which the parity tests compare with sacreBLEU):
on WMT17 batches, on token ids, and on generated statistics rows with zero counts, empty
segments and every smoothing method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlpeval
from nlpeval.metrics.bleu import TokenIdBLEU
from nlpeval.metrics.bleu.extract import bleu_schema
from nlpeval.metrics.bleu.sacrebleu import sacrebleu_values, sentence_scores
from nlpeval.metrics.chrf.formula import chrf_parts
from nlpeval.metrics.chrf.formula import sentence_scores as chrf_sentence_scores

SMOOTHING = [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2.0), ("none", None)]


def _same_bits(fast: np.ndarray, array: np.ndarray) -> None:
    assert fast.dtype == array.dtype == np.float64
    assert fast.tobytes() == np.asarray(array).tobytes(), (fast.tolist(), np.asarray(array).tolist())


def _batches(items: list, size: int, count: int) -> list[list]:
    return [items[i : i + size] for i in range(0, size * count, size)]


@pytest.mark.parametrize(("smooth", "smooth_value"), SMOOTHING)
@pytest.mark.parametrize("max_order", [2, 4, 6])
def test_bleu_wmt17_batches(
    wmt17: dict[str, list[str]], smooth: str, smooth_value: float | None, max_order: int
) -> None:
    metric = nlpeval.BLEU(max_order=max_order, smooth=smooth, smooth_value=smooth_value)
    hyps, refs = wmt17["online-B.0"], wmt17["reference"]
    # batches of 16 from the start, plus the empty and one-word segments of the file
    short = [i for i, h in enumerate(hyps) if len(h.split()) <= 2][:16]
    batches = list(zip(_batches(hyps, 16, 12), _batches(refs, 16, 12), strict=True))
    batches.append(([hyps[i] for i in short], [refs[i] for i in short]))
    batches.append((["", "a", hyps[0]], [refs[0], "", ""]))
    for batch_hyps, batch_refs in batches:
        rows = metric.segment_stats(batch_hyps, batch_refs).rows
        for effective in (True, False):
            options = {"max_order": max_order, "smooth": smooth, "smooth_value": smooth_value}
            array = sacrebleu_values(rows, **options, effective_order=effective)[0]
            _same_bits(sentence_scores(rows, **options, effective_order=effective), array)


def test_bleu_token_ids_and_the_public_call(wmt17: dict[str, list[str]]) -> None:
    rng = np.random.default_rng(7)
    hyps = rng.integers(1, 40, size=(16, 12))
    refs = rng.integers(1, 40, size=(16, 12))
    hyps[3] = 0  # an empty hypothesis after padding
    hyps[4, 2:] = 0
    score = nlpeval.bleu(hyps, refs, pad_id=0, segments=True)
    metric = TokenIdBLEU(pad_id=0)
    rows = metric.segment_stats(hyps, refs).rows
    array = sacrebleu_values(rows, max_order=4, smooth="exp", smooth_value=None, effective_order=True)[0] / 100.0
    _same_bits(np.asarray(score.segments), array)
    text = nlpeval.bleu(wmt17["online-B.0"][:16], wmt17["reference"][:16], segments=True)
    rows = nlpeval.BLEU().segment_stats(wmt17["online-B.0"][:16], wmt17["reference"][:16]).rows
    array = sacrebleu_values(rows, max_order=4, smooth="exp", smooth_value=None, effective_order=True)[0] / 100.0
    _same_bits(np.asarray(text.segments), array)


def _bleu_rows(max_order: int) -> st.SearchStrategy[np.ndarray]:
    """Statistics rows, including impossible ones (matches above the totals, a zero hypothesis
    length with matches): the shortcut must agree with the formula on any integers."""
    count = st.integers(0, 40) | st.sampled_from([0, 0, 1, 2**40])
    row = st.tuples(count, count, count, *([count] * (2 * max_order)), st.just(1), st.just(1))
    return st.lists(row, min_size=1, max_size=24).map(lambda rows: np.array(rows, dtype=np.int64))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), max_order=st.integers(1, 7), smoothing=st.sampled_from(SMOOTHING), effective=st.booleans())
def test_bleu_generated_rows(data: st.DataObject, max_order: int, smoothing: tuple, effective: bool) -> None:
    rows = data.draw(_bleu_rows(max_order))
    assert rows.shape[1] == bleu_schema(max_order).width
    smooth, smooth_value = smoothing
    options = {"max_order": max_order, "smooth": smooth, "smooth_value": smooth_value, "effective_order": effective}
    with np.errstate(all="ignore"):
        array = sacrebleu_values(rows, **options)[0]
    _same_bits(sentence_scores(rows, **options), array)


@pytest.mark.parametrize(
    ("word_order", "beta", "eps_smoothing"), [(0, 2, False), (2, 2, False), (0, 2, True), (2, 1, False), (0, 3, True)]
)
def test_chrf_wmt17_batches(wmt17: dict[str, list[str]], word_order: int, beta: float, eps_smoothing: bool) -> None:
    metric = nlpeval.CHRF(word_order=word_order, beta=beta, eps_smoothing=eps_smoothing)
    hyps, refs = wmt17["online-B.0"], wmt17["reference"]
    batches = list(zip(_batches(hyps, 16, 8), _batches(refs, 16, 8), strict=True))
    batches.append((["", "a", hyps[0], " "], [refs[0], "", "", "b"]))
    for batch_hyps, batch_refs in batches:
        stats = metric.segment_stats(batch_hyps, batch_refs)
        options = {"orders": metric.orders, "factor": metric.factor, "eps_smoothing": eps_smoothing}
        array = chrf_parts(stats.rows, **options).score
        _same_bits(chrf_sentence_scores(stats.rows, **options), array)
        _same_bits(metric.segment_values(stats), array / 100.0)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    orders=st.integers(1, 8),
    factor=st.sampled_from([4, 4.0, 1, 0.25, 0, 9.0]),
    eps_smoothing=st.booleans(),
)
def test_chrf_generated_rows(data: st.DataObject, orders: int, factor: float, eps_smoothing: bool) -> None:
    count = st.integers(0, 30) | st.just(0)
    rows = data.draw(
        st.lists(st.tuples(*([count] * (3 * orders)), st.just(1), st.just(1)), min_size=1, max_size=24).map(
            lambda rows: np.array(rows, dtype=np.int64)
        )
    )
    options = {"orders": orders, "factor": factor, "eps_smoothing": eps_smoothing}
    with np.errstate(all="ignore"):
        array = chrf_parts(rows, **options).score
    _same_bits(chrf_sentence_scores(rows, **options), array)


def test_reused_metric_objects_keep_validation_and_subclass_formulas() -> None:
    hyps, refs = ["the cat sat on the mat"], ["the cat sat on a mat"]
    first = nlpeval.bleu(hyps, refs, max_order=4)
    assert nlpeval.bleu(hyps, refs, max_order=4) == first
    # an equal but invalid option (4.0 == 4) is not served from the cache of valid ones
    with pytest.raises(ValueError, match="max_order must be an int from 1 to 100"):
        nlpeval.bleu(hyps, refs, max_order=4.0)
    assert nlpeval.chrf(hyps, refs, beta=2).score == nlpeval.CHRF(beta=2)(hyps, refs).score

    @dataclass(frozen=True)
    class HalfBLEU(nlpeval.BLEU):
        def corpus_values(self, totals: np.ndarray) -> np.ndarray:
            return super().corpus_values(totals) / 2

    assert HalfBLEU()(hyps, refs).score == first.score / 2
