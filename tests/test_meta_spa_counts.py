"""The core's SPA pair counts (``spa_pair_counts``) against pce.py's NumPy loop, and SPA end to end."""

from __future__ import annotations

import numpy as np
import pytest

from nlpeval import _native
from nlpeval.correlation import spa


def _pce_counts(partial: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """pce.compute_pairwise_p_values' loop (float32 differences) for each matrix."""
    n_mats, n_sys = totals.shape
    out = []
    for m in range(n_mats):
        cols = partial[:, m * n_sys : (m + 1) * n_sys]
        out.append(
            [
                np.sum(cols[:, i] - cols[:, j] >= totals[m, i] - totals[m, j])
                for i in range(n_sys)
                for j in range(i + 1, n_sys)
            ]
        )
    return np.array(out, dtype=np.int64).reshape(n_mats, n_sys * (n_sys - 1) // 2)


@pytest.mark.parametrize("kind", ["ties", "floats", "huge"])
@pytest.mark.parametrize(("perms", "mats", "systems"), [(1, 1, 2), (7, 3, 5), (1000, 4, 12), (33, 1, 13)])
def test_counts_are_pce_counts(kind: str, perms: int, mats: int, systems: int) -> None:
    assert _native.spa_pair_counts is not None  # the native path is what is tested
    rng = np.random.default_rng(perms * mats + systems)
    if kind == "ties":  # integer sums: many differences equal the observed one exactly
        partial = rng.integers(-3, 4, (perms, mats * systems)).astype(np.float32)
        totals = rng.integers(-3, 4, (mats, systems)).astype(np.float32)
    elif kind == "floats":
        partial = rng.normal(size=(perms, mats * systems)).astype(np.float32)
        totals = rng.normal(size=(mats, systems)).astype(np.float32)
    else:  # float32 rounding of the differences decides
        partial = rng.choice(
            np.array([16777216.0, 16777217.0, 1.0, 0.0, -1.0], dtype=np.float32), (perms, mats * systems)
        )
        totals = rng.choice(np.array([16777216.0, 1.0, 0.0], dtype=np.float32), (mats, systems))
    got = _native.spa_pair_counts(partial, totals)
    assert np.array_equal(got, _pce_counts(partial, totals))


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError):
        _native.spa_pair_counts(np.zeros((2, 5), np.float32), np.zeros((1, 2), np.float32))


def test_p_values_equal_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    scores = np.round(rng.normal(size=(9, 60)), 1)  # ties
    scores[4] = scores[4, 0]  # a constant row
    stack = np.stack([scores, scores[::-1], np.round(scores * 3) / 3])
    signs = spa.sign_matrix(500, 60, 4)
    native_p = spa.pairwise_p_values_from_signs(scores, signs)
    native_rows = spa.pairwise_p_value_rows(stack, signs)
    monkeypatch.setattr(_native, "spa_pair_counts", None)
    assert np.array_equal(native_p, spa.pairwise_p_values_from_signs(scores, signs), equal_nan=True)
    assert np.array_equal(native_rows, spa.pairwise_p_value_rows(stack, signs))
