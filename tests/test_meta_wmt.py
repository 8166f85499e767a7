"""WMT meta-evaluation (acc_eq, SPA, Kendall variants, averaging) against google-research/mt-metrics-eval.

Every value is compared with the golden outputs that ``tests/fixtures/meta/make_golden.py``
wrote from mt-metrics-eval (commit 68a481a), and with the oracle itself, run now, when
its checkout is beside the repository (``../shared/oracles``). Nothing is skipped when it
is absent.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from meta_golden import assert_close, golden, golden_module, reference_getter
from nlpeval.core.errors import InputError
from nlpeval.correlation import meta_evaluate
from nlpeval.correlation.average import agreement, average_correlation, williams_sig_diff
from nlpeval.correlation.spa import pairwise_p_values, soft_pairwise_accuracy
from nlpeval.correlation.tau_ties import tie_threshold_search


@pytest.fixture(scope="module")
def mqm(shared_data: Path) -> dict[str, Any]:
    return golden_module().mqm_inputs(shared_data / "mqm-ted-ende")


@pytest.fixture(scope="module")
def reference(shared_data: Path) -> Any:
    """``reference(part)``: the golden values of ``part``, and the live oracle's when its checkout is present."""
    return reference_getter(shared_data / "mqm-ted-ende")


def _generated() -> dict[str, dict[str, Any]]:
    return {inp["name"]: inp for inp in golden_module().generated_inputs()}


def _ours_generated(key: str) -> Any:
    parts = key.split("/")
    inp = _generated()[parts[0]]
    human, metric = inp["human"], inp["metric"]
    kind = parts[1]
    if kind == "kv":
        average_by, variant, epsilon = parts[2], parts[3], float(parts[4])
        res = average_correlation(
            human, metric, "kendall_variants", average_by=average_by, variant=variant, epsilon=epsilon
        )
        return list(res)
    if kind == "avg":
        function, average_by, replace, macro = parts[2], parts[3], parts[4] == "True", parts[5] == "True"
        variant = "c" if function == "kendall" and not macro else "b"
        res = average_correlation(
            human,
            metric,
            function,
            average_by=average_by,
            variant=variant,
            replace_nans_with_zeros=replace,
            macro=macro,
        )
        return list(res)
    if kind == "opt":
        average_by, variant, sample_rate = parts[2], parts[3], float(parts[4])
        seed = 0 if sample_rate == 1.0 else 7
        try:
            res = tie_threshold_search(
                human, metric, variant=variant, average_by=average_by, sample_rate=sample_rate, random_state=seed
            )
        except InputError:
            return "error"
        return {"value": res.statistic, "epsilon": res.epsilon, "thresholds": res.thresholds, "taus": res.values}
    if kind == "pce":
        n_perm, seed = int(parts[2]), int(parts[3])
        complete = ~np.isnan(human).any(axis=0)
        h, m = human[:, complete], metric[:, complete]
        return {
            "human": pairwise_p_values(h, n_permutations=n_perm, seed=seed),
            "metric": pairwise_p_values(m, n_permutations=n_perm, seed=seed),
            "spa": soft_pairwise_accuracy(h, m, n_permutations=n_perm, seed=seed),
        }
    if kind == "agreement":
        return list(agreement(human, metric))
    if kind == "williams":
        return list(williams_sig_diff(human, metric, inp["metric2"], "pearson", average_by=parts[2]))
    raise AssertionError(key)


def _compare(key: str, ours: Any, expected: Any) -> None:
    if isinstance(expected, dict):
        assert isinstance(ours, dict), (key, ours)
        for field, value in expected.items():
            exact = field in ("epsilon", "thresholds")
            assert_close(ours[field], value, f"{key}/{field}", exact=exact)
    elif expected == "error":
        assert ours == "error", key
    else:
        exact = key.endswith("agreement")
        assert_close(ours, expected, key, exact=exact)


def test_generated_inputs_every_statistic(reference: Any) -> None:
    """Ties, NaN cells, constant rows/columns: Kendall variants, averages, tie search, PCE, Agreement, Williams."""
    for cases in reference("generated"):
        assert len(cases) > 500
        for key, expected in cases.items():
            _compare(key, _ours_generated(key), expected)


