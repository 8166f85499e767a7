"""Bucket tables: a statistic per bucket and system, with n, bootstrap interval and a BH-corrected
significance marker against the baseline; buckets with few segments are flagged."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats
from nlpeval.reports.analyses.multitest import benjamini_hochberg
from nlpeval.reports.analyses.resampling import Resamples, batched_totals, smoothed_p
from nlpeval.reports.model import BucketCell, BucketRow, BucketTable, Estimate
from nlpeval.reports.record import FrozenRecord, record
from nlpeval.reports.settings import Comparison
from nlpeval.significance.bootstrap import percentile_interval


def _marker(p_adjusted: float | None, difference: float, alpha: float, higher_is_better: bool) -> str | None:
    if p_adjusted is None:
        return None
    if p_adjusted >= alpha:
        return ""
    better = difference > 0 if higher_is_better else difference < 0
    return "+" if better else "-"


def _untested(
    cell: tuple[str, Estimate, float | None, float],
    cells: Sequence[tuple[str, Estimate, float | None, float]],
    baseline: str,
) -> tuple[str, Estimate, float | None, float]:
    system, estimate, _, difference = cell
    base = next(c[1] for c in cells if c[0] == baseline)
    if system != baseline and (estimate.n == 0 or base.n == 0):
        return system, estimate, None, difference
    return cell


def _assemble(
    raw: list[tuple[str, float | None, float | None, list[tuple[str, Estimate, float | None, float]]]],
    baseline: str,
    alpha: float,
    higher_is_better: bool,
    min_segments: int,
    segments_per_row: Sequence[int],
) -> tuple[BucketRow, ...]:
    # an empty or one-sided cell (no segment/word on the system's or the baseline's side) has no test
    raw = [
        (label, lower, upper, [_untested(cell, cells, baseline) for cell in cells])
        for label, lower, upper, cells in raw
    ]
    flat = [p for _, _, _, cells in raw for (_, _, p, _) in cells]
    adjusted = iter(benjamini_hochberg(flat))
    rows = []
    for (label, lower, upper, cells), n_segments in zip(raw, segments_per_row, strict=True):
        built = []
        few = n_segments < min_segments
        for system, estimate, p, difference in cells:
            p_adj = next(adjusted)
            # a bucket below the trust threshold shows "few" instead of a marker (its p-value is kept)
            marker = None if system == baseline or few else _marker(p_adj, difference, alpha, higher_is_better)
            built.append(BucketCell(system, estimate, p, p_adj, marker))
        rows.append(BucketRow(label, lower, upper, tuple(built), few=few))
    return tuple(rows)


@record
class Buckets(FrozenRecord):
    """The head of a bucket table: its id and title, what it buckets by, and the buckets' labels and
    ``(lower, upper)`` bounds (``None`` for an open end)."""

    id: str
    title: str
    by: str
    labels: Sequence[str]
    bounds: Sequence[tuple[float | None, float | None]]


def metric_table(
    buckets: Buckets,
    assignment: np.ndarray,
    *,
    statistic: str,
    metric: CorpusMetric,
    stats: Mapping[str, Stats],
    compared: Comparison,
    higher_is_better: bool = True,
    empty_value: float | None = None,
    scale: float = 1.0,
) -> BucketTable:
    """A corpus metric per bucket of segments (``assignment[i]`` is segment ``i``'s bucket, the same
    for every system). Intervals and paired-bootstrap p-values resample within each bucket."""
    systems, baseline, settings = compared.systems, compared.baseline, compared.resampling
    n_bootstrap, seed, level = settings.n_bootstrap, settings.seed, settings.confidence
    raw = []
    sizes = []
    for b, label in enumerate(buckets.labels):
        members = np.flatnonzero(assignment == b)
        sizes.append(len(members))
        lower, upper = buckets.bounds[b]
        resamples = Resamples.draw(len(members), n_bootstrap, seed) if n_bootstrap >= 2 and len(members) >= 2 else None
        resampled = {}
        values: dict[str, float | None] = {}
        subsets = {s: stats[s].take(members) for s in systems}
        totals = batched_totals(resamples, subsets) if resamples is not None else {}
        for s in systems:
            subset = subsets[s]
            if len(members):
                values[s] = scale * float(metric.corpus_values(subset.totals()))
            else:
                values[s] = empty_value
            if resamples is not None:
                resampled[s] = scale * np.asarray(metric.corpus_values(totals[s]), dtype=np.float64)
        cells = []
        for s in systems:
            low = high = None
            p = None
            difference = 0.0
            if resamples is not None:
                ci = percentile_interval(resampled[s], level=level)
                low, high = ci.low, ci.high
                if s != baseline:
                    value, base = values[s], values[baseline]
                    assert value is not None and base is not None  # resampled: at least 2 segments
                    difference = value - base
                    spread = np.abs(resampled[s] - resampled[baseline])
                    p = smoothed_p(spread - spread.mean(), abs(difference))
            cells.append((s, Estimate(values[s], len(members), low, high), p, difference))
        raw.append((label, lower, upper, cells))
    min_segments = compared.min_segments
    rows = _assemble(raw, baseline, settings.alpha, higher_is_better, min_segments, sizes)
    return BucketTable(
        buckets.id,
        buckets.title,
        "sentence",
        buckets.by,
        statistic,
        rows,
        False,
        min_segments,
        segment_buckets=_membership(assignment, buckets.labels),
    )


def _membership(assignment: np.ndarray, labels: Sequence[str]) -> tuple[int, ...]:
    """Bucket index per segment, ``-1`` outside every bucket."""
    index = np.asarray(assignment, dtype=np.int64)
    return tuple(np.where((index >= 0) & (index < len(labels)), index, -1).tolist())


def count_table(
    buckets: Buckets,
    assignments: Mapping[str, np.ndarray],
    compared: Comparison,
    *,
    depends_on_hypothesis: bool = True,
) -> BucketTable:
    """Segment counts per bucket and system (bucket membership may depend on each system's output)."""
    systems, min_segments, labels, bounds = compared.systems, compared.min_segments, buckets.labels, buckets.bounds
    rows = []
    for b, label in enumerate(labels):
        cells = tuple(
            BucketCell(s, Estimate(float(np.sum(assignments[s] == b)), int(np.sum(assignments[s] == b))))
            for s in systems
        )
        few = min(cell.estimate.n for cell in cells) < min_segments
        rows.append(BucketRow(label, bounds[b][0], bounds[b][1], cells, few))
    members = {s: _membership(assignments[s], labels) for s in systems}
    shared = not depends_on_hypothesis and len({members[s] for s in systems}) == 1
    return BucketTable(
        buckets.id,
        buckets.title,
        "sentence",
        buckets.by,
        "count",
        tuple(rows),
        depends_on_hypothesis,
        min_segments,
        segment_buckets=members[systems[0]] if shared else None,
        segment_buckets_by_system=None if shared else members,
    )


#: compare-mt's reference-length cutoffs (``bucketers.py``), reused for every sentence-level metric
SCORE_DECILES = tuple(x / 10.0 for x in range(1, 10))


def score_edges(values: Mapping[str, np.ndarray]) -> tuple[float, ...]:
    """Bucket edges of sentence scores: deciles of the scale for scores in [0, 1]; tenths up to 1
    and one bucket ``>= 1`` for non-negative scores that can exceed 1 (TER, WER); else the deciles
    of the pooled observed scores.

    Examples
    --------
    >>> import numpy as np
    >>> score_edges({"A": np.array([0.0, 1.0])})[:3], score_edges({"A": np.array([0.2, 1.5])})[-1]
    ((0.1, 0.2, 0.3), 1.0)
    """
    pooled = np.concatenate([np.asarray(v, dtype=np.float64) for v in values.values()])
    finite = pooled[np.isfinite(pooled)]
    if finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1):
        return SCORE_DECILES
    if finite.min() >= 0:
        return (*SCORE_DECILES, 1.0)
    return tuple(float(x) for x in np.unique(np.quantile(finite, np.linspace(0.1, 0.9, 9))))


