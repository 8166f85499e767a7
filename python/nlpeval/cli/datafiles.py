"""Evaluation dumps as input: JSONL, CSV/TSV and Parquet files with named columns.

``--hyp-col`` names the system output, ``--ref-col`` the reference(s) (a list
column, or the option repeated for several columns), ``--id-col`` a segment
id and ``--system-col`` the system of each row (several systems in one long
file). Rows are numbered as a person finds them: the line for JSONL and
CSV/TSV (the header is line 1), the 1-based row for Parquet; every error names
``file:row``. JSONL and CSV need only the standard library; Parquet needs
``pyarrow`` (extra ``nlpeval[parquet]``).

:func:`read_systems` is the one entry point for commands that score systems
(``score``, and ``report`` later): it returns each system's hypotheses and
references, aligned by id when there is an id column.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlpeval.cli.dataoptions import add_data_options, check_data_options  # noqa: F401 - the options, re-exported
from nlpeval.cli.errors import UsageError

#: file name endings -> format
EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def _display(path: str) -> str:
    return "<stdin>" if path == "-" else path


def data_format(path: str) -> str:
    """The format of a data file from its name (stdin, ``-``, is read as JSONL).

    Examples
    --------
    >>> data_format("run.jsonl"), data_format("dump.TSV"), data_format("-")
    ('jsonl', 'tsv', 'jsonl')
    """
    if path == "-":
        return "jsonl"
    lowered = path.lower()
    for ending, fmt in EXTENSIONS.items():
        if lowered.endswith(ending):
            return fmt
    raise UsageError(f"{path}: cannot tell the data format from the name; use {', '.join(EXTENSIONS)}")


@dataclass
class Record:
    """One row of a data file: where it is (``row``, 1-based as described above) and its fields."""

    row: int
    fields: dict[str, Any]


@dataclass
class DataFile:
    """The rows of a data file and the columns it has."""

    name: str
    columns: list[str]
    records: list[Record]

    def where(self, record: Record) -> str:
        return f"{self.name}:{record.row}"

    def require(self, *columns: str | None) -> None:
        """A one-line error when a named column is absent from the file."""
        for name in columns:
            if name is not None and name not in self.columns:
                known = ", ".join(self.columns) or "none"
                raise UsageError(f"{self.name}: no column {name!r} (columns: {known})")


def _jsonl(path: str) -> DataFile:
    from nlpeval.cli.io import read_all

    name = _display(path)
    records: list[Record] = []
    columns: dict[str, None] = {}
    for number, line in enumerate(read_all(path), start=1):
        record = jsonl_record(name, number, line)
        if record is not None:
            columns.update(dict.fromkeys(record.fields))
            records.append(record)
    return DataFile(name, list(columns), records)


def jsonl_record(name: str, number: int, line: str) -> Record | None:
    """Line ``number`` (1-based) of a JSONL file as a record; ``None`` for a blank line.

    Examples
    --------
    >>> jsonl_record("f.jsonl", 1, '\ufeff{"hyp": "a"}'), jsonl_record("f.jsonl", 2, "  ")
    (Record(row=1, fields={'hyp': 'a'}), None)
    """
    if number == 1:
        line = line.removeprefix("\ufeff")  # a byte-order mark, as some editors write
    if not line.strip():
        return None
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise UsageError(f"{name}:{number}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise UsageError(f"{name}:{number}: expected a JSON object, found {type(value).__name__}")
    return Record(number, value)


def _delimited(path: str, fmt: str) -> DataFile:
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below (BOM dropped)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        delimiter = "\t" if fmt == "tsv" else ","
        # strict: a stray quote is an error, not a silently different row (a quoted cell may hold line
        # ends, as ROUGE-Lsum's sentence-per-line summaries do; a quote never closed is named at its row)
        reader = csv.reader(handle, delimiter=delimiter, strict=True)
        records: list[Record] = []
        header: list[str] | None = None
        start = 1
        try:
            for cells in reader:
                if header is None:
                    header = [cell.strip() for cell in cells]
                    if len(set(header)) != len(header):
                        raise UsageError(f"{path}:1: repeated column names in the header")
                elif cells and any(cell.strip() for cell in cells):
                    if len(cells) != len(header):
                        raise UsageError(f"{path}:{start}: expected {len(header)} columns, found {len(cells)}")
                    records.append(Record(start, dict(zip(header, cells, strict=True))))
                start = reader.line_num + 1
        except csv.Error as exc:
            hint = " (a quote opened here is never closed)" if "end of data" in str(exc) else ""
            raise UsageError(f"{path}:{start}: {exc}{hint}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"{path}:{reader.line_num + 1}: invalid UTF-8 ({exc.reason})") from None
    return DataFile(path, header or [], records)


def _parquet(path: str) -> DataFile:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"{path}: reading Parquet needs pyarrow: pip install 'nlpeval[parquet]'") from None
    try:
        table = pq.read_table(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    rows = table.to_pylist()
    return DataFile(path, list(table.column_names), [Record(i + 1, row) for i, row in enumerate(rows)])


def read_data_file(path: str) -> DataFile:
    """All rows of a JSONL, CSV/TSV or Parquet file (format from the file name).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "run.jsonl")
    >>> _ = open(path, "w").write('{"hyp": "a cat", "ref": "the cat"}\\n\\n{"hyp": "a dog", "ref": "a dog"}\\n')
    >>> data = read_data_file(path)
    >>> data.columns, [r.row for r in data.records]
    (['hyp', 'ref'], [1, 3])
    """
    fmt = data_format(path)
    if fmt == "jsonl":
        return _jsonl(path)
    if fmt == "parquet":
        return _parquet(path)
    return _delimited(path, fmt)


# ----------------------------------------------------------------------------- cell values


def text_value(data: DataFile, record: Record, column: str) -> str:
    """A text cell (a string; a JSON number is not text)."""
    if column not in record.fields:
        raise UsageError(f"{data.where(record)}: no {column!r} field")
    value = record.fields[column]
    if not isinstance(value, str):
        raise UsageError(f"{data.where(record)}: {column!r} is not text ({_kind(value)})")
    return value


def label_value(data: DataFile, record: Record, column: str) -> str:
    """A class label: text, an integer or a boolean, as the text the line files would hold."""
    if column not in record.fields:
        raise UsageError(f"{data.where(record)}: no {column!r} field")
    value = record.fields[column]
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        raise UsageError(f"{data.where(record)}: {column!r} is not a label ({_kind(value)})")
    if not value.strip():
        raise UsageError(f"{data.where(record)}: empty label in {column!r}")
    return value.strip()


def references_value(data: DataFile, record: Record, columns: Sequence[str]) -> list[str]:
    """The references of a row: one text per column, or every text of a list column."""
    refs: list[str] = []
    for column in columns:
        if column not in record.fields:
            raise UsageError(f"{data.where(record)}: no {column!r} field")
        value = record.fields[column]
        if isinstance(value, (list, tuple)):
            if not value:
                raise UsageError(f"{data.where(record)}: {column!r} holds no reference")
            bad = next((v for v in value if not isinstance(v, str)), None)
            if bad is not None:
                raise UsageError(f"{data.where(record)}: {column!r} holds a reference that is not text ({_kind(bad)})")
            refs.extend(value)
        elif isinstance(value, str):
            refs.append(value)
        else:
            raise UsageError(f"{data.where(record)}: {column!r} is not text or a list of texts ({_kind(value)})")
    return refs


def numbers_value(data: DataFile, record: Record, column: str) -> list[float]:
    """A list of finite numbers (a list column, or space-separated numbers in a text cell)."""
    if column not in record.fields:
        raise UsageError(f"{data.where(record)}: no {column!r} field")
    value = record.fields[column]
    if isinstance(value, str):
        parts: list[Any] = value.replace(",", " ").split()
        try:
            value = [float(part) for part in parts]
        except ValueError:
            raise UsageError(f"{data.where(record)}: {column!r} holds something that is not a number") from None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
    ):
        raise UsageError(f"{data.where(record)}: {column!r} is not a list of numbers ({_kind(value)})")
    numbers = [float(v) for v in value]
    if not all(math.isfinite(v) for v in numbers):
        raise UsageError(f"{data.where(record)}: {column!r} holds a number that is not finite")
    return numbers


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return f"{type(value).__name__} {json.dumps(value, default=str)[:40]}"


# ----------------------------------------------------------------------------- systems


@dataclass
class SystemInput:
    """One system's segments read from data files.

    ``where[i]`` is ``file:row`` of segment ``i`` (for error messages); ``ids``
    are the id column's values (``None`` without ``--id-col``); ``references``
    is empty when they come from elsewhere (``-r`` line files).
    """

    name: str
    hypotheses: list[str] = field(default_factory=list)
    references: list[list[str]] = field(default_factory=list)
    where: list[str] = field(default_factory=list)
    ids: list[str] | None = None


def id_value(data: DataFile, record: Record, column: str) -> str:
    """An id or system name: text or an integer, as stripped text."""
    value = record.fields.get(column)
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    if column not in record.fields:
        raise UsageError(f"{data.where(record)}: no {column!r} field")
    raise UsageError(f"{data.where(record)}: {column!r} is not an id ({_kind(value)})")


def _systems_of(
    path: str, hyp_col: str, ref_cols: Sequence[str], id_col: str | None, system_col: str | None
) -> Iterator[SystemInput]:
    data = read_data_file(path)
    data.require(hyp_col, *ref_cols, id_col, system_col)
    if not data.records:
        raise UsageError(f"{data.name} has no rows: there is nothing to score")
    systems: dict[str, SystemInput] = {}
    for record in data.records:
        name = id_value(data, record, system_col) if system_col else data.name
        system = systems.setdefault(name, SystemInput(name, ids=[] if id_col else None))
        system.hypotheses.append(text_value(data, record, hyp_col))
        if ref_cols:
            system.references.append(references_value(data, record, ref_cols))
        system.where.append(data.where(record))
        if system.ids is not None and id_col:
            system.ids.append(id_value(data, record, id_col))
    yield from systems.values()


def _align(systems: list[SystemInput]) -> list[SystemInput]:
    """Put every system's segments in the first system's id order; check ids and references agree."""
    first = systems[0]
    first_ids = first.ids
    if first_ids is None:
        for system in systems[1:]:
            if len(system.hypotheses) != len(first.hypotheses):
                raise UsageError(
                    f"segment counts differ: {first.name} has {len(first.hypotheses)}, "
                    f"{system.name} has {len(system.hypotheses)} rows (give --id-col to align rows by id)"
                )
        return systems
    aligned = []
    for system in systems:
        positions: dict[str, int] = {}
        assert system.ids is not None
        for index, key in enumerate(system.ids):
            if key in positions:
                raise UsageError(f"{system.where[index]}: id {key!r} repeats {system.where[positions[key]]}")
            positions[key] = index
        missing = [key for key in first_ids if key not in positions]
        extra = len(positions) - (len(first_ids) - len(missing))
        if missing or extra:
            detail = f"lacks id {missing[0]!r}" if missing else f"has {extra} id(s) that {first.name} lacks"
            raise UsageError(f"{system.name} {detail}: every system must cover the same ids")
        order = [positions[key] for key in first_ids]
        moved = SystemInput(
            system.name,
            [system.hypotheses[i] for i in order],
            [system.references[i] for i in order] if system.references else [],
            [system.where[i] for i in order],
            list(first_ids),
        )
        if moved.references and first.references:
            for index, (mine, theirs) in enumerate(zip(moved.references, first.references, strict=True)):
                if mine != theirs:
                    raise UsageError(
                        f"{moved.where[index]}: the references of id {first_ids[index]!r} differ from "
                        f"those at {first.where[index]}"
                    )
        aligned.append(moved)
    return aligned


def read_systems(
    paths: Sequence[str],
    *,
    hyp_col: str,
    ref_cols: Sequence[str] = (),
    id_col: str | None = None,
    system_col: str | None = None,
) -> list[SystemInput]:
    """Every system in the data files, segments aligned across systems.

    Each file is one system, or with ``system_col`` holds several (a long
    table: one row per system and segment, possibly sharded over several files,
    whose rows are then taken in file order). Glob patterns are expanded. With ``id_col`` the segments of
    every system are put in the first system's id order, and each system must
    cover the same ids with the same references; without it, rows are taken in
    file order and the counts must agree.

    Parameters
    ----------
    paths : sequence of str
        JSONL, CSV/TSV or Parquet files.
    hyp_col : str
        Column of the system output.
    ref_cols : sequence of str
        Reference column(s): each a text or a list of texts; empty when the
        references come from elsewhere.
    id_col, system_col : str, optional
        Segment id and system name columns.

    Returns
    -------
    list of SystemInput

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "long.csv")
    >>> _ = open(path, "w").write("sys,id,out,ref\\nA,2,b,B\\nB,1,x,A\\nA,1,a,A\\nB,2,y,B\\n")
    >>> [(s.name, s.hypotheses, s.references) for s in read_systems(
    ...     [path], hyp_col="out", ref_cols=["ref"], id_col="id", system_col="sys")]
    [('A', ['b', 'a'], [['B'], ['A']]), ('B', ['y', 'x'], [['B'], ['A']])]
    """
    systems: dict[str, SystemInput] = {}
    for path in expand_paths(paths):
        for system in _systems_of(path, hyp_col, ref_cols, id_col, system_col):
            if system.name not in systems:
                systems[system.name] = system
            elif system_col is None:
                raise UsageError(f"system {system.name!r} appears in more than one file")
            else:  # a long table sharded over several files: the rows of each file, in file order
                merged = systems[system.name]
                merged.hypotheses += system.hypotheses
                merged.references += system.references
                merged.where += system.where
                if merged.ids is not None and system.ids is not None:
                    merged.ids += system.ids
    return _align(list(systems.values()))


def expand_paths(patterns: Sequence[str]) -> list[str]:
    """Data file names, with glob patterns (``shard-*.jsonl``, quoted so the shell leaves them) expanded.

    Examples
    --------
    >>> expand_paths(["-", "run.jsonl"])
    ['-', 'run.jsonl']
    """
    import glob
    import os

    paths: list[str] = []
    for pattern in patterns:
        if pattern == "-" or os.path.exists(pattern) or not any(char in pattern for char in "*?["):
            paths.append(pattern)
            continue
        found = sorted(glob.glob(pattern))
        if not found:
            raise UsageError(f"no file matches {pattern}")
        paths += found
    return paths


def split_by_system(data: DataFile, column: str) -> list[tuple[str, DataFile]]:
    """The rows of a long data file grouped by the value of ``column``, systems in order of first appearance.

    Examples
    --------
    >>> rows = [Record(1, {"s": "B"}), Record(2, {"s": "A"}), Record(3, {"s": "B"})]
    >>> [(name, [r.row for r in part.records]) for name, part in split_by_system(DataFile("f", ["s"], rows), "s")]
    [('B', [1, 3]), ('A', [2])]
    """
    data.require(column)
    groups: dict[str, list[Record]] = {}
    for record in data.records:
        groups.setdefault(id_value(data, record, column), []).append(record)
    return [(name, DataFile(data.name, data.columns, records)) for name, records in groups.items()]


def read_column(path: str, column: str, *, kind: str = "text") -> tuple[list[Any], list[str]]:
    """One column of a data file as a list (``kind``: ``text``, ``label`` or ``numbers``) and each row's ``file:row``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.jsonl")
    >>> _ = open(path, "w").write('{"gold": 1}\\n{"gold": "neg"}\\n')
    >>> read_column(path, "gold", kind="label")
    (['1', 'neg'], ['...labels.jsonl:1', '...labels.jsonl:2'])
    """
    data = read_data_file(path)
    data.require(column)
    reader = {"text": text_value, "label": label_value, "numbers": numbers_value}[kind]
    values = [reader(data, record, column) for record in data.records]
    return values, [data.where(record) for record in data.records]
