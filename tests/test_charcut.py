"""CharCut parity with the ``charcut`` package 1.1.1 (run live): segment costs and divisors, corpus scores.

Segment values come from the package's ``compare_segments`` + ``score_pair`` (what ``calculate_charcut`` runs per
line, on stripped lines) and the corpus from ``calculate_charcut`` itself (it writes and deletes temporary files;
its plain per-segment output goes to a pytest temporary folder). Real data: WMT17 en-de, compare-mt TED and
summaries; generated adversarial text (many scripts, punctuation-only lines, odd whitespace, empty lines,
repeats).
"""

from __future__ import annotations

import json
import random

import pytest
from charcut import calculate_charcut
from charcut.charcut import compare_segments, score_pair

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.metrics.charcut import CharCut
from textgen import corpus


def package_pairs(hyps: list[str], refs: list[str], match_size: int = 3, alt_norm: bool = False) -> list[tuple]:
    out = []
    for hyp, ref in zip(hyps, refs, strict=True):
        cand, gold = hyp.strip(), ref.strip()
        styled_cand, styled_ref = compare_segments(cand, gold, match_size)
        out.append(score_pair(cand, gold, styled_cand, styled_ref, alt_norm))
    return out


def check(hyps: list[str], refs: list[str], **options) -> None:
    metric = CharCut(**options)
    rows = metric.segment_stats(hyps, refs).rows
    assert [tuple(r) for r in rows.tolist()] == package_pairs(hyps, refs, **options)


def data(source, wmt17, compare_mt, n):
    if source == "wmt17":
        return wmt17["uedin-nmt.4722"][:n], wmt17["reference"][:n]
    if source == "adversarial":
        hyps, refs = corpus(77, n, 1)
        rng = random.Random(4)
        hyps[:4] = ["", "!!! ...", "  x  ", "abcabcabc abcabc"]
        refs[:4] = ["something", "... !!!", "x", "abcabc abcabcabc"]
        for i in range(4, n, 9):
            hyps[i] = refs[i][0]  # exact copies
        return hyps, [r[0] if rng.random() < 0.9 else r[0] + " " + r[0] for r in refs]
    return compare_mt[f"{source}.sys1.eng"][:n], compare_mt[f"{source}.ref.eng"][:n]


@pytest.mark.parametrize("source", ["wmt17", "ted", "sum", "adversarial"])
def test_segments_equal_the_package(source, wmt17, compare_mt):
    hyps, refs = data(source, wmt17, compare_mt, 250)
    check(hyps, refs)


@pytest.mark.parametrize(("match_size", "alt_norm"), [(1, False), (2, True), (5, False)])
def test_options_equal_the_package(match_size, alt_norm, compare_mt):
    hyps, refs = data("ted", None, compare_mt, 100)
    check(hyps, refs, match_size=match_size, alt_norm=alt_norm)


def test_corpus_score_and_plain_output_equal_calculate_charcut(tmp_path, wmt17):
    hyps, refs = data("wmt17", wmt17, None, 150)
    plain = tmp_path / "plain.txt"
    expected, count = calculate_charcut(hyps, refs, plain_output_file=str(plain))
    got = nlpeval.charcut(hyps, refs, segments=True)
    assert count == 150 and got.score == expected
    lines = plain.read_text(encoding="utf-8").splitlines()
    assert [f"{v:.4f}" for v in got.segments.tolist()] == [line.split(" ")[0] for line in lines]
    parts = [line.split(" ")[1].strip("()").split("/") for line in lines]
    assert got.components == {"cost": sum(int(c) for c, _ in parts), "divisor": sum(int(d) for _, d in parts)}


def test_ties_and_repeats():
    rng = random.Random(12)
    hyps = ["".join(rng.choice("ab ") for _ in range(rng.randint(0, 30))) for _ in range(300)]
    refs = ["".join(rng.choice("abc ") for _ in range(rng.randint(0, 30))) for _ in range(300)]
    check(hyps, refs)
    check(hyps, refs, match_size=1)


def test_rows_merge_and_bootstrap(compare_mt):
    hyps, refs = data("sum", None, compare_mt, 200)
    metric = CharCut()
    whole = metric(hyps, refs)
    halves = metric.segment_stats(hyps[:80], refs[:80]), metric.segment_stats(hyps[80:], refs[80:])
    assert metric.score_from_totals(metric.schema.combine(halves[0].totals(), halves[1].totals())).score == whole.score
    ci = nlpeval.charcut(hyps, refs, n_bootstrap=200).ci
    assert ci is not None and ci.low < whole.score < ci.high


def test_bad_input():
    with pytest.raises(InputError, match="references: segment 1: has 2 references"):
        nlpeval.charcut(["a", "b"], ["a", ["b", "c"]])
    with pytest.raises(InputError, match="hypotheses: segment 0"):
        nlpeval.charcut([None], ["a"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="match_size"):
        CharCut(match_size=0)


def test_cli(tmp_path, capsys, compare_mt):
    hyps, refs = data("ted", None, compare_mt, 100)
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    assert (
        main(["score", "-m", "charcut", "--charcut-match-size", "2", "-r", str(ref), str(hyp), "--format", "json"]) == 0
    )
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["charcut"]
    assert got["score"] == calculate_charcut(hyps, refs, match_size=2)[0]
    assert main(["score", "-m", "charcut", "-r", str(ref), "-r", str(ref), str(hyp)]) == 2
    assert "one reference" in capsys.readouterr().err
    hyp.write_bytes(b"ok\n\xc3\n")
    ref.write_text("a\nb\n", encoding="utf-8")
    assert main(["score", "-m", "charcut", "-r", str(ref), str(hyp)]) == 2
    err = capsys.readouterr().err
    assert f"{hyp}:2:" in err and len(err.strip().splitlines()) == 1
