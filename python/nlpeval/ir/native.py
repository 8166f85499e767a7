"""TREC qrels and run files (and plain ``{query: {doc: value}}`` dicts) read by the native core
(``src/retrieval``), and their judged documents placed there: no Python dict of the 5 million run entries is
built, nor walked in Python.

The native reader accepts what :mod:`nlpeval.ir.trecfiles` accepts, splitting fields on the same
characters (Python's ``str.split()``: spaces, tabs, the ``\\r`` of CRLF, Unicode spaces). On any problem
(a bad line, an unreadable file, and the few forms only Python's ``int``/``float`` read, such as ``1_000``)
the file is read again by :mod:`nlpeval.ir.trecfiles`, so errors are exactly its ``file:line`` errors and
every file it accepts is accepted. A core built without ``src/retrieval`` makes every read a Python read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from typing import Any

from nlpeval.core.errors import InputError
from nlpeval.ir.ranking import Placed


class NativeQrels:
    """Judgements read natively from ``path``; ``qrels`` is their ``{query: {doc: level}}`` (built on use)."""

    def __init__(self, path: str, handle: Any) -> None:
        self.path = path
        self.handle = handle

    @cached_property
    def qrels(self) -> dict[str, dict[str, int]]:
        return self.handle.to_dict()

    def queries(self) -> list[str]:
        return self.handle.queries()


class NativeRun:
    """A run read natively from ``path``; ``run`` is its ``{query: {doc: score}}`` (built on use)."""

    def __init__(self, path: str, handle: Any) -> None:
        self.path = path
        self.handle = handle
        self.tag: str | None = handle.tag

    @cached_property
    def run(self) -> dict[str, dict[str, float]]:
        return self.handle.to_dict()

    def queries(self) -> list[str]:
        return self.handle.queries()

    @cached_property
    def first_line(self) -> dict[str, int]:
        """Each query's first line (the shape of :attr:`nlpeval.ir.trecfiles.RunFile.first_line`)."""
        return {query: self.handle.first_line(query) for query in self.queries()}


def _reader(kind: str) -> Any:
    from nlpeval import _native

    return getattr(_native, "TrecQrels" if kind == "qrels" else "TrecRun")


def qrels_from_mapping(value: Any) -> NativeQrels | None:
    """A ``{query: {doc: level}}`` dict read by the core in one pass, as a file is read; ``None`` when the core
    leaves it to Python (another form, a level that is not an ``int``, a key that is not ``str``...:
    :func:`nlpeval.ir.inputs.check_qrels` then accepts it or raises its message) or has no retrieval kernels.

    Examples
    --------
    >>> qrels_from_mapping({"q1": {"d1": 2, "d2": 0}}).qrels
    {'q1': {'d1': 2, 'd2': 0}}
    >>> qrels_from_mapping({"q1": ["d1"]}) is None
    True
    """
    reader = _reader("qrels")
    if type(value) is not dict or reader is None or not hasattr(reader, "from_mapping"):
        return None
    handle = reader.from_mapping(value)
    return None if handle is None else NativeQrels("<mapping>", handle)


class PlainRun:
    """A run given as a plain ``{query: {doc: score}}`` dict, kept unread: the core reads it while placing it
    against natively read judgements (:func:`place_mapping`), or :func:`nlpeval.ir.inputs.checked_run` checks it."""

    def __init__(self, run: dict[str, Any]) -> None:
        self.run = run


def place_mapping(
    qrels: NativeQrels, run: PlainRun, *, complete: bool, judged_only: bool, float32_scores: bool
) -> tuple[Placed, list[str], list[str]] | None:
    """:func:`place_native` with the run a plain dict, read and placed in one pass by the core; ``None`` when
    the core leaves its form to Python (a NaN, a list of documents, a key that is not ``str``...).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q 0 a 1\\nq 0 b 2\\nq 0 c 0\\n")
    >>> run = PlainRun({"q": {"a": 0.5, "b": 0.5, "c": 0.9, "x": 1.0}, "other": {"a": 1.0}})
    >>> placed, skipped, unranked = place_mapping(read_qrels(path), run, complete=False, judged_only=False,
    ...                                           float32_scores=True)
    >>> placed.ranks.tolist(), placed.rels.tolist(), placed.num_ret.tolist(), skipped
    ([[2, 3]], [[2, 1]], [4], ['other'])
    """
    from nlpeval import _native

    if _native.trec_place_mapping is None:
        return None
    found = _native.trec_place_mapping(qrels.handle, run.run, complete, judged_only, float32_scores)
    if found is None:
        return None
    queries, ranks, rels, num_ret, levels, skipped, unranked = found
    return Placed(queries, ranks, rels, num_ret, levels), skipped, unranked


