"""Krippendorff's alpha from value counts: the coincidence matrix, never pairs of units.

Each unit contributes its value counts ``c_u`` (over the ``V`` distinct values)
to the coincidence matrix ``o = sum_u (c_u c_u^T - diag(c_u)) / (m_u - 1)``
(``m_u`` = values in the unit, units with fewer than two are not pairable). Then
``alpha = 1 - (n - 1) * sum(o * d) / sum(n_c n_k d)`` with ``n`` the value totals
and ``d`` the level's distance. The work is O(units x raters) to count plus at
most O(V^2) for the matrices, so 5 raters x 40,000 units take milliseconds. The
expected disagreement has a closed form for nominal, interval and ordinal data
(ordinal distances are squared differences of mid-cumulative value counts), so
only ratio data with very many distinct values (continuous measurements) pay the
full O(V^2), in blocks of bounded memory. Up to 8 distinct values the counts are
dense; beyond, a sparse units x values matrix keeps the coincidences O(nonzeros).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.agreement._labels import encode
from nlpeval.agreement._result import check_bootstrap, make_score, resolve_undefined
from nlpeval.core.errors import InputError
from nlpeval.core.score import Score
from nlpeval.core.zero_division import ZeroDivision, check_zero_division

LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: up to this many distinct values the units x values counts are dense (counted by comparison); sparse beyond
_DENSE_VALUES = 8
#: resampling multiplies per-unit coincidences (units x V^2) when they fit in this many cells
_DENSE_CELLS = 20_000_000
#: values per block of rows when summing the O(V^2) ratio distances
_BLOCK_CELLS = 4_000_000


def _points(level: str, values: np.ndarray | None, totals: np.ndarray) -> np.ndarray:
    """Coordinates whose difference gives the level's distance (batched over leading axes of ``totals``).

    Ordinal distance is ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``, i.e. the squared
    difference of the mid-cumulative counts ``N_v - n_v / 2``.
    """
    if level == "ordinal":
        return np.cumsum(totals, axis=-1) - totals / 2.0
    if level == "nominal":
        return np.arange(totals.shape[-1], dtype=np.float64)
    assert values is not None, "interval and ratio distances need the values"
    return np.broadcast_to(values, totals.shape)


def _distance(level: str, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    if level == "nominal":
        return (p != q).astype(np.float64)
    if level == "ratio":
        total = p + q
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total != 0, ((p - q) / total) ** 2, 0.0)
    return (p - q) ** 2


def _expected_sum(level: str, points: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """``sum_{c,k} n_c n_k d(c, k)`` (batched): closed forms, except ratio (O(V^2) in blocks)."""
    n = totals.sum(axis=-1)
    if level == "nominal":
        return n * n - (totals * totals).sum(axis=-1)
    if level in ("interval", "ordinal"):
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = (totals * points).sum(axis=-1) / n
        centred = points - mean[..., None]
        return 2.0 * n * (totals * centred * centred).sum(axis=-1)
    if totals.ndim == 1:
        used = np.flatnonzero(totals)
        p, t = points[used], totals[used]
        rows = max(1, _BLOCK_CELLS // max(len(used), 1))
        out = 0.0
        for start in range(0, len(used), rows):
            block = _distance(level, p[start : start + rows, None], p[None, :])
            out += float(np.einsum("i,ij,j->", t[start : start + rows], block, t))
        return np.asarray(out)
    d = _distance(level, points[..., :, None], points[..., None, :])
    return np.einsum("...i,...ij,...j->...", totals, d, totals)


def _alpha(observed: np.ndarray, expected: np.ndarray, n: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - observed / (expected / (n - 1.0))
    return np.where(expected == 0, np.nan, alpha)


class _Counts:
    """Value counts of the pairable units, and the coincidences they give."""

    def __init__(self, codes: np.ndarray, n_values: int) -> None:
        per_unit = np.asarray(np.sum(codes >= 0, axis=0, dtype=np.int64))
        pairable = per_unit >= 2
        self.n_units = int(np.count_nonzero(pairable))
        self.n_values = n_values
        self.weights = 1.0 / (per_unit[pairable] - 1.0)
        self.dense = n_values <= _DENSE_VALUES
        if self.dense:
            # a few vectorised comparisons beat scattering into a count matrix
            table = np.empty((n_values, codes.shape[1]), dtype=np.int32)
            for value in range(n_values):
                np.sum(codes == value, axis=0, dtype=np.int32, out=table[value])
            # values x units: each value's counts are one contiguous row
            self.matrix = table[:, pairable].astype(np.float64)
            return
        from scipy import sparse

        sub = codes[:, pairable]
        keep = sub >= 0
        units = np.broadcast_to(np.arange(self.n_units), sub.shape)[keep]
        self.matrix = sparse.csr_matrix((np.ones(len(units)), (units, sub[keep])), shape=(self.n_units, n_values))

    def coincidences(self, draws: np.ndarray | None = None) -> tuple[Any, np.ndarray]:
        """``(o, totals)`` for units drawn ``draws`` times each (all once by default).

        ``o`` is a dense V x V array, or a sparse matrix when the counts are sparse.
        """
        scale = self.weights if draws is None else self.weights * draws
        counts = self.matrix
        if self.dense:
            weighted = counts * scale[None, :]
            # einsum's own loops, not BLAS: V is tiny, and waking BLAS threads costs more than the sums
            o = np.einsum("cu,ku->ck", weighted, counts)
            o[np.diag_indices_from(o)] -= weighted.sum(axis=1)
            totals = o.sum(axis=0)
        else:
            from scipy import sparse

            weighted = sparse.diags(scale) @ counts
            o = (weighted.T @ counts - sparse.diags(np.asarray(weighted.sum(axis=0)).ravel())).tocoo()
            totals = np.asarray(o.sum(axis=0)).ravel()
        return o, totals

    def per_unit_coincidences(self) -> np.ndarray | None:
        """``(units, V * V)`` contributions to ``o`` (for batched resampling), if small enough."""
        v = self.n_values
        if not self.dense or self.n_units * v * v > _DENSE_CELLS:
            return None
        counts = self.matrix.T
        outer = counts[:, :, None] * counts[:, None, :]
        outer[:, np.arange(v), np.arange(v)] -= counts
        return (outer * self.weights[:, None, None]).reshape(self.n_units, v * v)


def _observed_sum(level: str, o: Any, points: np.ndarray) -> float:
    if isinstance(o, np.ndarray):
        return float((o * _distance(level, points[:, None], points[None, :])).sum())
    return float(o.data @ _distance(level, points[o.row], points[o.col]))


def _domain_codes(coded: Any, value_domain: Any, level: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes relative to a user-given value domain (its order, and its values as coordinates)."""
    domain = np.asarray(value_domain, dtype=object if not coded.numeric else None)
    if domain.ndim != 1 or len(domain) == 0:
        raise ValueError("value_domain must be a non-empty 1-D sequence")
    keys = domain.astype(np.float64) if coded.numeric and domain.dtype.kind in "biuf" else domain
    position = {key: i for i, key in enumerate(keys.tolist())}
    if len(position) != len(domain):
        raise ValueError("value_domain has repeated values")
    remap = np.empty(len(coded.values) + 1, dtype=np.int64)
    remap[-1] = -1
    for code, value in enumerate(coded.values.tolist()):
        if value not in position:
            raise InputError(f"value {value!r} is not in value_domain", side="data")
        remap[code] = position[value]
    if level in ("interval", "ratio") and keys.dtype.kind not in "biuf":
        raise ValueError(f"level={level!r} needs numeric values; value_domain holds labels")
    return remap[coded.codes], np.asarray(keys, dtype=np.float64 if keys.dtype.kind in "biuf" else object)


