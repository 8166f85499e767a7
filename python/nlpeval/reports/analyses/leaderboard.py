"""Leaderboard: corpus scores with bootstrap intervals, paired tests (baseline and all pairs), Holm, clusters."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.stats import Stats
from nlpeval.reports.analyses.multitest import holm
from nlpeval.reports.analyses.resampling import (
    Resamples,
    batched_totals,
    masked_sums,
    randomization_swaps,
    smoothed_p,
)
from nlpeval.reports.model import Cluster, Estimate, Leaderboard, LeaderboardCell, PairwiseTest, PValueMatrix
from nlpeval.reports.record import FrozenRecord, record
from nlpeval.significance.bootstrap import percentile_interval


def _values(metric: CorpusMetric, totals: np.ndarray) -> np.ndarray:
    return np.asarray(metric.corpus_values(totals), dtype=np.float64)


def _randomization_p(
    metric: CorpusMetric, base: Stats, system: Stats, swapped_base: np.ndarray, swapped_system: np.ndarray, k: int
) -> float:
    """p of :func:`nlpeval.approximate_randomization` from pre-computed ``swaps @ rows`` of both systems
    (summed fields): the summed fields move with the swapped segments, the others keep both systems' merge."""
    schema = system.schema
    summed = np.array([rule == "sum" for rule in schema.merge])
    base_total, system_total = base.totals(), system.totals()
    shared = schema.combine(base_total, system_total)
    moved = swapped_base - swapped_system
    if np.issubdtype(system.rows.dtype, np.integer):
        moved = np.rint(moved).astype(np.int64)
    first = np.broadcast_to(shared, (k, len(shared))).copy()
    second = first.copy()
    first[:, summed] = system_total[summed] + moved
    second[:, summed] = base_total[summed] - moved
    null = np.abs(_values(metric, first) - _values(metric, second))
    observed = abs(float(_values(metric, system_total)) - float(_values(metric, base_total)))
    return smoothed_p(null, observed)


def _pair(
    name: str,
    metric: CorpusMetric,
    system: str,
    other: str,
    stats: Mapping[str, Stats],
    scores: Mapping[str, float],
    resampled: Mapping[str, np.ndarray],
    swapped: Mapping[str, np.ndarray] | None,
    seed: int | None,
    level: float,
) -> tuple[float, float | None, float | None, float | None, float | None]:
    difference = scores[system] - scores[other]
    if len(stats[system]) < 2:
        return difference, None, None, None, None
    deltas = resampled[system] - resampled[other]
    spread = np.abs(deltas)
    p_boot = smoothed_p(spread - spread.mean(), abs(difference))
    ci = percentile_interval(deltas, level=level)
    p_ar = None
    if swapped is not None:
        first = next(iter(swapped.values()))
        p_ar = _randomization_p(metric, stats[other], stats[system], swapped[other], swapped[system], len(first))
    return difference, ci.low, ci.high, p_boot, p_ar


