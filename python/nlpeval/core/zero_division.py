"""The single place where undefined ratios (0/0) are resolved."""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np

from nlpeval.core.errors import UndefinedMetricWarning

#: ``"warn"`` (use 0.0 and warn), ``"raise"``, or the number to use (0, 1 or ``np.nan``).
ZeroDivision = Literal["warn", "raise"] | float


def check_zero_division(zero_division: ZeroDivision) -> ZeroDivision:
    """Validate a ``zero_division`` policy and return it.

    Examples
    --------
    >>> check_zero_division(1)
    1
    >>> check_zero_division("skip")
    Traceback (most recent call last):
    ...
    ValueError: zero_division must be "warn", "raise", 0, 1 or nan; got 'skip'
    """
    if isinstance(zero_division, str):
        if zero_division in ("warn", "raise"):
            return zero_division
    elif isinstance(zero_division, (int, float)) and (zero_division in (0, 1) or np.isnan(zero_division)):
        return zero_division
    raise ValueError(f'zero_division must be "warn", "raise", 0, 1 or nan; got {zero_division!r}')


def safe_divide(
    numerator: np.ndarray | float,
    denominator: np.ndarray | float,
    zero_division: ZeroDivision = "warn",
    *,
    what: str = "ratio",
) -> np.ndarray:
    """Element-wise ``numerator / denominator`` with 0/0 resolved by policy.

    Parameters
    ----------
    numerator, denominator : array_like
        Broadcastable arrays.
    zero_division : {"warn", "raise", 0, 1, nan}
        Value for entries whose denominator is 0. ``"warn"`` uses 0.0 and emits an
        :class:`~nlpeval.UndefinedMetricWarning`; ``"raise"`` raises ``ZeroDivisionError``.
    what : str
        Name of the ratio, used in the warning or error.

    Returns
    -------
    numpy.ndarray
        Float array of the quotients.

    Examples
    --------
    >>> safe_divide([1, 0], [2, 0], zero_division=1).tolist()
    [0.5, 1.0]
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    undefined = den == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(num, den)
    if np.any(undefined):
        policy = check_zero_division(zero_division)
        if policy == "raise":
            raise ZeroDivisionError(f"{what} is undefined (0/0)")
        if policy == "warn":
            warnings.warn(
                f"{what} is undefined (denominator 0); using 0.0. "
                "Set zero_division to choose the value and silence this warning.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            fill = 0.0
        else:
            fill = float(policy)
        out = np.where(undefined, fill, out)
    return out
