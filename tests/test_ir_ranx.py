"""ranx 0.3.21: its measures (where they share trec_eval's or a named capped definition) and its Fisher
randomisation test. Goldens from tests/fixtures/ir/make_ranx_goldens.py; ranx itself is run live too when it
is importable (it is not in the test extra: numba compiles for minutes in a fresh environment)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import nlpeval

FIXTURES = Path(__file__).parent / "fixtures" / "ir"
GOLDEN = json.loads((FIXTURES / "ranx_goldens.json").read_text())
LIVE = importlib.util.find_spec("ranx") is not None


def _fixture_module():
    sys.path.insert(0, str(FIXTURES))
    try:
        import make_ranx_goldens
    finally:
        sys.path.remove(str(FIXTURES))
    return make_ranx_goldens


def test_goldens_inputs_are_the_fixture_scripts() -> None:
    module = _fixture_module()
    qrels, run = module.inputs()
    assert qrels == GOLDEN["qrels"] and run == GOLDEN["run"]
    assert [list(map(list, pair)) for pair in module.fisher_inputs()] == GOLDEN["fisher"]["pairs"]


def test_measures_equal_ranx() -> None:
    result = nlpeval.retrieval(GOLDEN["qrels"], GOLDEN["run"], list(GOLDEN["measures"].values()))
    reference = GOLDEN["values"]
    if LIVE:
        reference = _fixture_module().ranx_values(GOLDEN["qrels"], GOLDEN["run"])
        for metric, values in reference.items():
            np.testing.assert_allclose(list(values.values()), list(GOLDEN["values"][metric].values()), atol=1e-12)
    for metric, ours in GOLDEN["measures"].items():
        expected = [reference[metric][q] for q in result.queries]
        np.testing.assert_allclose(result[ours].segments, expected, rtol=0, atol=1e-12, err_msg=metric)


def test_fisher_randomisation_agrees_with_ranx() -> None:
    """ranx's p-value is a Monte Carlo estimate of the exact one (numba's generator cannot be reproduced):
    ours, exact or with many permutations, lies within 5 standard errors of it."""
    n = GOLDEN["fisher"]["permutations"]
    p_ranx = GOLDEN["fisher"]["p_values"]
    pairs = GOLDEN["fisher"]["pairs"]
    if LIVE:
        p_ranx = _fixture_module().ranx_fisher(pairs)
    for (a, b), theirs in zip(pairs, p_ranx, strict=True):
        exact = len(a) <= 16
        ours = nlpeval.fisher_randomization_test(a, b, n_permutations=200_000, seed=3, exact=exact)
        assert ours.exact == exact
        error = math.sqrt(max(ours.p_value * (1 - ours.p_value), 1e-4) / n)
        if not exact:
            error = math.hypot(error, math.sqrt(max(ours.p_value * (1 - ours.p_value), 1e-4) / 200_000))
        assert abs(ours.p_value - theirs) <= 5 * error, (len(a), ours.p_value, theirs)


def test_fisher_exact_enumeration_is_a_brute_force_count() -> None:
    import itertools

    rng = np.random.default_rng(2)
    a = rng.random(11)
    b = a + rng.normal(0, 0.1, 11)
    b[3] = a[3]  # a zero difference: both signs give the same sum
    d = b - a
    observed = abs(d.sum())
    count = sum(abs(np.dot(signs, d)) >= observed - 1e-12 for signs in itertools.product((1, -1), repeat=11))
    assert nlpeval.fisher_randomization_test(a, b).p_value == count / 2**11
    assert nlpeval.fisher_randomization_test(a, a).p_value == 1.0
    with pytest.raises(nlpeval.InputError, match="same length"):
        nlpeval.fisher_randomization_test(a, b[:5])
