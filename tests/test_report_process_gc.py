"""A whole ``nlpeval report`` process keeps the cyclic collector off to its end (``cli/main.py:run``): turned back on
after the report, its first pass would walk everything the report imported and kept just before the exit. Other
commands and ``main()`` called in a process keep it as they found it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlpeval
from nlpeval.cli.main import main


def _run(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('collector on' if gc.isenabled() else 'collector off'))\n"
        f"sys.argv = ['nlpeval', *{argv!r}]\n"
        "from nlpeval.cli.main import run\n"
        "run()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env, cwd=tmp_path
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a b c d\ne f g h\ni j k l\n", encoding="utf-8")
    hyp.write_text("a b c\ne f g h\ni j\n", encoding="utf-8")
    return str(ref), str(hyp)


def test_a_whole_report_process_ends_with_the_collector_off(tmp_path: Path, files: tuple[str, str]) -> None:
    ref, hyp = files
    proc = _run(tmp_path, ["report", "-q", "--preset", "compare-mt", "-r", ref, "-o", "page.html", hyp])
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "collector off\n", "")
    assert (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_other_commands_keep_the_collector(tmp_path: Path, files: tuple[str, str]) -> None:
    ref, hyp = files
    proc = _run(tmp_path, ["score", "-q", "-m", "bleu", "-r", ref, hyp])
    assert proc.returncode == 0 and proc.stdout.endswith("collector on\n")


def test_main_in_a_process_leaves_the_collector_as_it_found_it(tmp_path: Path, files: tuple[str, str]) -> None:
    ref, hyp = files
    assert gc.isenabled()
    assert main(["report", "-q", "--preset", "compare-mt", "-r", ref, "-o", str(tmp_path / "p.json"), hyp]) == 0
    assert gc.isenabled()
