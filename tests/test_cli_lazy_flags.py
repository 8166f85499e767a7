"""``nlpeval score`` builds the flags of the metrics ``-m`` names first, and every flag only when needed.

``cli/main.py:parse_arguments`` parses with a trial parser holding the flags of the named metrics' families
(found in the entry modules named like them); anything that parser does not know exactly, cannot parse, or
``--help`` goes to the parser with every flag. These tests pin that both parsers agree and that the
messages, ``--help`` and the flags of metrics not selected are those of the full parser.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlpeval.cli.main import build_parser, parse_arguments
from nlpeval.metrics import registry

PYTHON_PATH = str(Path(registry.__file__).resolve().parents[2])


def _full(argv: list[str]) -> dict[str, object]:
    return vars(build_parser(["score"]).parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "-r", "ref.txt", "sys.txt"],  # no -m: bleu's flags
        ["score", "-m", "bleu,chrf", "-r", "ref.txt", "a.txt", "b.txt", "--format", "json"],
        ["score", "--metrics=chrf++", "--chrf-word-order", "1", "-lc", "-r", "r", "s", "--segments"],
        ["score", "-m", "bleu", "--tokenize", "intl", "--max-order", "3", "--smooth", "floor", "-r", "-", "s"],
        ["score", "-m", "ter", "--ter-normalized", "-r", "r", "s", "--bootstrap", "100", "--seed", "7"],
        ["score", "-m", "chrf", "-m", "bleu", "--smooth-value=0.5", "-r", "r", "s", "-o", "out.txt", "-q"],
        ["score", "-m", "wer", "--wer-normalize", "whisper-basic", "-r", "r", "s", "t", "--paired-bs"],
    ],
)
def test_the_trial_parser_parses_as_the_full_parser(argv: list[str]) -> None:
    trial = vars(parse_arguments(argv))
    full = _full(argv)
    assert trial == {key: full[key] for key in trial}
    selected = {registry.get(name).family for name in trial["metrics"].split(",")}
    others = {option.name for entry in registry.entries() if entry.family not in selected for option in entry.options}
    mine = {option.name for entry in registry.entries() if entry.family in selected for option in entry.options}
    assert set(full) - set(trial) and set(full) - set(trial) <= others - mine  # the trial parser was used


def test_score_reads_only_the_entry_modules_of_its_metrics(tmp_path: Path) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "sys.txt"
    ref.write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nhello there world\n", encoding="utf-8")
    code = (
        "import sys; from nlpeval.cli.main import main\n"
        "assert main(['score', '-m', 'bleu,chrf', '-r', sys.argv[1], sys.argv[2]]) == 0\n"
        "print(sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('nlpeval.metrics.entries.')))"
    )
    env = {**os.environ, "PYTHONPATH": PYTHON_PATH}
    done = subprocess.run(
        [sys.executable, "-c", code, str(ref), str(hyp)], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip().split("\n")[-1] == "['_shared', 'bleu', 'chrf']"
    full = subprocess.run(
        [sys.executable, "-m", "nlpeval", "score", "-m", "bleu,chrf", "--rouge-alpha", "0.5", "-r", str(ref), str(hyp)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert "BLEU" in full.stdout and done.stdout.startswith(full.stdout)  # the full parser: the same


def test_flags_of_metrics_not_selected_are_accepted_and_checked_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse_arguments(["score", "-m", "bleu", "--bertscore-num-layers", "2", "s"])
    assert args.bertscore_num_layers == 2 and args.rouge_alpha == registry.options()["rouge_alpha"].default
    for argv, message in [
        (["score", "-m", "bleu", "--rouge-alpha", "-0.5", "s"], "argument --rouge-alpha: must be at least 0"),
        (["score", "-m", "chrf", "--chrf-beta", "inf", "s"], "argument --chrf-beta: expected a finite number"),
        (["score", "-m", "bleu", "--no-such-flag", "s"], "unrecognized arguments: --no-such-flag; see nlpeval score"),
        (["score", "-m", "bleu", "--tokenize", "yaml", "s"], "argument --tokenize/-tok: invalid choice: 'yaml'"),
        (["score", "-m", "bleu"], "the following arguments are required: SYS"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            parse_arguments(argv)
        err = capsys.readouterr().err
        with pytest.raises(SystemExit):
            build_parser(["score"]).parse_args(argv)
        assert exit_info.value.code == 2 and message in err and err == capsys.readouterr().err


def test_abbreviations_and_help_use_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_arguments(["score", "-m", "chrf", "--chrf-word-o", "2", "s"]).chrf_word_order == 2
    assert parse_arguments(["score", "-m", "chrf", "--", "-s"]).systems == ["-s"]
    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(["score", "-m", "bleu", "--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    for title, options in registry.option_groups():
        assert f"{title}:" in shown and all(option.flag in shown for option in options)
    assert "metrics that read the sources: " in " ".join(shown.split())


def test_patterns_and_unknown_names_use_every_flag() -> None:
    assert hasattr(parse_arguments(["score", "-m", "rouge1", "s"]), "chrf_beta")
    args = parse_arguments(["score", "-m", "rouge2,bleu", "--rouge-alpha", "0.3", "s"])
    assert args.rouge_alpha == 0.3 and hasattr(args, "chrf_beta")
    assert hasattr(parse_arguments(["score", "-m", "no-such-metric", "s"]), "chrf_beta")  # run() names it
