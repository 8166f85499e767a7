"""``nlpeval report`` on the command line: formats, bad input (exit 2, one line, no file), demo."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nlpeval.cli.main import main


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    return {
        "ref": write(tmp_path / "ref.txt", ["the cat sat on the mat", "hello world", "a b c d", "x y"]),
        "ref2": write(tmp_path / "ref2.txt", ["a cat sat on a mat", "hello there world", "a b c", "x"]),
        "sys1": write(tmp_path / "a" / "out.txt", ["the cat sat on a mat", "hello world !", "a b d c", "<UNK> y"]),
        "sys2": write(tmp_path / "b" / "out.txt", ["a cat on the mat", "", "a b c d", "x y"]),
        "short": write(tmp_path / "short.txt", ["only one line"]),
        "empty": write(tmp_path / "empty.txt", []),
        "labels": write(tmp_path / "labels.txt", ["news", "talk", "news", "talk"]),
    }


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_json_by_suffix_with_two_references_and_same_basenames(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["report", "-r", files["ref"], "-r", files["ref2"], "--bootstrap", "50", "--randomization", "50"]
    assert main([*argv, "-o", str(out), "--labels", files["labels"], files["sys1"], files["sys2"]]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["systems"] == [files["sys1"], files["sys2"]]  # same basename: the paths tell them apart
    assert data["examples"]["examples"][3]["hypotheses"][0] == "<UNK> y"
    assert data["examples"]["examples"][0]["references"] == ["the cat sat on the mat", "a cat sat on a mat"]
    assert [i["role"] for i in data["provenance"]["inputs"]] == ["reference", "reference", "system", "system", "labels"]
    assert any(t["by"] == "label" for t in data["buckets"])
    first = out.read_bytes()
    assert main([*argv, "-o", str(out), "--labels", files["labels"], files["sys1"], files["sys2"]]) == 0
    assert out.read_bytes() == first


@pytest.mark.parametrize(
    ("suffix", "marker"), [(".md", "| system |"), (".txt", "--- Leaderboard"), (".tex", r"\toprule")]
)
def test_formats_follow_the_suffix(files, tmp_path, suffix, marker):
    out = tmp_path / f"r{suffix}"
    assert main(["report", "-r", files["ref"], "--bootstrap", "20", "-o", str(out), files["sys1"], files["sys2"]]) == 0
    assert marker in out.read_text(encoding="utf-8")


def test_mismatched_counts(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    err = _error(capsys, ["report", "-r", files["ref"], "-o", str(out), files["sys1"], files["short"]])
    assert "segment counts differ" in err and "short.txt has 1" in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".nlpeval-")]


def test_empty_system(files, capsys):
    err = _error(capsys, ["report", "-r", files["ref"], files["sys1"], files["empty"]])
    assert "empty.txt is empty" in err


def test_invalid_utf8_names_file_and_line(files, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nok\n\xff\xfe\nok\n")
    err = _error(capsys, ["report", "-r", files["ref"], files["sys1"], str(bad)])
    assert f"{bad}:3: invalid UTF-8" in err


def test_labels_of_the_wrong_length(files, tmp_path, capsys):
    labels = write(tmp_path / "few-labels.txt", ["news"])
    err = _error(capsys, ["report", "-r", files["ref"], "--labels", labels, files["sys1"]])
    assert "few-labels.txt has 1 lines" in err


def test_unknown_baseline_and_suffix(files, tmp_path, capsys):
    assert "--baseline" in _error(capsys, ["report", "-r", files["ref"], "--baseline", "zzz", files["sys1"]])
    assert "format" in _error(capsys, ["report", "-r", files["ref"], "-o", str(tmp_path / "r.xyz"), files["sys1"]])


def test_compare_mt_preset_and_stdout(files, capsys):
    assert (
        main(
            ["report", "-r", files["ref"], "--preset", "compare-mt", "--bootstrap", "20", files["sys1"], files["sys2"]]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "word F-measure by frequency" in out and "BLEU" in out


def test_demo_report(tmp_path, capsys):
    previous = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["demo", "--report", "demo.json"]) == 0
    finally:
        os.chdir(previous)
    data = json.loads((tmp_path / "demo.json").read_text(encoding="utf-8"))
    assert data["systems"] == ["system-a.en", "system-b.en"]


def test_figures_directory(files, tmp_path):
    import matplotlib  # noqa: F401 - the test needs it installed

    figures = tmp_path / "figs"
    one = write(tmp_path / "one.txt", Path(files["sys1"]).read_text(encoding="utf-8").splitlines())
    two = write(tmp_path / "two.txt", Path(files["sys2"]).read_text(encoding="utf-8").splitlines())
    argv = ["report", "-r", files["ref"], "--bootstrap", "20", "-m", "chrf", "-o", str(tmp_path / "r.json")]
    assert main([*argv, "--figures", str(figures), one, two]) == 0
    assert any(p.suffix == ".pdf" for p in figures.iterdir())


def test_source_freq_corpus_quantile_and_max_examples(files, tmp_path):
    src = write(tmp_path / "src.txt", ["die Katze", "hallo Welt", "a b c d", "x y"])
    freq = write(tmp_path / "train.txt", ["the the the cat", "hello"])
    out = tmp_path / "r.json"
    argv = ["report", "-r", files["ref"], "--src", src, "--freq-corpus", freq, "--buckets", "quantile"]
    argv += ["--max-examples", "2", "-m", "chrf,wer", "--bootstrap", "20", "-o", str(out), files["sys1"], files["sys2"]]
    assert main(argv) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["examples"]["examples"]) == 2 and data["examples"]["total"] == 4
    assert data["examples"]["examples"][0]["source"] == "die Katze"
    assert data["length"]["sanity"][1]["copied_source"]["example_ids"] == [2, 3]
    assert any(t["by"] == "quantile:ref-length" for t in data["buckets"])
    # frequencies from train.txt: "the" 3, "cat" and "hello" 1, the other reference words 0
    word = next(t for t in data["buckets"] if t["id"] == "word-fmeas-frequency")
    counts = {row["label"]: row["cells"][0]["estimate"]["n"] for row in word["rows"]}
    assert (counts["3"], counts["1"], counts["<1"]) == (2, 2, 10)
    roles = [i["role"] for i in data["provenance"]["inputs"]]
    assert roles == ["reference", "system", "system", "source", "freq-corpus"]
