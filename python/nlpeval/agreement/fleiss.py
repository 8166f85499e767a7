"""Fleiss' kappa (and Randolph's free-marginal kappa) for a fixed number of raters per unit."""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpeval.agreement._labels import as_array, encode
from nlpeval.agreement._result import check_bootstrap, make_score, resolve_undefined
from nlpeval.core.errors import InputError
from nlpeval.core.score import Score
from nlpeval.core.zero_division import ZeroDivision, check_zero_division

METHODS = ("fleiss", "randolph")


def count_table(ratings: Any) -> tuple[np.ndarray, np.ndarray]:
    """Units x categories counts of units x raters labels (missing values are not counted).

    Returns ``(table, categories)``; only categories that occur get a column, as
    with statsmodels' ``aggregate_raters``.

    Examples
    --------
    >>> table, categories = count_table([["a", "b", "a"], ["b", "b", None]])
    >>> table.tolist(), categories.tolist()
    ([[2, 1], [0, 2]], ['a', 'b'])
    """
    coded = encode(ratings, ndim=2, what="ratings")
    n_units, n_categories = coded.codes.shape[0], len(coded.values)
    rows = np.broadcast_to(np.arange(n_units)[:, None], coded.codes.shape)
    present = ~coded.missing
    flat = rows[present] * n_categories + coded.codes[present]
    table = np.bincount(flat, minlength=n_units * n_categories).reshape(n_units, n_categories)
    return table, coded.values


def _check_table(table: Any) -> np.ndarray:
    array = as_array(table, ndim=2, what="ratings")
    if array.dtype.kind not in "biuf":
        raise InputError("a count table must hold numbers (from_counts=True)", side="ratings")
    array = np.asarray(array, dtype=np.float64)
    bad = ~np.isfinite(array) | (array < 0) | (array != np.floor(array))
    if bad.any():
        unit = int(np.flatnonzero(bad.any(axis=1))[0])
        raise InputError("counts must be non-negative integers", segment=unit, side="ratings")
    return array


def kappa_from_table(table: np.ndarray, n_raters: float, method: str, weights: np.ndarray | None = None) -> np.ndarray:
    """Fleiss' (or Randolph's) kappa of a count table; ``weights`` ``(block, units)`` resample it."""
    agreement = ((table * table).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    if weights is None:
        category_share = table.sum(axis=0) / table.sum()
        observed = agreement.mean()
    else:
        n_drawn = weights.sum(axis=1)
        category_share = (weights @ table) / (n_drawn * n_raters)[:, None]
        observed = (weights @ agreement) / n_drawn
    if method == "fleiss":
        expected = (category_share * category_share).sum(axis=-1)
    else:
        expected = np.full_like(np.asarray(observed, dtype=np.float64), 1.0 / table.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - expected) / (1.0 - expected)
    return np.where(expected == 1.0, np.nan, kappa)


def fleiss_kappa(
    ratings: Any,
    *,
    from_counts: bool = False,
    method: str = "fleiss",
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    confidence: float = 0.95,
    zero_division: ZeroDivision = "warn",
) -> Score:
    """Fleiss' kappa of units rated by the same number of raters each.

    ``kappa = (P - Pe) / (1 - Pe)`` with ``P`` the mean share of agreeing rater
    pairs per unit and ``Pe`` the sum of squared category shares (``method="fleiss"``)
    or ``1 / n_categories`` (``method="randolph"``, free-marginal). Equal to
    statsmodels' ``fleiss_kappa(aggregate_raters(ratings)[0], method)``. Not a sum
    of per-unit statistics (``Pe`` depends on all units); the bootstrap resamples units.

    Parameters
    ----------
    ratings : array_like
        Units x raters category labels (numbers or strings); or, with
        ``from_counts=True``, a units x categories table of counts.
        Missing labels (NaN/None) are allowed only if every unit still has the
        same number of ratings (use :func:`krippendorff_alpha` otherwise).
    from_counts : bool
        ``ratings`` is already a count table.
    method : {"fleiss", "randolph"}
        Chance agreement from the category shares, or uniform over categories
        (the number of categories is the number of distinct labels, or of table columns).
    n_bootstrap, seed, confidence
        Percentile bootstrap interval over units (0 resamples: none).
    zero_division : {"warn", "raise", 0, 1, nan}
        Value when kappa is undefined (every rating is the same category,
        ``Pe == 1``); ``"warn"`` gives NaN with a warning.

    Returns
    -------
    Score
        Components ``n_units``, ``n_raters``, ``categories``, ``observed_agreement``
        (``P``), ``expected_agreement`` (``Pe``).

    Raises
    ------
    InputError
        Units with different numbers of ratings (naming the first), fewer than
        two ratings per unit, no units, negative or fractional counts.

    Examples
    --------
    >>> ratings = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [3, 3, 1]]
    >>> round(fleiss_kappa(ratings).score, 4)
    0.4667
    >>> round(fleiss_kappa([[3, 0, 0], [1, 2, 0], [0, 3, 0], [1, 0, 2]], from_counts=True).score, 4)
    0.4667
    """
    if method not in METHODS:
        raise ValueError(f"method must be 'fleiss' or 'randolph'; got {method!r}")
    check_bootstrap(n_bootstrap, confidence)
    check_zero_division(zero_division)
    if from_counts:
        table = _check_table(ratings)
        categories = list(range(table.shape[1]))
    else:
        counts, labels = count_table(ratings)
        table = counts.astype(np.float64)
        categories = labels.tolist()
    n_units = table.shape[0]
    if n_units == 0 or table.shape[1] == 0:
        raise InputError("no ratings: Fleiss' kappa needs at least one rated unit", side="ratings")
    per_unit = table.sum(axis=1)
    n_raters = per_unit[0]
    differ = np.flatnonzero(per_unit != n_raters)
    if differ.size:
        unit = int(differ[0])
        raise InputError(
            f"has {int(per_unit[unit])} ratings but unit 0 has {int(n_raters)}; Fleiss' kappa needs the same "
            "number of ratings per unit (krippendorff_alpha allows missing ratings)",
            segment=unit,
            side="ratings",
        )
    if n_raters < 2:
        raise InputError(f"units have {int(n_raters)} rating(s); Fleiss' kappa needs at least 2", side="ratings")
    value = float(kappa_from_table(table, n_raters, method))
    agreement = ((table * table).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    share = table.sum(axis=0) / table.sum()
    components = {
        "n_units": n_units,
        "n_raters": int(n_raters),
        "categories": categories,
        "observed_agreement": float(agreement.mean()),
        "expected_agreement": float((share * share).sum() if method == "fleiss" else 1.0 / table.shape[1]),
    }
    value = resolve_undefined(
        value, zero_division, "Fleiss' kappa", "the chance agreement is 1 (every rating is the same category)"
    )
    return make_score(
        "fleiss_kappa",
        value,
        signature={"method": method, "raters": int(n_raters)},
        components=components,
        statistic=lambda draws: kappa_from_table(table, n_raters, method, draws),
        n_units=n_units,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )
