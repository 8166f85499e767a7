"""The meta-evaluation's fast paths give what their plain counterparts give (issue 24's speed work).

Parity with mt-metrics-eval itself is in ``test_meta_wmt.py`` / ``test_meta_compare.py``; these
tests pin each shortcut to the straightforward computation it replaces, on tie-heavy inputs where
shortcuts break first.
"""

from __future__ import annotations

import numpy as np
import pytest

from nlpeval.correlation import permutation, spa
from nlpeval.correlation.permutation import Statistic, permutation_sig_diff


@pytest.mark.parametrize(("n_permutations", "n_items", "seed"), [(1000, 500, 4), (7, 13, 1), (5, 7, 11), (3, 1, 0)])
def test_signs_from_raw_bits_equal_pce_float32_rounding(n_permutations: int, n_items: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    expected = rng.random(size=(n_permutations, n_items), dtype=np.float32)
    np.rint(expected, out=expected, casting="same_kind")
    expected = expected * 2 - 1
    ours = spa._signs.__wrapped__(seed, n_permutations, n_items)
    assert ours.dtype == np.float32 and ours.shape == (n_permutations, n_items)
    assert np.array_equal(ours, expected)


def test_batched_p_values_equal_one_product_per_matrix() -> None:
    signs = spa.sign_matrix(200, 60, 4)
    stack = np.round(np.random.default_rng(1).standard_normal((9, 5, 60)), 2)  # rounded: many tied sums
    first, second = np.triu_indices(5, 1)
    expected = [spa.pairwise_p_values_from_signs(stack[m], signs)[first, second] for m in range(9)]
    assert np.array_equal(spa.pairwise_p_value_rows(stack, signs), np.array(expected))


def _exact_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(permutation, "_pearson_pair", lambda engine, weights, delta, exact: exact(weights))


def test_pearson_from_sums_gives_scipy_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer scores, identical and affine metrics (every resample on the observed difference), NaN cells."""
    rng = np.random.default_rng(0)
    cases = []
    for t in range(24):
        ns, ni = int(rng.integers(2, 7)), int(rng.integers(2, 25))
        human = rng.integers(0, 4, (ns, ni)).astype(float)
        if t % 3 == 0:
            human[rng.random((ns, ni)) < 0.2] = np.nan
        m1 = rng.integers(0, 3, (ns, ni)).astype(float) + (0 if t % 2 else rng.normal(size=(ns, ni)) * 0.1)
        m2 = m1.copy() if t % 5 == 0 else (m1 * 2 + 1 if t % 7 == 0 else rng.integers(0, 3, (ns, ni)).astype(float))
        cases.extend((human, m1, m2, average_by, t) for average_by in ("none", "sys", "item"))
    fast = [
        permutation_sig_diff(h, a, b, Statistic("pearson", ab), k=200, block_size=50, random_state=t)
        for h, a, b, ab, t in cases
    ]
    _exact_only(monkeypatch)
    for res, (h, a, b, ab, t) in zip(fast, cases, strict=True):
        ref = permutation_sig_diff(h, a, b, Statistic("pearson", ab), k=200, block_size=50, random_state=t)
        assert (res.pvalue, res.n_draws) == (ref.pvalue, ref.n_draws), (t, ab)
        np.testing.assert_allclose(res.draws, ref.draws, rtol=0, atol=1e-12)
