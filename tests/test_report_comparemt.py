"""The compare-mt preset against compare-mt 0.2.10's own output on its example data (ted.*, sum.*).

compare-mt's CLI runs once per data set; every number it prints for its default analyses must equal
ours printed with its 4 decimals.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import read_lines
from nlpeval.reports.build import report


def _cli(folder: Path, prefix: str, tmp_path: Path) -> list[str]:
    files = [str(folder / f"{prefix}.{part}.eng") for part in ("ref", "sys1", "sys2")]
    command = [sys.executable, "-c", "from compare_mt.compare_mt_main import main; main()", *files, "--seed", "1"]
    if shutil.which("compare-mt"):
        command = ["compare-mt", *files, "--seed", "1"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    return done.stdout.split("\n")


def _section(lines: list[str], title: str) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    out = []
    for line in lines[start + 1 :]:
        if not line.strip() or line.startswith("***") or line.startswith("---"):
            break
        out.append(line)
    return out


@pytest.fixture(scope="module", params=["ted", "sum"])
def case(request, shared_data: Path, tmp_path_factory):
    folder = shared_data / "compare-mt"
    prefix = request.param
    lines = _cli(folder, prefix, tmp_path_factory.mktemp(prefix))
    ref = read_lines(folder / f"{prefix}.ref.eng")
    systems = {"sys1": read_lines(folder / f"{prefix}.sys1.eng"), "sys2": read_lines(folder / f"{prefix}.sys2.eng")}
    model = report(systems, ref, preset="compare-mt", n_bootstrap=100, n_randomization=100, seed=1)
    return lines, model


def f4(value: float) -> str:
    return f"{value:.4f}"


def fsent(value: float) -> str:
    """compare-mt prints NLTK's integer 0 (no unigram match) as ``0``."""
    return "0" if value == 0 else f4(value)


def test_bleu_and_length_ratio(case):
    lines, model = case
    bleu = next(line for line in lines if line.startswith("BLEU\t")).split("\t")[1:]
    values = {c.system: c.estimate.value for c in model.leaderboard.cells}
    assert bleu == [f4(100 * values["sys1"]), f4(100 * values["sys2"])]
    printed = next(line for line in lines if line.startswith("length ratio\t")).split("\t")[1:]
    mine = [f"{f4(s.ratio)} (ref={s.ref_length}, out={s.hyp_length})" for s in model.length.systems]
    assert printed == mine


def _table(model, table_id: str, scale: float = 1.0, integer: bool = False) -> list[str]:
    table = next(t for t in model.buckets if t.id == table_id)
    rows = []
    for row in table.rows:
        cells = [str(c.estimate.n) if integer else f4(scale * c.estimate.value) for c in row.cells]
        rows.append("\t".join([row.label, *cells]))
    return rows


def test_word_fmeas_by_frequency(case):
    lines, model = case
    assert _section(lines, "frequency\tsys1") == _table(model, "word-fmeas-frequency")


def test_bleu_by_reference_length(case):
    lines, model = case
    assert _section(lines, "length\tsys1") == _table(model, "bleu-by-ref-length", scale=100.0)


def test_counts_by_length_difference(case):
    lines, model = case
    assert _section(lines, "lengthdiff\tsys1") == _table(model, "count-by-length-diff", integer=True)


def test_counts_by_sentence_bleu(case):
    lines, model = case
    assert _section(lines, "sentbleu\tsys1") == _table(model, "count-by-sentbleu", integer=True)


def _ngram_lines(lines: list[str], header: str) -> list[tuple[str, str]]:
    out = []
    for line in _section(lines, header):
        gram, rest = line.split("\t")
        out.append((gram, rest))
    return out


@pytest.mark.parametrize("direction", ["sys1>sys2", "sys2>sys1"])
def test_salient_ngrams(case, direction):
    """Same scores in the same order and, for every n-gram above the last printed score, the same n-grams
    and counts; at the last score compare-mt picks tied n-grams in set order (varies run to run)."""
    lines, model = case
    printed = _ngram_lines(lines, f"--- 50 n-grams where {direction} in match")
    comparison = model.ngrams[0]
    entries = comparison.system_better if direction == "sys1>sys2" else comparison.other_better
    mine = [(e.ngram, f"{f4(e.score)} (sys1={e.count_system}, sys2={e.count_other})") for e in entries]
    assert [rest.split(" ")[0] for _, rest in printed] == [rest.split(" ")[0] for _, rest in mine]
    cutoff = printed[-1][1].split(" ")[0]
    assert {p for p in printed if p[1].split(" ")[0] != cutoff} == {m for m in mine if m[1].split(" ")[0] != cutoff}
    # the tied n-grams at the cutoff are still n-grams with that score and those counts in our ranking
    assert all(m[1].split(" ")[0] == cutoff for m in mine if m not in printed)


def test_sentence_examples(case):
    lines, model = case
    examples = model.examples
    scores = {e.id: e.scores["sentbleu"] for e in examples.examples}
    for direction, key in (("sys1>sys2", "sys1 > sys2"), ("sys2>sys1", "sys2 > sys1")):
        start = lines.index(f"--- 10 sentences where {direction} at sentence-level BLEU")
        printed = [line for line in lines[start + 1 :] if line.startswith("sys1-sys2=")][:10]
        mine = []
        for i in examples.largest_differences[key]:
            s1, s2 = 100 * scores[i][0], 100 * scores[i][1]
            mine.append(f"sys1-sys2={fsent(-(s2 - s1))}, sys1={fsent(s1)}, sys2={fsent(s2)}")
        assert printed == mine


def test_compare_mt_bootstrap_draws_half_the_segments():
    """Documented difference: compare-mt resamples n/2 segments (``sample_ratio=0.5``); we draw n."""
    import inspect

    from compare_mt import sign_utils

    assert inspect.signature(sign_utils.eval_with_paired_bootstrap).parameters["sample_ratio"].default == 0.5
    from nlpeval.reports.analyses.resampling import Resamples

    assert Resamples.draw(7, 3, seed=1).counts.sum(axis=1).tolist() == [7.0, 7.0, 7.0]


def test_compare_mt_tie_order_is_pinned():
    """compare-mt orders tied salient n-grams in ``set`` order; ours: count, then text."""
    from collections import Counter

    from nlpeval.reports.analyses.comparemt import salient_ngrams

    first = Counter({("b",): 2, ("a",): 2, ("c",): 3})
    ranked = salient_ngrams(first, Counter())
    assert [g for g, _ in ranked] == [("c",), ("a",), ("b",)]
