"""CharacTER parity with the ``cer`` package 1.2 (``calculate_cer``, run live), as HF evaluate's ``character`` uses it.

evaluate's script (fetched from the Hub) splits on whitespace, keeps each hypothesis' lowest score over its
references and averages (``aggregate="mean"``); the test does those steps around ``cer.calculate_cer``. Real data:
WMT17 en-de (1,200 segments, two references), compare-mt TED and summaries; generated adversarial text (many
scripts, odd whitespace, empty hypotheses) and a two-letter alphabet (ties between shifts everywhere).
"""

from __future__ import annotations

import json
import random
from statistics import mean

import pytest
from cer import calculate_cer, calculate_cer_corpus

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.metrics.character import CharacTER, shift_cost
from textgen import corpus


def reference(hyp: str, refs: list[str]) -> float:
    """evaluate's ``character`` for one segment: the lowest ``calculate_cer`` over the references."""
    return min(calculate_cer(hyp.split(), r.split()) for r in refs)


def check(hyps: list[str], refs: list[list[str]]) -> None:
    got = nlpeval.character(hyps, refs, segments=True)
    expected = [reference(h, r) for h, r in zip(hyps, refs, strict=True)]
    assert got.segments.tolist() == expected
    assert abs(got.score - mean(expected)) < 1e-15


def test_wmt17_two_references(wmt17):
    hyps = wmt17["uedin-nmt.4722"][:1200]
    check(hyps, [[wmt17["reference"][i], wmt17["online-B.0"][i]] for i in range(len(hyps))])


@pytest.mark.parametrize("source", ["ted", "sum"])
def test_compare_mt_and_calculate_cer_corpus(source, compare_mt):
    hyps = compare_mt[f"{source}.sys1.eng"][:1000]
    refs = compare_mt[f"{source}.ref.eng"][:1000]
    got = nlpeval.character(hyps, refs, segments=True)
    corpus_result = calculate_cer_corpus([h.split() for h in hyps], [r.split() for r in refs])
    assert got.segments.tolist() == corpus_result["cer_scores"]
    assert abs(got.score - corpus_result["mean"]) < 1e-15


def test_adversarial_text():
    hyps, refs = corpus(41, 600, 3)
    refs = [[r for r in seg if r.split()] or ["fallback words"] for seg in refs]  # cer divides by |ref words|
    check(hyps, refs)


def test_ties_between_shifts():
    rng = random.Random(8)
    hyps = [" ".join(rng.choice("ab") for _ in range(rng.randint(0, 14))) for _ in range(400)]
    refs = [
        [" ".join(rng.choice("abc") for _ in range(rng.randint(1, 14))) for _ in range(rng.randint(1, 3))] for _ in hyps
    ]
    hyps[:4] = ["a a a a b b b b", "b a b a b a", "", "a"]
    refs[:4] = [["b b b b a a a a"], ["a b a b a b", "b a b a b a"], ["a"], ["a b"]]
    check(hyps, refs)


def test_evaluates_docstring():
    preds = ["this week the saudis denied information published in the new york times", "this is in fact an estimate"]
    refs = [
        "saudi arabia denied this week information published in the american new york times",
        "this is actually an estimate",
    ]
    got = nlpeval.character(preds, refs, segments=True)
    assert got.segments.tolist() == [0.36619718309859156, 0.25925925925925924]


def test_empty_reference_scores_one_where_cer_raises():
    with pytest.raises(ZeroDivisionError):
        calculate_cer(["a"], [])
    got = nlpeval.character(["a b", "", "x"], [[""], [" "], ["", "x"]], segments=True)
    assert got.segments.tolist() == [1.0, 0.0, calculate_cer(["x"], ["x"])]


def test_shift_cost_equals_the_package():
    from cer.cer import _shift_cost

    rng = random.Random(2)
    for _ in range(500):
        words = [rng.choice(["a", "bb", "ccc", "dddd"]) for _ in range(rng.randint(1, 9))]
        shuffled = words[:]
        rng.shuffle(shuffled)
        assert shift_cost(shuffled, words) == _shift_cost(shuffled, words)


def test_rows_merge_and_bootstrap(compare_mt):
    hyps, refs = compare_mt["ted.sys2.eng"][:300], compare_mt["ted.ref.eng"][:300]
    metric = CharacTER()
    whole = metric(hyps, refs)
    halves = metric.segment_stats(hyps[:100], refs[:100]), metric.segment_stats(hyps[100:], refs[100:])
    merged = metric.score_from_totals(metric.schema.combine(halves[0].totals(), halves[1].totals()))
    assert abs(merged.score - whole.score) < 1e-15
    ci = nlpeval.character(hyps, refs, n_bootstrap=200).ci
    assert ci is not None and ci.low < whole.score < ci.high


def test_bad_input():
    with pytest.raises(InputError, match="hypotheses: segment 1"):
        nlpeval.character(["a", 3], ["a", "b"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="references: segment 0: has no reference"):
        nlpeval.character(["a"], [[]])


def test_cli(tmp_path, capsys, compare_mt):
    hyps, refs = compare_mt["sum.sys1.eng"][:200], compare_mt["sum.ref.eng"][:200]
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    assert main(["score", "-m", "character", "-r", str(ref), str(hyp), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["character"]
    assert abs(got["score"] - mean(reference(h, [r]) for h, r in zip(hyps, refs, strict=True))) < 1e-15
    hyp.write_bytes(b"ok\n\xfe\n")
    assert main(["score", "-m", "character", "-r", str(ref), str(hyp)]) == 2
    err = capsys.readouterr().err
    assert f"{hyp}:2:" in err and len(err.strip().splitlines()) == 1
