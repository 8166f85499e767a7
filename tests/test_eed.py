"""EED parity with torchmetrics 1.9's ``extended_edit_distance`` (run live), its preprocessing and its options.

Real data: WMT17 en-de (two references), compare-mt TED and summaries; generated adversarial text (many
scripts, odd whitespace, empty strings, repeats) in both languages' preprocessing. Sentence values are
compared bit for bit with torchmetrics' own ``_eed_function`` on its own preprocessing (Python floats), and
with the float32 tensors its public function returns.
"""

from __future__ import annotations

import random

import pytest
import torch
from torchmetrics.functional.text import extended_edit_distance
from torchmetrics.functional.text.eed import _eed_function, _preprocess_en, _preprocess_ja

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.errors import InputError
from nlpeval.metrics.eed import EED, preprocess_en, preprocess_ja
from textgen import WORDS, corpus


def reference_sentences(hyps, refs, language="en", **costs):
    prep = _preprocess_en if language == "en" else _preprocess_ja
    return [min(_eed_function(prep(h), prep(r), **costs) for r in seg) for h, seg in zip(hyps, refs, strict=True)]


def data(source, wmt17, compare_mt, n):
    if source == "wmt17":
        hyps = wmt17["uedin-nmt.4722"][:n]
        return hyps, [[wmt17["reference"][i], wmt17["online-B.0"][i]] for i in range(n)]
    if source == "adversarial":
        return corpus(26, n, 3)
    hyps = compare_mt[f"{source}.sys1.eng"][:n]
    return hyps, [[r] for r in compare_mt[f"{source}.ref.eng"][:n]]


@pytest.mark.parametrize("source", ["wmt17", "ted", "sum", "adversarial"])
def test_sentences_and_corpus_equal_torchmetrics(source, wmt17, compare_mt):
    hyps, refs = data(source, wmt17, compare_mt, 35)
    got = nlpeval.eed(hyps, refs, segments=True)
    expected = reference_sentences(hyps, refs)
    assert got.segments.tolist() == expected
    assert abs(got.score - sum(expected) / len(expected)) < 1e-15
    # the public function (float32 tensors) on a part: it recomputes every sentence
    part = nlpeval.eed(hyps[:15], refs[:15], segments=True)
    average, sentences = extended_edit_distance(hyps[:15], refs[:15], return_sentence_level_score=True)
    assert torch.equal(torch.tensor(part.segments, dtype=torch.float32), sentences.to(torch.float32))
    assert abs(part.score - float(average)) < 1e-6  # torchmetrics sums float32 tensors


@pytest.mark.parametrize("source", ["wmt17", "adversarial"])
def test_japanese_preprocessing_equals_torchmetrics(source, wmt17, compare_mt):
    hyps, refs = data(source, wmt17, compare_mt, 25)
    hyps = [h.replace("a", "ａ").replace("1", "１") + "ｶ " for h in hyps]  # full-width forms for NFKC
    got = nlpeval.eed(hyps, refs, language="ja", segments=True)
    assert got.segments.tolist() == reference_sentences(hyps, refs, "ja")
    got = nlpeval.eed(hyps[:10], refs[:10], language="ja")
    average = extended_edit_distance(hyps[:10], refs[:10], language="ja")
    assert abs(got.score - float(average)) < 1e-6


def test_preprocessing_equals_torchmetrics():
    rng = random.Random(3)
    pieces = [*WORDS, "Mr", "Dr.", "Prof", "e.g.", "i.e.", "U.S.", "3.14", "1,000", "4 . 5", ".", ",", "!", "?", "  "]
    texts = ["", " ", "Mr. X", "Mrs.Y", "e.g. this", "U.S.A.", "1.5 , 2", "a\t\tb \n"]
    texts += [" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(400)]
    for text in texts:
        assert preprocess_en(text) == _preprocess_en(text), text
        assert preprocess_ja(text) == _preprocess_ja(text), text


@pytest.mark.parametrize(
    "costs",
    [
        {"alpha": 1.0, "rho": 0.0, "deletion": 0.5, "insertion": 0.7},
        {"alpha": 0.0, "rho": 1.5, "deletion": 0.0, "insertion": 2.0},
        {"alpha": 3.3, "rho": 0.1, "deletion": 1.1, "insertion": 0.1},
    ],
)
def test_options_equal_torchmetrics(costs, compare_mt):
    hyps, refs = data("ted", None, compare_mt, 15)
    got = nlpeval.eed(hyps, refs, segments=True, **costs)
    assert got.segments.tolist() == reference_sentences(hyps, refs, **costs)
    assert "alpha:" in got.signature and "flavor:torchmetrics" in got.signature


def test_ties_repeats_and_empty_strings():
    rng = random.Random(11)
    hyps = [" ".join(rng.choice("ab") for _ in range(rng.randint(0, 15))) for _ in range(150)]
    refs = [[" ".join(rng.choice("abc") for _ in range(rng.randint(0, 15))) for _ in range(2)] for _ in hyps]
    hyps[:3] = ["", "   ", "a"]
    refs[:3] = [["", "a"], [""], ["a", "a"]]
    got = nlpeval.eed(hyps, refs, segments=True)
    assert got.segments.tolist() == reference_sentences(hyps, refs)
    ja = nlpeval.eed(hyps, refs, language="ja", segments=True)
    assert ja.segments.tolist() == reference_sentences(hyps, refs, "ja")


def test_rows_merge_and_bootstrap(compare_mt):
    hyps, refs = data("sum", None, compare_mt, 150)
    metric = EED()
    whole = metric(hyps, refs)
    left, right = metric.segment_stats(hyps[:50], refs[:50]), metric.segment_stats(hyps[50:], refs[50:])
    merged = metric.score_from_totals(metric.schema.combine(left.totals(), right.totals()))
    assert abs(merged.score - whole.score) < 1e-15
    ci = nlpeval.eed(hyps, refs, n_bootstrap=200).ci
    assert ci is not None and ci.low < whole.score < ci.high


def test_bad_input():
    with pytest.raises(InputError, match="hypotheses: segment 1"):
        nlpeval.eed(["a", None], ["a", "b"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="references: segment 0: has no reference"):
        nlpeval.eed(["a"], [[]])
    with pytest.raises(ValueError, match="language"):
        EED(language="de")
    with pytest.raises(ValueError, match="alpha"):
        EED(alpha=-1.0)


def test_cli_equals_the_api_and_refuses_bad_lines(tmp_path, capsys, compare_mt):
    hyps, refs = data("ted", None, compare_mt, 12)
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("".join(r[0] + "\n" for r in refs), encoding="utf-8")
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    assert main(["score", "-m", "eed", "--eed-rho", "0.5", "-r", str(ref), str(hyp), "--format", "json"]) == 0
    import json

    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["eed"]
    assert got["score"] == nlpeval.eed(hyps, refs, rho=0.5).score
    hyp.write_bytes(b"fine\n\xff\n")
    ref.write_text("a\nb\n", encoding="utf-8")
    assert main(["score", "-m", "eed", "-r", str(ref), str(hyp)]) == 2
    err = capsys.readouterr().err
    assert f"{hyp}:2:" in err and len(err.strip().splitlines()) == 1
