"""Keyed Poisson bootstrap: resampling that does not depend on partitioning, order or workers.

Each segment gets, in each resample ``r``, a weight ``w[r, i] ~ Poisson(1)`` drawn by
inverting the Poisson CDF at a uniform number derived from a counter-based hash of
``(seed, r, id_i)`` (SplitMix64's finaliser, vectorised in NumPy). A weight therefore
depends only on the seed, the resample index and the segment's id — never on which
partition or worker the segment lands in — so each partition can return its own
``(n_resamples, n_fields)`` block of weighted totals and the blocks merge like totals.
The single-machine path (``resampling="poisson"``) computes the very same weights, so
distributed and local intervals are identical (bit for bit for integer statistics).

sacreBLEU's multinomial bootstrap (:mod:`nlpeval.significance.bootstrap`) stays the default;
this method is recorded as ``ci:poisson`` in the signature.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.score import ConfidenceInterval
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.significance.bootstrap import percentile_interval

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.significance.paired import PairedTestResult

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

#: P(X <= k) for X ~ Poisson(1), k = 0..31 (beyond 31 the tail is below 2**-53).
_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(32)])
#: the same thresholds on the 53-bit integer scale of the uniform draws: ``u >= _CDF[k]`` exactly when
#: ``u * 2**53 >= _THRESHOLDS[k]`` (``u * 2**53`` is an integer and ``_CDF[k] * 2**53`` is exact)
_THRESHOLDS = np.ceil(_CDF * 2.0**53).astype(np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


def segment_keys(ids: Sequence[Any] | np.ndarray) -> np.ndarray:
    """64-bit keys of segment ids: integers as themselves (two's complement), anything else
    by the first 8 bytes of the BLAKE2b hash of its ``str`` in UTF-8.

    Examples
    --------
    >>> segment_keys([0, 1, -1]).tolist()
    [0, 1, 18446744073709551615]
    >>> int(segment_keys(["doc-1"])[0]) == int(segment_keys(["doc-1"])[0])
    True
    """
    array = np.asarray(ids)
    if array.ndim != 1:
        array = np.asarray(list(ids), dtype=object)
    if array.dtype.kind in "iu" or (array.dtype.kind == "b"):
        return array.astype(np.int64).view(np.uint64) if array.dtype.kind != "u" else array.astype(np.uint64)
    keys = np.empty(len(array), dtype=np.uint64)
    for position, value in enumerate(array.tolist()):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            keys[position] = np.int64(value).view(np.uint64)
        else:
            digest = hashlib.blake2b(str(value).encode("utf-8"), digest_size=8).digest()
            keys[position] = np.frombuffer(digest, dtype="<u8")[0]
    return keys


def poisson_weights(ids: Sequence[Any] | np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """``(n_resamples, n_segments)`` Poisson(1) weights keyed by ``(seed, resample, id)``.

    Parameters
    ----------
    ids : sequence
        One id per segment (ints or strings); the same id always gets the same weights.
    n_resamples : int
        Number of resamples.
    seed : int
        Seed (any int; reduced modulo 2**64).

    Examples
    --------
    >>> w = poisson_weights(range(5), 3, seed=1)
    >>> w.shape, w.dtype.name
    ((3, 5), 'int64')
    >>> bool((poisson_weights([3, 4], 3, seed=1) == w[:, 3:]).all())
    True
    """
    keys = segment_keys(ids)
    with np.errstate(over="ignore"):
        base = _mix(np.array([seed % 2**64], dtype=np.uint64) + _GOLDEN)
        rounds = _mix((base ^ np.arange(n_resamples, dtype=np.uint64)) + _GOLDEN)
        hashed = _mix((rounds[:, None] ^ _mix(keys + _GOLDEN)[None, :]) + _GOLDEN)
    # weight = how many CDF values are <= the uniform draw u = (hashed >> 11) * 2**-53: four comparisons
    # settle 98% of the draws, a binary search the rest
    draws = hashed >> np.uint64(11)
    weights = np.zeros(draws.shape, dtype=np.int64)
    for threshold in _THRESHOLDS[:4]:
        weights += draws >= threshold
    tail = np.flatnonzero(weights == 4)
    if tail.size:
        flat = weights.reshape(-1)
        flat[tail] = np.searchsorted(_THRESHOLDS, draws.reshape(-1)[tail], side="right")
    return weights


def weighted_totals(
    schema: StatsSchema, rows: np.ndarray, weights: np.ndarray, *, float_weights: np.ndarray | None = None
) -> np.ndarray:
    """Totals of each resample, ``(n_resamples, n_fields)``: summed fields are weighted sums;
    ``min``/``max``/``last`` fields merge over the rows drawn at least once.

    ``float_weights`` may pass ``weights`` already converted to float64 (shared by several metrics).

    Examples
    --------
    >>> schema = StatsSchema.of("hits", low="min")
    >>> weighted_totals(schema, np.array([[1, 5], [2, 3]]), np.array([[2, 0], [1, 1]])).tolist()
    [[2, 5], [3, 3]]
    """
    rows = np.asarray(rows)
    weights = np.asarray(weights, dtype=np.int64)
    n_resamples = weights.shape[0]
    if rows.shape[0] == 0:
        return np.broadcast_to(schema.identity(rows.dtype), (n_resamples, schema.width)).copy()
    integer = np.issubdtype(rows.dtype, np.integer)
    if not integer or _exact_in_float(rows, weights):
        wf = weights.astype(np.float64) if float_weights is None else float_weights
        out = wf @ rows.astype(np.float64)
        if integer:  # integer products and sums below 2**53 are exact in float64 (and BLAS is fast)
            out = np.rint(out).astype(np.int64)
    else:
        out = weights @ rows.astype(np.int64)
    others = [(column, rule) for column, rule in enumerate(schema.merge) if rule != "sum"]
    if not others:
        return out
    drawn = weights > 0
    any_drawn = drawn.any(axis=1)
    for column, rule in others:
        identity = schema.identity(out.dtype)[column]
        values = rows[:, column]
        if values.min() == values.max():  # e.g. the reference count: the same on every row
            out[:, column] = np.where(any_drawn, values[0], identity)
            continue
        masked = np.where(drawn, values[None, :], identity)
        if rule == "min":
            out[:, column] = masked.min(axis=1)
        elif rule == "max":
            out[:, column] = masked.max(axis=1)
        else:
            out[:, column] = np.where(any_drawn, _last_drawn(masked, drawn), identity)
    return out


def _exact_in_float(rows: np.ndarray, weights: np.ndarray) -> bool:
    """Whether every weighted column sum is an integer below 2**53 (so float64 arithmetic is exact)."""
    if rows.size == 0 or weights.size == 0:
        return True
    bound = float(np.abs(rows).max(axis=0).sum()) * float(weights.max()) * rows.shape[0]
    return bound < 2.0**53


def _last_drawn(values: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    width = drawn.shape[1]
    position = width - 1 - np.argmax(drawn[:, ::-1], axis=1)
    return values[np.arange(values.shape[0]), position]


def poisson_totals(
    schema: StatsSchema, rows: np.ndarray, ids: Sequence[Any] | np.ndarray, n_resamples: int, seed: int
) -> np.ndarray:
    """Weighted totals of ``rows`` (one per id) for ``n_resamples`` keyed Poisson resamples.

    Computed in blocks of segments so memory stays ``O(n_resamples * block)``.

    Examples
    --------
    >>> schema = StatsSchema.of("hits")
    >>> rows = np.arange(10).reshape(10, 1)
    >>> whole = poisson_totals(schema, rows, range(10), 4, seed=7)
    >>> parts = poisson_totals(schema, rows[:3], range(3), 4, 7) + poisson_totals(schema, rows[3:], range(3, 10), 4, 7)
    >>> bool((whole == parts).all())
    True
    """
    return poisson_totals_many([(schema, rows)], ids, n_resamples, seed)[0]


def poisson_totals_many(
    blocks: Sequence[tuple[StatsSchema, np.ndarray]], ids: Sequence[Any] | np.ndarray, n_resamples: int, seed: int
) -> list[np.ndarray]:
    """:func:`poisson_totals` of several metrics' rows on the same segments, drawing the weights once.

    Examples
    --------
    >>> schema = StatsSchema.of("hits")
    >>> rows = np.arange(6).reshape(6, 1)
    >>> a, b = poisson_totals_many([(schema, rows), (schema, 2 * rows)], range(6), 3, seed=2)
    >>> bool((a == poisson_totals(schema, rows, range(6), 3, 2)).all()), bool((b == 2 * a).all())
    (True, True)
    """
    ids = np.asarray(ids) if not isinstance(ids, range) else np.arange(ids.start, ids.stop, ids.step)
    n = len(ids)
    for _, rows in blocks:
        if np.asarray(rows).shape[0] != n:
            raise ValueError(f"one id per segment is required: {n} ids for {np.asarray(rows).shape[0]} segments")
    block = max(1, 4_000_000 // max(1, n_resamples))
    totals = [weighted_totals(schema, np.asarray(rows)[:0], np.zeros((n_resamples, 0))) for schema, rows in blocks]
    for start in range(0, n, block):
        chunk = slice(start, start + block)
        weights = poisson_weights(ids[chunk], n_resamples, seed)
        float_weights = weights.astype(np.float64)
        for position, (schema, rows) in enumerate(blocks):
            part = weighted_totals(schema, np.asarray(rows)[chunk], weights, float_weights=float_weights)
            totals[position] = part if start == 0 else combine_blocks(schema, totals[position], part)
    return totals


def combine_blocks(schema: StatsSchema, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Merge two ``(n_resamples, n_fields)`` blocks field by field (``right`` comes later).

    Examples
    --------
    >>> combine_blocks(StatsSchema.of("a", b="max"), np.array([[1, 2]]), np.array([[3, 1]])).tolist()
    [[4, 2]]
    """
    return schema.reduce(np.stack([left, right]), axis=0)


def _check(n_resamples: int, level: float, n_segments: int) -> None:
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level}")
    if n_segments == 0:
        raise ValueError("cannot bootstrap an empty test set")


