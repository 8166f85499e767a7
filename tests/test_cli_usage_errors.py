"""Usage errors are one line naming the flag, with where to read more; a mistyped command gets "did you mean"."""

from __future__ import annotations

import pytest

from nlpeval.cli.main import main

CASES = [
    (["score", "--tokenize", "foo", "sys.txt"], "argument --tokenize/-tok: invalid choice: 'foo'", "score"),
    (["score", "--format", "yaml", "sys.txt"], "argument --format/-f: invalid choice: 'yaml'", "score"),
    (
        ["score", "--seed", "x", "sys.txt"],
        "argument --seed: expected an integer seed from 0 to 4294967295, got 'x'",
        "score",
    ),
    (
        ["score", "--bootstrap", "many", "sys.txt"],
        "argument --bootstrap: expected 0 (none) or an integer of at least 2, got 'many'",
        "score",
    ),
    (["report", "--format", "yaml", "sys.txt"], "argument --format/-f: invalid choice: 'yaml'", "report"),
    (
        ["report", "--seed", "1.5", "sys.txt"],
        "argument --seed: expected an integer seed from 0 to 4294967295, got '1.5'",
        "report",
    ),
    (["classify", "--format", "xml"], "argument --format/-f: invalid choice: 'xml'", "classify"),
    (["agree", "r.tsv", "--format", "yaml"], "argument --format/-f: invalid choice: 'yaml'", "agree"),
    (
        ["perplexity", "--logprobs", "lp.txt", "--format", "yaml"],
        "argument --format/-f: invalid choice: 'yaml'",
        "perplexity",
    ),
    (["score", "--no-such-flag", "sys.txt"], "unrecognized arguments: --no-such-flag", "score"),
]


@pytest.mark.parametrize(("argv", "message", "command"), CASES)
def test_one_line_naming_the_flag(argv, message, command, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err and "Traceback" not in err
    assert err.startswith(f"nlpeval {command}: error: {message}")
    assert err.rstrip().endswith(f"; see nlpeval {command} --help")


def test_a_mistyped_command_gets_did_you_mean(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["reprot"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("nlpeval: error: unknown command 'reprot'; did you mean 'report'? commands: score, ")
    assert err.count("\n") == 1
