"""Shared pieces of the agreement coefficients: undefined values and the returned Score."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from nlpeval.agreement._resample import bootstrap, check_bootstrap
from nlpeval.core.errors import UndefinedMetricWarning
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.zero_division import ZeroDivision, check_zero_division


def resolve_undefined(value: float, zero_division: ZeroDivision, what: str, reason: str) -> float:
    """``value``, or the ``zero_division`` replacement when it is NaN (undefined).

    For agreement coefficients ``"warn"`` gives NaN with an
    :class:`~nlpeval.UndefinedMetricWarning` (as scikit-learn's ``cohen_kappa_score``
    does): 0 would claim chance-level agreement, which is not what happened.

    Examples
    --------
    >>> resolve_undefined(0.5, "warn", "kappa", "one label")
    0.5
    >>> resolve_undefined(float("nan"), 1, "kappa", "one label")
    1.0
    """
    policy = check_zero_division(zero_division)
    if not np.isnan(value):
        return float(value)
    if policy == "raise":
        raise ZeroDivisionError(f"{what} is undefined: {reason}")
    if policy == "warn":
        warnings.warn(
            f"{what} is undefined: {reason}; returning nan. Set zero_division to choose the value.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(policy)


def make_score(
    name: str,
    value: float,
    *,
    signature: Mapping[str, object],
    components: Mapping[str, Any],
    statistic: Callable[[np.ndarray], np.ndarray] | None,
    n_units: int,
    n_bootstrap: int,
    seed: int | None,
    confidence: float,
) -> Score:
    """The coefficient's :class:`~nlpeval.Score`, with a bootstrap interval over units when asked."""
    ci = None
    fields = dict(signature)
    if n_bootstrap and statistic is not None:
        ci = bootstrap(statistic, n_units, n_resamples=n_bootstrap, seed=seed, confidence=confidence)
        fields.update(bs=n_bootstrap, rs=seed)
    return Score(name, value, str(Signature.build(**fields)), components, ci=ci)


__all__ = ["check_bootstrap", "make_score", "resolve_undefined"]
