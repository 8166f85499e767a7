"""Summary of numeric ratings such as 1–5 adequacy/fluency scales: centre, spread, annotator bias."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.agreement._labels import as_array
from nlpeval.core.errors import InputError


@dataclass(frozen=True)
class RaterSummary:
    """One annotator's ratings.

    Attributes
    ----------
    rater : str
        Annotator name (or index).
    n : int
        Number of ratings given.
    mean, std : float
        Mean and sample standard deviation (``ddof=1``; NaN with one rating).
    bias : float
        Mean of (rating - mean of the *other* annotators' ratings of the same
        unit) over the units this annotator shares with others: positive means
        more lenient than the rest. NaN when the annotator shares no unit.
    """

    rater: str
    n: int
    mean: float
    std: float
    bias: float

    def to_dict(self) -> dict[str, Any]:
        return {"rater": self.rater, "n": self.n, "mean": self.mean, "std": self.std, "bias": self.bias}


@dataclass(frozen=True)
class RatingSummary:
    """Centre and spread of a set of ratings, overall and per annotator.

    Attributes
    ----------
    n_units, n_raters, n_ratings : int
        Units, annotators, and ratings given (missing ones not counted).
    mean, std : float
        Over all ratings (sample standard deviation).
    unit_std : float
        Mean over units rated at least twice of the sample standard deviation
        of their ratings: the typical disagreement on one unit, in scale points.
    counts : dict
        How often each value was given (sorted by value).
    raters : tuple of RaterSummary
        Per annotator.
    """

    n_units: int
    n_raters: int
    n_ratings: int
    mean: float
    std: float
    unit_std: float
    counts: dict[float, int]
    raters: tuple[RaterSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_units": self.n_units,
            "n_raters": self.n_raters,
            "n_ratings": self.n_ratings,
            "mean": self.mean,
            "std": self.std,
            "unit_std": self.unit_std,
            "counts": {str(k): v for k, v in self.counts.items()},
            "raters": [r.to_dict() for r in self.raters],
        }


def _sample_std(filled: np.ndarray, present: np.ndarray, axis: int) -> np.ndarray:
    """Sample standard deviation of the present values along ``axis`` (NaN below two values)."""
    n = present.sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = filled.sum(axis=axis) / n
        deviation = np.where(present, filled - np.expand_dims(mean, axis), 0.0)
        variance = (deviation * deviation).sum(axis=axis) / (n - 1)
    return np.where(n >= 2, np.sqrt(variance), np.nan)


def rating_summary(
    ratings: Any,
    *,
    raters: Sequence[str] | None = None,
    scale: tuple[float, float] | None = None,
) -> RatingSummary:
    """Summarise numeric ratings (raters x units, NaN for missing).

    Parameters
    ----------
    ratings : array_like
        Raters x units numbers (the orientation of :func:`krippendorff_alpha`).
    raters : sequence of str, optional
        Annotator names, one per row (default ``"0"``, ``"1"``…).
    scale : (low, high), optional
        The rating scale, e.g. ``(1, 5)``; a rating outside it is an error.

    Returns
    -------
    RatingSummary

    Raises
    ------
    InputError
        Non-numeric or infinite ratings, ratings outside ``scale`` (naming the
        rater and unit), no ratings at all.

    Examples
    --------
    >>> nan = float("nan")
    >>> s = rating_summary([[4, 5, 3, nan], [3, 4, 2, 2], [4, 4, nan, 1]], raters=["ann", "bob", "cy"], scale=(1, 5))
    >>> s.n_ratings, round(s.mean, 4), s.counts
    (10, 3.2, {1.0: 1, 2.0: 2, 3.0: 2, 4.0: 4, 5.0: 1})
    >>> [(r.rater, round(r.bias, 3)) for r in s.raters]
    [('ann', 0.833), ('bob', -0.375), ('cy', -0.333)]
    """
    array = as_array(ratings, ndim=2, what="ratings")
    try:
        values = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("ratings must be numbers (NaN for missing)", side="ratings") from None
    n_raters, n_units = values.shape
    names = [str(i) for i in range(n_raters)] if raters is None else [str(r) for r in raters]
    if len(names) != n_raters:
        raise ValueError(f"{len(names)} rater names for {n_raters} rows of ratings")
    present = ~np.isnan(values)
    if np.isinf(values).any():
        rater, unit = np.argwhere(np.isinf(values))[0]
        raise InputError(f"rater {names[rater]}: rating of unit {unit} is infinite", side="ratings")
    if scale is not None:
        low, high = scale
        outside = present & ((values < low) | (values > high))
        if outside.any():
            rater, unit = np.argwhere(outside)[0]
            raise InputError(
                f"rater {names[rater]}: rating {values[rater, unit]:g} of unit {unit} "
                f"is outside the scale {low:g}–{high:g}",
                side="ratings",
            )
    if not present.any():
        raise InputError("no ratings (every value is missing)", side="ratings")
    filled = np.where(present, values, 0.0)
    given = present.sum(axis=1)
    per_unit = present.sum(axis=0)
    unit_total = filled.sum(axis=0)
    everything = filled[present]
    shared = present & (per_unit >= 2)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        others_mean = (unit_total[None, :] - filled) / (per_unit[None, :] - 1)
        bias = np.where(shared, filled - others_mean, 0.0).sum(axis=1) / shared.sum(axis=1)
        means = filled.sum(axis=1) / given
    stds = _sample_std(filled, present, axis=1)
    unit_stds = _sample_std(filled, present, axis=0)
    distinct, frequency = np.unique(everything, return_counts=True)
    return RatingSummary(
        n_units=n_units,
        n_raters=n_raters,
        n_ratings=int(present.sum()),
        mean=float(everything.mean()),
        std=float(everything.std(ddof=1)) if everything.size > 1 else float("nan"),
        unit_std=float(np.nanmean(unit_stds)) if (per_unit >= 2).any() else float("nan"),
        counts={float(k): int(c) for k, c in zip(distinct, frequency, strict=True)},
        raters=tuple(
            RaterSummary(names[i], int(given[i]), float(means[i]), float(stds[i]), float(bias[i]))
            for i in range(n_raters)
        ),
    )
