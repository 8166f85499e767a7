"""Equal-frequency (quantile) buckets of ``--buckets quantile`` / ``report(buckets="quantile")``.

Edges are ``np.quantile(values, k / N, method="lower")`` for ``k = 1 .. N - 1`` over the finite values,
without repeats and without an edge equal to the minimum (it would leave the first bucket empty), so a
bucket is ``[edge_(k-1), edge_k)`` (the last one closed at the maximum): every edge is an observed value,
tied values never straddle an edge, and repeated values give fewer than ``N`` buckets (the table's
``note`` says so). Features:

* ``quantile:ref-length`` and ``quantile:src-length`` (``--src``): compare-mt's token counts of the
  reference / source; the same segments for every system, each metric's corpus value per bucket with
  interval, paired test and BH marker (:func:`~nlpeval.reports.analyses.buckets.metric_table`);
* ``quantile:length-diff`` and ``quantile:sentence-score:<metric>``: like the fixed ``length-diff`` and
  ``sentence-score:<metric>`` tables, segment counts per system whose membership depends on the output;
  the edges are the **baseline's** quantiles (the baseline's row splits evenly, the other systems'
  counts show how their distribution differs), the outer labels span every system's values.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats
from nlpeval.reports.model import BucketTable
from nlpeval.reports.settings import Comparison

#: names of the common quantile counts (titles), others are "N-quantiles"
NAMES = {2: "halves", 3: "terciles", 4: "quartiles", 5: "quintiles", 10: "deciles"}


def quantile_name(n: int) -> str:
    """The word for ``n`` equal-frequency buckets.

    Examples
    --------
    >>> quantile_name(4), quantile_name(7)
    ('quartiles', '7-quantiles')
    """
    return NAMES.get(n, f"{n}-quantiles")


def check_quantiles(n: Any, n_segments: int) -> int:
    """``n`` if it is a valid number of quantile buckets (an integer from 2 to ``n_segments``).

    Raises
    ------
    ValueError
        Naming ``quantiles`` and the accepted range.

    Examples
    --------
    >>> check_quantiles(4, 100)
    4
    >>> check_quantiles(5, 3)
    Traceback (most recent call last):
    ...
    ValueError: quantiles must be an integer from 2 to the number of segments (3), got 5
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 2 <= int(n) <= n_segments:
        raise ValueError(f"quantiles must be an integer from 2 to the number of segments ({n_segments}), got {n!r}")
    return int(n)


@dataclass(frozen=True)
class Quantiles:
    """Equal-frequency buckets: ``edges`` (ascending observed values), a label and bounds per bucket."""

    requested: int
    edges: tuple[float, ...]
    labels: tuple[str, ...]
    bounds: tuple[tuple[float, float], ...]

    def assign(self, values: np.ndarray) -> np.ndarray:
        """Bucket index of each value (``-1`` for NaN/inf)."""
        values = np.asarray(values, dtype=np.float64)
        index = np.searchsorted(np.asarray(self.edges, dtype=np.float64), values, side="right")
        return np.where(np.isfinite(values), index, -1)

    @property
    def note(self) -> str | None:
        """Why there are fewer buckets than requested (``None`` when there are not)."""
        if len(self.labels) == self.requested:
            return None
        return (
            f"{len(self.labels)} buckets instead of {self.requested}: tied values share a quantile edge "
            "and are never split"
        )


def quantiles(values: np.ndarray, n: int, span: tuple[float, float] | None = None) -> Quantiles:
    """The ``n`` equal-frequency buckets of the finite ``values`` (``span``: the outer label bounds,
    default the values' minimum and maximum).

    Examples
    --------
    >>> import numpy as np
    >>> q = quantiles(np.array([1, 1, 1, 1, 2, 3, 5, 8]), 4)
    >>> q.edges, q.labels, q.assign(np.array([1, 2, 8, np.nan])).tolist()
    ((3.0,), ('[1,3)', '[3,8]'), [0, 0, 1, -1])
    >>> q.note
    '2 buckets instead of 4: tied values share a quantile edge and are never split'
    >>> quantiles(np.array([0.1, 0.10000001, 0.10000002, 0.3]), 4).labels  # labels stay distinct
    ('[0.1,0.10000001)', '[0.10000001,0.10000002)', '[0.10000002,0.3]')
    """
    array = np.asarray(values, dtype=np.float64)
    finite = array[np.isfinite(array)]
    if finite.size == 0:
        raise ValueError("no finite value to take quantiles of")
    edges = np.unique(np.quantile(finite, np.linspace(0, 1, n + 1)[1:-1], method="lower"))
    edges = edges[edges > finite.min()]
    low, high = (float(finite.min()), float(finite.max())) if span is None else span
    lows = [low, *(float(e) for e in edges)]
    highs = [*(float(e) for e in edges), high]
    for exact in (False, True):  # 6 significant digits unless two labels would read the same
        labels = [
            f"[{_text(lows[b], exact)},{_text(highs[b], exact)}{']' if b == len(edges) else ')'}"
            for b in range(len(edges) + 1)
        ]
        if len(set(labels)) == len(labels):
            break
    return Quantiles(n, tuple(float(e) for e in edges), tuple(labels), tuple(zip(lows, highs, strict=True)))


def _text(value: float, exact: bool) -> str:
    """``value`` with 6 significant digits, or its shortest exact spelling."""
    return repr(float(value)) if exact else f"{value:g}"


def _span(values: Mapping[str, np.ndarray]) -> tuple[float, float]:
    pooled = np.concatenate([np.asarray(v, dtype=np.float64) for v in values.values()])
    finite = pooled[np.isfinite(pooled)]
    return float(finite.min()), float(finite.max())