def _ids(ids: Sequence[Any] | np.ndarray | None, n: int) -> Sequence[Any] | np.ndarray:
    if ids is None:
        return np.arange(n, dtype=np.int64)
    if len(ids) != n:
        raise ValueError(f"one id per segment is required: {len(ids)} ids for {n} segments")
    return ids


def poisson_interval(
    metric: CorpusMetric,
    stats: Stats,
    *,
    ids: Sequence[Any] | np.ndarray | None = None,
    n_resamples: int = 1000,
    seed: int = 12345,
    level: float = 0.95,
) -> ConfidenceInterval:
    """Percentile interval from a keyed Poisson bootstrap (identical on one machine and on Dask).

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric.
    stats : Stats
        Per-segment statistics.
    ids : sequence, optional
        Segment ids (default ``0..n-1``, the row number in the whole corpus).
    n_resamples : int
        Number of resamples.
    seed : int
        Seed of the keyed hash.
    level : float
        Confidence level.

    Examples
    --------
    >>> import nlpeval
    >>> m = nlpeval.BLEU()
    >>> stats = m.segment_stats(["a b c d", "a b", "c d e f"], ["a b c d", "a c", "c d e"])
    >>> ci = poisson_interval(m, stats, n_resamples=200, seed=1)
    >>> ci.low <= ci.high
    True
    """
    _check(n_resamples, level, len(stats))
    totals = poisson_totals(stats.schema, stats.rows, _ids(ids, len(stats)), n_resamples, seed)
    return percentile_interval(metric.corpus_values(totals), level=level, seed=seed)


