"""The "Agreement with humans" section (``nlpeval report --human FILE``): none without human scores."""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.reports.context import ReportContext


def section(ctx: ReportContext) -> Any:
    """:func:`~nlpeval.reports.analyses.human_agreement.human_agreement` of every reported metric's segment and
    corpus scores against ``ctx.options.human`` (the report's seed; ``None`` without human scores)."""
    human = ctx.options.human
    if human is None:
        return None
    from nlpeval.reports.analyses.human_agreement import human_agreement

    segments = {
        name: {s: np.asarray(column.metric.segment_values(column.stats[s]), dtype=np.float64) for s in ctx.systems}
        for name, column in ctx.metrics.items()
    }
    corpus = {
        name: {s: float(column.metric.corpus_values(column.stats[s].totals())) for s in ctx.systems}
        for name, column in ctx.metrics.items()
    }
    higher = {name: column.higher_is_better for name, column in ctx.metrics.items()}
    seed = ctx.resampling.seed
    return human_agreement(human, segments, corpus, higher, alpha=ctx.resampling.alpha, seed=seed)
