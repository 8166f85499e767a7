"""Inputs of ``nlpeval score --engine dask``: files cut into partitions that the workers read themselves.

Line files (one segment per line) and JSONL files are cut at line boundaries: a first pass
(one small task per file) finds the byte offset of every ``lines``-th line, then each
partition's task reads its byte range of the system file and of every reference file,
so partition ``p`` holds lines ``p * lines + 1 ..`` of each file, however large the file.
CSV/TSV files (a quoted cell may span lines) are one partition per file, Parquet files one
per row group. Rows are validated by the functions of :mod:`nlpeval.cli.datafiles`, so
both engines accept the same files and name the same ``file:row`` in their errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.cli.errors import UsageError
from nlpeval.distributed.errors import PartitionInputError

#: lines per partition of line and JSONL files (``--partition-lines``)
DEFAULT_LINES = 50_000


@dataclass(frozen=True)
class LinePlan:
    """Where the partitions of a line-based file start: byte offsets of lines 0, k, 2k, ... and the line count."""

    path: str
    starts: tuple[int, ...]
    n_lines: int
    size: int

    def byte_range(self, partition: int) -> tuple[int, int]:
        stop = self.starts[partition + 1] if partition + 1 < len(self.starts) else self.size
        return self.starts[partition], stop


def plan_lines(path: str, every: int) -> LinePlan:
    """Byte offsets of every ``every``-th line start of ``path`` and its number of lines (a task).

    Lines end at ``\\n`` (as :func:`nlpeval.cli.io.read_all` reads them); a last line without one counts.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "f.txt")
    >>> _ = open(path, "wb").write(b"a\\nbb\\n\\nccc\\nd")
    >>> plan = plan_lines(path, 2)
    >>> plan.starts, plan.n_lines, plan.byte_range(2)
    ((0, 5, 10), 5, (10, 11))
    """
    starts = [0]
    newlines = 0  # newlines seen before the current block
    position = 0
    last = b""
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 22):
                found = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
                # line j*every starts after newline number j*every - 1 (0-based)
                first = -(-(newlines + 1) // every) * every - 1  # the first wanted newline number >= newlines
                wanted = np.arange(first, newlines + len(found), every) - newlines
                starts.extend((position + found[wanted] + 1).tolist())
                newlines += len(found)
                position += len(block)
                last = block[-1:]
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    n_lines = newlines + (1 if position and last != b"\n" else 0)
    return LinePlan(path, tuple(s for s in starts if s < position or s == 0), n_lines, position)


def _decode(path: str, data: bytes, first_line: int) -> list[str]:
    """The lines of ``data`` (starting at 1-based line ``first_line``), with read_all's UTF-8 error."""
    if data.endswith(b"\n"):
        data = data[:-1]
    try:
        return data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        for number, raw in enumerate(data.split(b"\n"), start=first_line):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UsageError(f"{path}:{number}: invalid UTF-8 ({exc.reason} at byte {exc.start})") from None
        raise  # pragma: no cover - some line fails


def read_lines(plan: LinePlan, partition: int, every: int) -> list[str]:
    """Lines of ``plan``'s file in ``partition`` (a task)."""
    start, stop = plan.byte_range(partition)
    try:
        with open(plan.path, "rb") as handle:
            handle.seek(start)
            data = handle.read(stop - start)
    except OSError as exc:
        raise UsageError(f"cannot read {plan.path}: {exc.strerror}") from None
    if not data:
        return []
    return _decode(plan.path, data, partition * every + 1)


def text_partition(
    system: LinePlan, refs: Sequence[LinePlan], partition: int, every: int, src: LinePlan | None = None
) -> list[Any]:
    """Partition ``partition`` of a system file and its reference files: ``(hypothesis, references)`` rows;
    with a source file ``src``, ``{"hyp", "ref", "src"}`` dicts."""
    hyps = read_lines(system, partition, every)
    columns = [read_lines(ref, partition, every) for ref in refs]
    sources = read_lines(src, partition, every) if src is not None else None
    for plan, column in zip(
        [*refs, *([src] if src is not None else [])],
        [*columns, *([sources] if sources is not None else [])],
        strict=True,
    ):
        if len(column) != len(hyps):  # the plans agree on line counts, so only a file changed since
            raise UsageError(f"{plan.path} changed while it was read")
    pairs = zip(hyps, zip(*columns, strict=True) if columns else ([] for _ in hyps), strict=True)
    if sources is None:
        return [(hyp, list(seg)) for hyp, seg in pairs]
    return [{"hyp": hyp, "ref": list(seg), "src": s} for (hyp, seg), s in zip(pairs, sources, strict=True)]


