"""The core's legacy MT19937 draws (significance.legacy_draws) against NumPy's own calls.

The PERM-BOTH coin flips and BLEU.ipynb's randomizations are made by the core from the
``RandomState``'s state; every number, and the state left behind, must be NumPy's.
"""

from __future__ import annotations

import numpy as np
import pytest

from nlpeval import _native
from nlpeval.correlation.permutation import coin_flips
from nlpeval.significance import legacy_draws
from nlpeval.significance.legacy_draws import swap_effects, uniform_above


def test_the_core_has_the_kernels() -> None:
    # the parity below must test the native path, not the NumPy fallback
    assert _native.mt19937_above is not None and _native.mt19937_swap_effects is not None
    assert legacy_draws._ready()


def _same_state(a: np.random.RandomState, b: np.random.RandomState) -> None:
    sa, sb = a.get_state(legacy=False), b.get_state(legacy=False)
    assert np.array_equal(sa["state"]["key"], sb["state"]["key"])
    assert sa["state"]["pos"] == sb["state"]["pos"]
    assert (sa["has_gauss"], sa["gauss"]) == (sb["has_gauss"], sb["gauss"])
    assert a.standard_normal(3).tolist() == b.standard_normal(3).tolist()
    assert a.random_sample(700).tolist() == b.random_sample(700).tolist()


@pytest.mark.parametrize("seed", [0, 1, 7, 2786345, 2**32 - 1])
@pytest.mark.parametrize("skip", [0, 1, 311, 312, 623, 624, 1000])
def test_uniform_above_is_random_sample(seed: int, skip: int) -> None:
    # skip draws move `pos` (two words a double) to every position around a twist
    a, b = np.random.RandomState(seed), np.random.RandomState(seed)
    a.random_sample(skip), b.random_sample(skip)
    a.standard_normal(), b.standard_normal()  # a cached Gaussian must survive
    for n, threshold in [(0, 0.5), (1, 0.5), (311, 0.5), (312, 0.25), (313, 0.0), (5001, 0.9), (2048 * 3 + 5, 0.5)]:
        flags = uniform_above(a, n, threshold)
        assert flags is not None and flags.dtype == np.bool_
        assert flags.tolist() == (b.random_sample(n) > threshold).tolist()
    _same_state(a, b)


def test_uniform_above_edges_of_the_threshold() -> None:
    a, b = np.random.RandomState(3), np.random.RandomState(3)
    for threshold in [1.0, -0.0, np.nextafter(0.5, 0), np.nextafter(0.5, 1), float("nan"), float("inf")]:
        flags = uniform_above(a, 4000, threshold)
        assert flags is not None
        assert flags.tolist() == (b.random_sample(4000) > threshold).tolist()
    _same_state(a, b)


@pytest.mark.parametrize("seed", [0, 7, 12345, 99])
def test_coin_flips_are_binomial(seed: int) -> None:
    a, b = np.random.RandomState(seed), np.random.RandomState(seed)
    for shape, columns in [((3, 1000), None), ((100, 61), np.array([0, 5, 60])), ((1, 1), None), ((0, 10), None)]:
        flips = coin_flips(a, shape, columns)
        want = b.binomial(1, 0.5, shape)
        assert flips.dtype == np.int64
        assert np.array_equal(flips, want if columns is None else want[:, columns])
    _same_state(a, b)


def _notebook_effects(rs: np.random.RandomState, samples: np.ndarray, rows: int) -> list[float]:
    """BLEU.ipynb's inner loop as written there."""
    effects = []
    for _ in range(rows):
        rands = rs.rand(len(samples))
        sel = np.array(rands > 0.5, dtype=float)
        with np.errstate(invalid="ignore"):  # inf * 0.0
            effects.append(np.sum(samples * sel))
    return effects


def _samples(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "laplace":
        return rng.laplace(-1e-3, 0.0129, n) * (rng.random(n) > 0.13)
    if kind == "ties":
        return rng.integers(-2, 3, n).astype(float)
    if kind == "magnitudes":  # the summation order decides the value
        return rng.choice([1e16, -1e16, 1.0, -1.0, 3.5e-300, 0.0, -0.0], n)
    values = rng.normal(size=n)
    values[rng.integers(0, n, max(1, n // 50))] = {"nan": np.nan, "inf": np.inf}[kind]
    return values


@pytest.mark.parametrize("kind", ["laplace", "ties", "magnitudes", "nan", "inf"])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 127, 128, 129, 136, 300, 2000, 2001])
def test_swap_effects_are_the_notebooks(kind: str, n: int) -> None:
    rng = np.random.default_rng(n * 31 + len(kind))
    samples = _samples(kind, n, rng)
    seed = int(rng.integers(2**32))
    a, b = np.random.RandomState(seed), np.random.RandomState(seed)
    a.random_sample(n % 5), b.random_sample(n % 5)
    for rows in (0, 1, 13):
        got = swap_effects(a, samples, rows, 0.5)
        assert got is not None
        want = _notebook_effects(b, samples, rows)
        assert np.array_equal(got, np.array(want, dtype=float), equal_nan=True)
        # bit for bit, signed zeros included
        assert np.array_equal(np.signbit(got), np.signbit(np.array(want, dtype=float)))
    _same_state(a, b)


def test_without_the_kernels_nothing_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(legacy_draws, "_CHECKED", False)
    a, b = np.random.RandomState(5), np.random.RandomState(5)
    assert uniform_above(a, 10, 0.5) is None
    assert swap_effects(a, np.ones(4), 3, 0.5) is None
    _same_state(a, b)
    # and the coin flips fall back to NumPy's draws, with the same values
    assert np.array_equal(coin_flips(a, (4, 50)), b.binomial(1, 0.5, (4, 50)))
    _same_state(a, b)


def test_a_generator_other_than_mt19937_is_left_to_numpy() -> None:
    rs = np.random.RandomState(np.random.PCG64(3))
    assert uniform_above(rs, 10, 0.5) is None
