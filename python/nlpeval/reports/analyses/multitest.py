"""Multiple-testing corrections (Holm step-down, Benjamini-Hochberg), as statsmodels' ``multipletests``.

``None`` entries (undefined p-values) are left out of the family and stay ``None`` (so p-values without
``None`` give p-values without ``None``, as the overloads say).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import numpy as np


def _defined(p_values: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    index = np.array([i for i, p in enumerate(p_values) if p is not None], dtype=np.int64)
    values = np.array([p_values[i] for i in index], dtype=np.float64)
    return index, values


@overload
def holm(p_values: Sequence[float]) -> list[float]: ...
@overload
def holm(p_values: Sequence[float | None]) -> list[float | None]: ...
def holm(p_values: Sequence[float | None]) -> list[float] | list[float | None]:
    """Holm-adjusted p-values (statsmodels ``method="holm"``).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, None])
    [0.03, 0.06, 0.06, None]
    """
    out: list[float | None] = [None] * len(p_values)
    index, values = _defined(p_values)
    m = len(values)
    if m == 0:
        return out
    order = np.argsort(values, kind="mergesort")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * values[order]))
    for position, value in zip(index[order], adjusted, strict=True):
        out[int(position)] = float(value)
    return out


@overload
def benjamini_hochberg(p_values: Sequence[float]) -> list[float]: ...
@overload
def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float | None]: ...
def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float] | list[float | None]:
    """Benjamini-Hochberg adjusted p-values (statsmodels ``method="fdr_bh"``).

    Examples
    --------
    >>> [round(p, 4) for p in benjamini_hochberg([0.01, 0.04, 0.03])]
    [0.03, 0.04, 0.04]
    """
    out: list[float | None] = [None] * len(p_values)
    index, values = _defined(p_values)
    m = len(values)
    if m == 0:
        return out
    order = np.argsort(values, kind="mergesort")[::-1]
    ranks = m - np.arange(m)
    adjusted = np.minimum(1.0, np.minimum.accumulate(values[order] * m / ranks))
    for position, value in zip(index[order], adjusted, strict=True):
        out[int(position)] = float(value)
    return out
