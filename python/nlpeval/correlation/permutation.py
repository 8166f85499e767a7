"""PERM-BOTH permutation tests between two metrics' correlations with humans (Deutsch et al., 2021).

:func:`permutation_sig_diff` is mt-metrics-eval's ``stats.PermutationSigDiff``: both
metrics' scores are z-normalised, and each resample swaps, cell by cell with
probability 1/2, the two metrics' scores; the p-value is the share of resamples whose
difference of correlations reaches the observed one. :func:`pairwise_permutation_sig_diff`
is ``stats.PairwisePermutationSigDiff`` (WMT23-25's test for acc_eq): it swaps the two
metrics' *pairwise comparisons*, each metric with its own tie threshold.

Draws come from a legacy ``numpy.random.RandomState``, one ``binomial(1, 0.5)`` per cell
(or per pair slot) in the oracle's order, so ``random_state=s`` here reproduces
``np.random.seed(s)`` there draw for draw, including early stopping at block
boundaries. The correlations of a block of resamples are computed at once.

Examples
--------
>>> human = [[1, 2], [3, 4], [5, 5], [7, 8]]
>>> m1, m2 = [[1, 2], [3, 3], [7, 3], [5, 5]], [[2, 1], [2, 6], [8, 8], [7, 6]]
>>> res = permutation_sig_diff(human, m1, m2, Statistic("pearson"), k=100, random_state=1)
>>> res.n_draws, round(res.delta, 4)
(100, -0.0025)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.correlation.tau_ties import (
    CON,
    DIS,
    TIE_BOTH,
    TIE_HUMAN,
    TIE_METRIC,
    as_matrix,
    check_average_by,
    groups,
    kendall_variant_groups,
    pair_categories,
    tau_from_counts,
    tie_threshold_search,
)
from nlpeval.significance.legacy_draws import uniform_above

FUNCTIONS = ("pearson", "spearman", "kendall", "kendall_variants", "acc_eq", "spa", "pairwise_accuracy")

#: cells of resampled draws held at once
_CELLS = 4_000_000
#: resampled matrices whose SPA shares one matrix product
_SPA_BATCH = 25
#: above this many pairs of cells, Kendall variants are counted resample by resample
_MAX_PAIRS = 2_000_000


@dataclass(frozen=True)
class Statistic:
    """What a permutation test compares (an mt-metrics-eval ``corr_fcn`` with its arguments).

    Parameters
    ----------
    function : str
        ``"pearson"``, ``"spearman"``, ``"kendall"`` (SciPy's, ``variant`` "b"/"c"),
        ``"kendall_variants"`` (``stats.KendallVariants``: ``variant`` b/c/23/acc23,
        ``epsilon``), ``"acc_eq"`` (``stats.KendallWithTiesOpt``: ``variant`` acc23/23,
        ``sample_rate``), ``"spa"`` (``stats.PairwiseConfidenceError``, system level from
        systems x items) or ``"pairwise_accuracy"`` (system-level ``stats.Agreement``).
    average_by : {"none", "sys", "item"}
    """

    function: str
    average_by: str = "none"
    variant: str = "b"
    epsilon: float = 0.0
    sample_rate: float = 1.0
    replace_nans_with_zeros: bool = False

    def __post_init__(self) -> None:
        if self.function not in FUNCTIONS:
            raise ValueError(f"function must be one of {', '.join(FUNCTIONS)}; got {self.function!r}")
        check_average_by(self.average_by)


@dataclass(frozen=True)
class PermutationResult:
    """A PERM-BOTH test: is metric 2's correlation greater than metric 1's?

    Attributes
    ----------
    pvalue : float
        Share of resamples with ``corr2 - corr1 >= delta``.
    delta : float
        Observed ``corr(metric2) - corr(metric1)``.
    n_draws : int
        Resamples run (fewer than ``k`` after early stopping).
    draws : numpy.ndarray
        ``(n_draws, 2)``: each resample's ``(corr2, corr1)``.
    """

    pvalue: float
    delta: float
    n_draws: int
    draws: np.ndarray


_COIN_IS_UNIFORM: bool | None = None


def coin_flips(
    rs: np.random.RandomState, shape: tuple[int, int], columns: np.ndarray | None = None, dtype: type = np.int64
) -> np.ndarray:
    """``rs.binomial(1, 0.5, shape)`` as ``dtype`` (int64 or bool), drawn faster when that is the same thing.

    Legacy ``binomial(1, 0.5)`` inverts one uniform double per draw (1 when it is above
    0.5), so ``random_sample(shape) > 0.5`` gives the same values and leaves ``rs`` in the
    same state; checked once per process, else ``binomial`` itself is used. ``columns``
    keeps only those columns (all are drawn, so the state advances as the oracle's).
    """
    global _COIN_IS_UNIFORM
    if _COIN_IS_UNIFORM is None:
        a, b = np.random.RandomState(12345), np.random.RandomState(12345)
        same = np.array_equal(a.binomial(1, 0.5, 20_000), (b.random_sample(20_000) > 0.5).astype(np.int64))
        _COIN_IS_UNIFORM = bool(same and a.random_sample() == b.random_sample())
    if _COIN_IS_UNIFORM:
        flags = uniform_above(rs, shape[0] * shape[1], 0.5)
        if flags is not None:  # the same uniforms, drawn by the core
            flags = flags.reshape(shape)
            return (flags if columns is None else flags[:, columns]).astype(dtype, copy=False)
        uniform = rs.random_sample(shape)
        if columns is not None:
            return (uniform[:, columns] > 0.5).astype(dtype)
        return (uniform > 0.5).astype(dtype)
    flips = rs.binomial(1, 0.5, shape)
    return (flips if columns is None else flips[:, columns]).astype(dtype, copy=False)


def _rs(random_state: np.random.RandomState | int | None) -> np.random.RandomState:
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return np.random.RandomState(random_state)


def _average(values: np.ndarray, replace_nans_with_zeros: bool) -> np.ndarray:
    """Per row: ``np.average`` of the non-NaN values (or NaN as 0), 0 when none (``PermutationSigDiff._Corr``)."""
    if replace_nans_with_zeros:
        return np.mean(np.nan_to_num(values), axis=1) if values.shape[1] else np.zeros(len(values))
    nan = np.isnan(values)
    if not nan.any():
        return np.mean(values, axis=1) if values.shape[1] else np.zeros(len(values))
    out = np.empty(len(values))
    for i, row in enumerate(values):
        kept = row[~nan[i]]
        out[i] = np.average(kept) if len(kept) else 0
    return out


def _zscore(values: np.ndarray) -> np.ndarray:
    import scipy.stats

    return scipy.stats.zscore(values)


def _filtered(
    human: np.ndarray, metric1: np.ndarray, metric2: np.ndarray, average_by: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``stats._ReshapeAndFilter``: group sizes and the judged cells, group after group."""
    h, a, b = groups(human, average_by), groups(metric1, average_by), groups(metric2, average_by)
    ok = ~np.isnan(h)
    lens = ok.sum(axis=1)
    return lens[lens > 0], h[ok], a[ok], b[ok]


def _constant(values: np.ndarray) -> np.ndarray:
    """Rows whose values are all equal to the first (``stats.is_constant_array``)."""
    return np.all(values == values[..., :1], axis=-1)


class _Engine:
    """The statistic of many resamples at once, for one metric pair."""

    def __init__(self, human: np.ndarray, metric1: np.ndarray, metric2: np.ndarray, statistic: Statistic) -> None:
        self.statistic = statistic
        self.human = human
        fn = statistic.function
        self.n_sys = human.shape[0]
        if fn == "acc_eq":
            # KendallWithTiesOpt works on the full vectors, z-normalised over every cell
            self.gold = human
            self.s1 = _zscore(metric1.ravel())
            self.s2 = _zscore(metric2.ravel())
            return
        average_by = "none" if fn in ("spa", "pairwise_accuracy") else statistic.average_by
        lens, gold, s1, s2 = _filtered(human, metric1, metric2, average_by)
        self.lens, self.gold = lens, gold
        self.s1, self.s2 = _zscore(s1), _zscore(s2)
        self.bounds = list(zip(np.r_[0, np.cumsum(lens)][:-1].tolist(), np.cumsum(lens).tolist(), strict=True))
        if fn == "spa":
            from nlpeval.correlation.spa import pairwise_p_values_from_signs, sign_matrix

            if len(gold) % self.n_sys:
                raise InputError("spa needs a human score for every system on every item", side="human_scores")
            self.n_items = len(gold) // self.n_sys
            self.signs = sign_matrix(1000, self.n_items, 4)
            self.gold_p = pairwise_p_values_from_signs(gold.reshape(self.n_sys, -1), self.signs)
        counted = (fn == "kendall_variants" and statistic.variant != "c") or (
            fn == "kendall" and statistic.variant == "b"
        )
        if counted and int((lens * (lens - 1) // 2).sum()) <= _MAX_PAIRS:
            self._prepare_pairs()

    def _prepare_pairs(self) -> None:
        """Per pair of cells in a group: the category under each of the four sources of its two metric scores."""
        eps = self.statistic.epsilon if self.statistic.function == "kendall_variants" else 0.0
        first, second, group = [], [], []
        for g, (b, e) in enumerate(self.bounds):
            i, j = np.triu_indices(e - b, 1)
            first.append(i + b)
            second.append(j + b)
            group.append(np.full(len(i), g))
        self.first = np.concatenate(first) if first else np.zeros(0, dtype=np.int64)
        self.second = np.concatenate(second) if second else np.zeros(0, dtype=np.int64)
        self.pair_group = np.concatenate(group) if group else np.zeros(0, dtype=np.int64)
        dh = self.gold[self.first] - self.gold[self.second]
        sources = (self.s2, self.s1)  # index by the 0/1 weight of metric 1
        self.cats = np.empty((4, len(self.first)), dtype=np.int8)
        for wi in (0, 1):
            for wj in (0, 1):
                dm = sources[wi][self.first] - sources[wj][self.second]
                self.cats[2 * wi + wj] = pair_categories(dh, dm, eps)

    # ------------------------------------------------------------------ one value per resample row

    def values(self, scores: np.ndarray) -> np.ndarray:
        """The statistic of each row of resampled (filtered, z-normalised) metric scores."""
        fn, st = self.statistic.function, self.statistic
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")
            if fn == "acc_eq":
                raise AssertionError("acc_eq resamples one at a time")
            if fn == "spa":
                from nlpeval.correlation.spa import _upper, pairwise_p_value_rows

                first, second = _upper(self.n_sys)
                gold_p = self.gold_p[first, second]
                out = np.empty(len(scores))
                for lo in range(0, len(scores), _SPA_BATCH):
                    block = scores[lo : lo + _SPA_BATCH].reshape(-1, self.n_sys, self.n_items)
                    metric_p = pairwise_p_value_rows(block, self.signs)
                    # spa_from_p_values row by row (np.mean of each row's 1-D copy, as pce.py sums)
                    out[lo : lo + len(block)] = [1.0 - np.mean(row) for row in np.abs(gold_p - metric_p)]
                return out
            if fn == "pairwise_accuracy":
                i, j = np.triu_indices(len(self.gold), 1)
                same = np.sign(self.gold[i] - self.gold[j]) == np.sign(scores[:, i] - scores[:, j])
                return same.sum(axis=1) / len(i) if len(i) else np.full(len(scores), np.nan)
            vals = np.empty((len(scores), len(self.bounds)))
            for g, (b, e) in enumerate(self.bounds):
                gold, block = self.gold[b:e], scores[:, b:e]
                if fn == "pearson":
                    if e - b < 2 or _constant(gold):
                        vals[:, g] = np.nan
                        continue
                    vals[:, g] = np.where(_constant(block), np.nan, self._pearson_rows(g, gold, block))
                else:
                    for d, row in enumerate(block):
                        vals[d, g] = self._single(gold, row)
            return _average(vals, st.replace_nans_with_zeros)

    def _pearson_rows(self, g: int, gold: np.ndarray, block: np.ndarray) -> np.ndarray:
        """``scipy.stats.pearsonr(gold, row)`` of every row, operation for operation, gold's half computed once."""
        cache = self.__dict__.setdefault("_gold_parts", {})
        if g not in cache:
            x = gold[None, :]
            xm = x - np.mean(x, axis=-1, keepdims=True)
            xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
            cache[g] = xm / (xmax * np.linalg.vector_norm(xm / xmax, axis=-1, keepdims=True))
        ym = block - np.mean(block, axis=-1, keepdims=True)
        ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
        normym = ymax * np.linalg.vector_norm(ym / ymax, axis=-1, keepdims=True)
        r = np.clip(np.vecdot(cache[g], ym / normym), -1.0, 1.0)  # over the last axis (vecdot's default)
        if block.shape[1] == 2:  # scipy returns exactly -1 or 1 for two points
            r = np.round(r)
        return r

    def _single(self, gold: np.ndarray, row: np.ndarray) -> float:
        import scipy.stats

        fn, st = self.statistic.function, self.statistic
        if fn == "spearman":
            if _constant(gold) or _constant(row):
                return math.nan
            return float(scipy.stats.spearmanr(gold, row)[0])
        if fn == "kendall":
            return float(scipy.stats.kendalltau(gold, row, variant=st.variant)[0])
        return float(kendall_variant_groups(gold[None, :], row[None, :], st.variant, st.epsilon)[0])

    def pair_values(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Kendall variants of both resampled metrics from the pairs' precomputed categories (exact counts)."""
        st = self.statistic
        wi, wj = weights[:, self.first].astype(np.intp), weights[:, self.second].astype(np.intp)
        combo = 2 * wi + wj
        out = []
        n_groups = len(self.bounds)
        sizes = np.asarray(self.lens, dtype=np.float64)
        columns = np.arange(len(self.first))[None, :]
        for which in (combo, 3 - combo):
            cat = self.cats[which, columns]
            index = (np.arange(len(weights))[:, None] * n_groups + self.pair_group[None, :]) * 5 + cat
            counts = np.bincount(index.ravel(), minlength=len(weights) * n_groups * 5).reshape(
                len(weights), n_groups, 5
            )
            if st.function == "kendall":  # scipy.stats.kendalltau clips to [-1, 1]
                vals = np.clip(tau_from_counts(counts, "b", sizes), -1.0, 1.0)
            else:
                vals = tau_from_counts(counts, st.variant, sizes)
            vals = np.where(sizes >= 2, vals, np.nan)
            out.append(_average(vals, st.replace_nans_with_zeros))
        return out[0], out[1]

    @property
    def uses_pairs(self) -> bool:
        return hasattr(self, "cats")

    def corr(self, scores: np.ndarray, rs: np.random.RandomState) -> float:
        """The statistic of one full vector of (z-normalised) metric scores."""
        if self.statistic.function == "acc_eq":
            st = self.statistic
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return tie_threshold_search(
                    self.gold,
                    scores.reshape(self.gold.shape),
                    variant=st.variant,
                    average_by=st.average_by,
                    sample_rate=st.sample_rate,
                    random_state=rs,
                ).statistic
        return float(self.values(scores[None, :])[0])


#: a resample whose fast difference of Pearson correlations is this close to the observed one is recomputed
#: exactly (the fast form's error is below 1e-9 once the rows with tiny variance are set aside)
_PEARSON_MARGIN = 1e-7
#: rows whose variance is below this share of their sum of squares are recomputed exactly (constant rows)
_PEARSON_TINY_VARIANCE = 1e-3


def _pearson_pair(
    engine: _Engine,
    weights: np.ndarray,
    delta: float,
    exact: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlations of both resampled metrics, from sums, with SciPy's operations where they matter.

    A resampled metric takes ``s1`` or ``s2`` cell by cell, so its sum, sum of squares and
    product with the centred human scores are the fixed sums of one side plus ``weights`` times
    the differences: three matrix products per block instead of SciPy's passes over every
    resample. These values differ from ``scipy.stats.pearsonr``'s in the last bits, so any
    resample whose difference of correlations lies within ``_PEARSON_MARGIN`` of the observed
    one (where the test's decision could depend on those bits), or whose resampled scores are
    (nearly) constant in a group, is recomputed with SciPy's operations (:meth:`_Engine.values`):
    the decisions, p-values and early stopping are exactly those of the oracle's loop.
    """
    s1, s2, gold = engine.s1, engine.s2, engine.gold
    w = weights.astype(np.float64)
    n_rows, n_groups = len(w), len(engine.bounds)
    vals1 = np.full((n_rows, n_groups), np.nan)
    vals2 = np.full((n_rows, n_groups), np.nan)
    unsure = np.zeros(n_rows, dtype=bool)
    d = s1 - s2
    for g, (b, e) in enumerate(engine.bounds):
        n = e - b
        if n < 2 or _constant(gold[b:e]):
            continue
        gc = gold[b:e] - np.mean(gold[b:e])
        ss_gold = float(gc @ gc)
        # shifted by the group's mean score (the correlation does not move) so that the variance
        # from sums cancels little
        shift = 0.5 * (np.mean(s1[b:e]) + np.mean(s2[b:e]))
        a1, a2 = s1[b:e] - shift, s2[b:e] - shift
        features = np.stack([d[b:e], a1 * a1 - a2 * a2, gc * d[b:e]], axis=1)
        moved = w[:, b:e] @ features  # (rows, 3): what the cells taken from s1 change
        for vals, base, sign in ((vals1, a2, 1.0), (vals2, a1, -1.0)):
            total = base.sum() + sign * moved[:, 0]
            squares = float(base @ base) + sign * moved[:, 1]
            cross = float(gc @ base) + sign * moved[:, 2]
            variance = squares - total * total / n
            tiny = ~(variance > _PEARSON_TINY_VARIANCE * np.abs(squares))
            unsure |= tiny
            with np.errstate(invalid="ignore", divide="ignore"):
                r = cross / np.sqrt(ss_gold * np.where(tiny, 1.0, variance))
            vals[:, g] = np.clip(np.round(r) if n == 2 else r, -1.0, 1.0)
    st = engine.statistic
    c1 = _average(vals1, st.replace_nans_with_zeros)
    c2 = _average(vals2, st.replace_nans_with_zeros)
    unsure |= ~(np.abs((c2 - c1) - delta) > _PEARSON_MARGIN)
    if unsure.any():
        rows = np.flatnonzero(unsure)
        e1, e2 = exact(weights[rows])
        c1[rows], c2[rows] = e1, e2
    return c1, c2


def _draw_loop(
    n_cells: int,
    k: int,
    block_size: int,
    early_min: float,
    early_max: float,
    rs: np.random.RandomState,
    delta: float,
    pair: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    *,
    one_at_a_time: bool = False,
    early_only_when_large: bool = False,
    chunk_cells: int | None = None,
    columns: np.ndarray | None = None,
    dtype: type = np.int64,
) -> PermutationResult:
    """Resample in chunks that never cross a block boundary; stop early as the oracle does."""
    draws: list[np.ndarray] = []
    count, done = 0, 0
    chunk_cap = 1 if one_at_a_time else max(1, _CELLS // max(chunk_cells or n_cells, 1))
    while done < k:
        to_boundary = block_size - (done % block_size)
        rows = min(chunk_cap, to_boundary, k - done)
        state = rs.get_state() if early_only_when_large else None
        weights = coin_flips(rs, (rows, n_cells), columns, dtype)
        c1, c2 = pair(weights)
        large = (c2 - c1) >= delta
        index = done + 1 + np.arange(rows)
        stop_at = None
        if early_only_when_large:
            running = count + np.cumsum(large)
            checks = np.flatnonzero(large & (index % block_size == 0))
            for c in checks.tolist():
                pval = running[c] / index[c]
                if pval < early_min or pval > early_max:
                    stop_at = c
                    break
            if stop_at is not None and stop_at + 1 < rows:
                assert state is not None
                rs.set_state(state)  # consume exactly the draws the oracle consumed
                coin_flips(rs, (stop_at + 1, n_cells))
        if stop_at is not None:
            rows = stop_at + 1
            c1, c2, large = c1[:rows], c2[:rows], large[:rows]
        draws.append(np.column_stack([c2, c1]))
        count += int(large.sum())
        done += rows
        if stop_at is not None:
            break
        if not early_only_when_large and done % block_size == 0:
            pval = count / done
            if pval < early_min or pval > early_max:
                break
    all_draws = np.concatenate(draws) if draws else np.zeros((0, 2))
    return PermutationResult(pvalue=count / max(done, 1), delta=float(delta), n_draws=max(done, 1), draws=all_draws)


def _check_k(k: int, block_size: int) -> None:
    if k < 1:
        raise ValueError("k (resamples) must be at least 1")
    if block_size < 1:
        raise ValueError("block_size must be at least 1")


def permutation_sig_diff(
    human_scores: object,
    metric1_scores: object,
    metric2_scores: object,
    statistic: Statistic,
    *,
    k: int = 1000,
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    random_state: np.random.RandomState | int | None = None,
) -> PermutationResult:
    """PERM-BOTH: the p-value that metric 2 correlates better than metric 1 (``stats.PermutationSigDiff``).

    Parameters
    ----------
    human_scores, metric1_scores, metric2_scores : array_like
        Systems x items (NaN human cells: not judged); a 1-D vector is one system-level row.
    statistic : Statistic
    k : int
        Resamples.
    block_size, early_min, early_max : int, float, float
        Every ``block_size`` resamples, stop when the p-value so far is below
        ``early_min`` or above ``early_max`` (``PermutationSigDiffParams``).
    random_state : numpy.random.RandomState, int or None
        The draws' source (``np.random.seed(s)`` in mt-metrics-eval is ``random_state=s``).

    Returns
    -------
    PermutationResult

    Examples
    --------
    >>> res = permutation_sig_diff([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], [1, 2, 3, 5, 4], Statistic("pearson"), k=50)
    >>> res.delta > 0 and 0 <= res.pvalue <= 1
    True
    """
    _check_k(k, block_size)
    human = as_matrix(human_scores, "human_scores")
    m1 = as_matrix(metric1_scores, "metric1_scores")
    m2 = as_matrix(metric2_scores, "metric2_scores")
    for side, m in (("metric1_scores", m1), ("metric2_scores", m2)):
        if m.shape != human.shape:
            raise InputError(f"shape {m.shape} differs from human_scores' {human.shape}", side=side)
        bad = np.isnan(m) & ~np.isnan(human)
        if statistic.function == "acc_eq":
            bad = np.isnan(m)
        if bad.any():
            s, i = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(f"system {s}, item {i}: metric score missing", side=side)
    rs = _rs(random_state)
    engine = _Engine(human, m1, m2, statistic)
    s1, s2 = engine.s1, engine.s2
    if statistic.function == "acc_eq":
        delta = engine.corr(s2, rs) - engine.corr(s1, rs)

        def pair(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            c1 = np.empty(len(weights))
            c2 = np.empty(len(weights))
            for d, w in enumerate(weights):
                c1[d] = engine.corr(w * s1 + (1 - w) * s2, rs)
                c2[d] = engine.corr((1 - w) * s1 + w * s2, rs)
            return c1, c2

        return _draw_loop(len(s1), k, block_size, early_min, early_max, rs, delta, pair, one_at_a_time=True)
    cells = len(s1)
    if engine.uses_pairs:
        cells = max(cells, 2 * len(engine.first))
        ones = np.ones((1, len(s1)), dtype=np.int64)
        c1_full, c2_full = engine.pair_values(ones)
        delta = float(c2_full[0] - c1_full[0])
        # pair_values(w) gives (metric built from w, its complement): metric 1 resampled first
        pair = engine.pair_values
    else:
        delta = float(engine.values(s2[None, :])[0] - engine.values(s1[None, :])[0])

        def exact(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            m1r = np.where(weights == 1, s1, s2)
            m2r = np.where(weights == 1, s2, s1)
            return engine.values(m1r), engine.values(m2r)

        pair = exact
        if statistic.function == "pearson":

            def pair(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                return _pearson_pair(engine, weights, delta, exact)

        # these weights are only compared with 1 or cast to float: bools save a pass over every cell
        return _draw_loop(len(s1), k, block_size, early_min, early_max, rs, delta, pair, chunk_cells=cells, dtype=bool)
    return _draw_loop(len(s1), k, block_size, early_min, early_max, rs, delta, pair, chunk_cells=cells)


def pairwise_permutation_sig_diff(
    human_scores: object,
    metric1_scores: object,
    metric2_scores: object,
    *,
    variant: str = "acc23",
    average_by: str = "item",
    k: int = 1000,
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    epsilon1: float | None = None,
    epsilon2: float | None = None,
    sample_rate: float = 1.0,
    replace_nans_with_zeros: bool = False,
    random_state: np.random.RandomState | int | None = None,
) -> PermutationResult:
    """Permutation test that swaps pairwise comparisons (``stats.PairwisePermutationSigDiff``, WMT23-25 for acc_eq).

    Each metric keeps its own tie threshold (searched when ``epsilon`` is None); a
    resample takes, for every pair of cells, one metric's comparison for one side and
    the other's for the other. As in mt-metrics-eval, the early-stopping check runs
    only after a resample whose difference reaches the observed one.

    Examples
    --------
    >>> human = [[1, 3], [3, 3], [1, 2], [1, 2]]
    >>> m1, m2 = [[2, 4], [6, 6], [2, 6], [3, 7]], [[1, 5], [4, 4], [4, 3], [2, 1]]
    >>> res = pairwise_permutation_sig_diff(human, m1, m2, k=10, random_state=0)
    >>> res.n_draws, round(res.delta, 4)
    (10, -0.0833)
    """
    _check_k(k, block_size)
    check_average_by(average_by)
    if variant == "c":
        raise ValueError("tau-c is not defined once pairs are swapped")
    human = as_matrix(human_scores, "human_scores")
    m1 = as_matrix(metric1_scores, "metric1_scores")
    m2 = as_matrix(metric2_scores, "metric2_scores")
    for side, m in (("metric1_scores", m1), ("metric2_scores", m2)):
        if m.shape != human.shape:
            raise InputError(f"shape {m.shape} differs from human_scores' {human.shape}", side=side)
        bad = np.isnan(m) & ~np.isnan(human)
        if bad.any():
            s, i = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(f"system {s}, item {i}: metric score missing", side=side)
    rs = _rs(random_state)
    if epsilon1 is None:
        epsilon1 = tie_threshold_search(
            human, m1, variant=variant, average_by=average_by, sample_rate=sample_rate, random_state=rs
        ).epsilon
    if epsilon2 is None:
        epsilon2 = tie_threshold_search(
            human, m2, variant=variant, average_by=average_by, sample_rate=sample_rate, random_state=rs
        ).epsilon
    if epsilon1 < 0 or epsilon2 < 0:
        raise ValueError("epsilon must be non-negative")
    lens, gold, s1, s2 = _filtered(human, m1, m2, average_by)
    starts = np.r_[0, np.cumsum(lens)]
    first, second, group, slot = [], [], [], []
    slot_base = 0
    for g, n in enumerate(lens.tolist()):
        upper_i, upper_j = np.triu_indices(n, 1)
        first.append(upper_i + starts[g])
        second.append(upper_j + starts[g])
        group.append(np.full(len(upper_i), g))
        slot.append(slot_base + upper_i * n + upper_j)  # the upper cell of this group's n x n draw
        slot_base += n * n
    cat_first = np.concatenate(first) if first else np.zeros(0, dtype=np.int64)
    cat_second = np.concatenate(second) if second else np.zeros(0, dtype=np.int64)
    pair_group = np.concatenate(group) if group else np.zeros(0, dtype=np.int64)
    pair_slot = np.concatenate(slot) if slot else np.zeros(0, dtype=np.int64)
    dh = gold[cat_first] - gold[cat_second]
    cat1 = pair_categories(dh, s1[cat_first] - s1[cat_second], float(epsilon1))
    cat2 = pair_categories(dh, s2[cat_first] - s2[cat_second], float(epsilon2))
    n_groups = len(lens)
    sizes = lens.astype(np.float64)

    totals = np.bincount(pair_group, minlength=n_groups).astype(np.float64)
    fast = variant in ("acc23", "23")
    if fast:
        # acc23's numerator counts concordant and both-tied pairs; tau23's is 2 x that - pairs
        good1 = ((cat1 == CON) | (cat1 == TIE_BOTH)).astype(np.int64)
        good2 = ((cat2 == CON) | (cat2 == TIE_BOTH)).astype(np.int64)
        base1 = np.bincount(pair_group, weights=good1, minlength=n_groups)
        base2 = np.bincount(pair_group, weights=good2, minlength=n_groups)
        gain = (good1 - good2).astype(np.float64)  # hybrid 1 minus metric 2 where a pair takes metric 1's side
        pair_counts = np.bincount(pair_group, minlength=n_groups)
        nonempty = pair_counts > 0
        group_starts = (np.r_[0, np.cumsum(pair_counts)][:-1])[nonempty]

    def from_good(good: np.ndarray) -> np.ndarray:
        numerator = good if variant == "acc23" else 2 * good - totals
        with np.errstate(invalid="ignore", divide="ignore"):
            vals = np.where(sizes >= 2, numerator / totals, np.nan)
        return _average(vals, replace_nans_with_zeros)

    def corr(cats: np.ndarray) -> np.ndarray:
        rows = len(cats)
        index = (np.arange(rows)[:, None] * n_groups + pair_group[None, :]) * 5 + cats
        counts = np.bincount(index.ravel(), minlength=rows * n_groups * 5).reshape(rows, n_groups, 5)
        vals = np.where(sizes >= 2, tau_from_counts(counts, variant, sizes), np.nan)
        return _average(vals, replace_nans_with_zeros)

    delta = float(corr(cat2[None, :])[0] - corr(cat1[None, :])[0])

    def pair(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # weights holds only the upper cells of the draws (``columns=pair_slot``)
        if fast:
            take = weights.astype(np.float64)
            moved = np.zeros((len(weights), n_groups))
            if len(gain):
                moved[:, nonempty] = np.add.reduceat(take * gain, group_starts, axis=1)
            return from_good(base2 + moved), from_good(base1 - moved)
        take_first = weights == 1
        hybrid1 = np.where(take_first, cat1[None, :], cat2[None, :])
        hybrid2 = np.where(take_first, cat2[None, :], cat1[None, :])
        return corr(hybrid1), corr(hybrid2)

    return _draw_loop(
        slot_base, k, block_size, early_min, early_max, rs, delta, pair, early_only_when_large=True, columns=pair_slot
    )


__all__ = [
    "CON",
    "DIS",
    "TIE_BOTH",
    "TIE_HUMAN",
    "TIE_METRIC",
    "PermutationResult",
    "Statistic",
    "pairwise_permutation_sig_diff",
    "permutation_sig_diff",
]
