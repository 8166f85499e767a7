"""Writing files atomically: a temporary file in the same folder, then a rename (never half-written)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def _new_file_mode(path: str) -> int:
    """The mode ``path`` keeps if it exists, else what ``open(path, "w")`` would create (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomically(path: str, text: str | bytes) -> None:
    """Write ``text`` (str as UTF-8, or bytes) to ``path`` via a temporary file and a rename: never half-written.

    A failure (``OSError``, or an interrupt) removes the temporary file and leaves ``path`` as it was.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomically(os.path.join(folder, "out.txt"), "ok\\n")
    ...     sorted(os.listdir(folder))
    ['out.txt']
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".nlpeval-", suffix=".tmp")
    try:
        # mkstemp creates the file private (0600); give it the permissions a plain open() would.
        os.fchmod(fd, _new_file_mode(path))
        with os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