def sentence_metric_tables(
    *,
    name: str,
    label: str,
    metric: CorpusMetric,
    stats: Mapping[str, Stats],
    segment_scores: Mapping[str, np.ndarray],
    ref_lengths: np.ndarray,
    length_edges: Sequence[float],
    compared: Comparison,
    higher_is_better: bool = True,
    scale: float = 1.0,
) -> tuple[BucketTable, BucketTable]:
    """compare-mt's two sentence analyses for any sentence-level metric: the metric (its corpus value on
    each bucket's segments, with interval and BH-marked paired test) by reference length (compare-mt's
    cutoffs ``length_edges``), and segment counts by sentence score (:func:`score_edges`), whose bucket
    labels and bounds are on the leaderboard's ``scale`` (100 for BLEU: ``[10,20)``, not ``[0.1,0.2)``).

    Examples
    --------
    >>> import numpy as np
    >>> from nlpeval.reports.metrics import build_metrics
    >>> from nlpeval.reports.settings import Comparison, Resampling
    >>> chrf = build_metrics(("chrf",))["chrf"][0]
    >>> hyps = {"A": ["a b c", "d e"], "B": ["a b", "d e f"]}
    >>> stats = {s: chrf.segment_stats(h, [["a b c"], ["d e f"]]) for s, h in hyps.items()}
    >>> scores = {s: chrf.segment_values(stats[s]) for s in hyps}
    >>> by_length, counts = sentence_metric_tables(name="chrf", label="chrF", metric=chrf, stats=stats,
    ...     segment_scores=scores, ref_lengths=np.array([3, 3]), length_edges=[2, 5],
    ...     compared=Comparison(("A", "B"), "A", Resampling(n_bootstrap=0, seed=1)))
    >>> [row.label for row in by_length.rows], by_length.rows[1].cells[0].estimate.n, by_length.segment_buckets
    (['<2', '[2,5)', '>=5'], 2, (1, 1))
    """
    from nlpeval.reports.analyses.comparemt import bucket_labels, bucket_of

    by_length = metric_table(
        Buckets(
            f"by-ref-length-{name}",
            f"{label} by reference length",
            "ref-length",
            bucket_labels(length_edges),
            bounds_of(length_edges),
        ),
        bucket_of(ref_lengths, length_edges),
        statistic=name,
        metric=metric,
        stats=stats,
        compared=compared,
        higher_is_better=higher_is_better,
    )
    edges = score_edges(segment_scores)
    # the edges on the scale the leaderboard uses (10, not 10.000000000000002 or 10.0)
    shown = tuple(int(x) if x.is_integer() else x for x in (round(scale * e, 10) for e in edges))
    integer = all(isinstance(e, int) for e in shown)
    counts = count_table(
        Buckets(
            f"count-by-sentence-{name}",
            f"segments by sentence {label}",
            f"sentence-score:{name}",
            bucket_labels(list(shown), integer=integer),
            bounds_of(shown),
        ),
        {s: _score_buckets(segment_scores[s], edges) for s in compared.systems},
        compared,
    )
    return by_length, counts


