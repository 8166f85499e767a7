"""Bootstrap resampling over segment statistics (no re-tokenisation)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from nlpeval.core.progress import exact_chunk, map_chunks
from nlpeval.core.score import ConfidenceInterval
from nlpeval.core.stats import Stats

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric


def resample_indices(n_segments: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """``(n_resamples, n_segments)`` row indices drawn with replacement.

    Uses the same generator call as sacreBLEU's bootstrap, so the same seed draws
    the same resamples.

    Examples
    --------
    >>> resample_indices(5, 2, seed=1).shape
    (2, 5)
    """
    rng = np.random.default_rng(seed)
    return rng.choice(n_segments, size=(n_resamples, n_segments), replace=True)


def bootstrap_interval(
    metric: CorpusMetric,
    stats: Stats,
    *,
    n_resamples: int = 1000,
    seed: int | None = 12345,
    level: float = 0.95,
) -> ConfidenceInterval:
    """Percentile bootstrap interval of a corpus score.

    Resamples segment rows with replacement, merges each resample's statistics
    and scores all resamples in one vectorised call.

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric.
    stats : Stats
        Per-segment statistics of the test set.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or None
        Seed; ``None`` draws a fresh one (not reproducible).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    ConfidenceInterval

    Examples
    --------
    >>> import nlpeval
    >>> metric = nlpeval.BLEU()
    >>> stats = metric.segment_stats(["a b c", "a b", "c d e f"], ["a b c", "a c", "c d e"])
    >>> ci = bootstrap_interval(metric, stats, n_resamples=200, seed=1)
    >>> ci.low <= ci.mean <= ci.high
    True
    """
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level}")
    if len(stats) == 0:
        raise ValueError("cannot bootstrap an empty test set")
    indices = resample_indices(len(stats), n_resamples, seed)
    resample = partial(stats.schema.resampled_totals, stats.rows)
    totals = map_chunks(resample, indices, desc="bootstrap", chunk=exact_chunk(100, stats.rows))
    return percentile_interval(metric.corpus_values(totals), level=level, seed=seed)


def percentile_interval(values: np.ndarray, *, level: float = 0.95, seed: int | None = None) -> ConfidenceInterval:
    """Percentile interval of resampled scores (sacreBLEU's rule: drop ``n * (1 - level) / 2`` on each side).

    Examples
    --------
    >>> ci = percentile_interval(np.arange(40.0))
    >>> ci.low, ci.high, ci.mean
    (1.0, 38.0, 19.5)
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    n_resamples = len(ordered)
    lower_index = int(n_resamples * (1.0 - level) / 2.0)
    upper_index = n_resamples - lower_index - 1
    return ConfidenceInterval(
        low=float(ordered[lower_index]),
        high=float(ordered[upper_index]),
        mean=float(ordered.mean()),
        level=level,
        n_resamples=n_resamples,
        seed=seed,
    )