def paired_poisson_from_totals(
    metric: CorpusMetric,
    baseline: tuple[np.ndarray, np.ndarray],
    system: tuple[np.ndarray, np.ndarray],
    *,
    seed: int,
) -> PairedTestResult:
    """Paired bootstrap test from (totals, resampled totals) of two systems scored on the same ids.

    The p-value follows :func:`nlpeval.significance.paired.paired_bootstrap`
    (centred resampled differences against the observed one, add-one smoothed).
    """
    from nlpeval.significance.paired import PairedTestResult, _p_value

    base_score = float(metric.corpus_values(baseline[0]))
    sys_score = float(metric.corpus_values(system[0]))
    base_boot = np.asarray(metric.corpus_values(baseline[1]))
    sys_boot = np.asarray(metric.corpus_values(system[1]))
    differences = np.abs(sys_boot - base_boot)
    return PairedTestResult(
        test="bootstrap",
        baseline=base_score,
        system=sys_score,
        p_value=_p_value(differences - differences.mean(), abs(sys_score - base_score)),
        n_resamples=len(sys_boot),
        seed=seed,
        system_ci=percentile_interval(sys_boot, seed=seed),
        difference_ci=percentile_interval(sys_boot - base_boot, seed=seed),
    )


def paired_poisson(
    metric: CorpusMetric,
    baseline: Stats,
    system: Stats,
    *,
    ids: Sequence[Any] | np.ndarray | None = None,
    n_resamples: int = 1000,
    seed: int = 12345,
) -> PairedTestResult:
    """Paired bootstrap test with keyed Poisson weights shared by both systems.

    Examples
    --------
    >>> import nlpeval
    >>> m = nlpeval.BLEU()
    >>> refs = ["the cat sat on the mat", "a dog barks loudly", "it rains today"]
    >>> good = m.segment_stats(["the cat sat on the mat", "a dog barks", "it rains today"], refs)
    >>> bad = m.segment_stats(["cat mat", "dog", "rain"], refs)
    >>> r = paired_poisson(m, bad, good, n_resamples=100, seed=1)
    >>> r.system > r.baseline, 0 < r.p_value <= 1
    (True, True)
    """
    from nlpeval.significance.paired import checked_pair

    metric, baseline, system = checked_pair(metric, baseline, system)
    _check(n_resamples, 0.95, len(system))
    keys = _ids(ids, len(system))
    schema = system.schema
    return paired_poisson_from_totals(
        metric,
        (baseline.totals(), poisson_totals(schema, baseline.rows, keys, n_resamples, seed)),
        (system.totals(), poisson_totals(schema, system.rows, keys, n_resamples, seed)),
        seed=seed,
    )
