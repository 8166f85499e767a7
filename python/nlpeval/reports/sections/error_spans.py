"""The "Error spans" section: the segments in which a metric that tags errors (xCOMET) found the most severe
spans, each hypothesis with its spans; none when no reported metric tags them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import ErrorSpan, ErrorSpanSegment, ErrorSpansSection

#: segments shown per system and metric
TOP = 10
#: xCOMET's MQM-like penalty per severity (``nlpeval.metrics.comet.unified.SEVERITY_PENALTY``)
PENALTY = {"minor": 1, "major": 5, "critical": 10}


def penalty(spans: Sequence[Mapping[str, Any]]) -> int:
    """The MQM-like penalty of one segment's spans: minor 1, major 5, critical 10 (other severities 0).

    Examples
    --------
    >>> penalty([{"severity": "minor"}, {"severity": "critical"}])
    11
    """
    return sum(PENALTY.get(str(span["severity"]), 0) for span in spans)


def top_segments(
    system: str, hypotheses: Sequence[str], spans: Sequence[Sequence[Mapping[str, Any]]], scores: np.ndarray, top: int
) -> tuple[ErrorSpanSegment, ...]:
    """The ``top`` segments of ``system`` with spans, by largest penalty, then lowest score, then segment order.

    Examples
    --------
    >>> minor = {"start": 0, "end": 1, "severity": "minor", "confidence": 0.5, "text": "a"}
    >>> major = {**minor, "severity": "major"}
    >>> rows = top_segments("s", ["a b", "a c", "d"], [[minor], [major], []], np.array([0.9, 0.8, 1.0]), 5)
    >>> [(r.id, r.penalty) for r in rows]
    [(1, 5), (0, 1)]
    """
    tagged = [i for i, found in enumerate(spans) if found]
    order = sorted(tagged, key=lambda i: (-penalty(spans[i]), float(scores[i]), i))[:top]
    return tuple(
        ErrorSpanSegment(
            system=system,
            id=i,
            score=float(scores[i]),
            penalty=penalty(spans[i]),
            hypothesis=hypotheses[i],
            spans=tuple(
                ErrorSpan(int(s["start"]), int(s["end"]), str(s["severity"]), float(s["confidence"]), str(s["text"]))
                for s in spans[i]
            ),
        )
        for i in order
    )


def section(ctx: ReportContext) -> tuple[ErrorSpansSection, ...]:
    """Per metric that tagged error spans, its top segments per system (``()`` when none did)."""
    out = []
    for name, column in ctx.metrics.items():
        if not column.spans:
            continue
        segments: list[ErrorSpanSegment] = []
        for s in ctx.systems:
            scores = np.asarray(column.metric.segment_values(column.stats[s]), dtype=np.float64)
            segments += top_segments(s, ctx.hypotheses[s], column.spans[s], scores, TOP)
        out.append(
            ErrorSpansSection(
                metric=name,
                top=TOP,
                n_spans={s: sum(len(found) for found in column.spans[s]) for s in ctx.systems},
                n_segments={s: sum(1 for found in column.spans[s] if found) for s in ctx.systems},
                segments=tuple(segments),
            )
        )
    return tuple(out)
