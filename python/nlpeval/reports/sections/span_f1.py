"""The "Span F1 by type" section of the sequence labelling report (:func:`nlpeval.reports.spans.span_report`:
``nlpeval report --task spans``, ``--conll``, ``-m span_f1``): every system's precision, recall and F1 per entity
type and the micro, macro and weighted averages (seqeval's ``classification_report`` rows, or conlleval.pl's counts
in ``--span-mode conlleval``), with percentile bootstrap intervals of each F1 over sentences.

Not a section of the generation report (:data:`nlpeval.reports.sections.SECTIONS`): span F1 always gives the
labelling report (:func:`nlpeval.reports.spans.labelling_report`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from nlpeval.core.stats import Stats
from nlpeval.reports.model import SpanF1Section, SpanTypeRow
from nlpeval.reports.settings import Resampling

if TYPE_CHECKING:
    from nlpeval.metrics.span_f1.metric import SpanF1


def resampled_totals(stats: Stats, resampling: Resampling) -> np.ndarray | None:
    """``(n_bootstrap, width)`` totals of sentence resamples (the leaderboard's draws for the same seed), or
    ``None`` without resampling (fewer than 2 resamples or sentences)."""
    from nlpeval.significance.bootstrap import index_blocks

    if resampling.n_bootstrap < 2 or len(stats) < 2:
        return None
    blocks = index_blocks(len(stats), resampling.n_bootstrap, resampling.seed)
    return np.concatenate([stats.schema.resampled_totals(stats.rows, block) for block in blocks])


def _interval(values: np.ndarray | None, level: float) -> tuple[float | None, float | None]:
    from nlpeval.significance.bootstrap import percentile_interval

    if values is None:
        return None, None
    ci = percentile_interval(values, level=level)
    return ci.low, ci.high


def system_rows(system: str, metric: SpanF1, stats: Stats, resampling: Resampling) -> list[SpanTypeRow]:
    """One system's rows: its entity types (sorted) with any chunk, then the three averages.

    Examples
    --------
    >>> import nlpeval
    >>> from nlpeval.reports.settings import Resampling
    >>> metric = nlpeval.SpanF1()
    >>> stats = metric.segment_stats([["B-PER", "O"], ["B-LOC"]], [["B-PER", "I-PER"], ["B-LOC"]])
    >>> rows = system_rows("A", metric, stats, Resampling(n_bootstrap=0))
    >>> [(r.type, r.f1, r.support) for r in rows]
    [('LOC', 1.0, 1), ('PER', 0.0, 1), ('micro avg', 0.5, 2), ('macro avg', 0.5, 2), ('weighted avg', 0.5, 2)]
    """
    from nlpeval.metrics.span_f1.metric import AVERAGES, FIXED, averaged, prf

    bound = metric.bound(stats)
    types = bound.types or ()
    k, f = len(types), len(FIXED)
    zd = float(bound.zero_division)
    totals = stats.totals()
    drawn = resampled_totals(stats, resampling)
    tp, pred, true = (totals[f + i * k : f + (i + 1) * k] for i in range(3))
    p, r, f1 = prf(tp, pred, true, zd)
    if drawn is not None:
        d_tp, d_pred, d_true = (drawn[:, f + i * k : f + (i + 1) * k] for i in range(3))
        type_f1 = prf(d_tp, d_pred, d_true, zd)[2]
    rows = []
    for i in sorted(range(k), key=lambda j: types[j]):
        if not true[i] and not pred[i]:
            continue
        low, high = _interval(None if drawn is None else type_f1[:, i], resampling.confidence)
        rows.append(
            SpanTypeRow(system, types[i], float(p[i]), float(r[i]), float(f1[i]), int(true[i]), int(pred[i]), low, high)
        )
    for average in AVERAGES:
        ap, ar, af = averaged(totals, average, zd)
        low, high = _interval(None if drawn is None else averaged(drawn, average, zd)[2], resampling.confidence)
        support, predicted = int(totals[4]), int(totals[3])
        rows.append(
            SpanTypeRow(system, f"{average} avg", float(ap), float(ar), float(af), support, predicted, low, high)
        )
    return rows


def metric_section(
    name: str, metric: SpanF1, stats: Mapping[str, Stats], systems: Sequence[str], resampling: Resampling
) -> SpanF1Section:
    """The per-type table of one span F1 metric: every system's rows (statistics on one schema)."""
    rows: list[SpanTypeRow] = []
    for system in systems:
        rows += system_rows(system, metric, stats[system], resampling)
    n_segments = len(stats[systems[0]]) if systems else 0
    n_bootstrap = resampling.n_bootstrap if n_segments >= 2 and resampling.n_bootstrap >= 2 else 0
    return SpanF1Section(name, metric.mode, n_bootstrap, resampling.confidence, tuple(rows))
