"""Span F1: parity with seqeval 1.2.2 (run live) and conlleval.pl (goldens written by a committed script
that runs it with perl, and live when the script is on this machine) on generated CoNLL-style data."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import seqeval.scheme as seqeval_schemes
from seqeval.metrics import accuracy_score, classification_report
from seqeval.metrics.sequence_labeling import precision_recall_fscore_support as lenient_prfs
from seqeval.metrics.v1 import precision_recall_fscore_support as strict_prfs

import nlpeval
from nlpeval import InputError
from nlpeval.cli.main import main as cli_main
from span_f1_data import SPECIAL, corpus

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "span_f1"
sys.path.insert(0, str(FIXTURES))
import make_conlleval_goldens as goldens  # noqa: E402

GOLDENS = json.loads((FIXTURES / "conlleval_goldens.json").read_text(encoding="utf-8"))
AVERAGES = ("micro", "macro", "weighted")
SCHEMES = ("IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU")


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore")  # seqeval warns on 0/0 and on odd labels


def assert_prf(ours: nlpeval.Score, theirs: tuple) -> None:
    got = (ours.components["precision"], ours.components["recall"], ours.score)
    np.testing.assert_allclose(got, [float(x) for x in theirs[:3]], rtol=0, atol=1e-12)


def assert_report(ours: nlpeval.Score, report: dict) -> None:
    per_type = ours.components["per_type"]
    assert sorted(per_type) == sorted(k for k in report if not k.endswith(" avg"))
    for kind, row in per_type.items():
        want = report[kind]
        got = [row["precision"], row["recall"], row["f1"], row["support"]]
        np.testing.assert_allclose(
            got, [want["precision"], want["recall"], want["f1-score"], want["support"]], atol=1e-12
        )
    for average in AVERAGES:
        want, got = report[f"{average} avg"], ours.components["averages"][average]
        np.testing.assert_allclose(
            [got["precision"], got["recall"], got["f1"]],
            [want["precision"], want["recall"], want["f1-score"]],
            atol=1e-12,
        )


CORPORA = [(1, "IOB2", 3000, 0.0), (2, "IOB2", 500, 0.05), (6, "IOBES", 500, 0.05), (7, "BILOU", 300, 0.05)]


@pytest.mark.parametrize(("seed", "scheme", "n", "odd"), CORPORA)
def test_lenient_equals_seqeval_default_mode(seed: int, scheme: str, n: int, odd: float) -> None:
    hyps, refs = corpus(seed, scheme, n, odd)
    ours = nlpeval.span_f1(hyps, refs)
    report = classification_report(refs, hyps, output_dict=True)  # per type, micro, macro, weighted
    assert_report(ours, report)
    for average in AVERAGES:
        score = nlpeval.span_f1(hyps, refs, average=average).score
        assert score == pytest.approx(report[f"{average} avg"]["f1-score"], abs=1e-12)
    assert ours.components["accuracy"] == pytest.approx(accuracy_score(refs, hyps), abs=1e-15)
    assert ours.signature.startswith("mode:lenient|avg:micro|")


def test_lenient_special_sequences_suffix_and_zero_division() -> None:
    hyps, refs = [h for h, _ in SPECIAL], [r for _, r in SPECIAL]
    assert_report(nlpeval.span_f1(hyps, refs), classification_report(refs, hyps, output_dict=True))
    for average in AVERAGES:
        for zd in (0, 1):
            ours = nlpeval.span_f1(hyps, refs, average=average, zero_division=zd)
            assert_prf(ours, lenient_prfs(refs, hyps, average=average, zero_division=zd))
    flip = [[("-".join(reversed(lab.split("-", 1))) if "-" in lab else lab) for lab in s] for s in hyps + refs]
    hyps_s, refs_s = flip[: len(hyps)], flip[len(hyps) :]
    ours = nlpeval.span_f1(hyps_s, refs_s, suffix=True)
    assert_prf(ours, lenient_prfs(refs_s, hyps_s, average="micro", suffix=True))
    assert "suffix:yes" in ours.signature
    # nothing to find on either side: seqeval's zero_division (macro over no type is nan, as numpy's mean)
    for zd in (0, 1):
        ours = nlpeval.span_f1([["O"], []], [["O"], []], zero_division=zd)
        assert ours.score == float(lenient_prfs([["O"], []], [["O"], []], average="micro", zero_division=zd)[2])
        weighted = nlpeval.span_f1([["B-X"]], [["O"]], average="weighted", zero_division=zd)
        assert_prf(weighted, lenient_prfs([["O"]], [["B-X"]], average="weighted", zero_division=zd))
    assert np.isnan(nlpeval.span_f1([["O"]], [["O"]], average="macro").score)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_strict_equals_seqeval_strict_mode(scheme: str) -> None:
    reference_scheme = getattr(seqeval_schemes, scheme)
    hyps, refs = corpus(10 + SCHEMES.index(scheme), scheme, 500, 0.0)
    ours = nlpeval.span_f1(hyps, refs, mode="strict", scheme=scheme, average="weighted")
    assert_prf(ours, strict_prfs(refs, hyps, average="weighted", scheme=reference_scheme))
    report = classification_report(refs, hyps, output_dict=True, mode="strict", scheme=reference_scheme)
    assert_report(ours, report)
    assert f"mode:strict|scheme:{scheme}|" in ours.signature


def test_strict_scheme_detection_and_refusals_match_seqeval() -> None:
    for seed, scheme in ((20, "IOB2"), (21, "IOE2"), (22, "IOBES"), (23, "BILOU")):
        hyps, refs = corpus(seed, scheme, 300, 0.0)
        detected = seqeval_schemes.auto_detect(refs)
        ours = nlpeval.span_f1(hyps, refs, mode="strict")
        assert f"scheme:{detected.__name__}|" in ours.signature
        assert_report(ours, classification_report(refs, hyps, output_dict=True, mode="strict"))
    # a prefix the scheme does not allow: seqeval raises, so does nlpeval, naming the sentence
    hyps, refs = [["O", "B-PER"], ["S-PER", "O"]], [["O", "B-PER"], ["B-PER", "O"]]
    with pytest.raises(ValueError):
        strict_prfs(refs, hyps, scheme=seqeval_schemes.IOB2)
    with pytest.raises(InputError, match=r"hypotheses: segment 1: label 'S-PER' has no prefix of the IOB2"):
        nlpeval.span_f1(hyps, refs, mode="strict", scheme="IOB2")
    with pytest.raises(ValueError, match="cannot detect the tagging scheme"):
        nlpeval.span_f1([["O"]], [["O"]], mode="strict")
    with pytest.raises(ValueError, match="scheme applies to mode='strict' only"):
        nlpeval.span_f1([["O"]], [["O"]], scheme="IOB2")


def conlleval_cases() -> list[str]:
    return ["special", *(case for case, *_ in goldens.CASES)]


@pytest.mark.parametrize("case", conlleval_cases())
def test_conlleval_report_equals_conlleval_pl(case: str) -> None:
    hyps, refs = goldens.data(case)
    report = nlpeval.conlleval_report(nlpeval.span_f1(hyps, refs, mode="conlleval"))
    assert report == GOLDENS[case]
    script = Path(goldens.SCRIPT)
    if script.is_file():  # live, when conlleval.pl is on this machine (the goldens come from it)
        assert report == goldens.run(goldens.conlleval_input(hyps, refs), str(script))


def test_conlleval_scores_are_its_printed_numbers() -> None:
    hyps, refs = goldens.data("iob2-odd")
    s = nlpeval.span_f1(hyps, refs, mode="conlleval")
    line = GOLDENS["iob2-odd"].splitlines()[1]
    printed = [float(part.split(":")[1].strip(" %")) for part in line.split(";")]
    ours = [s.components["accuracy"], s.components["precision"], s.components["recall"], s.score]
    assert [f"{100 * x:.2f}" for x in ours] == [f"{x:.2f}" for x in printed]
    assert s.signature.startswith("mode:conlleval|avg:micro|")


def test_sentence_statistics_bootstrap_and_streaming() -> None:
    hyps, refs = corpus(30, "IOB2", 400, 0.02)
    whole = nlpeval.span_f1(hyps, refs, segments=True, n_bootstrap=200, seed=3)
    assert whole.ci is not None and whole.ci.low <= whole.score <= whole.ci.high
    assert "bs:200" in whole.signature
    for i in (0, 5, 17):  # a sentence's value is span F1 of that sentence alone
        assert whole.segments[i] == nlpeval.span_f1([hyps[i]], [refs[i]]).score
    metric = nlpeval.SpanF1(mode="conlleval")
    acc = metric.accumulator()
    for start in range(0, 400, 97):
        acc.update(hyps[start : start + 97], refs[start : start + 97])
    assert acc.compute().score == nlpeval.span_f1(hyps, refs, mode="conlleval").score
    one_shot = nlpeval.span_f1(hyps, refs)
    fixed = nlpeval.SpanF1(types=("OTHER", *one_shot.components["per_type"]))
    acc = fixed.accumulator()
    for start in range(0, 400, 150):
        acc.update(hyps[start : start + 150], refs[start : start + 150])
    merged = acc.compute()
    assert merged.score == one_shot.score
    assert merged.components["per_type"]["PER"] == one_shot.components["per_type"]["PER"]
    assert merged.components["per_type"]["OTHER"]["support"] == 0
    with pytest.raises(ValueError, match="not among types"):
        nlpeval.SpanF1(types=("PER",)).segment_stats([["B-LOC"]], [["O"]])


@pytest.mark.parametrize(
    ("hyps", "refs", "message"),
    [
        ([["O", "O"]], [["O"]], "hypotheses: segment 0: 2 predicted labels but 1 reference labels"),
        ([["O"], ["O"]], [["O"]], "2 hypothesis sentences but 1 reference sentences"),
        ([["O"], ["B-PER", 3]], [["O"], ["O", "O"]], "hypotheses: segment 1: label 1 is int 3"),
        ([["O"], ["B-PER", ""]], [["O"], ["O", "O"]], "hypotheses: segment 1: label 1 is an empty label"),
        ([["O"]], [[["B-PER"]]], "references: segment 0: label 0 is list"),
        ([None], [["O"]], "hypotheses: segment 0: is NoneType"),
    ],
)
def test_bad_input_names_the_sentence(hyps: list, refs: list, message: str) -> None:
    with pytest.raises(InputError) as caught:
        nlpeval.span_f1(hyps, refs)
    assert message in str(caught.value)


def write(path: Path, sentences: list[list[str]]) -> str:
    path.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
    return str(path)


def test_cli_scores_label_lines(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    hyps, refs = corpus(40, "IOB2", 500, 0.0)
    other = corpus(41, "IOB2", 500, 0.0)[0]
    for i, ref in enumerate(refs):
        other[i] = other[i][: len(ref)] + ["O"] * (len(ref) - len(other[i]))
    ref, sys_a, sys_b = (
        write(tmp_path / "ref.txt", refs),
        write(tmp_path / "a.txt", hyps),
        write(tmp_path / "b.txt", other),
    )
    argv = ["score", "-m", "span_f1", "-r", ref, "--format", "json"]
    assert cli_main([*argv, sys_a]) == 0
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["span_f1"]
    assert got["score"] == pytest.approx(float(lenient_prfs(refs, hyps, average="micro")[2]), abs=1e-12)
    assert cli_main([*argv, "--span-mode", "conlleval", sys_a]) == 0
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["span_f1"]
    assert got["score"] == nlpeval.span_f1(hyps, refs, mode="conlleval").score
    assert cli_main([*argv, "--span-mode", "strict", "--span-scheme", "IOB2", "--span-average", "macro", sys_a]) == 0
    got = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["span_f1"]
    want = strict_prfs(refs, hyps, average="macro", scheme=seqeval_schemes.IOB2)
    assert got["score"] == pytest.approx(float(want[2]), abs=1e-12)
    assert cli_main([*argv, "--paired-bs", "--paired-n", "100", "--chunk-size", "64", sys_a, sys_b]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert 0 <= systems[1]["scores"]["span_f1"]["p_value"] <= 1


def test_cli_bad_input_is_one_line_with_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ref = write(tmp_path / "ref.txt", [["O", "B-PER"], ["O"], ["B-LOC", "O"]])
    bad = write(tmp_path / "sys.txt", [["O", "B-PER"], ["O"], ["B-LOC"]])
    assert cli_main(["score", "-m", "span_f1", "-r", ref, "--chunk-size", "2", bad]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{bad}:3: 1 predicted labels but 2 reference labels" in err
    assert cli_main(["score", "-m", "span_f1", "-r", ref, "--span-mode", "strict", ref]) == 2
    assert "--span-scheme" in capsys.readouterr().err
    out = tmp_path / "out.json"
    assert cli_main(["score", "-m", "span_f1", "-r", ref, "-o", str(out), bad]) == 2
    assert not out.exists()
    capsys.readouterr()
