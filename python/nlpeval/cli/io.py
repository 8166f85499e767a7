"""Reading segment files (UTF-8, one segment per line) and writing outputs atomically.

Reads are bounded: a line longer than :data:`max_line_bytes` (64 MiB unless ``--max-line-bytes`` says
otherwise) is a ``file:line`` error, so ``/dev/zero`` or a file without newlines cannot exhaust memory.
Standard input, FIFOs and devices can be read only once: the first read keeps their bytes and every later
read of the same input (``-r -`` for several systems, a FIFO named twice) gets the same lines.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO

from nlpeval.cli.errors import UsageError
from nlpeval.core.files import write_atomically

DEFAULT_CHUNK = 20_000

#: the longest line a command reads, in bytes (``--max-line-bytes``)
max_line_bytes = 64 * 2**20

#: the bytes of inputs that can be read only once (stdin, FIFOs, devices), by path or (device, inode)
_read_once: dict[object, bytes] = {}


def forget_read_once() -> None:
    """Drop the kept bytes of stdin, FIFOs and devices (a new command reads them anew)."""
    _read_once.clear()


def set_max_line_bytes(limit: int) -> None:
    """Set the longest line any command reads (``--max-line-bytes``)."""
    global max_line_bytes
    if limit < 1:
        raise UsageError(f"--max-line-bytes must be at least 1, not {limit}")
    max_line_bytes = limit


class SegmentFile:
    """A segment file being read: its display name and lines read so far."""

    __slots__ = ("handle", "lines_read", "path")

    def __init__(self, path: str, handle: BinaryIO, lines_read: int = 0) -> None:
        self.path, self.handle, self.lines_read = path, handle, lines_read

    @property
    def name(self) -> str:
        return "<stdin>" if self.path == "-" else self.path

    def read_raw(self, size: int | None) -> list[bytes]:
        """Up to ``size`` (all when ``None``) undecoded lines, each at most :data:`max_line_bytes` long."""
        limit = max_line_bytes + 1
        readline = self.handle.readline
        raw_lines: list[bytes] = []
        while size is None or len(raw_lines) < size:
            raw = readline(limit)
            if not raw:
                break
            if len(raw) == limit and not raw.endswith(b"\n"):
                number = self.lines_read + len(raw_lines) + 1
                raise UsageError(
                    f"{self.name}:{number}: line longer than {max_line_bytes:,} bytes "
                    "(raise the limit with --max-line-bytes)"
                )
            raw_lines.append(raw)
        return raw_lines

    def read_chunk(self, size: int) -> list[str]:
        """Up to ``size`` decoded lines (without the newline); empty at the end."""
        raw_lines = self.read_raw(size)
        try:
            text = b"".join(raw_lines).decode("utf-8")  # one decode per chunk, not one per line
        except UnicodeDecodeError:
            return self._decode_lines(raw_lines)  # names the line, as a line-by-line decode does
        self.lines_read += len(raw_lines)
        lines = text.split("\n")  # a newline ends each line, and no UTF-8 sequence contains its byte
        if text.endswith("\n") or not text:
            lines.pop()
        return lines

    def _decode_lines(self, raw_lines: list[bytes]) -> list[str]:
        """The lines decoded one by one: a ``UsageError`` names the first that is not UTF-8."""
        lines: list[str] = []
        for raw in raw_lines:
            self.lines_read += 1
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise UsageError(
                    f"{self.name}:{self.lines_read}: invalid UTF-8 ({exc.reason} at byte {exc.start})"
                ) from None
        return lines

    def count_rest(self) -> int:
        """Read to the end, returning the total number of lines."""
        while chunk := self.read_raw(DEFAULT_CHUNK):
            self.lines_read += len(chunk)
        return self.lines_read


def _once_key(path: str) -> object | None:
    """The key of an input that can be read only once (stdin, a FIFO, a device), else ``None``."""
    if path == "-":
        return path
    try:
        status = os.stat(path)
    except OSError:
        return None  # open() reports it
    return None if stat.S_ISREG(status.st_mode) else (status.st_dev, status.st_ino)


@contextlib.contextmanager
def open_segments(path: str) -> Iterator[SegmentFile]:
    """Open a segment file (``-`` is stdin) for chunked reading."""
    key = _once_key(path)
    if key is not None:
        if key not in _read_once:
            if path == "-":
                _read_once[key] = b"".join(SegmentFile(path, sys.stdin.buffer).read_raw(None))
            else:
                with _open(path) as handle:
                    _read_once[key] = b"".join(SegmentFile(path, handle).read_raw(None))
        yield SegmentFile(path, io.BytesIO(_read_once[key]))
        return
    with _open(path) as handle:
        yield SegmentFile(path, handle)


def _open(path: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def read_all(path: str) -> list[str]:
    """All lines of a segment file."""
    with open_segments(path) as seg_file:
        lines: list[str] = []
        while chunk := seg_file.read_chunk(DEFAULT_CHUNK):
            lines.extend(chunk)
    return lines


def emit(text: str, output: str | None) -> None:
    """Print ``text`` or write it atomically to ``output`` (and say so on stderr unless ``--quiet``)."""
    if output:
        write_atomically(output, text)
        from nlpeval.cli.written import announce

        announce(output)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
