"""Span F1's native chunker (``src/spans/``, ``_native.span_chunk_counts``) against the vectorised NumPy path it
replaces: the same per-sentence, per-type counts in every mode and scheme on generated adversarial label
sequences (invalid transitions, ``-X-``, empty and one-token sentences, types with hyphens, odd prefixes), a
fork after the parent used the kernel, and the label coding's fallback for labels without a UTF-8 form."""

from __future__ import annotations

import multiprocessing
import random

import numpy as np
import pytest

import nlpeval
from nlpeval import _native
from nlpeval.metrics.span_f1 import chunks, rules
from span_f1_data import ODD, SPECIAL, corpus

MODES = [("lenient", None, False), ("lenient", None, True), ("conlleval", None, False)] + [
    ("strict", scheme, suffix) for scheme in rules.SCHEMES for suffix in (False, True)
]
POOL = [
    *(f"{p}-{t}" for p in "BIESLU" for t in ("PER", "LOC", "ARGM-LOC", "A-B-C")),
    *(f"{t}-{p}" for p in "BIESLU" for t in ("PER", "ARGM-LOC")),
    *ODD,
    "O", "O", "O", "-X-", "I-", "B--", "é-PER", "B-日本", "O-", "0", "I-0",
]  # fmt: skip


def _adversarial(seed: int, n: int) -> tuple[list[list[str]], list[list[str]]]:
    """Sentences of 0-12 labels drawn from every prefix, suffix form and odd label; one in six empty,
    one in six of one token; predictions share about half the labels of the references."""
    rng = random.Random(seed)
    refs: list[list[str]] = []
    for _ in range(n):
        roll = rng.random()
        size = 0 if roll < 1 / 6 else 1 if roll < 2 / 6 else rng.randrange(13)
        refs.append([rng.choice(POOL) for _ in range(size)])
    hyps = [[label if rng.random() < 0.5 else rng.choice(POOL) for label in ref] for ref in refs]
    return hyps, refs


def _both(data: chunks.Layout, mode: str, scheme: str | None, suffix: bool) -> tuple[chunks.Counts, chunks.Counts]:
    native = chunks.count(data, mode, scheme, suffix)
    kernel = _native.span_chunk_counts
    _native.span_chunk_counts = None
    try:
        numpy_path = chunks.count(data, mode, scheme, suffix)
    finally:
        _native.span_chunk_counts = kernel
    return native, numpy_path


def _assert_same(native: chunks.Counts, numpy_path: chunks.Counts) -> None:
    assert native.types == numpy_path.types
    for field in ("tokens", "correct_tokens", "tp", "pred", "true"):
        ours, theirs = getattr(native, field), getattr(numpy_path, field)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, field
        assert np.array_equal(ours, theirs), field


def test_the_kernel_is_in_the_core() -> None:
    assert _native.span_chunk_counts is not None  # else every comparison below would compare NumPy with itself


@pytest.mark.parametrize("seed", range(6))
def test_native_counts_equal_the_numpy_path_on_adversarial_labels(seed: int) -> None:
    hyps, refs = _adversarial(seed, 400)
    data = chunks.layout(hyps, refs)
    for mode, scheme, suffix in MODES:
        _assert_same(*_both(data, mode, scheme, suffix))


@pytest.mark.parametrize("scheme", rules.SCHEMES)
def test_native_counts_equal_the_numpy_path_on_each_schemes_corpus(scheme: str) -> None:
    hyps, refs = corpus(60, scheme, 600, 0.1)
    hyps += [h for h, _ in SPECIAL] + [[], ["B-PER"], ["-X-"]]
    refs += [r for _, r in SPECIAL] + [[], ["I-PER"], ["-X-"]]
    data = chunks.layout(hyps, refs)
    for mode, scheme_, suffix in MODES:
        _assert_same(*_both(data, mode, scheme_, suffix))


