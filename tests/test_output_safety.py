"""``-o`` never destroys what it should not touch, and an interrupted or killed run leaves the old output intact.

Every case runs in a temporary folder (never against the real ``/dev/null``): a FIFO and a character
device stand in for the special files; the interrupt tests send real signals to real ``nlpeval`` processes.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import nlpeval
from nlpeval.core.files import OutputError, check_output, remove_stale_temporaries, write_atomically

ENV = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlpeval", *args], capture_output=True, text=True, cwd=cwd, env=ENV, check=False
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "r.txt").write_text("a b c d\ne f g h\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("a b c\ne f g h\n", encoding="utf-8")
    return tmp_path


def temporaries(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(".nlpeval-"))


def test_a_fifo_is_written_in_place_not_replaced(folder: Path) -> None:
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", "pipe")
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b"BLEU" in received[0]
    assert temporaries(folder) == []


def test_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device, made in the test folder
    except PermissionError:
        device = Path(os.devnull)  # not root: the real one cannot be deleted by us anyway
    write_atomically(str(device), "result\n")
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_dev_stdout_stays_the_pipe(folder: Path) -> None:
    result = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", "/dev/stdout")
    assert result.returncode == 0, result.stderr
    assert "BLEU" in result.stdout


def test_a_symlink_stays_a_link_and_its_target_is_replaced(folder: Path) -> None:
    (folder / "out.txt").write_text("old\n", encoding="utf-8")
    (folder / "link.txt").symlink_to("out.txt")
    result = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", "link.txt")
    assert result.returncode == 0, result.stderr
    assert (folder / "link.txt").is_symlink()
    assert "BLEU" in (folder / "out.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("output", ["r.txt", "s.txt", "./s.txt", "hard.txt", "soft.txt"])
def test_an_output_that_is_an_input_is_refused_before_any_work(folder: Path, output: str) -> None:
    os.link(folder / "r.txt", folder / "hard.txt")
    (folder / "soft.txt").symlink_to("s.txt")
    before = {name: (folder / name).read_bytes() for name in ("r.txt", "s.txt")}
    result = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", output)
    assert result.returncode == 2
    assert result.stderr.startswith(f"nlpeval score: error: output {output} is also an input")
    assert result.stderr.count("\n") == 1
    assert {name: (folder / name).read_bytes() for name in before} == before


def test_a_read_only_output_needs_force_and_keeps_its_mode(folder: Path) -> None:
    target = folder / "ro.txt"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o444)
    refused = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", "ro.txt")
    assert refused.returncode == 2
    assert refused.stderr == "nlpeval score: error: output ro.txt is read-only; use --force to replace it\n"
    assert target.read_text(encoding="utf-8") == "old\n"
    forced = cli(folder, "score", "-q", "-r", "r.txt", "s.txt", "-o", "ro.txt", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "BLEU" in target.read_text(encoding="utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


def test_a_missing_folder_is_named_before_any_work(folder: Path) -> None:
    result = cli(folder, "report", "-q", "-r", "r.txt", "s.txt", "-o", "no/such/page.html")
    assert result.returncode == 2
    assert (
        result.stderr
        == f"nlpeval report: error: cannot write no/such/page.html: the folder {folder}/no/such does not exist\n"
    )


def test_errors_name_the_output_not_the_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "closed"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anywhere: make the temporary file impossible instead
            (folder / "x").mkdir()
            with pytest.raises(OutputError, match=r"^cannot write .*x: "):
                write_atomically(str(folder / "x"), "a")
        else:
            with pytest.raises(OutputError, match=r"closed/out.txt.*not writable"):
                check_output(str(folder / "out.txt"))
    finally:
        folder.chmod(0o700)
    assert temporaries(folder) == []


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".nlpeval-{dead.stdout.strip()}-x1y2.tmp"
    stale.write_text("half", encoding="utf-8")
    mine = tmp_path / f".nlpeval-{os.getpid()}-mine.tmp"  # a live writer's file stays
    mine.write_text("in progress", encoding="utf-8")
    write_atomically(str(tmp_path / "out.txt"), "new\n")
    assert temporaries(tmp_path) == [mine.name]
    assert remove_stale_temporaries(str(tmp_path)) == []


def wait_until_native_core_loaded(pid: int, timeout: float = 60) -> None:
    """Return once process ``pid`` has mapped nlpeval's native core: past the interpreter's own start-up
    (its site module), where an interrupt is CPython's fatal start-up error, not nlpeval's to handle."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "_core" in Path(f"/proc/{pid}/maps").read_text():
                return
        except OSError:  # finished already
            return
        time.sleep(0.005)


def interruptible() -> None:
    """``preexec_fn`` of a child that Ctrl-C must reach: SIGINT at its default, as in a terminal's foreground
    job. A test run started in the background (``cmd &`` in a script) has SIGINT ignored, every child
    inherits that, and nlpeval then rightly leaves it ignored (``cli.main.run``): the signal would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(folder: Path, sig: int, delay: float, command: list[str]) -> subprocess.CompletedProcess[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "nlpeval", *command],
        cwd=folder,
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    wait_until_native_core_loaded(process.pid)
    time.sleep(delay)
    process.send_signal(sig)
    _, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, "", err)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from realdata import data_dir

    folder = tmp_path_factory.mktemp("big")
    wmt = data_dir() / "wmt17-en-de"
    systems = sorted(path for path in wmt.glob("*.de") if path.name != "reference.de")[:6]
    for path in [wmt / "reference.de", *systems]:
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


@pytest.mark.parametrize("command", ["report", "score"])
@pytest.mark.parametrize("delay", [0.0, 0.4, 1.5])
def test_ctrl_c_prints_one_line_exits_130_and_keeps_the_old_output(big: Path, command: str, delay: float) -> None:
    systems = sorted(name for name in os.listdir(big) if name.endswith(".de") and name != "reference.de")
    output = big / f"out-{command}-{delay}.txt"
    output.write_text("old\n", encoding="utf-8")
    extra = ["--bootstrap", "4000"]  # several seconds of work, so the later signals arrive mid-run
    args = [command, "-q", "-r", "reference.de", *systems, *extra, "-o", output.name]
    result = _interrupt(big, signal.SIGINT, delay, args)
    if result.returncode == 0 and delay > 1:  # may finish first on a fast machine: then a clean success
        assert result.stderr == ""
        return
    assert result.returncode == 130, result.stderr
    # before the command has started (still importing nlpeval) the line cannot name it yet
    assert result.stderr in (f"nlpeval {command}: interrupted\n", "nlpeval: interrupted\n")
    text = output.read_text(encoding="utf-8")
    # the old output, or (Ctrl-C after the rename, while the command was finishing) the whole new one
    assert text == "old\n" or (command == "report" and text.rstrip().endswith("</html>")) or text.startswith("system")
    assert temporaries(big) == []


def test_sigkill_mid_run_leaves_the_old_output_intact(big: Path) -> None:
    systems = sorted(name for name in os.listdir(big) if name.endswith(".de") and name != "reference.de")
    output = big / "killed.html"
    output.write_text("old\n", encoding="utf-8")
    result = _interrupt(big, signal.SIGKILL, 0.8, ["report", "-q", "-r", "reference.de", *systems, "-o", output.name])
    assert result.returncode in (-signal.SIGKILL, 0)
    if result.returncode == -signal.SIGKILL:
        assert output.read_text(encoding="utf-8") == "old\n"
    assert len(temporaries(big)) <= 1
    write_atomically(str(big / "next.txt"), "x")  # the next write into the folder cleans up
    assert temporaries(big) == []
