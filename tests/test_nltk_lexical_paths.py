"""Parity with NLTK 3.10 (run live) on the code paths of the vectorised GLEU, NIST and RIBES kernels.

RIBES drops a word from the alignment loop as soon as neither of its contexts can still be found in
the reference (an n-gram absent from the reference stays absent with more words); NIST builds its
tables with an unstable sort where only the grouping matters. The inputs here push those paths:
long sentences of a few repeated words (contexts resolved only after many windows, on the left
after the right closed, or never), repeated phrases, single tokens, empty hypotheses and references.
"""

from __future__ import annotations

import random

from nltk.translate.nist_score import corpus_nist, sentence_nist
from nltk.translate.ribes_score import corpus_ribes, sentence_ribes

import nlpeval


def repeated_phrases(seed: int, n: int = 200) -> tuple[list[list[str]], list[list[list[str]]]]:
    rng = random.Random(seed)

    def sentence() -> list[str]:
        phrase = [rng.choice("abcd") for _ in range(rng.randint(1, 5))]
        out: list[str] = []
        while len(out) < rng.randint(0, 40):
            out += phrase if rng.random() < 0.7 else [rng.choice("abcde")]
        return out

    hyps = [sentence() for _ in range(n)]
    refs = []
    for hyp in hyps:
        seg = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            if kind < 0.3:
                ref = list(reversed(hyp))
            elif kind < 0.6:
                cut = rng.randint(0, len(hyp))
                ref = hyp[cut:] + hyp[:cut]
            else:
                ref = sentence()
            seg.append(ref)
        refs.append(seg)
    hyps[:4] = [[], ["a"], ["a", "a"], ["a"]]
    refs[:4] = [[["a"]], [[]], [["a"]], [["a", "a"], []]]
    return hyps, refs


def test_ribes_repeated_phrases_equal_nltk():
    for seed in (1, 2):
        hyps, refs = repeated_phrases(seed)
        got = nlpeval.ribes(hyps, refs, segments=True)
        assert abs(got.score - corpus_ribes(refs, hyps)) <= 1e-12
        assert got.segments.tolist() == [sentence_ribes(r, h) for h, r in zip(hyps, refs, strict=True)]


def test_nist_repeated_phrases_equal_nltk():
    hyps, refs = repeated_phrases(3)
    keep = [i for i, h in enumerate(hyps) if len(h) >= 5 and all(r for r in refs[i])]
    hyps, refs = [hyps[i] for i in keep], [refs[i] for i in keep]
    got = nlpeval.nist(hyps, refs, segments=True)
    assert got.score == corpus_nist(refs, hyps)
    assert got.segments.tolist() == [sentence_nist(r, h) for h, r in zip(hyps, refs, strict=True)]