def _score_buckets(values: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    from nlpeval.reports.analyses.comparemt import bucket_of

    values = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(values), bucket_of(values, edges), -1)


def bounds_of(edges: Sequence[float]) -> list[tuple[float | None, float | None]]:
    """``(lower, upper)`` of the buckets cut at ``edges`` (compare-mt's: ``None`` for open ends).

    Examples
    --------
    >>> bounds_of([10, 20])
    [(None, 10), (10, 20), (20, None)]
    """
    lows: list[float | None] = [None, *edges]
    highs: list[float | None] = [*edges, None]
    return list(zip(lows, highs, strict=True))


def word_tables(
    *,
    rows_by_system: Mapping[str, np.ndarray],
    labels: Sequence[str],
    bounds: Sequence[tuple[float | None, float | None]],
    accuracy: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    by: str,
    compared: Comparison,
) -> tuple[BucketTable, ...]:
    """Word F-measure, precision and recall per bucket (``rows_by_system[s]`` is ``(n, 3, B)``
    matched/output/reference counts); intervals resample segments."""
    systems, baseline, settings = compared.systems, compared.baseline, compared.resampling
    level, min_words = settings.confidence, compared.min_segments
    point = {s: accuracy(rows.sum(axis=0)) for s, rows in rows_by_system.items()}
    counts = {s: rows.sum(axis=0) for s, rows in rows_by_system.items()}
    resampled = _resampled_accuracy(rows_by_system, accuracy, settings.n_bootstrap, settings.seed)
    tables = []
    titles = {"fmeas": "word F-measure", "prec": "word precision", "rec": "word recall"}
    for statistic in ("fmeas", "prec", "rec"):
        raw = []
        sizes = []
        for b, label in enumerate(labels):
            cells = []
            ref_words = int(counts[baseline][2, b])
            sizes.append(ref_words)
            for s in systems:
                n = int(counts[s][1, b]) if statistic == "prec" else int(counts[s][2, b])
                value = float(point[s][statistic][b])
                low = high = p = None
                difference = value - float(point[baseline][statistic][b])
                if resampled:
                    series = resampled[s][statistic][:, b]
                    ci = percentile_interval(series, level=level)
                    low, high = ci.low, ci.high
                    if s != baseline:
                        spread = np.abs(series - resampled[baseline][statistic][:, b])
                        p = smoothed_p(spread - spread.mean(), abs(difference))
                cells.append((s, Estimate(value, n, low, high), p, difference))
            raw.append((label, bounds[b][0], bounds[b][1], cells))
        rows = _assemble(raw, baseline, settings.alpha, True, min_words, sizes)
        tables.append(
            BucketTable(
                f"word-{statistic}-{by}", f"{titles[statistic]} by {by}", "word", by, statistic, rows, False, min_words
            )
        )
    return tuple(tables)


def _resampled_accuracy(
    rows_by_system: Mapping[str, np.ndarray],
    accuracy: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    n_bootstrap: int,
    seed: int | None,
) -> dict[str, Mapping[str, np.ndarray]]:
    """Each system's word accuracy on every bootstrap resample of the segments (empty: no resampling)."""
    n_segments = next(iter(rows_by_system.values())).shape[0]
    if n_bootstrap < 2 or n_segments < 2:
        return {}
    resamples = Resamples.draw(n_segments, n_bootstrap, seed)
    # every system's counts summed in one pass over the draws (integers: exact)
    names = list(rows_by_system)
    flat = [np.asarray(rows_by_system[s]).reshape(n_segments, -1) for s in names]
    if all(np.issubdtype(f.dtype, np.integer) for f in flat):
        summed = resamples.sums(np.hstack(flat))
    else:
        summed = np.rint(resamples.counts @ np.hstack(flat).astype(np.float64))
    width = flat[0].shape[1] if flat else 0
    resampled = {}
    for k, s in enumerate(names):
        totals = summed[:, k * width : (k + 1) * width]
        resampled[s] = accuracy(totals.reshape(len(totals), *rows_by_system[s].shape[1:]))
    return resampled
