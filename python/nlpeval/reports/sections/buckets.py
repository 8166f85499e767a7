"""The bucket tables: one builder per kind of table, in the order the report shows them (:data:`TABLES`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import BucketTable


def section(ctx: ReportContext) -> tuple[BucketTable, ...]:
    """Every table of every builder of :data:`TABLES`, in order."""
    return tuple(table for builder in TABLES for table in builder(ctx))


def resampled_tables(ctx: ReportContext) -> Sequence[BucketTable]:
    """The tables built on the second thread (word accuracy by frequency; compare-mt's BLEU by length)."""
    return ctx.resampled().tables


def length_diff_counts(ctx: ReportContext) -> Sequence[BucketTable]:
    """Segments by output minus reference length (compare-mt's edges)."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses.buckets import Buckets, bounds_of, count_table

    edges = cm.LENGTHDIFF_EDGES
    head = Buckets(
        "count-by-length-diff",
        "segments by len(output) - len(reference)",
        "length-diff",
        cm.bucket_labels(edges),
        bounds_of(edges),
    )
    diffs = ctx.length_diffs
    return (count_table(head, {s: cm.bucket_of(diffs[s], edges) for s in ctx.systems}, ctx.compared),)


def sentence_bleu_counts(ctx: ReportContext) -> Sequence[BucketTable]:
    """compare-mt's sentence BLEU (the compare-mt preset, or no BLEU among the metrics): its segment counts;
    otherwise each metric's own "segments by sentence X" says it once, on the leaderboard's scale."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses.buckets import Buckets, bounds_of, count_table

    scores = ctx.segment_scores.get("sentbleu")
    if scores is None:
        return ()
    edges = cm.SENTBLEU_EDGES
    head = Buckets(
        "count-by-sentbleu",
        "segments by sentence BLEU (compare-mt)",
        "sentence-score:sentbleu",
        cm.bucket_labels(edges, integer=False),
        bounds_of(edges),
    )
    return (count_table(head, {s: cm.bucket_of(100.0 * scores[s], edges) for s in ctx.systems}, ctx.compared),)


def sentence_metric_tables(ctx: ReportContext) -> Sequence[BucketTable]:
    """Each metric by reference length and segment counts by its sentence score (no preset)."""
    from nlpeval.reports.analyses import buckets as analyses
    from nlpeval.reports.analyses import comparemt as cm

    if ctx.preset is not None:
        return ()
    tables: list[BucketTable] = []
    for name, column in ctx.metrics.items():
        tables.extend(
            analyses.sentence_metric_tables(
                name=name,
                label=column.label,
                metric=column.metric,
                stats=column.stats,
                segment_scores=ctx.segment_scores[name],
                ref_lengths=ctx.ref_lengths,
                length_edges=cm.LENGTH_EDGES,
                compared=ctx.compared,
                higher_is_better=column.higher_is_better,
                scale=column.scale,
            )
        )
    return tables


def quantile_tables(ctx: ReportContext) -> Sequence[BucketTable]:
    """Equal-frequency buckets (``buckets="quantile"``, no preset)."""
    if ctx.preset is not None or ctx.options.buckets != "quantile":
        return ()
    from nlpeval.reports.analyses import quantiles

    sentbleu = ctx.segment_scores.get("sentbleu")
    metrics = ctx.metrics
    return quantiles.quantile_tables(
        n_quantiles=ctx.options.quantiles,
        ref_lengths=ctx.ref_lengths,
        sources=ctx.sources,
        length_diffs=ctx.length_diffs,
        metrics={n: (c.label, c.metric, c.stats, c.higher_is_better) for n, c in metrics.items()},
        sentence_scores=[
            *([("sentbleu", "BLEU (compare-mt)", sentbleu, 100.0)] if sentbleu else []),
            *((n, c.label, ctx.segment_scores[n], c.scale) for n, c in metrics.items()),
        ],
        compared=ctx.compared,
    )


def label_tables(ctx: ReportContext) -> Sequence[BucketTable]:
    """Every metric by segment label (``labels``, no preset)."""
    if ctx.preset is not None or ctx.labels is None:
        return ()
    from nlpeval.reports.analyses.buckets import Buckets, metric_table

    names = sorted(set(ctx.labels))
    index = {label: i for i, label in enumerate(names)}
    assignment = np.array([index[label] for label in ctx.labels])
    return [
        metric_table(
            Buckets(f"{name}-by-label", f"{column.label} by label", "label", names, [(None, None)] * len(names)),
            assignment,
            statistic=name,
            metric=column.metric,
            stats=column.stats,
            compared=ctx.compared,
            higher_is_better=column.higher_is_better,
        )
        for name, column in ctx.metrics.items()
    ]


#: the bucket tables' builders, in the order of the report: a new kind of table is one function and one line
TABLES: tuple[Callable[[ReportContext], Sequence[BucketTable]], ...] = (
    resampled_tables,
    length_diff_counts,
    sentence_bleu_counts,
    sentence_metric_tables,
    quantile_tables,
    label_tables,
)
