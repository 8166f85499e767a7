"""The example browser: every shown segment with its references, outputs, sentence scores, matched words and
(WER family) word alignments, and compare-mt's segments of largest difference against the baseline."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import Example, ExamplesSection

#: segments listed per direction of compare-mt's largest differences
LARGEST_DIFFERENCES = 10


def section(ctx: ReportContext) -> ExamplesSection:
    """The example browser of ``ctx`` (the first ``max_examples`` segments)."""
    scores = ctx.segment_scores
    example_metric = "sentbleu" if "sentbleu" in scores else next(iter(scores))
    shown, systems = ctx.shown, ctx.systems
    hypotheses, refs, sources, labels = ctx.hypotheses, ctx.refs, ctx.sources, ctx.labels
    aligned = _word_alignments(ctx, shown)
    # per metric, the systems' scores of each segment (None where not finite)
    score_rows = {
        m: list(zip(*(_finite_list(by[s][:shown]) for s in systems), strict=True)) for m, by in scores.items()
    }
    # each record's per-system tuples, column by column (zip: no generator per record)
    hypothesis_rows = list(zip(*(hypotheses[s][:shown] for s in systems), strict=True))
    matched_rows = list(zip(*(ctx.matched[s][:shown] for s in systems), strict=True))
    score_items = list(score_rows.items())
    records = tuple(
        Example(
            id=i,
            source=sources[i] if sources is not None else None,
            references=tuple(refs[i]),
            hypotheses=hypothesis_rows[i],
            scores={m: rows[i] for m, rows in score_items},
            label=labels[i] if labels is not None else None,
            matched=matched_rows[i],
            alignments=tuple(aligned[s][i][0] for s in systems) if aligned else (),
            alignment_references=tuple(aligned[s][i][1] for s in systems) if aligned else (),
        )
        for i in range(shown)
    )
    largest = largest_differences(ctx, scores[example_metric])
    return ExamplesSection(ctx.n_segments, ctx.options.max_examples, example_metric, records, largest)


def largest_differences(ctx: ReportContext, scores: Mapping[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
    """compare-mt's segments of largest sentence-score difference, each way, of every system and the baseline."""
    baseline = ctx.baseline
    largest = {}
    # compare-mt's token lists are the stripped lines split on spaces: equal lists, equal stripped lines
    stripped = {s: [h.strip() for h in ctx.hypotheses[s]] for s in ctx.systems}
    stripped_refs = [group[0].strip() for group in ctx.refs]
    for s in ctx.compared.others:
        # compare-mt's order: (right - left, left, right, segment) ascending, identical triples once
        left = (100.0 * np.asarray(scores[baseline], dtype=np.float64)).tolist()
        right = (100.0 * np.asarray(scores[s], dtype=np.float64)).tolist()
        seen: set[tuple[str, str, str]] = set()
        ranked = []
        for i, key in enumerate(zip(stripped[baseline], stripped[s], stripped_refs, strict=True)):
            if key in seen:
                continue
            seen.add(key)
            a, b = left[i], right[i]
            ranked.append((b - a, a, b, i))
        ranked.sort()
        largest[f"{baseline} > {s}"] = tuple(item[3] for item in ranked[:LARGEST_DIFFERENCES])
        # compare-mt lists this side in ascending order too (largest difference last)
        largest[f"{s} > {baseline}"] = tuple(item[3] for item in ranked[-LARGEST_DIFFERENCES:])
    return largest


def _word_alignments(ctx: ReportContext, shown: int) -> dict[str, list[tuple[str, int]]] | None:
    """The example browser's word alignments, when a word edit-rate metric (WER family) is reported."""
    if "nlpeval.metrics.wer.metric" not in sys.modules:  # no WER-family metric can exist: skip the import
        return None
    from nlpeval.metrics.wer.metric import EditRate
    from nlpeval.reports.analyses.sentences import word_alignments

    metric = next(
        (c.metric for c in ctx.metrics.values() if isinstance(c.metric, EditRate) and c.metric.unit == "word"), None
    )
    if metric is None:
        return None
    refs = ctx.refs[:shown]
    return {s: word_alignments(metric, list(h[:shown]), refs) for s, h in ctx.hypotheses.items()}


def _finite_list(values: Any) -> list[float | None]:
    """The values as floats, ``None`` where not finite (NaN, inf)."""
    array = np.asarray(values, dtype=np.float64)
    out: list[float | None] = array.tolist()
    for i in np.flatnonzero(~np.isfinite(array)).tolist():
        out[i] = None
    return out
