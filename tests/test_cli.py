"""The command line: scores, formats, streaming, errors (exit code 2, file:line, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu

import nlpeval
from nlpeval.cli.main import main


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed ``nlpeval`` entry point in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "nlpeval", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return {
        "ref": write(tmp_path / "ref.txt", ["the cat sat on the mat", "hello world", "a b c d"]),
        "ref2": write(tmp_path / "ref2.txt", ["a cat sat on a mat", "hello there world", "a b c"]),
        "sys": write(tmp_path / "sys.txt", ["the cat sat on a mat", "hello world !", "a b d c"]),
    }


def test_json_output_matches_the_api_and_sacrebleu(files: dict[str, str], capsys) -> None:
    assert main(["score", "-r", files["ref"], "-r", files["ref2"], "-m", "bleu", "--format", "json", files["sys"]]) == 0
    payload = json.loads(capsys.readouterr().out)
    system = payload["systems"][0]
    assert system["name"] == files["sys"]
    hyps = Path(files["sys"]).read_text().splitlines()
    refs = [Path(files[k]).read_text().splitlines() for k in ("ref", "ref2")]
    api = nlpeval.bleu(hyps, list(zip(*refs, strict=True)))
    assert system["scores"]["bleu"]["score"] == api.score
    assert system["scores"]["bleu"]["signature"] == api.signature
    assert system["scores"]["bleu"]["score"] * 100 == pytest.approx(sacrebleu.corpus_bleu(hyps, refs).score, abs=1e-9)


def test_real_data_text_table_and_chunked_streaming(shared_data: Path, capsys) -> None:
    ref = str(shared_data / "wmt17-en-de" / "reference.de")
    system = str(shared_data / "wmt17-en-de" / "online-B.0.de")
    assert main(["score", "-r", ref, "-m", "bleu", "--format", "json", "--chunk-size", "7", system]) == 0
    chunked = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["bleu"]["score"]
    hyps = Path(system).read_text(encoding="utf-8").split("\n")[:-1]
    refs = Path(ref).read_text(encoding="utf-8").split("\n")[:-1]
    assert chunked * 100 == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert main(["score", "-r", ref, "-m", "bleu", system]) == 0
    text = capsys.readouterr().out
    assert f"{chunked * 100:.2f}" in text and "BLEU: nrefs:1|case:mixed" in text


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_every_format_renders(files: dict[str, str], fmt: str, capsys) -> None:
    assert main(["score", "-r", files["ref"], "-m", "bleu", "--format", fmt, "--segments", files["sys"]]) == 0
    out = capsys.readouterr().out
    score = nlpeval.bleu(
        Path(files["sys"]).read_text().splitlines(), Path(files["ref"]).read_text().splitlines(), segments=True
    )
    if fmt in ("text", "markdown", "latex"):
        assert f"{score.score * 100:.2f}" in out
    elif fmt == "csv":
        assert out.splitlines()[0] == "system,metric,segment,score"
        assert len(out.splitlines()) == 4
        assert float(out.splitlines()[1].split(",")[-1]) == score.segments[0]
    else:
        assert json.loads(out)["systems"][0]["scores"]["bleu"]["segments"] == score.segments.tolist()


def test_latex_and_markdown_escape_names(tmp_path: Path, files: dict[str, str], capsys) -> None:
    odd = write(tmp_path / "sys_a&b|c.txt", ["x"] * 3)
    assert main(["score", "-r", files["ref"], "-m", "bleu", "--format", "latex", odd]) == 0
    assert r"sys\_a\&b|c.txt" in capsys.readouterr().out
    assert main(["score", "-r", files["ref"], "-m", "bleu", "--format", "markdown", odd]) == 0
    assert r"sys_a&b\|c.txt" in capsys.readouterr().out


def test_stdin_and_output_file(files: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = run_cli(
        "score",
        "-r",
        files["ref"],
        "-m",
        "bleu",
        "-f",
        "json",
        "-o",
        str(out),
        "-",
        stdin=Path(files["sys"]).read_bytes(),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert json.loads(out.read_text())["systems"][0]["name"] == "-"


def test_bootstrap_interval_in_output(files: dict[str, str], capsys) -> None:
    assert main(["score", "-r", files["ref"], "-m", "bleu", "--bootstrap", "100", "-f", "json", files["sys"]]) == 0
    bleu = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["bleu"]
    assert bleu["ci"]["n_resamples"] == 100 and "|bs:100|rs:12345|" in bleu["signature"]


def _error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_mismatched_counts_name_both_files(files: dict[str, str], tmp_path: Path) -> None:
    short = write(tmp_path / "short.txt", ["a", "b"])
    message = _error(run_cli("score", "-r", files["ref"], short))
    assert f"{short} has 2" in message and f"{files['ref']} has 3" in message


def test_invalid_utf8_names_file_and_line(files: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nbroken \xff here\nok\n")
    message = _error(run_cli("score", "-r", files["ref"], str(bad)))
    assert f"{bad}:2: invalid UTF-8" in message


def test_empty_and_missing_files(files: dict[str, str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    empty_ref = write(tmp_path / "empty_ref.txt", [])
    assert "is empty" in _error(run_cli("score", "-r", empty_ref, str(empty)))
    assert "cannot read" in _error(run_cli("score", "-r", files["ref"], str(tmp_path / "nope.txt")))
    assert "unknown metric 'blue'" in _error(run_cli("score", "-r", files["ref"], "-m", "blue", files["sys"]))


def test_failed_run_leaves_no_output_file(files: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("previous result\n")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"a\n\xfe\nc\n")
    _error(run_cli("score", "-r", files["ref"], "-o", str(out), str(bad)))
    assert out.read_text() == "previous result\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".nlpeval-")] == []


def test_usage_errors_exit_2(files: dict[str, str]) -> None:
    result = run_cli("score", files["sys"])
    assert result.returncode == 2 and "-r/--ref" in result.stderr


def test_demo_runs_offline() -> None:
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    assert "system-a.en" in result.stdout and "BLEU" in result.stdout


def test_json_output_is_strict_when_values_are_undefined(tmp_path: Path, capsys) -> None:
    ref = write(tmp_path / "ref", ["a b c d e", "f g h i j"])
    # NLTK's method6 is undefined for a segment with unigram matches but no trigram match
    system = write(tmp_path / "sys", ["a b c d", "f x g"])
    assert (
        main(
            [
                "score",
                "-r",
                ref,
                "-m",
                "bleu",
                "--bleu-flavor",
                "nltk",
                "--smooth",
                "method6",
                "--segments",
                "-f",
                "json",
                system,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "NaN" not in out
    segments = json.loads(out)["systems"][0]["scores"]["bleu"]["segments"]
    assert None in segments


def test_output_file_gets_the_usual_permissions(files: dict[str, str], tmp_path: Path) -> None:
    # the atomic writer's temporary file is private (0600); the result must be as open() makes it
    fresh = tmp_path / "fresh.json"
    old_umask = os.umask(0o022)
    try:
        assert main(["score", "-r", files["ref"], "-m", "bleu", "-f", "json", "-o", str(fresh), files["sys"]]) == 0
    finally:
        os.umask(old_umask)
    assert fresh.stat().st_mode & 0o777 == 0o644
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o640)
    assert main(["score", "-r", files["ref"], "-m", "bleu", "-f", "json", "-o", str(kept), files["sys"]]) == 0
    assert kept.stat().st_mode & 0o777 == 0o640
    assert json.loads(kept.read_text())
