"""A report's sections: each a function of the one :class:`~nlpeval.reports.context.ReportContext` returning
its part of the :class:`~nlpeval.reports.model.Report`, listed in :data:`SECTIONS` in the report's order.

A new section is one function (``section(ctx)`` in its own module here, reading only the context) plus one line in
:data:`SECTIONS` naming the :class:`~nlpeval.reports.model.Report` field it fills; a new kind of bucket
table is one function plus one line in :data:`nlpeval.reports.sections.buckets.TABLES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nlpeval.reports.context import ReportContext
from nlpeval.reports.record import FrozenRecord, record
from nlpeval.reports.sections import (
    buckets,
    error_spans,
    examples,
    human_agreement,
    length,
    ngrams,
    sentences,
    summarization,
)


@record
class Section(FrozenRecord):
    """One section: the :class:`~nlpeval.reports.model.Report` field it fills, the function of the context
    that builds it, the progress step it reports (``None``: none) and whether it only collects what the
    second thread computes (built after the others, so that thread keeps running meanwhile)."""

    field: str
    build: Callable[[ReportContext], Any]
    step: str | None = None
    waits: bool = False


def _leaderboard(ctx: ReportContext) -> Any:
    """The leaderboard (built on the second thread, :mod:`nlpeval.reports.sections.resampled`)."""
    return ctx.resampled().leaderboard


#: the generation report's sections, in order
SECTIONS: tuple[Section, ...] = (
    Section("leaderboard", _leaderboard, "leaderboard", waits=True),
    Section("length", length.section, "length"),
    Section("sentences", sentences.section, "sentences"),
    Section("buckets", buckets.section, "buckets"),
    Section("ngrams", ngrams.section, "n-grams"),
    Section("examples", examples.section, "examples"),
    Section("summarization", summarization.section, waits=True),
    Section("human_agreement", human_agreement.section),
    Section("error_spans", error_spans.section),
)


def build_sections(ctx: ReportContext, sections: tuple[Section, ...] | None = None) -> dict[str, Any]:
    """Field -> part of every section of ``sections`` (default :data:`SECTIONS`; steps reported in order,
    waiting sections built last)."""
    sections = SECTIONS if sections is None else sections
    parts: dict[str, Any] = {}
    for section in sections:
        if section.step is not None:
            ctx.progress(section.step)
        if not section.waits:
            parts[section.field] = section.build(ctx)
    for section in sections:
        if section.waits:
            parts[section.field] = section.build(ctx)
    return parts
