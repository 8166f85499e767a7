"""Bootstrap resampling over segment statistics (no re-tokenisation)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.progress import exact_chunk, map_chunks, progress_active, progress_bar
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


def check_bootstrap(n_bootstrap: int, confidence: float) -> None:
    """Validate the bootstrap options (``n_bootstrap`` 0 means none).

    Examples
    --------
    >>> check_bootstrap(2.5, 0.95)
    Traceback (most recent call last):
    ...
    ValueError: n_bootstrap must be a non-negative integer; got 2.5
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be a non-negative integer; got {n_bootstrap!r}")
    if n_bootstrap == 1:
        raise ValueError("n_bootstrap must be at least 2 (or 0 for no interval)")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}")


#: at most this many resampled indices (or coin flips) are drawn and held at once, whatever the number of resamples
BLOCK_CELLS = 4_000_000


def index_blocks(n_segments: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """``(block, n_segments)`` row indices drawn with replacement, a bounded number of cells at a time.

    Concatenated, the blocks equal ``resample_indices(n_segments, n_resamples, seed)``: the generator's
    integer stream does not depend on how the draws are split.

    Examples
    --------
    >>> blocks = list(index_blocks(7, 5, seed=3))
    >>> bool((np.concatenate(blocks) == resample_indices(7, 5, seed=3)).all())
    True
    """
    rng = np.random.default_rng(seed)
    rows = max(1, BLOCK_CELLS // max(n_segments, 1))
    for start in range(0, max(n_resamples, 1), rows):  # zero resamples: one empty block, as one call draws
        yield rng.choice(n_segments, size=(min(rows, n_resamples - start), n_segments), replace=True)


def coin_blocks(n_segments: int, n_trials: int, seed: int | None) -> Iterator[np.ndarray]:
    """``(block, n_segments)`` fair coins of ``default_rng(seed).integers(2, size=(n_trials, n_segments), dtype=bool)``.

    A bounded number of cells at a time; each block but the last holds a multiple of 32 rows, because the
    generator draws booleans 32 to a word and drops a call's unused bits, so only such blocks continue the
    one-call stream exactly.

    Examples
    --------
    >>> whole = np.random.default_rng(4).integers(2, size=(100, 3), dtype=bool)
    >>> bool((np.concatenate(list(coin_blocks(3, 100, seed=4))) == whole).all())
    True
    """
    rng = np.random.default_rng(seed)
    rows = max(32, BLOCK_CELLS // max(n_segments, 1) // 32 * 32)
    for start in range(0, max(n_trials, 1), rows):  # zero trials: one empty block, as one call draws
        yield rng.integers(2, size=(min(rows, n_trials - start), n_segments), dtype=bool)


def map_blocks(
    function: Callable[[np.ndarray], Any], blocks: Iterator[np.ndarray], *, total: int, desc: str, chunk: int | None
) -> Any:
    """``function`` over the rows of every block (chunk by chunk within a block when ``chunk`` is set), concatenated.

    One block is computed exactly as :func:`~nlpeval.core.progress.map_chunks` computes it; with several
    blocks (more than :data:`BLOCK_CELLS` draws), one progress bar counts them all. Integer statistics give
    the same totals in any split; floating-point ones may differ in the last bit between a run that needs
    several blocks and one that does not (BLAS sums a different number of rows at a time).
    """
    first = next(blocks)
    if len(first) == total:
        return map_chunks(function, first, desc=desc, chunk=chunk)
    parts = []
    step = chunk or len(first)
    with progress_bar(total if progress_active() else None, desc=desc) as bar:
        for block in _chain(first, blocks):
            for start in range(0, len(block), step):
                parts.append(function(block[start : start + step]))
                bar.update(min(step, len(block) - start))
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))
    return np.concatenate(parts)


def _chain(first: np.ndarray, rest: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
    yield first
    yield from rest


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
    resample = partial(stats.schema.resampled_totals, stats.rows)
    blocks = index_blocks(len(stats), n_resamples, seed)
    totals = map_blocks(resample, blocks, total=n_resamples, desc="bootstrap", chunk=exact_chunk(100, stats.rows))
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