def quantile_tables(
    *,
    n_quantiles: int,
    ref_lengths: np.ndarray,
    sources: Sequence[str] | None,
    length_diffs: Mapping[str, np.ndarray],
    metrics: Mapping[str, tuple[str, CorpusMetric, Mapping[str, Stats], bool]],
    sentence_scores: Sequence[tuple[str, str, Mapping[str, np.ndarray], float]],
    compared: Comparison,
) -> list[BucketTable]:
    """Every quantile table of a report (see the module docstring for the features and edges).

    Parameters
    ----------
    n_quantiles : int
        Requested buckets per feature (fewer when values tie).
    ref_lengths : ndarray
        Reference tokens per segment (compare-mt's tokens).
    sources : sequence of str, optional
        Source segments (adds ``quantile:src-length``).
    length_diffs : mapping
        System -> output minus reference tokens per segment.
    metrics : mapping
        Metric name -> ``(label, metric, stats by system, higher_is_better)``.
    sentence_scores : sequence
        ``(name, label, scores by system, display scale)`` per sentence-level score.
    compared : Comparison
        The systems, the baseline, the resampling settings and the trust threshold.

    Returns
    -------
    list of BucketTable

    Examples
    --------
    >>> import numpy as np
    >>> from nlpeval.reports.metrics import build_metrics
    >>> from nlpeval.reports.settings import Comparison, Resampling
    >>> chrf = build_metrics(("chrf",))["chrf"][0]
    >>> hyps = {"A": ["a b c", "d e", "f"], "B": ["a b", "d e f", "f g"]}
    >>> refs = [["a b c"], ["d e f"], ["f g"]]
    >>> stats = {s: chrf.segment_stats(h, refs) for s, h in hyps.items()}
    >>> tables = quantile_tables(n_quantiles=2, ref_lengths=np.array([3, 3, 2]), sources=None,
    ...     length_diffs={"A": np.array([-1, 0, 1]), "B": np.array([-1, -1, 0])},
    ...     metrics={"chrf": ("chrF", chrf, stats, True)}, sentence_scores=[],
    ...     compared=Comparison(("A", "B"), "A", Resampling(n_bootstrap=0, seed=1)))
    >>> [(t.by, [r.label for r in t.rows]) for t in tables]
    [('quantile:ref-length', ['[2,3)', '[3,3]']), ('quantile:length-diff', ['[-1,0)', '[0,1]'])]
    >>> [[c.estimate.n for c in row.cells] for row in tables[1].rows]
    [[1, 2], [2, 1]]
    """
    from nlpeval.reports.analyses.comparemt import tokenize

    features = [("ref-length", "reference length", np.asarray(ref_lengths, dtype=np.float64))]
    if sources is not None:
        features.append(("src-length", "source length", np.array([len(tokenize(x)) for x in sources], np.float64)))
    counted = [("length-diff", "count-by-quantile-length-diff", "len(output) - len(reference)", length_diffs, 1.0)]
    for score_name, label, scores, scale in sentence_scores:
        counted.append(
            (
                f"sentence-score:{score_name}",
                f"count-by-quantile-sentence-{score_name}",
                f"sentence {label}",
                scores,
                scale,
            )
        )
    return [
        *_metric_tables(n_quantiles, features, metrics, compared),
        *_count_tables(n_quantiles, counted, compared),
    ]


def _metric_tables(
    n_quantiles: int,
    features: Sequence[tuple[str, str, np.ndarray]],
    metrics: Mapping[str, tuple[str, CorpusMetric, Mapping[str, Stats], bool]],
    compared: Comparison,
) -> list[BucketTable]:
    """Every metric by quantiles of each segment feature (``(key, what, values)``, the same for every system)."""
    from nlpeval.reports.analyses.buckets import Buckets, metric_table

    name = quantile_name(n_quantiles)
    tables = []
    for key, what, values in features:
        buckets = quantiles(values, n_quantiles)
        assignment = buckets.assign(values)
        for metric_name, (label, metric, stats, higher) in metrics.items():
            table = metric_table(
                Buckets(
                    f"{metric_name}-by-quantile-{key}",
                    f"{label} by {what} {name}",
                    f"quantile:{key}",
                    buckets.labels,
                    buckets.bounds,
                ),
                assignment,
                statistic=metric_name,
                metric=metric,
                stats=stats,
                compared=compared,
                higher_is_better=higher,
            )
            tables.append(table if buckets.note is None else dataclasses.replace(table, note=buckets.note))
    return tables


def _count_tables(
    n_quantiles: int,
    counted: Sequence[tuple[str, str, str, Mapping[str, np.ndarray], float]],
    compared: Comparison,
) -> list[BucketTable]:
    """Segment counts by quantiles of per-system values (``(key, id, what, values by system, scale)``),
    with the baseline's edges for every system."""
    from nlpeval.reports.analyses.buckets import Buckets, count_table

    name = quantile_name(n_quantiles)
    systems, baseline = compared.systems, compared.baseline
    tables = []
    for key, table_id, what, by_system, scale in counted:
        values = {s: scale * np.asarray(by_system[s], dtype=np.float64) for s in systems}
        if not np.isfinite(values[baseline]).any():
            continue
        buckets = quantiles(values[baseline], n_quantiles, span=_span(values))
        note = f"edges: the baseline {baseline}'s quantiles; every system counted in the same ranges"
        if buckets.note is not None:
            note += f"; {buckets.note}"
        table = count_table(
            Buckets(
                table_id, f"segments by {what}, {name} of {baseline}", f"quantile:{key}", buckets.labels, buckets.bounds
            ),
            {s: buckets.assign(values[s]) for s in systems},
            compared,
        )
        tables.append(dataclasses.replace(table, note=note))
    return tables