def krippendorff_alpha(
    data: Any,
    *,
    level: str = "nominal",
    value_domain: Any = None,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    confidence: float = 0.95,
    zero_division: ZeroDivision = "warn",
) -> Score:
    """Krippendorff's alpha of reliability data with missing values.

    Equal to the ``krippendorff`` package's ``alpha(data, level_of_measurement=level)``
    at all four levels, computed from value counts (see the module notes). Alpha is
    not a sum of per-unit statistics (the expected disagreement uses all units'
    value totals, and ordinal distances depend on them); the bootstrap resamples
    pairable units (units with at least two values) with replacement.

    Parameters
    ----------
    data : array_like
        Raters x units. Numbers with NaN for a missing value, or labels (strings)
        with ``None``/NaN for missing.
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement: the distance between two values.
    value_domain : sequence, optional
        The possible values in order (needed for ordinal string labels; the
        order alone matters for ordinal, the numbers for interval/ratio).
    n_bootstrap, seed, confidence
        Percentile bootstrap interval over pairable units (0 resamples: none).
    zero_division : {"warn", "raise", 0, 1, nan}
        Value when alpha is undefined (no variation: the expected disagreement
        is 0, e.g. every value is the same); ``"warn"`` gives NaN with a warning.

    Returns
    -------
    Score
        Components ``n_units`` (pairable units), ``n_values`` (pairable values),
        ``n_raters``, ``n_distinct``, ``observed_disagreement``, ``expected_disagreement``.

    Raises
    ------
    InputError
        No unit with values from two raters (for instance all values missing),
        labels of mixed types, a value outside ``value_domain``, string labels at
        a level that needs numbers (ordinal without ``value_domain``, interval, ratio).

    Examples
    --------
    >>> nan = float("nan")
    >>> data = [[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    ...         [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    ...         [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]]
    >>> round(krippendorff_alpha(data, level="nominal").score, 6)
    0.691358
    >>> round(krippendorff_alpha(data, level="interval").score, 6)
    0.810845
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    check_bootstrap(n_bootstrap, confidence)
    check_zero_division(zero_division)
    coded = encode(data, ndim=2, what="data")
    if value_domain is not None:
        codes, values = _domain_codes(coded, value_domain, level)
    else:
        if not coded.numeric and level != "nominal":
            raise InputError(
                f"level={level!r} needs numbers (or value_domain giving the order of the labels)", side="data"
            )
        codes, values = coded.codes, coded.values
    counts = _Counts(codes, len(values))
    if counts.n_units == 0:
        raise InputError(
            "no unit has values from two raters (all values missing, or one rater only); alpha needs pairable values",
            side="data",
        )
    coordinates = values.astype(np.float64) if level in ("interval", "ratio") else None
    o, totals = counts.coincidences()
    n = float(totals.sum())
    points = _points(level, coordinates, totals)
    observed = _observed_sum(level, o, points)
    expected = float(_expected_sum(level, points, totals))
    value = float(_alpha(np.asarray(observed), np.asarray(expected), np.asarray(n)))
    components = {
        "n_units": counts.n_units,
        "n_values": round(n),
        "n_raters": int(codes.shape[0]),
        "n_distinct": int(np.count_nonzero(totals)),
        "observed_disagreement": observed / n,
        "expected_disagreement": expected / (n * (n - 1.0)),
    }
    value = resolve_undefined(
        value, zero_division, "Krippendorff's alpha", "the expected disagreement is 0 (the values do not vary)"
    )
    v = len(values)
    cache: dict[str, np.ndarray | None] = {}

    def statistic(draws: np.ndarray) -> np.ndarray:
        if "per_unit" not in cache:
            cache["per_unit"] = counts.per_unit_coincidences()
        per_unit = cache["per_unit"]
        if per_unit is not None:
            o_batch = (draws @ per_unit).reshape(-1, v, v)
            totals_batch = o_batch.sum(axis=-1)
            p = _points(level, coordinates, totals_batch)
            d = _distance(level, p[..., :, None], p[..., None, :])
            observed_batch = (o_batch * d).sum(axis=(-2, -1))
            expected_batch = _expected_sum(level, p, totals_batch)
            return _alpha(observed_batch, expected_batch, totals_batch.sum(axis=-1))
        out = np.empty(len(draws))
        for row, weights in enumerate(draws):
            o_row, t_row = counts.coincidences(weights)
            p = _points(level, coordinates, t_row)
            out[row] = _alpha(
                np.asarray(_observed_sum(level, o_row, p)),
                np.asarray(_expected_sum(level, p, t_row)),
                np.asarray(t_row.sum()),
            )
        return out

    return make_score(
        "krippendorff_alpha",
        value,
        signature={"level": level},
        components=components,
        statistic=statistic,
        n_units=counts.n_units,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )
