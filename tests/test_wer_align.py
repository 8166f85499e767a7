"""Alignments: the native kernel against rapidfuzz, jiwer's chunks, visualisation and error counts."""

from __future__ import annotations

import random

import jiwer
import pytest
from rapidfuzz.distance import Levenshtein

import nlpeval
import textgen
from nlpeval.metrics.wer import edit_alignment

RF_CODES = {"replace": "substitute", "delete": "delete", "insert": "insert"}


def rapidfuzz_ops(reference: str, hypothesis: str) -> list[str]:
    """rapidfuzz's editops of (reference, hypothesis), with the hits filled in."""
    out, i, j = [], 0, 0
    for tag, src, dest in Levenshtein.editops(reference, hypothesis):
        while i < src and j < dest:
            out.append("equal")
            i, j = i + 1, j + 1
        out.append(RF_CODES[tag])
        i += tag != "insert"
        j += tag != "delete"
    return out + ["equal"] * (len(reference) - i)


def random_pairs(rng: random.Random, n: int, lengths: tuple[int, int], alphabet: str) -> list[tuple[str, str]]:
    """Random references and hypotheses: half are edited copies, half unrelated (many ties)."""
    pairs = []
    for _ in range(n):
        ref = "".join(rng.choice(alphabet) for _ in range(rng.randint(*lengths)))
        if rng.random() < 0.5:
            hyp = list(ref)
            for _ in range(rng.randint(0, max(1, len(hyp) // 4))):
                pos, roll = rng.randint(0, len(hyp)), rng.random()
                if roll < 0.33 and hyp:
                    hyp.pop(min(pos, len(hyp) - 1))
                elif roll < 0.66:
                    hyp.insert(pos, rng.choice(alphabet))
                elif hyp:
                    hyp[min(pos, len(hyp) - 1)] = rng.choice(alphabet)
            pairs.append((ref, "".join(hyp)))
        else:
            pairs.append((ref, "".join(rng.choice(alphabet) for _ in range(rng.randint(*lengths)))))
    return pairs


@pytest.mark.parametrize(
    ("n", "lengths", "alphabet"),
    [
        (3000, (0, 12), "ab"),  # tiny, tie-heavy
        (2000, (0, 40), "abc"),  # around one 64-bit word
        (600, (60, 200), "abcd"),  # several words
        (4, (2100, 2600), "ab"),  # Hirschberg's split (rapidfuzz's 1 MiB threshold)
        (3, (2100, 3000), "abcdefgh"),
    ],
)
def test_kernel_equals_rapidfuzz_editops(n: int, lengths: tuple[int, int], alphabet: str) -> None:
    pairs = random_pairs(random.Random(n + lengths[1]), n, lengths, alphabet)
    result = edit_alignment([h for _, h in pairs], [r for r, _ in pairs], unit="char")
    for (ref, hyp), seg in zip(pairs, result.segments, strict=True):
        assert list(seg.ops) == rapidfuzz_ops(ref, hyp), (ref, hyp)


def test_kernel_equals_rapidfuzz_on_long_near_copies() -> None:
    rng = random.Random(3)
    refs, hyps = [], []
    for edits in (1, 5, 40, 300):
        ref = "".join(rng.choice("ab") for _ in range(rng.randint(2100, 3000)))
        hyp = list(ref)
        for _ in range(edits):
            hyp[rng.randrange(len(hyp))] = rng.choice("abc")
            del hyp[rng.randrange(len(hyp))]
        refs += [ref, "".join(hyp)]
        hyps += ["".join(hyp), ref]
    result = edit_alignment(hyps, refs, unit="char")
    for ref, hyp, seg in zip(refs, hyps, result.segments, strict=True):
        assert list(seg.ops) == rapidfuzz_ops(ref, hyp)


def assert_alignment_matches_jiwer(hyps: list[str], refs: list[str], unit: str) -> None:
    out = (jiwer.process_words if unit == "word" else jiwer.process_characters)(refs, hyps)
    result = edit_alignment(hyps, refs, unit=unit)
    assert [list(s.reference) for s in result.segments] == out.references
    assert [list(s.hypothesis) for s in result.segments] == out.hypotheses
    assert [[tuple(c) for c in s.chunks] for s in result.segments] == [
        [(c.type, c.ref_start_idx, c.ref_end_idx, c.hyp_start_idx, c.hyp_end_idx) for c in chunks]
        for chunks in out.alignments
    ]
    for kwargs in (
        {},
        {"show_measures": False},
        {"skip_correct": False},
        {"line_width": 40},
        {"line_width": 80, "show_measures": False, "skip_correct": False},
    ):
        assert result.visualize(**kwargs) == jiwer.visualize_alignment(out, **kwargs), kwargs
    subs, ins, dels = jiwer.collect_error_counts(out)
    assert result.error_counts() == (dict(subs), dict(ins), dict(dels))
    for top_k in (None, 1, 5):
        assert result.visualize_error_counts(top_k=top_k) == jiwer.visualize_error_counts(out, top_k=top_k)
    assert result.visualize_error_counts(show_insertions=False) == jiwer.visualize_error_counts(
        out, show_insertions=False
    )


def test_ted_alignment_matches_jiwer(compare_mt: dict[str, list[str]]) -> None:
    hyps, refs = compare_mt["ted.sys2.detok.eng"][:600], compare_mt["ted.ref.detok.eng"][:600]
    assert_alignment_matches_jiwer(hyps, refs, "word")
    assert_alignment_matches_jiwer(hyps[:150], refs[:150], "char")


@pytest.mark.parametrize("seed", range(3))
def test_adversarial_alignment_matches_jiwer(seed: int) -> None:
    hyps, refs = textgen.corpus(40 + seed, n=150, max_refs=1)
    refs = [r[0] for r in refs]
    refs[0], hyps[1] = "a * b", "* x"  # jiwer widens "*" tokens in its view; so do we
    assert_alignment_matches_jiwer(hyps, refs, "word")
    assert_alignment_matches_jiwer(hyps, refs, "char")


def test_pairs_chunks_and_counts_agree_with_the_score() -> None:
    hyps, refs = textgen.corpus(8, n=200)
    result = edit_alignment(hyps, refs)
    score = nlpeval.wer(hyps, refs)
    assert result.counts() == {k: score.components[k] for k in ("hits", "substitutions", "deletions", "insertions")}
    assert result.measures()["wer"] == score.score
    assert result.signature == score.signature
    for seg in result.segments:
        pairs = seg.pairs
        assert [p.reference for p in pairs if p.reference is not None] == list(seg.reference)
        assert [p.hypothesis for p in pairs if p.hypothesis is not None] == list(seg.hypothesis)
        assert all((p.op == "equal") == (p.reference == p.hypothesis) for p in pairs)
        assert 0 <= seg.reference_index < 3
    subs, ins, dels = result.error_counts(by="token")
    assert (sum(subs.values()), sum(ins.values()), sum(dels.values())) == (
        score.components["substitutions"],
        score.components["insertions"],
        score.components["deletions"],
    )
    assert result.to_dict()["segments"][0]["pairs"] == [list(p) for p in result.segments[0].pairs]


def test_most_frequent_errors() -> None:
    hyps = ["the cat sat", "a cat sat", "a dog", "dog ran away"]
    refs = ["a cat sat", "a cat sat down", "the dog", "the dog ran"]
    top = edit_alignment(hyps, refs).most_frequent(2)
    assert top["substitutions"] == [(("a", "the"), 1), (("the", "a"), 1)]
    assert top["deletions"] == [("down", 1), ("the", 1)]
    assert top["insertions"] == [("away", 1)]
    by_token = edit_alignment(["x y z"], ["a b c"]).most_frequent(None, by="token")
    assert by_token["substitutions"] == [(("a", "x"), 1), (("b", "y"), 1), (("c", "z"), 1)]
    assert edit_alignment(["x y z"], ["a b c"]).most_frequent()["substitutions"] == [(("a b c", "x y z"), 1)]


def test_wide_characters_line_up() -> None:
    result = edit_alignment(["我们 喜欢 中文"], ["我们 爱 中文"])
    lines = result.visualize(show_measures=False, wide_chars=True).splitlines()
    ref, hyp, ops = lines[2], lines[3], lines[4]

    def width(text: str) -> int:
        return sum(2 if "\u4e00" <= ch <= "\u9fff" else 1 for ch in text)

    assert width(ref) == width(hyp) == len(ops)
    assert ops.rstrip().endswith("S") and len(ops.rstrip()) == width("HYP: 我们 喜欢")


def test_bad_alignment_options() -> None:
    with pytest.raises(ValueError, match="unit"):
        edit_alignment(["a"], ["a"], unit="phone")
    with pytest.raises(ValueError, match="unit='char'"):
        edit_alignment(["a"], ["a"], whitespace="remove")
    with pytest.raises(ValueError, match="by"):
        edit_alignment(["a"], ["b"]).error_counts(by="line")
