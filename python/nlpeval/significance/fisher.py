"""Fisher's randomisation test on paired per-item values, as ranx 0.3.21 offers it.

Null hypothesis: the two systems are exchangeable on every item (query), so the sign of each
per-item difference is a coin flip. ranx (``ranx.statistical_tests.fisher_randomization_test``,
Smucker et al. 2007) draws ``n_permutations`` such sign vectors and reports the share whose
absolute mean difference is *at least* the observed one (``>=``, no add-one smoothing). Its numba
generator cannot be reproduced outside numba, so the same seed does not give the same draws;
with ``exact=True`` (or few items) every one of the ``2**n`` sign vectors is enumerated, which is
the value ranx's estimate converges to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nlpeval.core.errors import InputError

#: below this many items, the default enumerates all sign vectors (2**16 = 65,536)
EXACT_UP_TO = 16


@dataclass(frozen=True)
class FisherResult:
    """Outcome of :func:`fisher_randomization_test`.

    Attributes
    ----------
    p_value : float
        Share of sign vectors whose absolute mean difference is at least the observed one.
    baseline, system : float
        Means of the two systems' values.
    n_permutations : int
        Sign vectors drawn, or ``2**n`` when enumerated.
    exact : bool
        Whether every sign vector was enumerated.
    seed : int or None
        Seed of the generator (None when exact).
    """

    p_value: float
    baseline: float
    system: float
    n_permutations: int
    exact: bool
    seed: int | None

    @property
    def difference(self) -> float:
        """``system - baseline``."""
        return self.system - self.baseline


def fisher_randomization_test(
    baseline: np.ndarray,
    system: np.ndarray,
    *,
    n_permutations: int = 1000,
    seed: int | None = 42,
    exact: bool | None = None,
) -> FisherResult:
    """Paired (Fisher) randomisation test of the mean of per-item values, as ranx's ``stat_test="fisher"``.

    Parameters
    ----------
    baseline, system : array-like of float
        One value per item (e.g. per query), in the same item order.
    n_permutations : int
        Random sign vectors (ranx's default: 1000).
    seed : int or None
        Seed of NumPy's generator.
    exact : bool or None
        Enumerate all ``2**n`` sign vectors; ``None``: when there are at most 16 items.

    Returns
    -------
    FisherResult

    Examples
    --------
    >>> result = fisher_randomization_test([0.5, 0.2, 0.9, 0.4], [0.6, 0.5, 1.0, 0.7])
    >>> result.exact, result.p_value, round(result.difference, 4)
    (True, 0.125, 0.2)
    """
    a = np.asarray(baseline, dtype=np.float64)
    b = np.asarray(system, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"paired values need two 1-D arrays of the same length; got {a.shape} and {b.shape}")
    if len(a) == 0:
        raise InputError("cannot test zero items")
    if np.isnan(a).any() or np.isnan(b).any():
        raise InputError("paired values contain NaN")
    if n_permutations < 1:
        raise InputError("n_permutations must be at least 1")
    differences = b - a
    observed = abs(differences.sum())
    # sums of the same terms in another order differ by rounding: count those as equal (ranx's >=)
    slack = 1e-12 * max(1.0, float(np.abs(differences).sum()))
    enumerate_all = len(a) <= EXACT_UP_TO if exact is None else exact
    if enumerate_all:
        if len(a) > 26:
            raise InputError(f"exact enumeration of 2**{len(a)} sign vectors is too large; use exact=False")
        count, total = _exact_count(differences, observed - slack)
        p_value = count / total
        draws, used_seed = total, None
    else:
        rng = np.random.default_rng(seed)
        hits = 0
        for start in range(0, n_permutations, 2048):
            size = min(2048, n_permutations - start)
            signs = rng.integers(0, 2, size=(size, len(a)), dtype=np.int8) * 2 - 1
            permuted = np.abs(signs.astype(np.float64) @ differences)
            hits += int(np.count_nonzero(permuted >= observed - slack))
        p_value = hits / n_permutations
        draws, used_seed = n_permutations, seed
    return FisherResult(float(p_value), float(a.mean()), float(b.mean()), draws, enumerate_all, used_seed)


def _exact_count(differences: np.ndarray, threshold: float) -> tuple[int, int]:
    """Sign vectors (of ``2**n``) whose absolute signed sum is at least ``threshold``, by halves."""
    n = len(differences)
    if threshold <= 0:
        return 2**n, 2**n
    half = n // 2
    left = _signed_sums(differences[:half])
    right = np.sort(_signed_sums(differences[half:]))
    count = 0
    for chunk in np.array_split(left, max(1, len(left) // 4096)):
        # |l + r| >= t  <=>  r >= t - l  or  r <= -t - l
        upper = len(right) - np.searchsorted(right, threshold - chunk, side="left")
        lower = np.searchsorted(right, -threshold - chunk, side="right")
        count += int(np.sum(upper + lower))  # disjoint for a positive threshold
    return count, 2**n


def _signed_sums(values: np.ndarray) -> np.ndarray:
    """All ``2**len(values)`` sums of ``±values``."""
    sums = np.zeros(1)
    for value in values.tolist():
        sums = np.concatenate((sums + value, sums - value))
    return sums
