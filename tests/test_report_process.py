"""``python -m nlpeval report`` as a whole process: it ends without the interpreter's teardown
(``os._exit``), after its exit callbacks, with its page written and its exit code kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlpeval


@pytest.mark.parametrize("good", [True, False])
def test_a_whole_report_process_runs_the_exit_callbacks_and_keeps_its_exit_code(tmp_path: Path, good: bool) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a b c d\ne f g h\ni j k l\n", encoding="utf-8")
    hyp.write_text("a b c\ne f g h\ni j\n" if good else "a b c\n", encoding="utf-8")
    argv = ["report", "-q", "--preset", "compare-mt", "-r", str(ref), "-o", "page.json", str(hyp)]
    code = (
        "import atexit, sys\n"
        "atexit.register(print, 'exit callback')\n"
        f"sys.argv = ['nlpeval', *{argv!r}]\n"
        "from nlpeval.cli.main import run\n"
        "run()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env, cwd=tmp_path
    )
    assert proc.stdout == "exit callback\n"
    if good:
        assert proc.returncode == 0 and proc.stderr == ""
        page = json.loads((tmp_path / "page.json").read_text(encoding="utf-8"))
        assert [cell["estimate"]["n"] for cell in page["leaderboard"]["cells"]] == [3]
    else:
        assert proc.returncode == 2 and not (tmp_path / "page.json").exists()
        assert proc.stderr.startswith("nlpeval report: error: segment counts differ")