def test_mqm_ted_inputs_are_the_goldens(mqm: dict[str, Any]) -> None:
    digests = golden()["mqm"]["digests"]
    assert mqm["human"].shape == (13, 529)
    assert golden_module().digest(mqm["human"]) == digests["human"]
    for name, matrix in mqm["metrics"].items():
        assert golden_module().digest(matrix) == digests[name], name


def test_mqm_ted_acc_eq_spa_and_correlations(mqm: dict[str, Any], reference: Any) -> None:
    human = mqm["human"]
    names = mqm["systems"]
    for cases in reference("mqm"):
        for name, metric in mqm["metrics"].items():
            human_map = dict(zip(names, human.tolist(), strict=True))
            metric_map = dict(zip(names, metric.tolist(), strict=True))
            acc = meta_evaluate(metric_map, human_map, level="segment", method="acc_eq", group_by="item")
            assert_close(acc.statistic, cases[f"{name}/acc_eq"]["value"], f"{name}/acc_eq")
            assert acc.epsilon == cases[f"{name}/acc_eq"]["epsilon"]
            spa = meta_evaluate(metric, human, method="spa")
            assert_close(spa.statistic, cases[f"{name}/spa"]["value"], f"{name}/spa")
            assert_close(spa.pvalues["human"], cases[f"{name}/spa"]["human"], f"{name}/spa/h", exact=True)
            assert_close(spa.pvalues["metric"], cases[f"{name}/spa"]["metric"], f"{name}/spa/m", exact=True)
            sys_pearson = meta_evaluate(metric, human, method="pearson")
            assert_close([sys_pearson.statistic, sys_pearson.pvalue], cases[f"{name}/sys_pearson"][:2], name)
            seg = average_correlation(human, metric, "pearson")
            assert_close(list(seg), cases[f"{name}/seg_pearson"], f"{name}/seg_pearson")
            tau = average_correlation(human, metric, "kendall_variants", average_by="item", variant="b")
            assert_close(list(tau), cases[f"{name}/seg_kendall_item"], f"{name}/seg_kendall_item")
            fixed = meta_evaluate(metric, human, level="segment", method="acc_eq", group_by="item", epsilon=0.01)
            assert_close(fixed.statistic, cases[f"{name}/acc23_item_eps"][0], f"{name}/acc23_item_eps")
            assert fixed.epsilon == 0.01


# ------------------------------------------------------------------ mt-metrics-eval's own unit tests, reproduced


def test_tau_optimization_test_cases() -> None:
    """tau_optimization_test.py: thresholds, taus and the best threshold, exactly."""
    res = tie_threshold_search([[1, 2, 3, 4]], [[0, 2, 6, 8]], average_by="sys")
    assert res.thresholds.tolist() == [0, 2, 4, 6, 8]
    assert res.values.tolist() == [6 / 6, 4 / 6, 3 / 6, 1 / 6, 0 / 6]
    assert (res.epsilon, res.statistic) == (0, 1.0)
    res = tie_threshold_search([[1, 1, 1, 4]], [[0, 2, 6, 8]], average_by="sys")
    assert res.values.tolist() == [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6]
    assert (res.epsilon, res.statistic) == (4, 4 / 6)
    for rate in (0.0, 1.1):
        with pytest.raises(ValueError):
            tie_threshold_search([[1, 1, 1, 4]], [[0, 2, 6, 8]], average_by="sys", sample_rate=rate)
    # np.random.seed(123) + sample_rate=0.5 keeps the pairs whose diffs are 6, 8, 14
    res = tie_threshold_search([[1, 2, 3, 4]], [[0, 2, 6, 14]], average_by="sys", sample_rate=0.5, random_state=123)
    assert res.thresholds.tolist() == [0, 6, 8, 14]
    nan = math.nan
    metric = [[0, 5, 2, 3, 2], [nan, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [nan] * 5]
    human = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, nan, 3, 2], [nan] * 5]
    res = tie_threshold_search(human, metric, average_by="sys")
    assert res.thresholds.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert res.values.tolist() == [
        0.4666666666666667,
        0.4916666666666668,
        0.38333333333333347,
        0.29166666666666674,
        0.2666666666666667,
        0.2,
        0.15833333333333335,
        0.15833333333333335,
        0.1166666666666667,
    ]
    assert (res.epsilon, res.statistic) == (1, 0.4916666666666668)


