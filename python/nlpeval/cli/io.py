"""Reading segment files (UTF-8, one segment per line) and writing outputs atomically."""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator
from typing import BinaryIO

from nlpeval.cli.errors import UsageError
from nlpeval.core.files import write_atomically

DEFAULT_CHUNK = 20_000


class SegmentFile:
    """A segment file being read: its display name and lines read so far."""

    __slots__ = ("handle", "lines_read", "path")

    def __init__(self, path: str, handle: BinaryIO, lines_read: int = 0) -> None:
        self.path, self.handle, self.lines_read = path, handle, lines_read

    @property
    def name(self) -> str:
        return "<stdin>" if self.path == "-" else self.path

    def read_chunk(self, size: int) -> list[str]:
        """Up to ``size`` decoded lines (without the newline); empty at the end."""
        raw_lines = list(itertools.islice(self.handle, size))
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
        for _ in self.handle:
            self.lines_read += 1
        return self.lines_read


@contextlib.contextmanager
def open_segments(path: str) -> Iterator[SegmentFile]:
    """Open a segment file (``-`` is stdin) for chunked reading."""
    if path == "-":
        yield SegmentFile(path, sys.stdin.buffer)
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        yield SegmentFile(path, handle)


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
