"""Paired significance tests between two systems on the same test set.

Both tests work on segment statistics (no re-tokenising) and score every
resample in one vectorised call. They draw their random numbers exactly as
sacreBLEU's ``--paired-bs`` / ``--paired-ar`` do, so the same seed gives the
same resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Literal

import numpy as np

from nlpeval.core.progress import exact_chunk
from nlpeval.core.score import ConfidenceInterval
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.significance.bootstrap import coin_blocks, index_blocks, map_blocks, percentile_interval

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of a paired test of ``system`` against ``baseline``.

    Attributes
    ----------
    test : {"bootstrap", "randomization"}
        Which test was run.
    baseline, system : float
        Corpus scores of the two systems.
    p_value : float
        Share of null-hypothesis samples whose difference exceeds the observed
        one, add-one smoothed as sacreBLEU does: ``(count(null > observed) + 1) / (n + 1)``
        (so two identical systems get ``1 / (n + 1)`` from randomization, as in sacreBLEU).
    n_resamples : int
        Bootstrap resamples or randomization trials.
    seed : int or None
        Seed of the generator.
    system_ci : ConfidenceInterval or None
        Bootstrap interval of the system's score (paired bootstrap only).
    difference_ci : ConfidenceInterval or None
        Bootstrap interval of ``system - baseline`` from the same resamples (paired bootstrap only).
    """

    test: Literal["bootstrap", "randomization"]
    baseline: float
    system: float
    p_value: float
    n_resamples: int
    seed: int | None
    system_ci: ConfidenceInterval | None = None
    difference_ci: ConfidenceInterval | None = None

    @property
    def difference(self) -> float:
        """``system - baseline``."""
        return self.system - self.baseline


def _p_value(null_statistics: np.ndarray, observed: float) -> float:
    return float((np.sum(null_statistics > observed) + 1) / (len(null_statistics) + 1))


def checked_pair(metric: CorpusMetric, baseline: Stats, system: Stats) -> tuple[CorpusMetric, Stats, Stats]:
    """The two systems' statistics, checked for a paired test; a metric whose columns depend on the data (span
    F1: the entity types found) puts both on one schema first (its ``shared_columns``)."""
    shared = getattr(metric, "shared_columns", None)
    if shared is not None:
        metric, both = shared({"baseline": baseline, "system": system})
        baseline, system = both["baseline"], both["system"]
    _check_pair(baseline, system)
    return metric, baseline, system


def _check_pair(baseline: Stats, system: Stats) -> None:
    if baseline.schema != system.schema:
        raise ValueError("the two systems were scored with different statistics")
    if len(baseline) != len(system):
        raise ValueError(f"paired tests need the same segments: {len(baseline)} vs {len(system)}")
    if len(baseline) == 0:
        raise ValueError("cannot test an empty test set")


def paired_bootstrap(
    metric: CorpusMetric,
    baseline: Stats,
    system: Stats,
    *,
    n_resamples: int = 1000,
    seed: int | None = 12345,
) -> PairedTestResult:
    """Paired bootstrap resampling (Koehn, 2004), as Moses and sacreBLEU's ``--paired-bs``.

    Both systems are resampled with the same segment indices; the p-value is the
    share of resampled differences that, centred on their mean, exceed the
    observed difference.

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric both systems were scored with.
    baseline, system : Stats
        Segment statistics of the two systems on the same segments.
    n_resamples : int
        Number of resamples.
    seed : int or None
        Generator seed.

    Returns
    -------
    PairedTestResult

    Examples
    --------
    >>> import nlpeval
    >>> metric = nlpeval.BLEU()
    >>> refs = ["the cat sat on the mat", "a dog barks loudly", "it rains today"]
    >>> good = metric.segment_stats(["the cat sat on the mat", "a dog barks", "it rains today"], refs)
    >>> bad = metric.segment_stats(["cat mat", "dog", "rain"], refs)
    >>> result = paired_bootstrap(metric, bad, good, n_resamples=100, seed=1)
    >>> result.system > result.baseline, 0 < result.p_value <= 1
    (True, True)
    """
    metric, baseline, system = checked_pair(metric, baseline, system)
    schema = system.schema
    pair = partial(_resampled_pair, schema, baseline.rows, system.rows)
    chunk = exact_chunk(100, baseline.rows, system.rows)
    blocks = index_blocks(len(system), n_resamples, seed)  # the draws of default_rng(seed).choice, bounded memory
    baseline_totals, system_totals = map_blocks(pair, blocks, total=n_resamples, desc="paired bootstrap", chunk=chunk)
    baseline_scores = np.asarray(metric.corpus_values(baseline_totals))
    system_scores = np.asarray(metric.corpus_values(system_totals))
    observed = abs(float(metric.corpus_values(system.totals())) - float(metric.corpus_values(baseline.totals())))
    differences = np.abs(system_scores - baseline_scores)
    return PairedTestResult(
        test="bootstrap",
        baseline=float(metric.corpus_values(baseline.totals())),
        system=float(metric.corpus_values(system.totals())),
        p_value=_p_value(differences - differences.mean(), observed),
        n_resamples=n_resamples,
        seed=seed,
        system_ci=percentile_interval(system_scores, seed=seed),
        difference_ci=percentile_interval(system_scores - baseline_scores, seed=seed),
    )


