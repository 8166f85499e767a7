"""Rows of one partition (a pandas DataFrame or a list of bag elements) as hypotheses, references, ids, groups."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.distributed.errors import PartitionInputError


@dataclass(frozen=True)
class Columns:
    """Where each field of a row is: column names (DataFrames, dict elements) or tuple positions.

    ``ref`` may be one column (a string, or a list of strings per row) or several columns
    (one reference each); ``None`` for metrics without references (perplexity). ``loc`` is a key
    of dict elements holding where each row came from (e.g. ``file:line``), named by errors.
    """

    hyp: str = "hyp"
    ref: str | tuple[str, ...] | None = "ref"
    id: str | None = None
    by: str | None = None
    loc: str | None = None
    src: str | None = None


@dataclass(frozen=True)
class Where:
    """A partition's index and, when known, the global row number of its first row."""

    partition: int
    offset: int | None = None

    def row(self, row: int) -> str:
        text = f"partition {self.partition}, row {row}"
        if self.offset is not None:
            text += f" (row {self.offset + row} of the input)"
        return text

    def fail(self, row: int, message: str, location: Any = None) -> PartitionInputError:
        """The error about ``row`` of this partition (``location``: where the row came from, if known)."""
        error = PartitionInputError(f"{location if isinstance(location, str) else self.row(row)}: {message}")
        error.partition, error.row, error.location, error.detail = self.partition, row, location, message
        return error


@dataclass
class Rows:
    """The fields of one partition's rows."""

    hyps: list[Any]
    refs: list[list[Any]] | None
    ids: list[Any] | None
    groups: list[Any] | None
    locs: list[Any] | None = None
    srcs: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.hyps)


def _missing(value: Any) -> bool:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return bool(isinstance(value, (list, tuple, np.ndarray)) and len(value) == 0)


