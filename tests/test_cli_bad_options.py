"""Every bad option value is refused while the command line is parsed: one line naming the flag, exit 2.

A table of bad values across ``score``, ``report``, ``classify``, ``agree``, ``perplexity`` and ``meta`` (no
input file is read: the values are refused first); the message names the flag, never a Python parameter.
"""

from __future__ import annotations

import pytest

from nlpeval.cli.main import main

#: (command line, the flag the one line must name, a word of the reason)
BAD = [
    # score
    (["score", "--bootstrap", "-5", "s"], "--bootstrap", "at least 2"),
    (["score", "--bootstrap", "1", "s"], "--bootstrap", "at least 2"),
    (["score", "--bootstrap", "many", "s"], "--bootstrap", "'many'"),
    (["score", "--paired-n", "0", "s"], "--paired-n", "at least 2"),
    (["score", "--paired-n", "-3", "s"], "--paired-n", "at least 2"),
    (["score", "--paired-n", "1e3", "s"], "--paired-n", "'1e3'"),
    (["score", "--seed", "x", "s"], "--seed", "seed"),
    (["score", "--seed", "-1", "s"], "--seed", "seed"),
    (["score", "--seed", "1.5", "s"], "--seed", "seed"),
    (["score", "--seed", str(2**32), "s"], "--seed", "seed"),
    (["score", "--chunk-size", "0", "s"], "--chunk-size", "at least 1"),
    (["score", "--partition-lines", "0", "s"], "--partition-lines", "at least 1"),
    (["score", "--max-line-bytes", "0", "s"], "--max-line-bytes", "at least 1"),
    (["score", "--format", "yaml", "s"], "--format", "invalid choice"),
    (["score", "--tokenize", "foo", "s"], "--tokenize", "invalid choice"),
    # score: metric options of the registry, checked where their declarations become flags
    (["score", "--max-order", "four", "s"], "--max-order", "expected an integer, got 'four'"),
    (["score", "--max-order", "0", "s"], "--max-order", "at least 1"),
    (["score", "--chrf-char-order", "-1", "s"], "--chrf-char-order", "at least 0"),
    (["score", "--chrf-beta", "inf", "s"], "--chrf-beta", "finite"),
    (["score", "--smooth-value", "nan", "s"], "--smooth-value", "finite"),
    (["score", "--smooth", "foo", "s"], "--smooth", "invalid choice"),
    (["score", "--rouge-alpha", "-0.5", "s"], "--rouge-alpha", "at least 0"),
    (["score", "--meteor-beam", "0", "s"], "--meteor-beam", "at least 1"),
    (["score", "--ter-max-cells", "0", "s"], "--ter-max-cells", "at least 1"),
    (["score", "--bleu-weights", "0.5,x", "s"], "--bleu-weights", "comma-separated numbers"),
    # report
    (["report", "--bootstrap", "-1", "s"], "--bootstrap", "at least 2"),
    (["report", "--bootstrap", "1", "s"], "--bootstrap", "at least 2"),
    (["report", "--randomization", "-2", "s"], "--randomization", "at least 0"),
    (["report", "--seed", "-5", "s"], "--seed", "seed"),
    (["report", "--max-examples", "-1", "s"], "--max-examples", "at least 0"),
    (["report", "--top-ngrams", "0", "s"], "--top-ngrams", "at least 1"),
    (["report", "--format", "yaml", "s"], "--format", "invalid choice"),
    (["report", "--preset", "sacrebleu", "s"], "--preset", "invalid choice"),
    (["report", "--buckets", "equal", "s"], "--buckets", "invalid choice"),
    (["report", "--task", "rank", "s"], "--task", "invalid choice"),
    (["report", "--tokenize", "foo", "s"], "--tokenize", "invalid choice"),
    # report: --metric-option values are checked as the score flag they name, before any file is read
    (
        ["report", "--metric-option", "chrf_word_order=x", "s"],
        "--metric-option",
        "--chrf-word-order): expected an integer",
    ),
    (["report", "--metric-option", "max_order=0", "s"], "--metric-option", "--max-order): must be at least 1, got 0"),
    (["report", "--metric-option", "tokenize=foo", "s"], "--metric-option", "must be one of 13a"),
    (["report", "--metric-option", "chrf_beta=nan", "s"], "--metric-option", "finite"),
    (["report", "--metric-option", "chrf-word-ordr=2", "s"], "--metric-option", "did you mean chrf_word_order"),
    (["report", "--metric-option", "zzz=1", "s"], "--metric-option", "unknown metric option 'zzz'"),
    (["report", "--metric-option", "chrf_word_order", "s"], "--metric-option", "needs KEY=VALUE"),
    # classify
    (["classify", "--digits", "-1"], "--digits", "at least 0"),
    (["classify", "--digits", "x"], "--digits", "'x'"),
    (["classify", "--format", "yaml"], "--format", "invalid choice"),
    (["classify", "--plot-format", "gif"], "--plot-format", "invalid choice"),
    # agree
    (["agree", "r.tsv", "--bootstrap", "1"], "--bootstrap", "at least 2"),
    (["agree", "r.tsv", "--bootstrap", "-4"], "--bootstrap", "at least 2"),
    (["agree", "r.tsv", "--seed", "abc"], "--seed", "seed"),
    (["agree", "r.tsv", "--weights", "cubic"], "--weights", "invalid choice"),
    (["agree", "r.tsv", "--format", "yaml"], "--format", "invalid choice"),
    # perplexity
    (["perplexity", "--logprobs", "lp", "--batch-size", "0"], "--batch-size", "at least 1"),
    (["perplexity", "--logprobs", "lp", "--max-length", "1"], "--max-length", "at least 2"),
    (["perplexity", "--logprobs", "lp", "--stride", "0"], "--stride", "at least 1"),
    (["perplexity", "--logprobs", "lp", "--base", "3"], "--base", "invalid choice"),
    (["perplexity", "--logprobs", "lp", "--format", "yaml"], "--format", "invalid choice"),
    # meta
    (["meta", "--k", "-1"], "--k", "at least 0"),
    (["meta", "--block-size", "0"], "--block-size", "at least 1"),
    (["meta", "--pval", "0"], "--pval", "between 0 and 1"),
    (["meta", "--pval", "1.5"], "--pval", "between 0 and 1"),
    (["meta", "--pval", "nan"], "--pval", "between 0 and 1"),
    (["meta", "--seed", "-1"], "--seed", "seed"),
    (["meta", "--format", "yaml"], "--format", "invalid choice"),
]


def test_the_table_is_long_enough() -> None:
    assert len(BAD) >= 40
    assert {argv[0] for argv, _, _ in BAD} == {"score", "report", "classify", "agree", "perplexity", "meta"}


@pytest.mark.parametrize(("argv", "flag", "reason"), BAD, ids=[" ".join(a[:3]) for a, _, _ in BAD])
def test_a_bad_value_is_one_line_naming_the_flag(argv, flag, reason, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    line = lines[0]
    assert line.startswith(f"nlpeval {argv[0]}: error: argument {flag}") and reason in line, line
    assert line.endswith(f"; see nlpeval {argv[0]} --help")
    assert "n_resamples" not in line and "Traceback" not in line
