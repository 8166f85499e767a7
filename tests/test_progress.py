"""Progress bars: drawn on stderr on a terminal or when forced, silent when piped or with --quiet, and never
changing a result (the chunked computation behind a bar gives the same numbers)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pytest

import nlpeval
from nlpeval.cli.main import main
from nlpeval.core.progress import progress_active, progress_bar, progress_enabled, set_progress, track

# child processes import the same nlpeval as this one (the source tree with its built module, or the installed copy)
ENV = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}
ENV.pop("NLPEVAL_PROGRESS", None)

SNIPPET = """
import time
from nlpeval.core.progress import progress_active, progress_bar
print("active", progress_active(), flush=True)
with progress_bar(3, desc="PROGRESS-TEST", unit=" steps") as bar:
    for _ in range(3):
        time.sleep(0.3)
        bar.update(1)
print("done", flush=True)
"""


def _under_pty(argv: list[str]) -> str:
    """Run a command with stdin/stdout/stderr on a pseudo-terminal; return everything it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal 100 columns wide
        os.execvpe(argv[0], argv, ENV)
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def test_bar_on_a_terminal():
    out = _under_pty([sys.executable, "-c", SNIPPET])
    assert "active True" in out and "PROGRESS-TEST" in out and "done" in out


def test_silent_when_piped():
    run = subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, env=ENV, check=True)
    assert run.stdout.split() == ["active", "False", "done"]
    assert run.stderr == ""


def test_environment_and_explicit_settings(monkeypatch):
    monkeypatch.setenv("NLPEVAL_PROGRESS", "1")
    assert progress_active()
    with progress_enabled(False):
        assert not progress_active()
    monkeypatch.setenv("NLPEVAL_PROGRESS", "0")
    assert not progress_active()
    set_progress(True)
    try:
        assert progress_active()
    finally:
        set_progress(None)


def test_forced_bar_goes_to_stderr(capsys):
    with progress_enabled(True):
        assert list(track(["a", "b"], desc="report sections")) == ["a", "b"]
        with progress_bar(2, desc="windows") as bar:
            bar.update(2)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "report sections" in captured.err and "windows" in captured.err


def _files(tmp_path):
    ref = tmp_path / "ref.txt"
    sys_a = tmp_path / "a.txt"
    sys_b = tmp_path / "b.txt"
    rng = np.random.default_rng(0)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "and", "ran"]
    refs = [" ".join(rng.choice(words, 8)) for _ in range(50)]
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
    sys_a.write_text("\n".join(" ".join(rng.choice(words, 8)) for _ in refs) + "\n", encoding="utf-8")
    sys_b.write_text("\n".join(r[:-4] for r in refs) + "\n", encoding="utf-8")
    return str(ref), str(sys_a), str(sys_b)


def test_cli_quiet_silences_a_forced_bar(tmp_path, capsys, monkeypatch):
    ref, sys_a, sys_b = _files(tmp_path)
    monkeypatch.setenv("NLPEVAL_PROGRESS", "1")
    args = ["score", "-r", ref, "-m", "bleu", "--bootstrap", "200", "--paired-bs", sys_a, sys_b]
    assert main(args) == 0
    shown = capsys.readouterr()
    assert "bootstrap" in shown.err and "paired bootstrap" in shown.err and a_lines(shown.err)
    assert main([*args, "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and quiet.out == shown.out


def a_lines(err: str) -> bool:
    """The score command's line counter (the file name as the label)."""
    return " lines" in err


def test_cli_piped_is_silent(tmp_path):
    ref, sys_a, sys_b = _files(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "nlpeval", "score", "-r", ref, "--bootstrap", "100", "--paired-ar", sys_a, sys_b],
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    )
    assert run.stderr == "" and "BLEU" in run.stdout


def _with_and_without_bar(function):
    with progress_enabled(False):
        plain = function()
    with progress_enabled(True):
        shown = function()
    return plain, shown


@pytest.mark.parametrize("integer_stats", [True, False])
def test_results_do_not_depend_on_the_bar(integer_stats, capsys):
    rng = np.random.default_rng(1)
    if integer_stats:
        metric = nlpeval.BLEU()
        words = ["the", "a", "cat", "dog", "sat", "on", "mat", "and", "ran"]
        refs = [" ".join(rng.choice(words, 9)) for _ in range(300)]
        base = metric.segment_stats([" ".join(rng.choice(words, 9)) for _ in refs], refs)
        system = metric.segment_stats([r[:-2] for r in refs], refs)
    else:
        metric = nlpeval.Perplexity()
        lengths = rng.integers(1, 30, size=300)
        base = metric.segment_stats([np.log(rng.uniform(0.01, 1, n)) for n in lengths])
        system = metric.segment_stats([np.log(rng.uniform(0.05, 1, n)) for n in lengths])
    for run in (
        lambda: nlpeval.bootstrap_interval(metric, base, n_resamples=1000),
        lambda: nlpeval.paired_bootstrap(metric, base, system, n_resamples=1000),
        lambda: nlpeval.approximate_randomization(metric, base, system, n_trials=3000),
    ):
        plain, shown = _with_and_without_bar(run)
        assert plain == shown
    err = capsys.readouterr().err
    assert "bootstrap" in err and "paired bootstrap" in err and "randomization" in err


def test_meteor_in_chunks_equals_one_call(capsys):
    rng = np.random.default_rng(2)
    words = ["the", "cats", "cat", "sat", "sits", "on", "mat", "mats", "and", "ran", "running", "dog", "dogs"]
    refs = [" ".join(rng.choice(words, int(n))) for n in rng.integers(1, 15, size=2100)]
    hyps = [" ".join(rng.choice(words, int(n))) for n in rng.integers(0, 15, size=len(refs))]
    metric = nlpeval.make_meteor(modules=["exact", "stem"])
    plain, shown = _with_and_without_bar(lambda: metric.segment_stats(hyps, refs))
    assert np.array_equal(plain.rows, shown.rows)
    assert "METEOR" in capsys.readouterr().err


def test_model_perplexity_shows_its_windows(capsys):
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=12, n_positions=8, n_embd=8, n_layer=1, n_head=2)
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 3], [4, 5, 6]]
    plain, shown = _with_and_without_bar(lambda: nlpeval.model_perplexity(model, ids, max_length=8, stride=4))
    assert plain.score == shown.score
    assert "perplexity" in capsys.readouterr().err