def _as_refs(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return list(value)


def _field(element: Any, name: str | int, where: Where, row: int) -> Any:
    try:
        return element[name]
    except (KeyError, IndexError, TypeError):
        kind = "key" if isinstance(element, Mapping) else "field"
        raise where.fail(row, f"has no {kind} {name!r}") from None


def _frame_rows(frame: Any, columns: Columns, where: Where) -> Rows:
    names = [columns.hyp, *_ref_names(columns), columns.id, columns.by, columns.src]
    missing = [name for name in names if name is not None and name not in frame.columns]
    if missing:
        raise PartitionInputError(
            f"partition {where.partition}: no column {missing[0]!r}; columns are {list(frame.columns)}"
        )
    hyps = frame[columns.hyp].tolist()
    refs = None
    if columns.ref is not None:
        if isinstance(columns.ref, tuple):
            refs = [list(seg) for seg in zip(*(frame[name].tolist() for name in columns.ref), strict=True)]
        else:
            refs = frame[columns.ref].tolist()
    ids = frame[columns.id].tolist() if columns.id is not None else None
    groups = frame[columns.by].tolist() if columns.by is not None else None
    return _with_sources(_checked(hyps, refs, ids, groups, where), frame[columns.src].tolist() if columns.src else None,
                         where)  # fmt: skip


def _ref_names(columns: Columns) -> tuple[str, ...]:
    if columns.ref is None:
        return ()
    return columns.ref if isinstance(columns.ref, tuple) else (columns.ref,)


def _element_rows(elements: Sequence[Any], columns: Columns, where: Where) -> Rows:
    hyps: list[Any] = []
    refs: list[Any] = []
    ids: list[Any] = []
    groups: list[Any] = []
    locs: list[Any] = []
    srcs: list[Any] = []
    for row, element in enumerate(elements):
        if isinstance(element, Mapping):
            if columns.loc is not None:
                locs.append(element.get(columns.loc))
            if columns.src is not None:
                srcs.append(_field(element, columns.src, where, row))
            hyps.append(_field(element, columns.hyp, where, row))
            if columns.ref is not None:
                names = _ref_names(columns)
                value = [_field(element, n, where, row) for n in names] if len(names) > 1 else element.get(names[0])
                refs.append(value)
            if columns.id is not None:
                ids.append(_field(element, columns.id, where, row))
            if columns.by is not None:
                groups.append(_field(element, columns.by, where, row))
        elif isinstance(element, (tuple, list)):
            if len(element) not in (2, 3):
                raise where.fail(
                    row, f"expected (hypothesis, references) or (id, hypothesis, references); got {element!r:.80}"
                )
            if len(element) == 3:
                ids.append(element[0])
            hyps.append(element[-2])
            refs.append(element[-1])
        else:
            raise where.fail(row, f"expected a (hypothesis, references) pair or a dict; got {type(element).__name__}")
    refs_out = refs if (columns.ref is not None or refs) else None
    if ids and len(ids) != len(hyps):
        raise where.fail(0, "some elements carry an id and some do not")
    rows = _checked(hyps, refs_out, ids or None, groups or None, where, locs or None)
    if columns.src is not None and len(srcs) != len(hyps):
        raise where.fail(0, f"tuple elements carry no source: use dicts with the key {columns.src!r}")
    return _with_sources(rows, srcs if columns.src is not None else None, where)


def _with_sources(rows: Rows, srcs: list[Any] | None, where: Where) -> Rows:
    """``rows`` with their sources (``src=``), each checked to be present."""
    if srcs is not None:
        for row, value in enumerate(srcs):
            if _missing(value):
                raise where.fail(row, "has no source", rows.locs[row] if rows.locs else None)
        rows.srcs = srcs
    return rows


def _checked(hyps: list[Any], refs: list[Any] | None, ids: list[Any] | None, groups: list[Any] | None,
             where: Where, locs: list[Any] | None = None) -> Rows:  # fmt: skip
    def fail(row: int, message: str) -> PartitionInputError:
        return where.fail(row, message, locs[row] if locs else None)

    for row, hyp in enumerate(hyps):
        if _missing(hyp) and not isinstance(hyp, (list, np.ndarray)):
            raise fail(row, "has no hypothesis")
    ref_lists = None
    if refs is not None:
        ref_lists = []
        for row, value in enumerate(refs):
            if _missing(value):
                raise fail(row, "has no reference")
            segment = _as_refs(value)
            for position, ref in enumerate(segment):
                if _missing(ref):
                    raise fail(row, f"reference {position} is missing")
            ref_lists.append(segment)
    if ids is not None:
        for row, value in enumerate(ids):
            if _missing(value):
                raise fail(row, "has no id")
    if groups is not None:
        for row, value in enumerate(groups):
            if _missing(value):
                raise fail(row, "has no group value (by=)")
    return Rows(hyps, ref_lists, ids, groups, locs)


def partition_rows(part: Any, columns: Columns, where: Where) -> Rows:
    """The rows of one partition: a pandas DataFrame, a list of bag elements, or a zipped (hyps, refs) pair."""
    if hasattr(part, "columns") and hasattr(part, "iloc"):
        return _frame_rows(part, columns, where)
    if isinstance(part, ZippedPartition):
        return part.rows(where)
    return _element_rows(list(part), columns, where)


@dataclass(frozen=True)
class ZippedPartition:
    """Partition ``i`` of a hypotheses bag and partition ``i`` of a references bag."""

    hyps: list[Any]
    refs: list[Any]

    def __len__(self) -> int:
        return len(self.hyps)

    def rows(self, where: Where) -> Rows:
        if len(self.hyps) != len(self.refs):
            raise PartitionInputError(
                f"partition {where.partition}: {len(self.hyps)} hypotheses but {len(self.refs)} references "
                "(the hypothesis and reference collections are partitioned differently)"
            )
        return _checked(list(self.hyps), list(self.refs), None, None, where)


def zip_partition(hyps: Any, refs: Any) -> ZippedPartition:
    """Pair partition ``i`` of two bags (a task of the graph)."""
    return ZippedPartition(list(hyps), list(refs))
