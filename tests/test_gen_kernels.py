"""The generation metrics' native kernels (``src/gen/``) against the NumPy paths they replaced, exactly.

The metrics' parity with their reference tools (evaluate's SARI script, EASSE's goldens, NLTK) is tested in
``test_sari.py`` and ``test_nltk_lexical*.py``; here generated adversarial input (many scripts, odd
whitespace, empty strings, duplicated and identical references for ties, very long lines with repeats,
variable reference counts) goes through both implementations, which must give the same rows bit for bit.
"""

from __future__ import annotations

import importlib
import multiprocessing
import random

import numpy as np
import pytest

import nlpeval
from nlpeval import _native
from nlpeval.metrics import sari as sari_module
from nlpeval.metrics.nltk_lexical.tokens import native_sequences, token_lists
from textgen import perturb, sentence

nist_module = importlib.import_module("nlpeval.metrics.nltk_lexical.nist")  # the package exports nist()

ODD = ["", " ", "  a  b ", "\ta\u00a0b\u3000c\n", "a  b", ".", "a a a a a a", "\u2028x\u0085y"]


def _line(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.12:
        return rng.choice(ODD)
    if roll < 0.16:  # a very long line of few distinct words: many repeated n-grams
        return " ".join(rng.choice(["a", "b", "é", "."]) for _ in range(rng.randrange(500, 3000)))
    return sentence(rng, 14)


def _triples(seed: int, n: int) -> tuple[list[str], list[str], list[list[str]]]:
    rng = random.Random(seed)
    srcs, outs, refs = [], [], []
    for _ in range(n):
        src = _line(rng)
        roll = rng.random()
        out = src if roll < 0.15 else (perturb(rng, src) if roll < 0.6 else _line(rng))
        count = rng.randrange(1, 5)
        seg = [perturb(rng, src) if rng.random() < 0.5 else _line(rng) for _ in range(count)]
        if count > 1 and rng.random() < 0.3:
            seg[-1] = seg[0]  # identical references: ties
        srcs.append(src)
        outs.append(out)
        refs.append(seg)
    return srcs, outs, refs


@pytest.mark.parametrize("flavor", ["hf", "easse"])
@pytest.mark.parametrize("tokenize", ["13a", "none"])
@pytest.mark.parametrize("lowercase", [True, False])
def test_sari_native_rows_equal_the_numpy_path(flavor, tokenize, lowercase):
    # 70 segments: above the size from which the kernel runs on the thread pool
    srcs, outs, refs = _triples(sum(map(ord, flavor + tokenize)) + int(lowercase), 70)
    counts = np.array([len(r) for r in refs])
    lines = sari_module._normalize(
        [*srcs, *outs, *(r for seg in refs for r in seg)], lowercase=lowercase, tokenize=tokenize
    )
    native = sari_module.native_rows(lines, len(srcs), counts, flavor=flavor)
    ids, lengths = sari_module.token_id_rows(lines, flavor=flavor, tokenize=tokenize)
    grams = sari_module.gram_counts(ids, lengths, len(srcs), counts)
    if flavor == "hf":
        expected = sari_module.hf_rows(grams, len(srcs))
        assert native.dtype == np.float64
    else:
        expected = sari_module.easse_rows(grams, len(srcs))[:, :-2]
        assert native.dtype == np.int64
    assert native.shape == expected.shape
    assert native.tolist() == expected.tolist()
    # one segment at a time (the calling thread) gives the same rows
    for i in range(0, len(srcs), 9):
        one = [lines[i], lines[len(srcs) + i], *lines[2 * len(srcs) + int(counts[:i].sum()) :][: counts[i]]]
        assert sari_module.native_rows(one, 1, counts[i : i + 1], flavor=flavor).tolist() == [native[i].tolist()]


def test_sari_empty_corpus_and_kernel_checks():
    assert sari_module.native_rows([], 0, np.array([], dtype=np.int64), flavor="hf").shape == (0, 4)
    assert sari_module.native_rows([], 0, np.array([], dtype=np.int64), flavor="easse").shape == (0, 36)
    with pytest.raises(ValueError, match="reference counts"):
        _native.sari_hf_rows(["a"], ["a"], ["a"], [2])
    with pytest.raises(ValueError, match="one source"):
        _native.sari_easse_rows(["a", "b"], ["a"], ["a"], [1])


def _nist_corpus(seed: int, n: int) -> tuple[list[str], list[list[str]]]:
    _srcs, outs, refs = _triples(seed, n)
    return outs, refs


@pytest.mark.parametrize("n", [1, 3, 5, 7])
def test_nist_native_rows_equal_the_numpy_path(n):
    hyps, refs = _nist_corpus(100 + n, 80)
    hyp_tokens, ref_tokens = token_lists(hyps, refs)
    expected = nist_module.nist_rows(hyp_tokens, ref_tokens, n)
    text = _native.nist_rows(*native_sequences(hyps, refs)[:3], n)
    assert text.tolist() == expected.tolist()
    # NLTK's token-list layout takes the flat-token path of the kernel
    tokens = _native.nist_rows(
        *native_sequences(hyp_tokens, ref_tokens)[:3], n, *native_sequences(hyp_tokens, ref_tokens)[3:5]
    )
    assert tokens.tolist() == expected.tolist()
    # a few segments (the calling thread), weights from that small corpus
    few_h, few_r = hyp_tokens[:5], ref_tokens[:5]
    small = _native.nist_rows(*native_sequences(few_h, few_r)[:3], n, *native_sequences(few_h, few_r)[3:5])
    assert small.tolist() == nist_module.nist_rows(few_h, few_r, n).tolist()


def test_nist_kernel_checks_its_arguments():
    with pytest.raises(ValueError, match="positive"):
        _native.nist_rows(["a"], ["a"], [1], 0)
    with pytest.raises(ValueError, match="reference count"):
        _native.nist_rows(["a"], ["a"], [2], 2)
    with pytest.raises(ValueError, match="lengths"):
        _native.nist_rows(["a"], ["a"], [1], 2, [2], [1])
    assert _native.nist_rows([], [], [], 4).shape == (0, 23)
    # RIBES reads its input the same way (one helper)
    with pytest.raises(ValueError, match="reference count"):
        _native.ribes_values(["a"], ["a"], [2], 0.25, 0.1)
    with pytest.raises(ValueError, match="reference lengths"):
        _native.ribes_values(["a"], ["a"], [1], 0.25, 0.1, [1], [2])


@pytest.mark.parametrize(("alpha", "beta"), [(0.25, 0.10), (0.0, 1.0), (1.5, 0.0)])
def test_ribes_native_values_equal_the_numpy_path(alpha, beta):
    from nlpeval.metrics.nltk_lexical.ribes_align import ribes_values

    hyps, refs = _nist_corpus(300 + int(10 * alpha), 90)
    hyp_tokens, ref_tokens = token_lists(hyps, refs)
    expected = ribes_values(hyp_tokens, ref_tokens, alpha, beta)
    got = _native.ribes_values(*native_sequences(hyps, refs)[:3], alpha, beta)
    assert got.tolist() == expected.tolist()
    tokens = native_sequences(hyp_tokens, ref_tokens)
    assert _native.ribes_values(*tokens[:3], alpha, beta, *tokens[3:5]).tolist() == expected.tolist()
    few = native_sequences(hyps[:3], refs[:3])
    assert _native.ribes_values(*few[:3], alpha, beta).tolist() == expected[:3].tolist()


@pytest.mark.parametrize(("min_len", "max_len"), [(1, 4), (2, 3), (1, 1), (4, 4), (3, 2)])
def test_gleu_native_rows_equal_the_pair_path_and_nltk(min_len, max_len):
    from nltk.translate.gleu_score import sentence_gleu

    from nlpeval.metrics.nltk_lexical.gleu import gleu_rows
    from nlpeval.metrics.nltk_lexical.tokens import pair_rows

    hyps, refs = _nist_corpus(200 + 10 * min_len + max_len, 90)
    pairs, counts = pair_rows(hyps, refs, max_order=max_len)
    expected = gleu_rows(pairs, counts, min_len=min_len, max_len=max_len)
    lines = native_sequences(hyps, refs)[:3]
    for _ in range(3):  # the direct path, then preparing for the reference cache, then the cached entry
        got = _native.gleu_rows(*lines, min_len, max_len)
        assert got.dtype == np.int64
        assert got.tolist() == expected.tolist()
    few = native_sequences(hyps[:5], refs[:5])[:3]  # the calling thread, never cached
    assert _native.gleu_rows(*few, min_len, max_len).tolist() == expected[:5].tolist()
    # the values are NLTK's sentence_gleu (text with odd whitespace, repeats, identical references: ties)
    hyp_tokens, ref_tokens = token_lists(hyps, refs)
    score = nlpeval.gleu(hyps, refs, min_len=min_len, max_len=max_len, segments=True)
    want = [sentence_gleu(r, h, min_len=min_len, max_len=max_len) for h, r in zip(hyp_tokens, ref_tokens, strict=True)]
    assert score.segments.tolist() == want


def test_gleu_kernel_leaves_larger_orders_to_the_general_path():
    assert _native.gleu_rows(["a b"], ["a b"], [1], 1, 5) is None
    with pytest.raises(ValueError, match="positive"):
        _native.gleu_rows(["a"], ["a"], [1], 0, 2)
    with pytest.raises(ValueError, match="reference count"):
        _native.gleu_rows(["a"], ["a"], [2], 1, 2)
    assert _native.gleu_rows([], [], [], 1, 4).shape == (0, 2)
    # a 5-gram GLEU still scores (general path), equal to NLTK's
    from nltk.translate.gleu_score import corpus_gleu

    hyps, refs = _nist_corpus(77, 70)
    hyp_tokens, ref_tokens = token_lists(hyps, refs)
    assert nlpeval.gleu(hyps, refs, max_len=5).score == corpus_gleu(ref_tokens, hyp_tokens, max_len=5)


@pytest.mark.parametrize(
    ("kernel", "score"),
    [
        ("sari_hf_rows", lambda h, r, s: nlpeval.sari(h, r, sources=s, segments=True)),
        ("sari_easse_rows", lambda h, r, s: nlpeval.sari(h, r, sources=s, flavor="easse", segments=True)),
        ("nist_rows", lambda h, r, s: nlpeval.nist(h, r, segments=True)),
        ("ribes_values", lambda h, r, s: nlpeval.ribes(h, r, segments=True)),
        ("gleu_rows", lambda h, r, s: nlpeval.gleu(h, r, segments=True)),
        ("gleu_rows", lambda h, r, s: nlpeval.gleu(h, r, flavor="hf", segments=True)),
    ],
)
def test_a_core_without_the_kernel_takes_the_numpy_path_with_the_same_values(monkeypatch, kernel, score):
    srcs, outs, refs = _triples(900, 40)
    native = score(outs, refs, srcs)
    monkeypatch.setattr(_native, kernel, None)
    numpy_path = score(outs, refs, srcs)
    assert (native.score, native.segments.tolist()) == (numpy_path.score, numpy_path.segments.tolist())


def test_span_label_codes_equal_the_python_coding():
    from nlpeval.metrics.span_f1 import chunks

    rng = random.Random(26)
    pool = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "E-LOC", "S-LOC", "B-été", "I-日本", "O ", "B-PER\u00a0"]
    hyps = [[rng.choice(pool) for _ in range(rng.randrange(0, 30))] for _ in range(300)]
    refs = [tuple(rng.choice(pool) for _ in sentence) for sentence in hyps]
    size = 1 + sum(map(len, hyps)) + len(hyps)
    index, codes = chunks._codes(hyps, refs, size)
    hyp_codes, ref_codes, labels, hyp_lengths, ref_lengths = _native.span_label_codes(hyps, refs)
    assert ["O", chunks.START, *labels] == list(index)
    assert hyp_codes.tolist() == codes[0].tolist() and ref_codes.tolist() == codes[1].tolist()
    assert hyp_lengths.tolist() == ref_lengths.tolist() == [len(s) for s in hyps]
    # anything but lists/tuples of str takes the Python path, which names the bad label
    assert _native.span_label_codes([["B-X", 3]], [["O", "O"]]) is None
    assert _native.span_label_codes((["O"],), [["O"]]) is None
    assert _native.span_label_codes([[np.str_("O")]], [["O"]]) is None  # a str subclass: refused by name below
    with pytest.raises(nlpeval.InputError, match="str_"):
        chunks.layout([[np.str_("B-X")]], [["O"]])
    with pytest.raises(nlpeval.InputError, match="label 1"):
        chunks.layout([["B-X", ""]], [["O", "O"]])


def _nist_and_gleu(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]  # a test helper
    hyps, refs = _nist_corpus(31, 120)
    queue.put((nlpeval.nist(hyps, refs).score, nlpeval.gleu(hyps, refs).score))


def test_a_forked_child_scores_nist_and_gleu_after_the_parent():
    # the parent used the thread pool and filled GLEU's reference cache (three calls: first sight, prepare, hit)
    hyps, refs = _nist_corpus(31, 120)
    parent = [(nlpeval.nist(hyps, refs).score, nlpeval.gleu(hyps, refs).score) for _ in range(3)]
    assert len(set(parent)) == 1
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_nist_and_gleu, args=(queue,))
    process.start()
    child = queue.get(timeout=60)
    process.join(60)
    assert process.exitcode == 0 and child == parent[0]
