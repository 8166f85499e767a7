"""The sentence-level section: each sentence score's distribution per system and the pairwise win counts."""

from __future__ import annotations

from typing import Any

from nlpeval.reports.context import ReportContext


def section(ctx: ReportContext) -> Any:
    """:func:`~nlpeval.reports.analyses.sentences.sentence_section` of every sentence score of ``ctx``."""
    from nlpeval.reports.analyses.sentences import sentence_section

    return sentence_section(list(ctx.systems), ctx.segment_scores, ctx.higher_is_better)
