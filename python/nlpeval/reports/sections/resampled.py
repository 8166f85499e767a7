"""The sections built on the report's second thread: the leaderboard, then the word tables by frequency and
(the compare-mt preset) compare-mt's BLEU by reference length. The default report has one BLEU by reference
length, sacreBLEU's, among every metric's sentence tables, not a second on other tokens."""

from __future__ import annotations

import numpy as np

from nlpeval.reports.context import ReportContext, Resampled
from nlpeval.reports.model import BucketTable, Leaderboard


def resampled_sections(ctx: ReportContext) -> Resampled:
    """:class:`~nlpeval.reports.context.Resampled` of ``ctx``: mostly native resampling (GIL released)."""
    tables = [*frequency_tables(ctx)]
    if ctx.preset == "compare-mt":
        tables.append(comparemt_bleu_by_length(ctx))
    return Resampled(leaderboard_of(ctx), tuple(tables))


def leaderboard_of(ctx: ReportContext) -> Leaderboard:
    """Scores with intervals, tests against the baseline and between all pairs (Holm), clusters."""
    from nlpeval.reports.analyses.leaderboard import leaderboard

    return leaderboard(
        list(ctx.systems),
        {name: column.metric for name, column in ctx.metrics.items()},
        {name: column.stats for name, column in ctx.metrics.items()},
        higher_is_better={name: column.higher_is_better for name, column in ctx.metrics.items()},
        baseline=ctx.baseline,
        all_pairs=ctx.options.all_pairs,
        **ctx.resampling.leaderboard_options(),
    )


def frequency_tables(ctx: ReportContext) -> tuple[BucketTable, ...]:
    """compare-mt's word F-measure, precision and recall by the word's frequency (in the reference, or in
    ``freq_corpus``)."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses import ngram_codes as nc
    from nlpeval.reports.analyses.buckets import bounds_of, word_tables

    corpus = ctx.corpus
    if ctx.freq_corpus is not None:
        freq = cm.frequencies([cm.tokenize(x) for x in ctx.freq_corpus])
        frequency = np.array([freq.get(w, 0) if i else 0 for i, w in enumerate(corpus.words)])
    else:
        # the reference's word counts (compare-mt's frequencies of the reference), by word id
        frequency = np.bincount(corpus.sides[nc.REF][0], minlength=len(corpus.words))
        frequency[0] = 0
    bucket_ids = cm.bucket_of(frequency, cm.FREQ_EDGES)
    n_buckets = len(cm.FREQ_EDGES) + 1
    word_rows = {s: nc.word_rows(corpus, s, bucket_ids, n_buckets, ctx.matched[s]) for s in ctx.systems}
    return word_tables(
        rows_by_system=word_rows,
        labels=cm.bucket_labels(cm.FREQ_EDGES),
        bounds=bounds_of(cm.FREQ_EDGES),
        accuracy=cm.word_accuracy,
        by="frequency",
        compared=ctx.compared,
    )


def comparemt_bleu_by_length(ctx: ReportContext) -> BucketTable:
    """compare-mt's BLEU by reference length (the compare-mt preset: the only metric is compare-mt's BLEU)."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses.buckets import Buckets, bounds_of, metric_table

    column = ctx.metrics["bleu"]
    edges = cm.LENGTH_EDGES
    return metric_table(
        Buckets(
            "bleu-by-ref-length",
            "BLEU (compare-mt) by reference length",
            "ref-length",
            cm.bucket_labels(edges),
            bounds_of(edges),
        ),
        cm.bucket_of(ctx.ref_lengths, edges),
        statistic="bleu",
        metric=column.metric,
        stats=column.stats,
        compared=ctx.compared,
        empty_value=0.0,
    )
