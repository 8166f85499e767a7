"""Error spans on Dask (``nlpeval.dask.score(..., error_spans=True)``): each partition's spans, merged in order.

A partition's task keeps the error spans of every metric that tags them (xCOMET) beside its statistics, under
:func:`key` ``(name)``; the merge tree concatenates them in partition order (as it merges the statistics), so
the client gets one tuple of spans per segment, in the input's segment order (per group with ``by``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: prefix of the keys under which a group's spans travel beside its metrics' partials
PREFIX = "spans:"


def key(name: str) -> str:
    """The key of metric ``name``'s spans.

    Examples
    --------
    >>> key("comet")
    'spans:comet'
    """
    return PREFIX + name


@dataclass(frozen=True)
class SpanRun:
    """The error spans of consecutive segments (one tuple of span mappings per segment).

    Examples
    --------
    >>> a, b = SpanRun(((),)), SpanRun((({"text": "x"},),))
    >>> a.merge(b).spans
    ((), ({'text': 'x'},))
    """

    spans: tuple[tuple[Mapping[str, Any], ...], ...]

    def merge(self, other: SpanRun) -> SpanRun:
        """These segments' spans followed by ``other``'s."""
        return SpanRun(self.spans + other.spans)


def split(by_name: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, SpanRun]]:
    """(metric name -> partial, metric name -> its spans) of one group's merged results.

    Examples
    --------
    >>> split({"comet": 1, "spans:comet": SpanRun(())})
    ({'comet': 1}, {'comet': SpanRun(spans=())})
    """
    partials = {name: value for name, value in by_name.items() if not name.startswith(PREFIX)}
    spans = {name[len(PREFIX) :]: value for name, value in by_name.items() if name.startswith(PREFIX)}
    return partials, spans