def _swapped(swaps: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``swaps @ rows`` as float64 for boolean ``(k, n)`` swaps (integer rows summed exactly, natively)."""
    if np.issubdtype(rows.dtype, np.integer):
        return masked_sums(swaps, rows).astype(np.float64)
    return swaps.astype(np.float64) @ rows.astype(np.float64)


def family_resamples(n_bootstrap: int, n_tests: int, alpha: float) -> int:
    """Bootstrap resamples for a family of ``n_tests`` Holm-corrected tests.

    An add-one resampling p-value is at least ``1 / (R + 1)``, so Holm's smallest adjusted value is at
    least ``n_tests / (R + 1)``: with too few resamples no test of a large family can be significant.
    The family gets ``R = max(n_bootstrap, ceil(2 * n_tests / alpha))`` resamples, so that a difference
    never reached by the null (count 0) gives ``n_tests / (R + 1) < alpha / 2`` and is still significant
    after Holm, with room for a few null exceedances (the Monte Carlo resolution argument of
    Phipson & Smyth 2010; Gandy & Hahn 2014 for multiple Monte Carlo tests).

    Examples
    --------
    >>> family_resamples(1000, 15, 0.05), family_resamples(1000, 120, 0.05)
    (1000, 4800)
    """
    return max(n_bootstrap, math.ceil(2 * n_tests / alpha)) if n_tests else n_bootstrap


def _clusters(name: str, order: list[str], significant: dict[frozenset[str], bool]) -> list[Cluster]:
    """Walk the systems best first; a system opens a new cluster when it differs significantly from
    the cluster's best system (so every cluster's members are indistinguishable from its head)."""
    clusters: list[list[str]] = []
    for system in order:
        if clusters and not significant.get(frozenset((clusters[-1][0], system)), False):
            clusters[-1].append(system)
        else:
            clusters.append([system])
    return [Cluster(name, rank, tuple(members)) for rank, members in enumerate(clusters, start=1)]


def leaderboard(
    systems: Sequence[str],
    metrics: Mapping[str, CorpusMetric],
    stats: Mapping[str, Mapping[str, Stats]],
    *,
    higher_is_better: Mapping[str, bool],
    baseline: str,
    n_bootstrap: int = 1000,
    n_randomization: int = 1000,
    seed: int | None = 12345,
    level: float = 0.95,
    alpha: float = 0.05,
    all_pairs: bool = True,
) -> Leaderboard:
    """Scores, intervals and tests of every system on every metric.

    Parameters
    ----------
    systems : sequence of str
        System names in report order.
    metrics : mapping
        Metric name -> configured metric.
    stats : mapping
        ``stats[metric][system]``: segment statistics (same segments for every system).
    higher_is_better : mapping
        Direction of each metric (for the clusters' order).
    baseline : str
        The system every other is tested against.
    n_bootstrap, n_randomization : int
        Bootstrap resamples (intervals; each Holm family of paired bootstrap tests gets at least
        :func:`family_resamples`) and randomization trials (0 disables).
    seed : int or None
        Seed of both draws (the same resamples for every system).
    level, alpha : float
        Interval level and significance threshold (after Holm).
    all_pairs : bool
        Also test every pair (else only against the baseline).

    Returns
    -------
    Leaderboard

    Examples
    --------
    >>> import nlpeval
    >>> metric = nlpeval.BLEU()
    >>> refs = [["a b c d"], ["e f g h"], ["i j k l"]]
    >>> stats = {"bleu": {s: metric.segment_stats(h, refs) for s, h in
    ...          {"A": ["a b c d", "e f g", "i j"], "B": ["a b", "e f", "i j k l"]}.items()}}
    >>> board = leaderboard(["A", "B"], {"bleu": metric}, stats, higher_is_better={"bleu": True},
    ...                     baseline="A", n_bootstrap=100, n_randomization=100, seed=1)
    >>> board.vs_baseline[0].system, board.vs_baseline[0].other
    ('B', 'A')
    """
    n_segments = len(next(iter(stats[next(iter(metrics))].values())))
    n_systems = len(systems)
    r_baseline = family_resamples(n_bootstrap, n_systems - 1, alpha)
    r_pairs = family_resamples(n_bootstrap, n_systems * (n_systems - 1) // 2 if all_pairs else 0, alpha)
    r_all = max(n_bootstrap, r_baseline, r_pairs)
    # one draw; its first n_bootstrap rows are the n_bootstrap-resample draw (same generator stream)
    resamples = Resamples.draw(n_segments, r_all, seed) if n_bootstrap >= 2 and n_segments >= 2 else None
    swaps = None
    if n_randomization >= 1:
        swaps = randomization_swaps(n_segments, n_randomization, seed)
    draws = _Draws(resamples, swaps, n_bootstrap, r_baseline, r_pairs, seed, level, alpha, all_pairs)
    parts = [
        _metric_part(name, metric, stats[name], systems, baseline, draws, higher_is_better.get(name, True))
        for name, metric in metrics.items()
    ]
    return Leaderboard(
        systems=tuple(systems),
        metrics=tuple(metrics),
        baseline=baseline,
        cells=tuple(cell for part in parts for cell in part.cells),
        vs_baseline=tuple(test for part in parts for test in part.vs_baseline),
        all_pairs=tuple(test for part in parts for test in part.all_pairs),
        clusters=tuple(cluster for part in parts for cluster in part.clusters),
        matrices=tuple(part.matrix for part in parts if part.matrix is not None),
    )


@record
class _Draws(FrozenRecord):
    """The leaderboard's shared draws and settings: bootstrap resamples (``None``: too few segments or
    resamples), randomization swaps (``None``: no trials), the resample counts of the two Holm families."""

    resamples: Resamples | None
    swaps: np.ndarray | None
    n_bootstrap: int
    r_baseline: int
    r_pairs: int
    seed: int | None
    level: float
    alpha: float
    all_pairs: bool


@record
class _MetricPart(FrozenRecord):
    """One metric's share of the leaderboard."""

    cells: list[LeaderboardCell]
    vs_baseline: list[PairwiseTest]
    all_pairs: list[PairwiseTest]
    matrix: PValueMatrix | None
    clusters: list[Cluster]


