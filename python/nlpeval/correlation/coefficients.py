"""Pearson's r, Spearman's rho and Kendall's tau (b and c) with SciPy's p-values."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError, UndefinedMetricWarning
from nlpeval.correlation._groups import (
    kendall_counts,
    kendall_from_counts,
    pearson_groups,
    spearman_groups,
)


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation coefficient and its two-sided p-value (unpacks like SciPy's results).

    Attributes
    ----------
    statistic : float
        The coefficient (NaN when undefined: a constant input).
    pvalue : float
        Two-sided p-value of the null hypothesis of no association.
    n : int
        Number of paired observations.
    method : str
        ``"pearson"``, ``"spearman"``, ``"kendall_b"`` or ``"kendall_c"``.

    Examples
    --------
    >>> r, p = CorrelationResult(0.5, 0.2, 10, "pearson")
    >>> r, p
    (0.5, 0.2)
    """

    statistic: float
    pvalue: float
    n: int
    method: str

    def __iter__(self) -> Iterator[float]:
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "statistic": self.statistic, "pvalue": self.pvalue, "n": self.n}


def paired(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, *, minimum: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Two equally long 1-D float arrays without NaN or infinity (else an InputError naming the position).

    Examples
    --------
    >>> paired([1, 2], [3, 4])
    (array([1., 2.]), array([3., 4.]))
    """
    arrays = []
    for side, values in (("x", x), ("y", y)):
        if isinstance(values, (str, bytes)):
            raise InputError("got a str; expected a sequence of numbers", side=side)
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("expected a sequence of numbers", side=side) from None
        if array.ndim != 1:
            raise InputError(f"expected a 1-D sequence; got shape {array.shape}", side=side)
        bad = np.flatnonzero(~np.isfinite(array))
        if bad.size:
            raise InputError(f"is {array[bad[0]]} (scores must be finite)", segment=int(bad[0]), side=side)
        arrays.append(array + 0.0)
    if len(arrays[0]) != len(arrays[1]):
        raise InputError(f"{len(arrays[0])} values in x but {len(arrays[1])} in y", side="y")
    if len(arrays[0]) < minimum:
        raise InputError(f"{len(arrays[0])} pair(s); a correlation needs at least {minimum}", side="x")
    return arrays[0], arrays[1]


def _warn_constant(method: str) -> None:
    warnings.warn(
        f"an input is constant; {method} correlation is undefined (nan)", UndefinedMetricWarning, stacklevel=3
    )


def _one(x: np.ndarray) -> np.ndarray:
    return np.array([0, len(x)], dtype=np.int64)


def pearson(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> CorrelationResult:
    """Pearson's r with its two-sided p-value, as ``scipy.stats.pearsonr``.

    The p-value comes from the exact null distribution of r for normal data (a
    beta distribution on [-1, 1] with ``a = b = n/2 - 1``); with ``n == 2``, r is
    ±1 and the p-value 1.

    Parameters
    ----------
    x, y : sequence of float
        Paired observations (at least 2; finite).

    Returns
    -------
    CorrelationResult
        NaN statistic and p-value, with an :class:`~nlpeval.UndefinedMetricWarning`,
        when x or y is constant.

    Raises
    ------
    InputError
        Different lengths, fewer than 2 pairs, NaN or infinite values (naming the position).

    Examples
    --------
    >>> res = pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (0.8, 0.1041)
    """
    from scipy import special

    xs, ys = paired(x, y)
    r = float(pearson_groups(xs, ys, _one(xs))[0])
    n = len(xs)
    if math.isnan(r):
        _warn_constant("pearson")
        return CorrelationResult(math.nan, math.nan, n, "pearson")
    if n == 2:
        return CorrelationResult(float(round(r)), 1.0, n, "pearson")
    shape = n / 2.0 - 1.0
    pvalue = float(2.0 * special.betaincc(shape, shape, (abs(r) + 1.0) / 2.0))
    return CorrelationResult(r, pvalue, n, "pearson")


def spearman_pvalue(rho: float, n: int) -> float:
    """Two-sided p-value of Spearman's rho (Student's t with n - 2 degrees of freedom), as SciPy."""
    from scipy import special

    dof = np.float64(n - 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = rho * np.sqrt(np.clip(dof / ((np.float64(rho) + 1.0) * (1.0 - rho)), 0.0, None))
    return float(2.0 * special.stdtr(dof, -abs(t)))


def spearman(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> CorrelationResult:
    """Spearman's rho (Pearson's r of average ranks), as ``scipy.stats.spearmanr``.

    The p-value uses Student's t with ``n - 2`` degrees of freedom (NaN for
    ``n == 2``, as SciPy).

    Parameters
    ----------
    x, y : sequence of float
        Paired observations (at least 2; finite). Ties get their average rank.

    Returns
    -------
    CorrelationResult
        NaN, with an :class:`~nlpeval.UndefinedMetricWarning`, when x or y is constant.

    Raises
    ------
    InputError
        Different lengths, fewer than 2 pairs (SciPy returns NaN for one pair),
        NaN or infinite values.

    Examples
    --------
    >>> res = spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (0.8208, 0.0886)
    """
    xs, ys = paired(x, y)
    rho = float(spearman_groups(xs, ys, _one(xs))[0])
    if math.isnan(rho):
        _warn_constant("spearman")
        return CorrelationResult(math.nan, math.nan, len(xs), "spearman")
    return CorrelationResult(rho, spearman_pvalue(rho, len(xs)), len(xs), "spearman")


def _mahonian_cdf(n: int, c: int) -> int:
    """Number of permutations of n items with at most c inversions (exact integers)."""
    counts = [1] + [0] * c
    for size in range(2, n + 1):
        # permutations of `size` items: add 0..size-1 inversions to those of size - 1
        prefix = [0] * (c + 2)
        for k in range(c + 1):
            prefix[k + 1] = prefix[k] + counts[k]
        counts = [prefix[k + 1] - prefix[max(0, k - size + 1)] for k in range(c + 1)]
    return sum(counts)


def kendall_exact_pvalue(n: int, concordant: int) -> float:
    """Two-sided exact p-value of Kendall's tau without ties (Kendall 1970), as SciPy.

    Examples
    --------
    >>> round(kendall_exact_pvalue(5, 8), 6)
    0.233333
    """
    total = n * (n - 1) // 2
    c = min(concordant, total - concordant)
    if n <= 2 or 4 * c == n * (n - 1):
        return 1.0
    if n >= 171:  # only reached for c <= 1: 2 / (n - 1)! underflows, as in SciPy
        return 0.0
    return min(1.0, 2.0 * _mahonian_cdf(n, c) / math.factorial(n))


def kendall_asymptotic_pvalue(con_minus_dis: float, n: int, counts: np.ndarray, tie_sums: np.ndarray) -> float:
    """Two-sided p-value from the normal approximation with the tie-corrected variance (Kendall 1970)."""
    from scipy import special

    x_tied, y_tied = float(counts[1]), float(counts[2])
    x0, x1, y0, y1 = (float(v) for v in tie_sums)
    m = n * (n - 1.0)
    variance = (m * (2 * n + 5) - x1 - y1) / 18.0 + (2.0 * x_tied * y_tied) / m + x0 * y0 / (9.0 * m * (n - 2))
    z = con_minus_dis / math.sqrt(variance)
    return float(2.0 * special.ndtr(-abs(z)))


def kendall(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, *, variant: str = "b"
) -> CorrelationResult:
    """Kendall's tau-b or tau-c, as ``scipy.stats.kendalltau`` (``method="auto"``).

    Counts discordant pairs in O(n log n) (native merge sort). The p-value is
    exact when there are no ties and n <= 33 (or at most one pair is on the
    minority side), else from the normal approximation with the tie-corrected
    variance; it depends only on concordant minus discordant pairs, so both
    variants share it.

    Parameters
    ----------
    x, y : sequence of float
        Paired observations (at least 2; finite).
    variant : {"b", "c"}
        Tau-b (adjusted for ties) or tau-c (Stuart's, for rectangular tables).

    Returns
    -------
    CorrelationResult
        NaN, with an :class:`~nlpeval.UndefinedMetricWarning`, when x or y is
        constant (SciPy returns NaN without a warning).

    Raises
    ------
    InputError
        Different lengths, fewer than 2 pairs (SciPy returns NaN), NaN or infinite values.

    Examples
    --------
    >>> res = kendall([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (0.6, 0.2333)
    >>> round(kendall([1, 1, 2, 3], [1, 2, 2, 3], variant="c").statistic, 4)
    0.75
    """
    if variant not in ("b", "c"):
        raise ValueError(f"variant must be 'b' or 'c'; got {variant!r}")
    xs, ys = paired(x, y)
    n = len(xs)
    counts, tie_sums = kendall_counts(xs, ys, _one(xs))
    tau_values, con_minus_dis_values = kendall_from_counts(counts, np.array([float(n)]), variant)
    tau = float(tau_values[0])
    method = f"kendall_{variant}"
    if math.isnan(tau):
        _warn_constant("kendall")
        return CorrelationResult(math.nan, math.nan, n, method)
    row = counts[0]
    discordant, x_tied, y_tied = int(row[0]), int(row[1]), int(row[2])
    total = n * (n - 1) // 2
    if x_tied == 0 and y_tied == 0 and (n <= 33 or min(discordant, total - discordant) <= 1):
        pvalue = kendall_exact_pvalue(n, total - discordant)
    else:
        pvalue = kendall_asymptotic_pvalue(float(con_minus_dis_values[0]), n, row, tie_sums[0])
    return CorrelationResult(tau, pvalue, n, method)