def test_stats_test_cases() -> None:
    """stats_test.py's Correlation / AverageCorrelation / Kendall / Agreement / Williams expectations."""
    g, m = [[1, 2, 3], [4, 5, 6]], [[2, 1, 4], [3, 3, 7]]
    assert round(average_correlation(g, m, "pearson").statistic, 3) == 0.776
    assert round(average_correlation(g, m, "pearson", average_by="sys").statistic, 3) == 0.760
    assert round(average_correlation(g, m, "pearson", average_by="item").statistic, 3) == 1.0
    assert round(average_correlation(g, m, "kendall").statistic, 3) == 0.552
    assert round(average_correlation(g, m, "kendall", average_by="sys").statistic, 3) == 0.575
    assert round(average_correlation(g, m, "kendall", variant="c").statistic, 3) == 0.556
    assert round(average_correlation(g, m, "kendall", average_by="sys", variant="c").statistic, 3) == 0.611
    gold, metric = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert round(average_correlation(gold, metric, "kendall_variants", variant="b").statistic, 9) == 0.316227766
    assert average_correlation(gold, metric, "kendall_variants", variant="c").statistic == 0.32
    assert average_correlation(gold, metric, "kendall_variants", variant="23").statistic == 0.2
    assert average_correlation(gold, metric, "kendall_variants", variant="acc23").statistic == 0.6
    assert average_correlation(gold, metric, "kendall_variants", variant="acc23", epsilon=2).statistic == 0.4
    assert average_correlation(gold, metric, "acc_eq", epsilon=None).statistic == 0.7
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    # stats.KendallVariants(x, y, ...): gold x, metric y
    assert average_correlation(x, y, "kendall_variants", variant="23").statistic == (14 - 7) / 21
    assert average_correlation(x, y, "kendall_variants", variant="23", epsilon=0.1).statistic == (14 - 7) / 21
    concordant = 21 - 1 - 10 - 0 - 3
    expected = (concordant + 3 - 1 - 10 - 0) / 21
    assert average_correlation(x, y, "kendall_variants", variant="23", epsilon=1.0).statistic == expected
    nan = math.nan
    g, m = [[1, nan, 3], [4, 5, 6]], [[2, 1, 8], [3, 5, 6]]
    res = average_correlation(g, m, "pearson", average_by="sys", macro=False)
    p1, p2 = average_correlation([1, 3], [2, 8], "pearson"), average_correlation([4, 5, 6], [3, 5, 6], "pearson")
    assert abs(res.statistic - (2 * p1.statistic + 3 * p2.statistic) / 5) < 1e-12
    g, m = [[1, 2, 3], [4, 5, 6]], [[2, 2, 2], [4, 5, 6]]
    assert average_correlation(g, m, "pearson", average_by="sys").statistic == pytest.approx(1.0)
    assert average_correlation(
        g, m, "pearson", average_by="sys", replace_nans_with_zeros=True
    ).statistic == pytest.approx(0.5)
    assert agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == (5, 10)
    p, r1, r2 = williams_sig_diff([1, 2, 3, 4, 5], [1.1, 2, 3.1, 4, 5.1], [1.5, 2, 3.1, 4, 5.5])
    assert (round(p, 3), round(r1, 3), round(r2, 3)) == (0.019, 0.999, 0.987)
    g = [[1, nan], [3, 4], [5, 6]]
    p, r1, r2 = williams_sig_diff(g, [[1, 2], [3, 3], [7, 3]], [[2, 1], [2, 6], [8, 8]], average_by="item")
    assert (round(p, 3), round(r1, 3), round(r2, 3)) == (0.121, 0.982, 0.933)
    spa = soft_pairwise_accuracy([[1, 2, 3], [2, 3, 4]], [[2, 2, 4], [1, 3, 5]])
    assert round(spa, 3) == 0.872


