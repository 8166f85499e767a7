"""CoNLL column files for span F1 (``nlpeval.read_conll``, ``nlpeval spans``): conlleval.pl's report on the
same files (goldens written by the committed fixture script, and live when conlleval.pl is on this machine),
seqeval's ``classification_report`` (run live), and file:line errors."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest
from seqeval.metrics import classification_report

import nlpeval
from nlpeval import InputError
from nlpeval.cli.main import main as cli_main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "span_f1"
sys.path.insert(0, str(FIXTURES))
import make_conlleval_goldens as goldens  # noqa: E402

GOLDENS = json.loads((FIXTURES / "conlleval_goldens.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.simplefilter("ignore")  # seqeval warns on 0/0 and on odd labels


def _cli_flags(options: dict) -> list[str]:
    flags: list[str] = []
    for key, value in options.items():
        if key == "raw":
            flags.append("-r")
        elif key in ("gold_column", "pred_column"):
            flags += [f"--{key.replace('_', '-')}", str(value + 1)]  # the command line counts from 1
        else:
            flags += [f"--{key}", str(value)]
    return flags


@pytest.mark.parametrize("case", goldens.FILES)
def test_file_report_equals_conlleval_pl(case: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text, args, moved, options = goldens.conll_file(case)
    want = GOLDENS[f"file:{case}"]
    script = Path(goldens.SCRIPT)
    if script.is_file():  # live, when conlleval.pl is on this machine (the goldens come from it)
        assert goldens.run(moved, str(script), args) == want
    path = tmp_path / f"{case}.txt"
    path.write_text(text, encoding="utf-8")
    data = nlpeval.read_conll(path, **options)
    assert nlpeval.conlleval_report(nlpeval.span_f1(data.predictions, data.references, mode="conlleval")) == want
    assert cli_main(["spans", str(path), *_cli_flags(options)]) == 0
    assert capsys.readouterr().out == want


def test_seqeval_modes_print_seqevals_classification_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text, _, _, _ = goldens.conll_file("conll2003")
    path = tmp_path / "ner.txt"
    path.write_text(text, encoding="utf-8")
    data = nlpeval.read_conll(path, skip_docstart=True)
    assert not any(words[0] == "-DOCSTART-" for words in data.tokens)
    for digits in (2, 4):
        want = classification_report(data.references, data.predictions, digits=digits)
        assert nlpeval.seqeval_report(nlpeval.span_f1(data.predictions, data.references), digits=digits) == want
    assert cli_main(["spans", str(path), "--span-mode", "lenient", "--digits", "4", "--skip-docstart"]) == 0
    assert capsys.readouterr().out == classification_report(data.references, data.predictions, digits=4)


def test_reader_layout_docstart_boundaries_crlf_and_perl_split(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(
        b"-DOCSTART- -X- O O\r\n\r\nJohn NNP B-PER B-PER\r\nlives VBZ O O\r\n-X- -X- O O\r\n\r\n\r\n"
        b"Paris NNP B-LOC I-LOC\r\n"
    )
    data = nlpeval.read_conll(path)
    assert data.references == [["O"], ["B-PER", "O"], ["B-LOC"]]
    assert data.predictions == [["O"], ["B-PER", "O"], ["I-LOC"]]
    assert data.tokens == [["-DOCSTART-"], ["John", "lives"], ["Paris"]]
    assert data.lines == [1, 3, 8] and data.columns == 4
    assert nlpeval.read_conll(path, skip_docstart=True).references == [["B-PER", "O"], ["B-LOC"]]
    # conlleval.pl's default delimiter is one space: two spaces make an empty column (Perl's split)
    spaced = tmp_path / "spaced.txt"
    spaced.write_text("a  B-X B-X\nb  O O  \n", encoding="utf-8")
    assert nlpeval.read_conll(spaced, delimiter=" ").columns == 4
    assert nlpeval.read_conll(spaced).columns == 3
    assert nlpeval.read_conll(path, gold_column=1, pred_column=3).references[1] == ["NNP", "VBZ"]
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    assert nlpeval.read_conll(empty).references == []


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ("a B-X B-X\nb O\n", {}, ":2: 2 columns, but line 1 has 3"),
        ("\na B-X B-X\n\nb O O extra\n", {}, ":4: 4 columns, but line 2 has 3"),
        ("a\n", {}, ":1: 1 column; a token line needs a gold and a predicted tag"),
        ("a B-X B-X\n", {"gold_column": 5}, ":1: 3 columns: no gold tag column 5"),
        ("a B-X B-X\n", {"pred_column": -4}, ":1: 3 columns: no predicted tag column -4"),
        (b"a B-X B-X\n\xff O O\n", {}, ":2: invalid UTF-8"),
    ],
)
def test_bad_files_name_file_and_line(tmp_path: Path, content: str | bytes, options: dict, message: str) -> None:
    path = tmp_path / "bad.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        nlpeval.read_conll(path, **options)
    assert str(caught.value).startswith(f"{path}{message}")


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="same column"):
        nlpeval.read_conll("unused", gold_column=1, pred_column=1)
    with pytest.raises(ValueError, match="not a regular expression"):
        nlpeval.read_conll("unused", delimiter="(")


def test_cli_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("a B-X B-X\n\nb O\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    for argv, message in [
        (["spans", str(bad), "-o", str(out)], f"{bad}:3: 2 columns, but line 1 has 3"),
        (["spans", str(tmp_path / "missing.txt")], "cannot read"),
        (["spans", str(bad), "--gold-column", "0"], "0 is no column"),
        (["spans", str(bad), "-d", "("], "not a regular expression"),
        (["spans", str(bad), "--span-scheme", "IOB2"], "--span-mode strict only"),
    ]:
        try:
            code = cli_main(argv)
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
        assert code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err and message in err
    assert not out.exists()


def test_cli_bootstrap_json_and_several_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text, _, _, _ = goldens.conll_file("conll2003")
    path = tmp_path / "ner.txt"
    path.write_text(text, encoding="utf-8")
    data = nlpeval.read_conll(path)
    want = nlpeval.span_f1(data.predictions, data.references, mode="lenient", n_bootstrap=200, seed=3)
    assert (
        cli_main(["spans", str(path), "--span-mode", "lenient", "--bootstrap", "200", "--seed", "3", "-f", "json"]) == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert got["file"] == str(path) and got["sentences"] == len(data.references)
    assert got["score"] == want.score and got["ci"]["low"] == want.ci.low and got["ci"]["high"] == want.ci.high
    other = tmp_path / "b.txt"
    other.write_text("x B-A B-A\n", encoding="utf-8")
    assert cli_main(["spans", str(path), str(other)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"==> {path} <==\n{GOLDENS['file:conll2003']}\n==> {other} <==\n")


def test_cli_reads_stdin_and_writes_output(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    text, _, _, _ = goldens.conll_file("conll2003")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))
    out = tmp_path / "report.txt"
    assert cli_main(["spans", "-", "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8") == GOLDENS["file:conll2003"]
    capsys.readouterr()