def query_ids(found: Any) -> list[str]:
    """The query ids of a read file (native or not), in file order, without building its mapping."""
    if isinstance(found, (NativeQrels, NativeRun)):
        return found.queries()
    return list(found.qrels if hasattr(found, "qrels") else found.run)


def _fallback(kind: str, name: str, read_lines: Callable[[str], list[str]] | None) -> Any:
    from nlpeval.ir import trecfiles

    reader = trecfiles.read_qrels if kind == "qrels" else trecfiles.read_run
    shown = "<stdin>" if name == "-" else name
    return reader(shown, None if read_lines is None else read_lines(name))


def read_qrels(
    path: str | os.PathLike[str],
    max_line_bytes: int | None = None,
    read_lines: Callable[[str], list[str]] | None = None,
) -> Any:
    """A qrels file as :class:`NativeQrels`, or (native reader absent or refusing, or ``-``) as
    :func:`nlpeval.ir.trecfiles.read_qrels` reads it (a ``QrelsFile``, or its ``file:line`` error; its lines
    from ``read_lines(path)`` when given).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 1\\r\\nq1\\t0\\td2\\t0\\r\\n")
    >>> read_qrels(path).qrels
    {'q1': {'d1': 1, 'd2': 0}}
    """
    name = os.fspath(path)
    reader = _reader("qrels")
    if reader is not None and name != "-":
        try:
            return NativeQrels(name, reader.read(name, max_line_bytes))
        except ValueError:
            pass
    return _fallback("qrels", name, read_lines)


def read_run(
    path: str | os.PathLike[str],
    max_line_bytes: int | None = None,
    read_lines: Callable[[str], list[str]] | None = None,
) -> Any:
    """A run file as :class:`NativeRun`, or as :func:`nlpeval.ir.trecfiles.read_run` reads it (its lines
    from ``read_lines(path)`` when given: the CLI's bounded reader, which also reads ``-``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5e0 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> found = read_run(path)
    >>> found.run, found.tag
    ({'q1': {'d1': 2.5, 'd2': 1.5}}, 'bm25')
    """
    name = os.fspath(path)
    reader = _reader("run")
    if reader is not None and name != "-":
        try:
            return NativeRun(name, reader.read(name, max_line_bytes))
        except ValueError:
            pass
    return _fallback("run", name, read_lines)


def place_native(
    qrels: NativeQrels, run: NativeRun, *, complete: bool, judged_only: bool, float32_scores: bool
) -> tuple[Placed, list[str], list[str]]:
    """:func:`nlpeval.ir.ranking.place` on natively read files, and the run's unjudged queries and the
    judgements' unranked queries (both sorted).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("q 0 a 1\\nq 0 b 2\\nq 0 c 0\\n")
    >>> _ = (folder / "run").write_text("q Q0 a 1 0.5 t\\nq Q0 b 2 0.5 t\\nq Q0 c 3 0.9 t\\nq Q0 x 4 1 t\\n")
    >>> placed, skipped, unranked = place_native(read_qrels(folder / "qrels"), read_run(folder / "run"),
    ...                                          complete=False, judged_only=False, float32_scores=True)
    >>> placed.ranks.tolist(), placed.rels.tolist(), placed.num_ret.tolist(), placed.levels.tolist()
    ([[2, 3]], [[2, 1]], [4], [[2, 1]])
    """
    from nlpeval import _native

    if _native.trec_place is None:
        raise InputError("the native core has no retrieval kernels")
    queries, ranks, rels, num_ret, levels, skipped, unranked = _native.trec_place(
        qrels.handle, run.handle, complete, judged_only, float32_scores
    )
    return Placed(queries, ranks, rels, num_ret, levels), skipped, unranked
