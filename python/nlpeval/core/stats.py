"""Per-segment sufficient statistics with named fields and declared merge rules.

Every corpus metric turns each segment into one row of numbers (its sufficient
statistics). Rows merge field by field under a declared rule, so one fact gives
corpus scores, streaming accumulation, parallel reduction and bootstrap
resampling without re-tokenising.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

MergeRule = Literal["sum", "min", "max", "last"]

#: Missing-value marker of the ``last`` rule (its identity element).
_NO_INT = np.iinfo(np.int64).min


def _last(values: np.ndarray, axis: int) -> np.ndarray:
    """The last entry along ``axis`` that is not the missing marker (``last`` merge rule)."""
    values = np.moveaxis(np.asarray(values), axis, -1)
    present = ~np.isnan(values) if np.issubdtype(values.dtype, np.floating) else values != _NO_INT
    width = values.shape[-1]
    position = width - 1 - np.argmax(present[..., ::-1], axis=-1)
    picked = np.take_along_axis(values, position[..., None], axis=-1)[..., 0]
    missing = np.nan if np.issubdtype(values.dtype, np.floating) else _NO_INT
    return np.where(present.any(axis=-1), picked, missing)


_REDUCERS: dict[str, Callable[..., np.ndarray]] = {"sum": np.sum, "min": np.min, "max": np.max, "last": _last}
_IDENTITY = {"sum": 0, "min": np.iinfo(np.int64).max, "max": np.iinfo(np.int64).min, "last": _NO_INT}


@dataclass(frozen=True)
class StatsSchema:
    """The named fields of a statistics row and how each one merges.

    Parameters
    ----------
    fields : tuple of str
        Field names, in column order.
    merge : tuple of {"sum", "min", "max", "last"}
        Merge rule per field. ``last`` keeps the value of the last segment (for
        metrics such as NLTK's BLEU smoothing methods 5-7 that look at the final
        segment of the corpus); it is associative but order-sensitive: in
        :meth:`combine` and ``Accumulator.merge`` the right-hand side comes later.

    Examples
    --------
    >>> schema = StatsSchema.of("hits", "total", nrefs_min="min")
    >>> schema.fields
    ('hits', 'total', 'nrefs_min')
    >>> schema.reduce(np.array([[1, 2, 1], [3, 4, 2]])).tolist()
    [4, 6, 1]
    """

    fields: tuple[str, ...]
    merge: tuple[MergeRule, ...]

    def __post_init__(self) -> None:
        if len(self.fields) != len(self.merge):
            raise ValueError("one merge rule per field is required")
        if len(set(self.fields)) != len(self.fields):
            raise ValueError(f"duplicate field names in {self.fields}")
        unknown = set(self.merge) - set(_REDUCERS)
        if unknown:
            raise ValueError(f"unknown merge rules {sorted(unknown)}")

    @classmethod
    def of(cls, *summed: str, **others: MergeRule) -> StatsSchema:
        """Build a schema: positional fields are summed, keyword fields use the given rule."""
        fields = (*summed, *others)
        summed_rules: list[MergeRule] = ["sum"] * len(summed)
        return cls(fields, (*summed_rules, *others.values()))

    @property
    def width(self) -> int:
        """Number of fields."""
        return len(self.fields)

    def index(self, name: str) -> int:
        """Column of field ``name``."""
        try:
            return self.fields.index(name)
        except ValueError:
            raise KeyError(f"no field {name!r}; fields are {self.fields}") from None

    def identity(self, dtype: np.dtype | type = np.int64) -> np.ndarray:
        """The totals of zero rows (the neutral element of :meth:`combine`)."""
        if np.issubdtype(dtype, np.floating):
            table = {"sum": 0.0, "min": np.inf, "max": -np.inf, "last": np.nan}
            return np.array([table[m] for m in self.merge], dtype=dtype)
        return np.array([_IDENTITY[m] for m in self.merge], dtype=dtype)

    def reduce(self, rows: np.ndarray, axis: int = 0) -> np.ndarray:
        """Merge ``rows`` along ``axis`` (the rows axis), field by field."""
        rows = np.asarray(rows)
        if rows.shape[axis] == 0:
            shape = list(rows.shape)
            del shape[axis]
            return np.broadcast_to(self.identity(rows.dtype), shape).copy()
        blocks = self._blocks
        if blocks is not None and rows.dtype == np.int64:
            if len(blocks) == 1 and blocks[0][0] is np.add:
                return rows.sum(axis=axis)
            moved = rows if axis == 0 else np.moveaxis(rows, axis, 0)
            out = np.empty(moved.shape[1:], dtype=rows.dtype)
            for ufunc, block in blocks:
                ufunc.reduce(moved[..., block], axis=0, out=out[..., block])
            return out
        parts = [_REDUCERS[rule](np.take(rows, [col], axis=-1), axis=axis) for col, rule in enumerate(self.merge)]
        return np.concatenate(parts, axis=-1)

    @cached_property
    def _blocks(self) -> list[tuple[np.ufunc, slice]] | None:
        """Runs of adjacent fields with the same ``sum``/``min``/``max`` rule, each merged by one ufunc
        over a column slice (None when a field merges by ``last``). Used for integer rows only,
        whose merge is exact in any order."""
        ufuncs = {"sum": np.add, "min": np.minimum, "max": np.maximum}
        if "last" in self.merge:
            return None
        blocks: list[tuple[np.ufunc, slice]] = []
        start = 0
        for col in range(1, len(self.merge) + 1):
            if col == len(self.merge) or self.merge[col] != self.merge[start]:
                blocks.append((ufuncs[self.merge[start]], slice(start, col)))
                start = col
        return blocks

    def combine(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """Merge two totals vectors (associative; commutative unless a field merges by ``last``)."""
        left, right = np.asarray(left), np.asarray(right)
        blocks = self._blocks
        if blocks is not None and left.dtype == np.int64 and right.dtype == np.int64:
            out = np.empty(np.broadcast_shapes(left.shape, right.shape), dtype=left.dtype)
            for ufunc, block in blocks:
                ufunc(left[..., block], right[..., block], out=out[..., block])
            return out
        return self.reduce(np.stack([left, right]), axis=0)

    def resampled_totals(self, rows: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """Totals of each resample: ``indices`` is ``(k, n)`` row indices; returns ``(k, width)``."""
        k, n = indices.shape
        if all(m == "sum" for m in self.merge):
            counts = np.zeros((k, rows.shape[0]), dtype=np.int64)
            np.add.at(counts, (np.repeat(np.arange(k), n), indices.ravel()), 1)
            if np.issubdtype(rows.dtype, np.integer):
                return counts @ rows
            return counts.astype(np.float64) @ rows
        return np.stack([self.reduce(rows[idx]) for idx in indices])


@dataclass(frozen=True)
class Stats:
    """Sufficient statistics of a batch: an ``(n_segments, n_fields)`` array.

    Parameters
    ----------
    schema : StatsSchema
        Field names and merge rules.
    rows : numpy.ndarray
        One row per segment.

    Examples
    --------
    >>> schema = StatsSchema.of("hits", "total")
    >>> stats = Stats(schema, np.array([[1, 2], [3, 4]]))
    >>> stats["hits"].tolist(), stats.totals().tolist()
    ([1, 3], [4, 6])
    """

    schema: StatsSchema
    rows: np.ndarray

    def __post_init__(self) -> None:
        rows = np.asarray(self.rows)
        if rows.ndim != 2 or rows.shape[1] != self.schema.width:
            raise ValueError(f"rows must have shape (n, {self.schema.width}); got {rows.shape}")
        object.__setattr__(self, "rows", rows)

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __getitem__(self, field: str) -> np.ndarray:
        return self.rows[:, self.schema.index(field)]

    def totals(self) -> np.ndarray:
        """Merge all rows into one totals vector."""
        return self.schema.reduce(self.rows)

    def take(self, indices: np.ndarray | Sequence[int]) -> Stats:
        """Rows at ``indices`` (for resampling and subsets)."""
        return Stats(self.schema, self.rows[np.asarray(indices)])

    @classmethod
    def concat(cls, parts: Sequence[Stats]) -> Stats:
        """Stack the rows of several batches with the same schema."""
        if not parts:
            raise ValueError("nothing to concatenate")
        schema = parts[0].schema
        if any(p.schema != schema for p in parts):
            raise ValueError("cannot concatenate statistics of different schemas")
        return cls(schema, np.concatenate([p.rows for p in parts], axis=0))
