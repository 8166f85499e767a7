"""Saying on stderr which files a command wrote (``nlpeval report: wrote demo.html (0.26 MB)``).

:func:`nlpeval.cli.main.main` sets :data:`QUIET` (the command's ``--quiet``) and :data:`COMMAND`
before it runs a command; every place that writes a file the user asked for calls :func:`announce`
once the file is complete.
"""

from __future__ import annotations

import os
import sys

#: ``--quiet`` of the running command (set by :func:`nlpeval.cli.main.main`)
QUIET = False
#: the running sub-command, named in the message
COMMAND = ""


def human_size(n_bytes: int) -> str:
    """A file size in the units a person reads at a glance.

    Examples
    --------
    >>> human_size(5), human_size(2_048), human_size(264_000), human_size(3_500_000_000)
    ('5 bytes', '2.0 kB', '0.26 MB', '3500.00 MB')
    """
    if n_bytes < 1000:
        return f"{n_bytes} byte" + ("" if n_bytes == 1 else "s")
    if n_bytes < 100_000:
        return f"{n_bytes / 1000:.1f} kB"
    return f"{n_bytes / 1e6:.2f} MB"


def announce(path: str | os.PathLike[str]) -> None:
    """Print ``nlpeval COMMAND: wrote PATH (SIZE)`` on stderr, unless ``--quiet`` or not a regular file.

    Examples
    --------
    >>> import contextlib, io, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "out.txt")
    ...     _ = open(path, "w").write("hello")
    ...     err = io.StringIO()
    ...     with contextlib.redirect_stderr(err):
    ...         announce(path)
    ...     err.getvalue() == f"nlpeval: wrote {path} (5 bytes)\\n"  # COMMAND is "" outside a command
    True
    """
    if QUIET or not os.path.isfile(path):  # a device, a FIFO or /dev/stdout: the output itself says it
        return
    try:
        size = f" ({human_size(os.path.getsize(path))})"
    except OSError:  # pragma: no cover - removed in between
        size = ""
    prefix = f"nlpeval {COMMAND}" if COMMAND else "nlpeval"
    print(f"{prefix}: wrote {os.fspath(path)}{size}", file=sys.stderr, flush=True)
