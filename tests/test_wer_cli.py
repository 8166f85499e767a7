"""The WER family on the command line: ``nlpeval score -m wer,cer`` and ``nlpeval align``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jiwer
import pytest

import nlpeval
from nlpeval.cli.main import main


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return {
        "ref": write(tmp_path / "ref.txt", ["the cat sat on the mat", "hello world", "", "a b c d"]),
        "ref2": write(tmp_path / "ref2.txt", ["a cat sat on a mat", "hello there world", "x", "a b c"]),
        "sys": write(tmp_path / "sys.txt", ["the cat sat on a mat", "Hello world !", "x y", "   "]),
        "short": write(tmp_path / "short.txt", ["the cat", "hello"]),
    }


def lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").split("\n")[:-1]


def test_score_json_equals_jiwer(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "-r", files["ref"], "-m", "wer,cer,mer,wil,wip", "-f", "json", files["sys"]]) == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    hyps, refs = lines(files["sys"]), lines(files["ref"])
    out = jiwer.process_words(refs, hyps)
    for name in ("wer", "mer", "wil", "wip"):
        assert scores[name]["score"] == pytest.approx(getattr(out, name), abs=1e-12)
    assert scores["wer"]["substitutions"] == out.substitutions
    assert scores["cer"]["score"] == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)


def test_score_text_shows_percent_and_options(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["score", "-r", files["ref"], "-m", "wer", "-lc", "--remove-punctuation", files["sys"]]
    assert main(args) == 0
    text = capsys.readouterr().out
    transform = jiwer.Compose(
        [jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.RemoveMultipleSpaces(), jiwer.Strip(),
         jiwer.ReduceToListOfListOfWords()]
    )  # fmt: skip
    expected = jiwer.wer(lines(files["ref"]), lines(files["sys"]), transform, transform)
    assert f"{expected * 100:.2f}" in text.splitlines()[1]
    assert "WER: nrefs:1|unit:word|case:lc|punct:removed|" in text


def test_score_segments_and_several_references(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["score", "-r", files["ref"], "-r", files["ref2"], "-m", "wer", "--segments", "-f", "json"]
    args += ["--chunk-size", "3", files["sys"]]  # streamed in two chunks
    assert main(args) == 0
    score = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["wer"]
    assert score["signature"].startswith("nrefs:2|")
    refs = list(zip(lines(files["ref"]), lines(files["ref2"]), strict=True))
    assert score["score"] == nlpeval.wer(lines(files["sys"]), refs).score
    assert len(score["segments"]) == 4
    assert score["segments"][2] == 1.0  # "x y": against "x" (1 edit, not "" with 2): 1 insertion / 1 word
    assert score["segments"][3] == 1.0  # empty hypothesis: every reference word deleted


def test_score_rejects_inconsistent_options(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "-r", files["ref"], "-m", "wer", "--whitespace", "remove", files["sys"]]) == 2
    assert "cer only" in capsys.readouterr().err
    assert main(["score", "-r", files["ref"], "-m", "cer", "--split-unspaced", files["sys"]]) == 2


def test_align_prints_jiwer_visualisation(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["align", "-r", files["ref"], files["sys"]]) == 0
    text = capsys.readouterr().out
    expected = jiwer.visualize_alignment(jiwer.process_words(lines(files["ref"]), lines(files["sys"])))
    body, signature = text.rsplit("signature: ", 1)
    assert body == expected
    assert signature.startswith("nrefs:1|unit:word|")
    assert main(["align", "-r", files["ref"], "--cer", "--all", "--no-summary", files["sys"]]) == 0
    chars = jiwer.process_characters(lines(files["ref"]), lines(files["sys"]))
    expected = jiwer.visualize_alignment(chars, show_measures=False, skip_correct=False)
    assert capsys.readouterr().out == expected


def test_align_real_data_with_errors_table(compare_mt: dict[str, list[str]], shared_data: Path, capsys) -> None:
    ref, system = shared_data / "compare-mt" / "ted.ref.eng", shared_data / "compare-mt" / "ted.sys1.eng"
    assert main(["align", "-r", str(ref), "--line-width", "80", "--errors", "5", str(system)]) == 0
    text = capsys.readouterr().out
    out = jiwer.process_words(compare_mt["ted.ref.eng"], compare_mt["ted.sys1.eng"])
    assert text.startswith(jiwer.visualize_alignment(out, line_width=80))
    assert text.endswith("\n" + jiwer.visualize_error_counts(out, top_k=5) + "\n")


def test_align_json(files: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    args = ["align", "-r", files["ref"], "-f", "json", "--errors", "2", "-o", str(target), files["sys"]]
    assert main(args) == 0
    payload = json.loads(target.read_text(encoding="utf-8"))
    out = jiwer.process_words(lines(files["ref"]), lines(files["sys"]))
    assert payload["wer"] == pytest.approx(out.wer, abs=1e-12)
    assert payload["segments"][0]["pairs"][4] == ["substitute", "the", "a"]
    assert payload["most_frequent"]["deletions"][0] == ["a b c d", 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", "{short}", "{sys}"], "short.txt:3: line missing: "),
        (["-r", "{sys}", "{short}"], "short.txt:3: line missing: "),
        (["-r", "{ref}", "{bad}"], "bad.txt:2: invalid UTF-8"),
        (["-r", "{ref}", "{empty}"], "empty.txt is empty"),
        (["-r", "{ref}", "--whitespace", "remove", "{sys}"], "use it with --cer"),
    ],
)
def test_align_bad_input_exits_2_with_file_and_line(
    files: dict[str, str], tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xff\xfe broken\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    paths = {**files, "bad": str(tmp_path / "bad.txt"), "empty": str(tmp_path / "empty.txt")}
    result = subprocess.run(
        [sys.executable, "-m", "nlpeval", "align", *(a.format(**paths) for a in args)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