_Result = tuple[float, float | None, float | None, float | None, float | None]


def _metric_part(
    name: str,
    metric: CorpusMetric,
    by_system: Mapping[str, Stats],
    systems: Sequence[str],
    baseline: str,
    draws: _Draws,
    higher_is_better: bool,
) -> _MetricPart:
    """Scores, intervals, the tests against the baseline and (``all_pairs``) between every pair of one metric."""
    n_segments = len(next(iter(by_system.values())))
    resamples, swaps, level = draws.resamples, draws.swaps, draws.level
    scores = {s: float(_values(metric, by_system[s].totals())) for s in systems}
    resampled = {}
    if resamples is not None:
        totals = batched_totals(resamples, {s: by_system[s] for s in systems})
        resampled = {s: _values(metric, totals[s]) for s in systems}
    swapped = None
    if swaps is not None:
        summed = np.array([rule == "sum" for rule in metric.schema.merge])
        swapped = {s: _swapped(swaps, by_system[s].rows[:, summed]) for s in systems}
    cells = []
    for s in systems:
        low = high = None
        if resamples is not None:
            ci = percentile_interval(resampled[s][: draws.n_bootstrap], level=level)
            low, high = ci.low, ci.high
        cells.append(LeaderboardCell(s, name, Estimate(scores[s], n_segments, low, high)))

    def test(system: str, other: str, k: int) -> _Result:
        if resamples is None:
            return scores[system] - scores[other], None, None, None, None
        first = {s: values[:k] for s, values in resampled.items()}
        return _pair(name, metric, system, other, by_system, scores, first, swapped, draws.seed, level)

    computed: dict[tuple[str, str], _Result] = {}
    others = [s for s in systems if s != baseline]
    for s in others:
        computed[(s, baseline)] = test(s, baseline, draws.r_baseline)
    baseline_tests = []
    for s, p_holm in zip(others, holm([computed[(s, baseline)][3] for s in others]), strict=True):
        diff, low, high, p_boot, p_ar = computed[(s, baseline)]
        significant = p_holm is not None and p_holm < draws.alpha
        baseline_tests.append(PairwiseTest(name, s, baseline, diff, low, high, p_boot, p_ar, p_holm, significant))
    if not draws.all_pairs:
        return _MetricPart(cells, baseline_tests, [], None, [])
    pairs = list(combinations(systems, 2))
    # same resamples: (a, b) is the mirror of (b, a)
    results = [
        computed[(b, a)] if (b, a) in computed and draws.r_pairs == draws.r_baseline else test(b, a, draws.r_pairs)
        for a, b in pairs
    ]
    return _all_pairs_part(name, systems, pairs, results, scores, draws.alpha, higher_is_better, cells, baseline_tests)


def _all_pairs_part(
    name: str,
    systems: Sequence[str],
    pairs: list[tuple[str, str]],
    results: list[_Result],
    scores: Mapping[str, float],
    alpha: float,
    higher_is_better: bool,
    cells: list[LeaderboardCell],
    baseline_tests: list[PairwiseTest],
) -> _MetricPart:
    """The all-pairs family of one metric: Holm over its tests, the p-value matrix and the clusters."""
    pair_tests = []
    significant_pairs: dict[frozenset[str], bool] = {}
    matrix: dict[str, dict[str, float | None]] = {s: dict.fromkeys(systems) for s in systems}
    for (a, b), result, p_holm in zip(pairs, results, holm([r[3] for r in results]), strict=True):
        diff, low, high, p_boot, p_ar = result
        significant = p_holm is not None and p_holm < alpha
        pair_tests.append(PairwiseTest(name, b, a, diff, low, high, p_boot, p_ar, p_holm, significant))
        significant_pairs[frozenset((a, b))] = significant
        matrix[a][b] = matrix[b][a] = p_holm
    values = PValueMatrix(name, tuple(systems), tuple(tuple(matrix[a][b] for b in systems) for a in systems))
    sign = -1.0 if higher_is_better else 1.0
    order = sorted(systems, key=lambda s: (sign * scores[s], systems.index(s)))
    return _MetricPart(cells, baseline_tests, pair_tests, values, _clusters(name, order, significant_pairs))
