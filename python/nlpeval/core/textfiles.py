"""Reading a whole UTF-8 text file as lines, with errors that name ``file:line``.

Examples
--------
>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "run.txt")
...     _ = open(path, "w", encoding="utf-8").write("a b\\nc\\n")
...     read_utf8_lines(path)
['a b', 'c']
"""

from __future__ import annotations

from nlpeval.core.errors import InputError


def read_utf8_lines(path: str) -> list[str]:
    """The lines of ``path`` split on ``\\n`` only (a final newline ends the last line; ``\\r`` is kept).

    Parameters
    ----------
    path : str
        The file to read.

    Returns
    -------
    list of str
        Its lines, without their ``\\n``.

    Raises
    ------
    InputError
        ``cannot read PATH: reason`` when it cannot be opened, ``PATH:LINE: invalid UTF-8 (reason)`` when it is
        not UTF-8.

    Examples
    --------
    >>> read_utf8_lines("/nonexistent/qrels")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: cannot read /nonexistent/qrels: No such file or directory
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: invalid UTF-8 ({exc.reason})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