def test_many_labels_take_the_rules_per_pair() -> None:
    rng = random.Random(5)
    pool = [f"{p}-T{i}" for i in range(200) for p in "BI"] + ["O"] * 50  # more codes than the kernel tables
    refs = [[rng.choice(pool) for _ in range(rng.randrange(12))] for _ in range(300)]
    hyps = [[label if rng.random() < 0.6 else rng.choice(pool) for label in ref] for ref in refs]
    data = chunks.layout(hyps, refs)
    assert len(data.vocabulary) > 256
    for mode, scheme, suffix in MODES:
        _assert_same(*_both(data, mode, scheme, suffix))


def test_corner_layouts() -> None:
    for hyps, refs in [([], []), ([[]], [[]]), ([[], []], [[], []]), ([["B-PER"]], [["B-PER"]]), ([["I"]], [["E"]])]:
        data = chunks.layout(hyps, refs)
        for mode, scheme, suffix in MODES:
            _assert_same(*_both(data, mode, scheme, suffix))


def test_whole_scores_are_unchanged_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    hyps, refs = _adversarial(9, 300)
    valid_hyps, valid_refs = corpus(61, "IOBES", 300, 0.0)
    calls = [
        lambda: nlpeval.span_f1(hyps, refs, segments=True, average="macro"),
        lambda: nlpeval.span_f1(hyps, refs, mode="conlleval", segments=True),
        lambda: nlpeval.span_f1(valid_hyps, valid_refs, mode="strict", scheme="IOBES", segments=True),
    ]
    native = [call() for call in calls]
    monkeypatch.setattr(_native, "span_chunk_counts", None)
    for ours, call in zip(native, calls, strict=True):
        theirs = call()
        assert ours.score == theirs.score and ours.components == theirs.components
        assert ours.segments.tolist() == theirs.segments.tolist()


def test_bad_arrays_are_refused_with_a_message() -> None:
    data = chunks.layout([["B-PER", "O"]], [["B-PER", "I-PER"]])
    prefixes = np.zeros(len(data.vocabulary), dtype=np.int32)
    types = np.zeros(len(data.vocabulary), dtype=np.int32)
    table = np.zeros(rules.N_PREFIXES**2 * 2, dtype=np.uint8)
    rank = np.zeros(1, dtype=np.int64)
    kernel = _native.span_chunk_counts
    args = (data.hypothesis, data.reference, data.lengths)
    assert kernel(*args, "lenient", prefixes, types, table, rules.N_PREFIXES, rank)[0] == []
    with pytest.raises(ValueError, match="positions"):
        kernel(data.hypothesis[:-1], data.reference, data.lengths, "lenient", prefixes, types, table, 11, rank)
    with pytest.raises(ValueError, match="mode"):
        kernel(*args, "loose", prefixes, types, table, rules.N_PREFIXES, rank)
    with pytest.raises(ValueError, match="rule table"):
        kernel(*args, "lenient", prefixes, types, table[:-1], rules.N_PREFIXES, rank)
    with pytest.raises(ValueError, match="label code"):
        kernel(*args, "lenient", prefixes[:2], types[:2], table, rules.N_PREFIXES, rank)


def test_a_label_without_utf8_form_takes_the_python_coding() -> None:
    hyps, refs = [["B-\ud800", "O"]], [["B-\ud800", "I-\ud800"]]
    assert _native.span_label_codes(hyps, refs) is None
    score = nlpeval.span_f1(hyps, refs)
    assert score.components["per_type"]["\ud800"]["correct"] == 0 and score.components["predicted"] == 1


def _child(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]  # a test helper
    hyps, refs = corpus(62, "IOB2", 200)
    queue.put(nlpeval.span_f1(hyps, refs).score)


def test_a_forked_worker_uses_the_kernel_after_the_parent() -> None:
    hyps, refs = corpus(62, "IOB2", 200)
    parent = nlpeval.span_f1(hyps, refs).score
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_child, args=(queue,))
    process.start()
    child = queue.get(timeout=60)
    process.join(60)
    assert process.exitcode == 0 and child == parent