def test_pce_test_deterministic() -> None:
    scores = np.random.default_rng(3).random((10, 100))
    np.testing.assert_array_equal(pairwise_p_values(scores), pairwise_p_values(scores))


# ------------------------------------------------------------------------------------------------ bad input


def test_bad_input_names_system_and_item() -> None:
    human = {"A": [1.0, 2.0, 3.0], "B": [2.0, 1.0, 0.0]}
    with pytest.raises(InputError, match="'C' has metric scores but no human"):
        meta_evaluate({"A": [1, 2, 3], "B": [1, 2, 3], "C": [1, 2, 3]}, human, method="spa")
    with pytest.raises(InputError, match="'B' has human scores but no metric"):
        meta_evaluate({"A": [1, 2, 3]}, human, level="segment", method="acc_eq", group_by="item")
    with pytest.raises(InputError, match=r"'B': 3 human scores but 2 metric scores \(item 2 is missing\)"):
        meta_evaluate({"A": [1, 2, 3], "B": [1, 2]}, human, method="spa")
    with pytest.raises(InputError, match=r"'A': 2 human scores but 3 metric"):
        meta_evaluate({"A": [1, 2, 3], "B": [1, 2, 4]}, {"A": [1, 2], "B": [1, 2, 3]}, method="spa")
    with pytest.raises(InputError, match="system 'B', item 1: no metric score where humans judged"):
        meta_evaluate({"A": [1, 2, 3], "B": [1, math.nan, 2]}, human, level="segment", method="acc_eq", group_by="item")


def test_degenerate_inputs_error_or_documented_value() -> None:
    nan = math.nan
    with pytest.raises(InputError, match="at least two systems"):
        meta_evaluate([[1, 2, 3]], [[1, 2, 3]], method="spa")
    with pytest.raises(InputError, match="no item has human scores for every system"):
        meta_evaluate([[1, 2], [3, 4]], [[nan, 1], [1, nan]], method="spa")
    with pytest.raises(InputError, match="no judged item"):
        meta_evaluate([[1, 2], [3, 4]], [[nan, nan], [nan, nan]], level="segment", method="acc_eq", group_by="item")
    # a single system at segment level: acc_eq by item has no pair; by system it is defined
    with pytest.raises(InputError):
        meta_evaluate([[1, 2, 3]], [[1, 2, 3]], level="segment", method="acc_eq", group_by="item")
    assert meta_evaluate([[1, 2, 3]], [[1, 2, 3]], level="segment", method="acc_eq", group_by="system").statistic == 1.0
    # constant human scores: every human p-value is 1 (no system beats another), SPA stays defined
    res = meta_evaluate([[1, 2, 3], [0, 1, 1]], [[5, 5, 5], [5, 5, 5]], method="spa")
    assert res.pvalues["human"][0, 1] == 1.0 and 0 <= res.statistic <= 1
    # constant human scores at segment level: acc_eq counts metric ties of human ties
    acc = meta_evaluate([[1, 2], [3, 4]], [[5, 5], [5, 5]], level="segment", method="acc_eq", group_by="item")
    assert (acc.statistic, acc.epsilon) == (1.0, 2.0)
    # an all-NaN (unjudged) system is left out of the item groups
    acc = meta_evaluate(
        [[1, 2], [3, 4], [9, 9]], [[1, 2], [3, 4], [nan, nan]], level="segment", method="acc_eq", group_by="item"
    )
    assert acc.statistic == 1.0
    with pytest.raises(ValueError, match="segment-level"):
        meta_evaluate([[1, 2], [3, 4]], [[1, 2], [3, 4]], method="acc_eq")
    with pytest.raises(ValueError, match="system-level"):
        meta_evaluate([[1, 2], [3, 4]], [[1, 2], [3, 4]], level="segment", method="spa", group_by="item")
