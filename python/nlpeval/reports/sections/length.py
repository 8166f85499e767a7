"""The length and sanity section: length ratios, BLEU's brevity penalty, copied and untranslated outputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.reports.context import ReportContext


def section(ctx: ReportContext) -> Any:
    """:func:`~nlpeval.reports.analyses.sanity.length_section` of the report's inputs: with sacreBLEU's
    lengths and brevity penalty when BLEU is reported, compare-mt's token lengths in its preset."""
    from nlpeval.reports.analyses import ngram_codes as nc
    from nlpeval.reports.analyses.sanity import length_section

    systems = list(ctx.systems)
    bleu_components = None
    if "bleu" in ctx.metrics and ctx.preset is None:
        column = ctx.metrics["bleu"]
        components = {s: column.metric.components(column.stats[s].totals()) for s in systems}
        if all("hyp_len" in c and "brevity_penalty" in c for c in components.values()):
            bleu_components = components
    token_lengths = None
    if ctx.preset == "compare-mt":
        sides = ctx.corpus.sides
        token_lengths = (np.diff(sides[nc.REF][1]).tolist(), {s: np.diff(sides[s][1]).tolist() for s in systems})
    return length_section(systems, ctx.hypotheses, ctx.refs, ctx.sources, bleu_components, token_lengths)
