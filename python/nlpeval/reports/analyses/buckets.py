"""Bucket tables: a statistic per bucket and system, with n, bootstrap interval and a BH-corrected
significance marker against the baseline; buckets with few segments are flagged."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats
from nlpeval.reports.analyses.multitest import benjamini_hochberg
from nlpeval.reports.analyses.resampling import Resamples, smoothed_p
from nlpeval.reports.model import BucketCell, BucketRow, BucketTable, Estimate
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
        for system, estimate, p, difference in cells:
            p_adj = next(adjusted)
            marker = None if system == baseline else _marker(p_adj, difference, alpha, higher_is_better)
            built.append(BucketCell(system, estimate, p, p_adj, marker))
        rows.append(BucketRow(label, lower, upper, tuple(built), few=n_segments < min_segments))
    return tuple(rows)


def metric_table(
    *,
    id: str,
    title: str,
    by: str,
    statistic: str,
    assignment: np.ndarray,
    labels: Sequence[str],
    bounds: Sequence[tuple[float | None, float | None]],
    metric: CorpusMetric,
    stats: Mapping[str, Stats],
    systems: Sequence[str],
    baseline: str,
    n_bootstrap: int,
    seed: int | None,
    alpha: float = 0.05,
    level: float = 0.95,
    higher_is_better: bool = True,
    min_segments: int = 10,
    empty_value: float | None = None,
    scale: float = 1.0,
) -> BucketTable:
    """A corpus metric per bucket of segments (``assignment[i]`` is segment ``i``'s bucket, the same
    for every system). Intervals and paired-bootstrap p-values resample within each bucket."""
    raw = []
    sizes = []
    for b, label in enumerate(labels):
        members = np.flatnonzero(assignment == b)
        sizes.append(len(members))
        lower, upper = bounds[b]
        resamples = Resamples.draw(len(members), n_bootstrap, seed) if n_bootstrap >= 2 and len(members) >= 2 else None
        resampled = {}
        values = {}
        for s in systems:
            subset = stats[s].take(members)
            if len(members):
                values[s] = scale * float(metric.corpus_values(subset.totals()))
            else:
                values[s] = empty_value
            if resamples is not None:
                resampled[s] = scale * np.asarray(metric.corpus_values(resamples.totals(subset)), dtype=np.float64)
        cells = []
        for s in systems:
            low = high = None
            p = None
            difference = 0.0
            if resamples is not None:
                ci = percentile_interval(resampled[s], level=level)
                low, high = ci.low, ci.high
                if s != baseline:
                    difference = values[s] - values[baseline]
                    spread = np.abs(resampled[s] - resampled[baseline])
                    p = smoothed_p(spread - spread.mean(), abs(difference))
            cells.append((s, Estimate(values[s], len(members), low, high), p, difference))
        raw.append((label, lower, upper, cells))
    rows = _assemble(raw, baseline, alpha, higher_is_better, min_segments, sizes)
    return BucketTable(id, title, "sentence", by, statistic, rows, False, min_segments)


def count_table(
    *,
    id: str,
    title: str,
    by: str,
    assignments: Mapping[str, np.ndarray],
    labels: Sequence[str],
    bounds: Sequence[tuple[float | None, float | None]],
    systems: Sequence[str],
    min_segments: int = 10,
    depends_on_hypothesis: bool = True,
) -> BucketTable:
    """Segment counts per bucket and system (bucket membership may depend on each system's output)."""
    rows = []
    for b, label in enumerate(labels):
        cells = tuple(
            BucketCell(s, Estimate(float(np.sum(assignments[s] == b)), int(np.sum(assignments[s] == b))))
            for s in systems
        )
        few = min(cell.estimate.n for cell in cells) < min_segments
        rows.append(BucketRow(label, bounds[b][0], bounds[b][1], cells, few))
    return BucketTable(id, title, "sentence", by, "count", tuple(rows), depends_on_hypothesis, min_segments)


def word_tables(
    *,
    rows_by_system: Mapping[str, np.ndarray],
    labels: Sequence[str],
    bounds: Sequence[tuple[float | None, float | None]],
    accuracy: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    systems: Sequence[str],
    baseline: str,
    n_bootstrap: int,
    seed: int | None,
    by: str,
    alpha: float = 0.05,
    level: float = 0.95,
    min_words: int = 10,
) -> tuple[BucketTable, ...]:
    """Word F-measure, precision and recall per bucket (``rows_by_system[s]`` is ``(n, 3, B)``
    matched/output/reference counts); intervals resample segments."""
    n_segments = next(iter(rows_by_system.values())).shape[0]
    resamples = Resamples.draw(n_segments, n_bootstrap, seed) if n_bootstrap >= 2 and n_segments >= 2 else None
    point = {s: accuracy(rows.sum(axis=0)) for s, rows in rows_by_system.items()}
    counts = {s: rows.sum(axis=0) for s, rows in rows_by_system.items()}
    resampled = {}
    if resamples is not None:
        for s, rows in rows_by_system.items():
            totals = resamples.counts @ rows.reshape(n_segments, -1).astype(np.float64)
            resampled[s] = accuracy(np.rint(totals).reshape(len(totals), *rows.shape[1:]))
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
                if resamples is not None:
                    series = resampled[s][statistic][:, b]
                    ci = percentile_interval(series, level=level)
                    low, high = ci.low, ci.high
                    if s != baseline:
                        spread = np.abs(series - resampled[baseline][statistic][:, b])
                        p = smoothed_p(spread - spread.mean(), abs(difference))
                cells.append((s, Estimate(value, n, low, high), p, difference))
            raw.append((label, bounds[b][0], bounds[b][1], cells))
        rows = _assemble(raw, baseline, alpha, True, min_words, sizes)
        tables.append(
            BucketTable(
                f"word-{statistic}-{by}", f"{titles[statistic]} by {by}", "word", by, statistic, rows, False, min_words
            )
        )
    return tuple(tables)