def check_counts(plans: Sequence[LinePlan]) -> None:
    """The one-line error of the single-machine path when line counts differ or the system file is empty."""
    counts = [plan.n_lines for plan in plans]
    if len(set(counts)) > 1:
        detail = ", ".join(f"{plan.path} has {plan.n_lines}" for plan in plans)
        raise UsageError(f"segment counts differ: {detail} lines")
    if counts[0] == 0:
        raise UsageError(f"{plans[0].path} is empty: there is nothing to score")


def text_input(client: Any, system: str, refs: Sequence[str], every: int, src: str | None = None) -> Any:
    """A bag of one system file and its references (and sources), ``every`` lines per partition (line-aligned)."""
    import dask.bag as db
    from dask import delayed

    paths = [system, *refs, *([src] if src is not None else [])]
    plans = client.gather(client.map(plan_lines, paths, every=every, pure=False))
    check_counts(plans)
    n_parts = len(plans[0].starts)
    ref_plans = plans[1 : 1 + len(refs)]
    src_plan = plans[-1] if src is not None else None
    return db.from_delayed(
        [delayed(text_partition, pure=True)(plans[0], ref_plans, p, every, src_plan) for p in range(n_parts)]
    )


# ----------------------------------------------------------------------------- data files


@dataclass(frozen=True)
class DataColumns:
    """The column options (``--hyp-col`` etc.) of data-file input."""

    hyp: str
    refs: tuple[str, ...]
    id: str | None = None
    system: str | None = None


def _rows(data: Any, records: list[Any], columns: DataColumns) -> list[dict[str, Any]]:
    """Rows of a data file as the Dask graph takes them, validated as the single-machine path does."""
    from nlpeval.cli.datafiles import id_value, references_value, text_value

    present: dict[str, None] = {}
    for record in records:
        present.update(dict.fromkeys(record.fields))
    data.columns = list(present)
    if records:
        data.require(columns.hyp, *columns.refs, columns.id, columns.system)
    out = []
    for record in records:
        row: dict[str, Any] = {"hyp": text_value(data, record, columns.hyp), "loc": data.where(record)}
        row["ref"] = references_value(data, record, columns.refs)
        if columns.id:
            row["id"] = id_value(data, record, columns.id)
        if columns.system:
            row["sys"] = id_value(data, record, columns.system)
        out.append(row)
    return out


def jsonl_partition(plan: LinePlan, partition: int, every: int, columns: DataColumns) -> list[dict[str, Any]]:
    """Rows of the JSONL lines in ``partition`` (a task); blank lines are skipped as on one machine."""
    from nlpeval.cli.datafiles import DataFile, jsonl_record

    first = partition * every + 1
    records = []
    for number, line in enumerate(read_lines(plan, partition, every), start=first):
        record = jsonl_record(plan.path, number, line)
        if record is not None:
            records.append(record)
    return _rows(DataFile(plan.path, [], []), records, columns)


def whole_file_partition(path: str, columns: DataColumns) -> list[dict[str, Any]]:
    """Rows of a CSV/TSV file (a task: one partition per file)."""
    from nlpeval.cli.datafiles import read_data_file

    data = read_data_file(path)
    return _rows(data, data.records, columns)


def parquet_partition(path: str, group: int, first_row: int, columns: DataColumns) -> list[dict[str, Any]]:
    """Rows of row group ``group`` of a Parquet file (a task); rows are numbered from 1 in the whole file."""
    import pyarrow.parquet as pq

    from nlpeval.cli.datafiles import DataFile, Record

    table = pq.ParquetFile(path).read_row_group(group)
    records = [Record(first_row + i + 1, row) for i, row in enumerate(table.to_pylist())]
    return _rows(DataFile(path, list(table.column_names), []), records, columns)


def _parquet_groups(path: str) -> list[int]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"{path}: reading Parquet needs pyarrow: pip install 'nlpeval[parquet]'") from None
    try:
        meta = pq.ParquetFile(path).metadata
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    return [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]


def data_input(client: Any, paths: Sequence[str], columns: DataColumns, every: int) -> Any:
    """A bag of the rows of data files (dicts: hyp, ref, loc, and id, sys when asked for)."""
    import dask.bag as db
    from dask import delayed

    from nlpeval.cli.datafiles import data_format

    formats = [data_format(path) for path in paths]
    jsonl = [path for path, fmt in zip(paths, formats, strict=True) if fmt == "jsonl"]
    plans = dict(zip(jsonl, client.gather(client.map(plan_lines, jsonl, every=every, pure=False)), strict=True))
    parts = []
    for path, fmt in zip(paths, formats, strict=True):
        if fmt == "jsonl":
            plan = plans[path]
            parts += [delayed(jsonl_partition, pure=True)(plan, p, every, columns) for p in range(len(plan.starts))]
        elif fmt == "parquet":
            counts = client.submit(_parquet_groups, path, pure=False).result()
            starts = np.cumsum([0, *counts]).tolist()
            parts += [delayed(parquet_partition, pure=True)(path, g, starts[g], columns) for g in range(len(counts))]
        else:
            parts.append(delayed(whole_file_partition, pure=True)(path, columns))
    if not parts:
        raise UsageError(f"{', '.join(paths)}: no rows: there is nothing to score")
    return db.from_delayed(parts)


