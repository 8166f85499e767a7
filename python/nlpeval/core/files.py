"""Writing output files safely: never half-written, never over the wrong thing.

A regular file is replaced atomically (a temporary file in the same folder, then a rename). What is not a
regular file is written in place: a character device (``/dev/null``), a FIFO, ``/dev/stdout``; renaming over
those would delete the device or turn the pipe into a file. A symbolic link is followed and its target
replaced (the link stays a link). :func:`check_output` is the pre-flight of a command: it refuses an output
that is one of the inputs, a read-only file (unless forced) and a folder that cannot be written, before any
computation. Temporary files are named ``.nlpeval-<pid>-<random>.tmp``; one left behind by a killed process is
removed by the next write into the same folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable

TEMP_PREFIX = ".nlpeval-"
_TEMP_NAME = re.compile(r"\.nlpeval-(\d+)-[^/]*\.tmp\Z")


class OutputError(OSError):
    """An output file that must not or cannot be written (the message names it; exit code 2 in the CLI)."""


def _new_file_mode(path: str) -> int:
    """The mode ``path`` keeps if it exists, else what ``open(path, "w")`` would create (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _is_special(path: str) -> bool:
    """Whether ``path`` (followed through links) exists and is not a regular file (device, FIFO, socket, tty)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def remove_stale_temporaries(folder: str) -> list[str]:
    """Remove the temporary files that killed nlpeval processes left in ``folder``; returns their names.

    A temporary file is stale when the process named in it (``.nlpeval-<pid>-….tmp``) no longer runs.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = open(os.path.join(folder, ".nlpeval-999999999-abc.tmp"), "w").close()
    ...     _ = open(os.path.join(folder, f".nlpeval-{os.getpid()}-abc.tmp"), "w").close()
    ...     remove_stale_temporaries(folder), len(os.listdir(folder))
    (['.nlpeval-999999999-abc.tmp'], 1)
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in sorted(names):
        match = _TEMP_NAME.match(name)
        if match is None or _pid_alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))
            removed.append(name)
    return removed


def check_output(path: str, *, inputs: Iterable[str] = (), force: bool = False) -> None:
    """Refuse, before any work, an output ``path`` that is an input, read-only, or in a folder that cannot be written.

    Parameters
    ----------
    path : str
        The output file as the user named it.
    inputs : iterable of str
        Files the command reads; an output that is the same file (device and inode, so links and other
        spellings count) is refused.
    force : bool
        Replace a read-only output file (its permissions are kept).

    Raises
    ------
    OutputError
        With a message that names ``path``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     ref = os.path.join(folder, "ref.txt")
    ...     _ = open(ref, "w").close()
    ...     check_output(ref, inputs=[ref])
    Traceback (most recent call last):
    ...
    nlpeval.core.files.OutputError: output ... is also an input (...ref.txt): write the result to another file
    """
    if _is_special(path):
        return
    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    if status is not None:
        for name in inputs:
            try:
                seen = os.stat(name)
            except OSError:
                continue
            if (seen.st_dev, seen.st_ino) == (status.st_dev, status.st_ino):
                raise OutputError(f"output {path} is also an input ({name}): write the result to another file")
        writable = status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) and os.access(path, os.W_OK)
        if not writable and not force:
            raise OutputError(f"output {path} is read-only; use --force to replace it")
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: the folder {folder} is not writable")


def write_atomically(path: str, text: str | bytes) -> None:
    """Write ``text`` (str as UTF-8, or bytes) to ``path``, never half-written (see the module docs).

    A regular file (or a link to one) is replaced through a temporary file and a rename: a failure
    (``OSError``, or an interrupt) removes the temporary file and leaves ``path`` as it was. A device,
    FIFO or ``/dev/stdout`` is written in place. Errors name ``path``, never the temporary file.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomically(os.path.join(folder, "out.txt"), "ok\\n")
    ...     sorted(os.listdir(folder))
    ['out.txt']
    >>> write_atomically(os.devnull, "nothing to keep\\n")
    >>> os.path.exists(os.devnull) and not os.path.isfile(os.devnull)
    True
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    if _is_special(path):
        try:
            with open(path, "wb") as out:
                out.write(data)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror}") from None
        return
    target = os.path.realpath(path)  # a link is followed: its target is replaced, the link stays
    folder = os.path.dirname(target)
    remove_stale_temporaries(folder)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror} (folder {folder})") from None
    try:
        # mkstemp creates the file private (0600); give it the permissions a plain open() would.
        os.fchmod(fd, _new_file_mode(target))
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
