"""The base of the report's frozen records: equality, hash and repr over the fields, written once.

The report's records (:mod:`nlpeval.reports.model`, :mod:`~nlpeval.reports.context`,
:mod:`~nlpeval.reports.settings`) are plain frozen dataclasses declared
``@dataclass(frozen=True, repr=False, eq=False)`` on :class:`FrozenRecord`. A dataclass gets each method it
generates as source text compiled when the class is made (Python 3.11: one ``compile`` per method); for the
records' ``__repr__``, ``__eq__`` and ``__hash__`` that cost more than the rest of their making, about 20 ms
of a whole ``nlpeval report`` process for the model's 40 classes (BENCHMARKS.md, "Issue 22 before/after,
second run"). The methods here give what the generated ones give, by the same rules: ``repr`` lists the fields
declared with ``repr=True``; two records are equal when they are of the same class and their fields declared
with ``compare=True`` are equal; the hash is that of those fields (or of those with ``hash=True``). The
``__init__`` and the frozen ``__setattr__`` stay dataclasses' own.

Examples
--------
>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True, repr=False, eq=False)
... class Point(FrozenRecord):
...     x: int
...     y: int = 0
...     note: str = field(default="", compare=False, repr=False)
>>> Point(1, 2), Point(1, 2, "a") == Point(1, 2, "b"), hash(Point(1)) == hash((1, 0))
(Point(x=1, y=2), True, True)
"""

from __future__ import annotations

from dataclasses import fields

#: class -> (names shown by repr, names compared, names hashed)
_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _names(kind: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    known = _NAMES.get(kind)
    if known is None:
        declared = fields(kind)
        shown = tuple(f.name for f in declared if f.repr)
        compared = tuple(f.name for f in declared if f.compare)
        hashed = tuple(f.name for f in declared if (f.compare if f.hash is None else f.hash))
        known = _NAMES[kind] = (shown, compared, hashed)
    return known


class FrozenRecord:
    """``__repr__``, ``__eq__`` and ``__hash__`` of a frozen dataclass, from its fields (see the module)."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = _names(type(self))[0]
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _names(type(self))[1]
        return tuple(getattr(self, name) for name in compared) == tuple(getattr(other, name) for name in compared)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in _names(type(self))[2]))
