"""Seeded bootstrap over units (items) for coefficients that do not decompose into summed stats.

The resamples are exactly those of :func:`nlpeval.significance.bootstrap.resample_indices`
(the same generator, drawn in row blocks so that memory stays bounded), and the
interval is the same percentile interval as :func:`nlpeval.bootstrap_interval`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator

import numpy as np

from nlpeval.core.errors import UndefinedMetricWarning
from nlpeval.core.score import ConfidenceInterval
from nlpeval.significance import bootstrap as score_bootstrap
from nlpeval.significance.bootstrap import check_bootstrap, index_blocks  # noqa: F401 - check_bootstrap re-exported


def weight_blocks(n_units: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """Like :func:`index_blocks`, as ``(block, n_units)`` float counts of each unit's draws."""
    for block in index_blocks(n_units, n_resamples, seed):
        rows = block.shape[0]
        flat = (block + (np.arange(rows) * n_units)[:, None]).ravel()
        yield np.bincount(flat, minlength=rows * n_units).reshape(rows, n_units).astype(np.float64)


def percentile_interval(
    values: np.ndarray, *, confidence: float, n_resamples: int, seed: int | None
) -> ConfidenceInterval:
    """Percentile interval of resampled values (undefined resamples, NaN, are left out with a warning).

    Examples
    --------
    >>> ci = percentile_interval(np.arange(100.0), confidence=0.9, n_resamples=100, seed=1)
    >>> ci.low, ci.high, ci.mean
    (4.0, 95.0, 49.5)
    """
    values = np.asarray(values, dtype=np.float64)
    finite = values[~np.isnan(values)]
    undefined = len(values) - len(finite)
    if undefined:
        warnings.warn(
            f"the coefficient is undefined in {undefined} of {len(values)} bootstrap resamples; "
            "the interval is computed from the others",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    if len(finite) == 0:
        nan = float("nan")
        return ConfidenceInterval(nan, nan, nan, confidence, n_resamples, seed)
    # the percentile rule of the decomposable metrics, over the defined resamples
    interval = score_bootstrap.percentile_interval(finite, level=confidence, seed=seed)
    return dataclasses.replace(interval, n_resamples=n_resamples)


def bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n_units: int,
    *,
    n_resamples: int,
    seed: int | None,
    confidence: float,
) -> ConfidenceInterval:
    """Percentile interval of ``statistic(weights)`` over resampled units.

    ``statistic`` takes a ``(block, n_units)`` array of draw counts and returns
    one value per row (NaN where undefined).
    """
    if n_units == 0:
        raise ValueError("cannot bootstrap without units")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.concatenate(
                [np.asarray(statistic(w), dtype=np.float64) for w in weight_blocks(n_units, n_resamples, seed)]
            )
    return percentile_interval(values, confidence=confidence, n_resamples=n_resamples, seed=seed)


def group_sums(weights: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """``(block, n_groups)`` sums of each row of ``weights`` over units with the same group id.

    Examples
    --------
    >>> group_sums(np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]]), np.array([1, 0, 1]), 3).tolist()
    [[2.0, 4.0, 0.0], [1.0, 1.0, 0.0]]
    """
    from scipy import sparse

    n_units = len(groups)
    onehot = sparse.csr_matrix(
        (np.ones(n_units), (np.arange(n_units), groups)), shape=(n_units, n_groups), dtype=np.float64
    )
    return np.asarray((onehot.T @ weights.T).T)
