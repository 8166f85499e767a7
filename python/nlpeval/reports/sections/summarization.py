"""The summarisation section: the ROUGE scores together, and how ``rougeLsum`` split the sentences."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import SummarizationSection


def section(ctx: ReportContext) -> SummarizationSection | None:
    """The ROUGE metrics' leaderboard cells and (``rougeLsum``) its sentence splits; ``None`` without ROUGE."""
    rouge_names = tuple(name for name in ctx.metrics if name.startswith("rouge"))
    if not rouge_names:
        return None
    splitter = _splitter(ctx.options.metric_options) if "rougeLsum" in rouge_names else None
    board = ctx.resampled().leaderboard
    section = SummarizationSection(rouge_names, tuple(c for c in board.cells if c.metric in rouge_names), splitter)
    if splitter is None:
        return section
    from nlpeval.reports.analyses.sentences import lsum_sentences

    splits, example, at = lsum_sentences(splitter, [g[0] for g in ctx.refs], ctx.hypotheses)
    return dataclasses.replace(section, lsum_splits=splits, lsum_example=example, lsum_example_id=at)


def _splitter(metric_options: object) -> str:
    """``rougeLsum``'s sentence splitter among the metric options (the registry's default when not set)."""
    from nlpeval.reports.metrics import default_options

    namespace: object
    if metric_options is None:
        namespace = default_options()
    elif isinstance(metric_options, Mapping):
        namespace = default_options(**dict(metric_options))
    else:
        namespace = metric_options
    return str(getattr(namespace, "sentence_splitter", "newline"))
