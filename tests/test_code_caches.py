"""Caches that hold code (compiled report templates) never execute a file they did not write."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlpeval
from nlpeval.core.cache import read_private, write_private

ENV = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    path = tmp_path / "code" / "x.bin"
    assert write_private(path, b"payload")
    return path


def test_written_private_is_read_back_with_private_modes(stored: Path) -> None:
    assert read_private(stored) == b"payload"
    assert stored.stat().st_mode & 0o777 == 0o600
    assert stored.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(
    "spoil",
    ["folder-open", "file-writable", "planted-raw", "edited", "cut-short", "symlink", "other-owner"],
)
def test_what_is_not_ours_alone_or_not_whole_is_never_returned(stored: Path, spoil: str) -> None:
    if spoil == "folder-open":
        stored.parent.chmod(0o777)
    elif spoil == "file-writable":
        stored.chmod(0o666)
    elif spoil == "planted-raw":
        stored.write_bytes(marshal.dumps(compile("import os", "x", "exec")))
    elif spoil == "edited":
        stored.write_bytes(stored.read_bytes().replace(b"payload", b"pwnload"))
    elif spoil == "cut-short":
        stored.write_bytes(stored.read_bytes()[:-3])
    elif spoil == "symlink":
        target = stored.with_name("target")
        stored.rename(target)
        stored.symlink_to(target)
    elif spoil == "other-owner":
        if os.getuid() != 0:  # only root can give a file away; as a user, a file of root's stands in
            stored = Path("/etc/hostname")
        else:
            os.chown(stored, 65534, 65534)
    assert read_private(stored) is None


def test_a_planted_report_template_cache_file_never_runs(tmp_path: Path) -> None:
    """A marshalled code object planted where the report's compiled templates live is neither run nor fatal
    (the report model's records are plain dataclasses: no code of theirs is cached)."""
    cache = tmp_path / "cache"
    (tmp_path / "r.txt").write_text("a b c d\ne f g h\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("a b c\ne f g h\n", encoding="utf-8")
    env = {**ENV, "NLPEVAL_CACHE_DIR": str(cache)}
    run = [sys.executable, "-m", "nlpeval", "report", "-q", "-r", "r.txt", "s.txt", "-f", "html"]
    first = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert not (cache / "report-model").exists()
    (folder,) = cache.glob("report-templates-*")
    entries = sorted(folder.glob("*.cache"))
    assert entries
    marker = tmp_path / "ran"
    evil = compile(f"open({str(marker)!r}, 'w').close()", "<template>", "exec")
    for mode in (0o755, 0o700):  # a folder others may enter, then our own private folder with a forged file
        folder.chmod(mode)
        for entry in entries:
            entry.write_bytes(marshal.dumps(evil))  # no envelope: planted, not written by nlpeval
        again = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
        assert again.returncode == 0, again.stderr
        assert again.stdout == first.stdout
        assert not marker.exists()