def _resampled_pair(schema: StatsSchema, baseline: np.ndarray, system: np.ndarray, indices: np.ndarray) -> tuple:
    """Resampled totals of both systems for the same resamples (rows of ``indices``)."""
    return schema.resampled_totals(baseline, indices), schema.resampled_totals(system, indices)


def _swapped_totals(swap: np.ndarray, baseline: np.ndarray, system: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Totals of both pseudo-systems of each randomization trial (rows of ``swap``)."""
    keep = ~swap
    first = swap.astype(np.int64) @ baseline + keep.astype(np.int64) @ system
    second = keep.astype(np.int64) @ baseline + swap.astype(np.int64) @ system
    return first, second


def approximate_randomization(
    metric: CorpusMetric,
    baseline: Stats,
    system: Stats,
    *,
    n_trials: int = 10000,
    seed: int | None = 12345,
) -> PairedTestResult:
    """Paired approximate randomization test (Riezler & Maxwell, 2005), as sacreBLEU's ``--paired-ar``.

    Each trial swaps the two systems' outputs on a random half of the segments.
    Fields that do not merge by sum (they describe the shared references, e.g.
    the reference count) keep the merged value of both systems.

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric both systems were scored with.
    baseline, system : Stats
        Segment statistics of the two systems on the same segments.
    n_trials : int
        Number of randomization trials.
    seed : int or None
        Generator seed.

    Returns
    -------
    PairedTestResult

    Examples
    --------
    >>> import nlpeval
    >>> metric = nlpeval.BLEU()
    >>> refs = ["the cat sat on the mat", "a dog barks loudly", "it rains today"]
    >>> a = metric.segment_stats(["the cat sat on the mat", "a dog barks", "it rains today"], refs)
    >>> b = metric.segment_stats(["cat mat", "dog", "rain"], refs)
    >>> result = approximate_randomization(metric, b, a, n_trials=50)
    >>> result.system > result.baseline, 0 < result.p_value <= 1
    (True, True)
    """
    metric, baseline, system = checked_pair(metric, baseline, system)
    schema = system.schema
    trials = partial(_swapped_totals, baseline=baseline.rows, system=system.rows)
    swaps = coin_blocks(len(system), n_trials, seed)  # default_rng(seed).integers(2, ..., dtype=bool), bounded memory
    chunk = exact_chunk(1000, baseline.rows, system.rows)
    first, second = map_blocks(trials, swaps, total=n_trials, desc="randomization", chunk=chunk)
    shared = schema.combine(baseline.totals(), system.totals())
    for column, rule in enumerate(schema.merge):
        if rule != "sum":
            first[:, column] = shared[column]
            second[:, column] = shared[column]
    baseline_score = float(metric.corpus_values(baseline.totals()))
    system_score = float(metric.corpus_values(system.totals()))
    null = np.abs(np.asarray(metric.corpus_values(first)) - np.asarray(metric.corpus_values(second)))
    return PairedTestResult(
        test="randomization",
        baseline=baseline_score,
        system=system_score,
        p_value=_p_value(null, abs(system_score - baseline_score)),
        n_resamples=n_trials,
        seed=seed,
    )