def locate(error: BaseException, system: str, refs: Sequence[str], every: int, src: str | None = None) -> BaseException:
    """A partition's input error as ``file:line: message``, when it can say which line.

    ``system`` and ``refs`` are the line files scored (partition ``p`` starts at line ``p * every + 1``);
    rows of data files carry their ``file:row`` themselves.
    """
    if not isinstance(error, PartitionInputError):
        return error
    if isinstance(error.location, str):
        return UsageError(f"{error.location}: {error.detail}")
    if error.partition is None or error.row is None or not refs:
        return error
    path = refs[error.reference or 0] if error.side == "references" else system
    if error.side == "sources" and src is not None:
        path = src
    return UsageError(f"{path}:{error.partition * every + error.row + 1}: {error.detail}")


# ----------------------------------------------------------------------------- ids


@dataclass(frozen=True)
class Covered:
    """A system's id fingerprint, and how to read its rows again (to name an example when a check fails)."""

    fingerprint: Any
    rows: Any  # a callable: () -> the bag of the rows of the input holding this system
    system: str | None  # the --system-col value of its rows (None: every row of the input)


def _picked(row: dict[str, Any], system: str | None, bucket: int | None, hashes: frozenset[int]) -> bool:
    from nlpeval.dask._ids import bucket as bucket_of
    from nlpeval.dask._ids import id_hash

    if system is not None and row["sys"] != system:
        return False
    key = id_hash(row["id"])
    return key in hashes or (bucket is not None and bucket_of(key) == bucket)


def _brief(row: dict[str, Any]) -> tuple[str, int, str]:
    from nlpeval.dask._ids import row_hash

    return row["id"], row_hash(row["id"], row["ref"]), row["loc"]


def _rows_of(client: Any, covered: Covered, bucket: int | None = None, hashes: frozenset[int] = frozenset()) -> list:
    """``(id, row hash, file:row)`` of the system's rows whose id is in ``bucket`` or has a hash in ``hashes``."""
    import functools

    bag = covered.rows().filter(functools.partial(_picked, system=covered.system, bucket=bucket, hashes=hashes))
    return client.compute(bag.map(_brief)).result()


def check_ids(client: Any, systems: dict[str, Covered]) -> None:
    """The single-machine rules of ``--id-col``, from the fingerprints: no system repeats an id, and every
    system covers the first's ids with the same references. A failing check reads the rows of one id
    bucket (or of the repeated ids) again to name an example, with the single-machine message."""
    for covered in systems.values():
        if covered.fingerprint.repeats:
            seen: dict[str, str] = {}
            for key, _, where in _rows_of(client, covered, hashes=frozenset(covered.fingerprint.repeats)):
                if key in seen:
                    raise UsageError(f"{where}: id {key!r} repeats {seen[key]}")
                seen[key] = where  # (two ids whose 64-bit hashes collide are not a repeat)
    (first, base), *others = systems.items()
    for name, covered in others:
        if base.fingerprint.same_rows(covered.fingerprint):
            continue
        n_base, n_mine = base.fingerprint.n_rows, covered.fingerprint.n_rows
        counts = f" ({name} has {n_mine} rows, {first} has {n_base})" if n_base != n_mine else ""
        bucket = base.fingerprint.first_difference(covered.fingerprint)
        theirs = {key: (digest, where) for key, digest, where in _rows_of(client, base, bucket)}
        mine = {key: (digest, where) for key, digest, where in _rows_of(client, covered, bucket)}
        missing = [key for key in theirs if key not in mine]
        if missing:
            raise UsageError(f"{name} lacks id {missing[0]!r}: every system must cover the same ids{counts}")
        extra = [key for key in mine if key not in theirs]
        if extra:
            raise UsageError(f"{name} has id {extra[0]!r} that {first} lacks: every system must cover the same ids"
                             f"{counts}")  # fmt: skip
        for key, (digest, where) in mine.items():
            if digest != theirs[key][0]:
                raise UsageError(f"{where}: the references of id {key!r} differ from those at {theirs[key][1]}")
        raise UsageError(f"{name} covers other ids or references than {first}: every system must cover the same ids")
