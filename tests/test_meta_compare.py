"""PERM-BOTH permutation tests, compare_metrics' clusters and ranks, average ranks: against mt-metrics-eval.

Values come from the goldens of ``tests/fixtures/meta/make_golden.py`` and, when the oracle's
checkout is beside the repository, from mt-metrics-eval run now (same seeds, same draws).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nlpeval
from meta_golden import assert_close, golden_module, reference_getter
from nlpeval.core.errors import InputError
from nlpeval.correlation.compare import assign_ranks, average_ranks, compare_metrics, wmt_tasks
from nlpeval.correlation.permutation import Statistic, pairwise_permutation_sig_diff, permutation_sig_diff

FUNCTIONS = {"pearson": "pearson", "spearman": "spearman", "kendall": "kendall", "KendallVariants": "kendall_variants"}


@pytest.fixture(scope="module")
def reference(shared_data: Path) -> Any:
    return reference_getter(shared_data / "mqm-ted-ende")


@pytest.fixture(scope="module")
def mqm(shared_data: Path) -> dict[str, Any]:
    return golden_module().mqm_inputs(shared_data / "mqm-ted-ende")


def _statistic(fn: str, average_by: str, args: dict[str, Any]) -> Statistic:
    if fn == "KendallWithTiesOpt":
        return Statistic("acc_eq", average_by, variant=args["variant"], sample_rate=args["sample_rate"])
    return Statistic(FUNCTIONS[fn], average_by, variant=args.get("variant", "b"), epsilon=args.get("epsilon", 0.0))


def _check_result(where: str, res: Any, expected: Any) -> None:
    if expected == "error":
        assert res == "error", where
        return
    assert res.pvalue == expected["pvalue"], (where, res.pvalue, expected["pvalue"])
    assert res.n_draws == expected["n_draws"], where
    assert_close(res.delta, expected["delta"], f"{where}/delta")
    assert_close(res.draws, expected["draws"], f"{where}/draws")


def test_permutation_sig_diff_same_draws_same_pvalues(reference: Any) -> None:
    """PermutationSigDiff and PairwisePermutationSigDiff: p-values, deltas, every draw, early stopping."""
    gm = golden_module()
    inputs = gm.generated_inputs()
    for cases in reference("permutation"):
        assert len(cases) >= 40
        for number, inp in enumerate(inputs[:4]):
            name, human, m1, m2 = inp["name"], inp["human"], inp["metric"], inp["metric2"]
            for case, fn, average_by, k, block, early_max, args in gm.PERMUTATION_CASES:
                try:
                    res: Any = permutation_sig_diff(
                        human,
                        m1,
                        m2,
                        _statistic(fn, average_by, args),
                        k=k,
                        block_size=block,
                        early_max=early_max,
                        random_state=number,
                    )
                except (InputError, ValueError):
                    res = "error"
                if cases[f"{name}/perm/{case}"] == "error" and res != "error":
                    continue  # the oracle divides by zero on a one-cell group; nlpeval leaves it out
                _check_result(f"{name}/perm/{case}", res, cases[f"{name}/perm/{case}"])
            for case, variant, average_by, k, block, early_max, eps1, eps2, rate in gm.PAIRS_CASES:
                expected = cases[f"{name}/pairs/{case}"]
                try:
                    res = pairwise_permutation_sig_diff(
                        human,
                        m1,
                        m2,
                        variant=variant,
                        average_by=average_by,
                        k=k,
                        block_size=block,
                        early_max=early_max,
                        epsilon1=eps1,
                        epsilon2=eps2,
                        sample_rate=rate,
                        random_state=number,
                    )
                except (InputError, ValueError):
                    res = "error"
                if expected == "error" and res != "error":
                    continue
                _check_result(f"{name}/pairs/{case}", res, expected)


def _check_comparison(where: str, cmp: Any, expected: dict[str, Any]) -> None:
    assert list(cmp.metrics) == expected["order"], where
    assert_close([cmp.statistics[m] for m in cmp.metrics], expected["values"], f"{where}/values")
    assert [cmp.ranks[m] for m in cmp.metrics] == expected["ranks"], where
    assert_close(cmp.pvalues, expected["matrix"], f"{where}/matrix", exact=True)
    assert cmp.n_draws.tolist() == expected["n_draws"], where
    if "draws" in expected:
        ours = [row for i, a in enumerate(cmp.metrics) for b in cmp.metrics[i + 1 :] for row in cmp.draws[(a, b)]]
        assert_close(ours, expected["draws"], f"{where}/draws")


def test_compare_metrics_clusters(reference: Any) -> None:
    """data.CompareMetrics (scores / pairs) and CompareMetricsWithPairwiseConfidenceError, seed for seed."""
    inputs = golden_module().generated_inputs()
    methods = {
        "pearson-none": ("pearson", None, "scores"),
        "kendall-item": ("kendall", "item", "scores"),
        "acc_eq-item-pairs": ("acc_eq", "item", "pairs"),
        "acc_eq-sys-scores": ("acc_eq", "system", "scores"),
    }
    for cases in reference("compare"):
        for number in (1, 4, 7):
            inp = inputs[number]
            third = np.round(inp["metric"] * 0.5 + inp["metric2"] * 0.5, 1)
            metrics = {"m1": inp["metric"], "m2": inp["metric2"], "m3": third}
            for case, (method, group_by, perm_test) in methods.items():
                k = 8 if case == "acc_eq-sys-scores" else 60
                cmp = compare_metrics(
                    metrics,
                    inp["human"],
                    level="segment",
                    method=method,
                    group_by=group_by,
                    k=k,
                    block_size=20,
                    perm_test=perm_test,
                    seed=100 + number,
                )
                _check_comparison(f"{inp['name']}/{case}", cmp, cases[f"{inp['name']}/compare/{case}"])
            key = f"{inp['name']}/compare/spa"
            if key in cases:
                cmp = compare_metrics(
                    metrics, inp["human"], level="system", method="spa", k=10, block_size=20, seed=200 + number
                )
                _check_comparison(key, cmp, cases[key])


def test_mqm_ted_compare_metrics(mqm: dict[str, Any], reference: Any) -> None:
    """BLEU, chrF, -TER against MQM: acc_eq (pairs test), SPA and system Pearson clusters."""
    human, metrics = mqm["human"], mqm["metrics"]
    for cases in reference("mqm"):
        cmp = compare_metrics(metrics, human, method="acc_eq", group_by="item", k=12, block_size=20, seed=24)
        _check_comparison("mqm/acc_eq", cmp, cases["compare/acc_eq"])
        for name in metrics:
            assert cmp.epsilons is not None and cmp.epsilons[name] == cases[f"{name}/acc_eq"]["epsilon"]
        cmp = nlpeval.compare_metrics(metrics, human, level="system", method="spa", k=10, block_size=20, seed=25)
        _check_comparison("mqm/spa", cmp, cases["compare/spa"])
        sys_metrics = {name: m.mean(axis=1) for name, m in metrics.items()}
        cmp = compare_metrics(sys_metrics, human, level="system", method="pearson", k=1000, block_size=100, seed=26)
        _check_comparison("mqm/sys_pearson", cmp, cases["compare/sys_pearson"])


def test_ranks_weights_and_average_ranks(reference: Any) -> None:
    for cases in reference("ranks"):
        for case in range(6):
            expected = cases[f"assign/{case}"]
            assert assign_ranks(np.asarray(expected["matrix"])) == expected["ranks"]
        assert_close([t.weight for t in wmt_tasks("wmt23")], cases["weights/wmt23"], "wmt23")
        assert_close([t.weight for t in wmt_tasks("wmt24")], cases["weights/wmt24"], "wmt24")
        comparisons = []
        for case in range(4):
            task = cases[f"average/task{case}"]
            comparisons.append(_fake_comparison(task["order"], task["values"], task["ranks"]))
        ours = average_ranks(comparisons, [0.4, 0.3, 0.2, 0.1])
        assert_close([[m, v] for m, v in ours.items()], cases["average/weighted"], "weighted")
        assert [m for m, _ in cases["average/weighted"]] == list(ours)
        ours = average_ranks(comparisons)
        assert [m for m, _ in cases["average/uniform"]] == list(ours)
        assert_close(list(ours.values()), [v for _, v in cases["average/uniform"]], "uniform")


def _fake_comparison(order: list[str], values: list[float], ranks: list[int]) -> Any:
    from nlpeval.correlation.compare import MetricComparison

    n = len(order)
    return MetricComparison(
        metrics=tuple(order),
        statistics=dict(zip(order, values, strict=True)),
        ranks=dict(zip(order, ranks, strict=True)),
        pvalues=np.zeros((n, n)),
        n_draws=np.zeros((n, n), dtype=np.int64),
        level="system",
        method="pearson",
        group_by=None,
        pval=0.05,
        signature="",
    )


def test_compare_metrics_bad_input_and_rendering() -> None:
    human = {"A": [1.0, 2.0, 3.0], "B": [2.0, 1.0, 0.0], "C": [0.0, 0.5, 1.0]}
    good = {"A": [1, 2, 3], "B": [2, 1, 0], "C": [0, 1, 1]}
    with pytest.raises(InputError, match="metric 'x': system 'C' has human scores but no metric scores"):
        compare_metrics({"x": {"A": [1, 2, 3], "B": [1, 2, 3]}}, human, k=0)
    with pytest.raises(InputError, match="system 'C' has human scores but no 'x' score"):
        compare_metrics({"x": {"A": 1.0, "B": 2.0}}, human, level="system", method="pearson", k=0)
    with pytest.raises(ValueError, match="system-level"):
        compare_metrics({"x": good}, human, level="segment", method="spa")
    with pytest.raises(ValueError, match="only for method='acc_eq'"):
        compare_metrics({"x": good}, human, method="pearson", perm_test="pairs")
    with pytest.raises(InputError, match="at least two systems"):
        compare_metrics({"x": [[1, 2, 3]]}, [[1, 2, 3]], k=0)
    cmp = compare_metrics({"x": good, "y": {"A": [3, 2, 1], "B": [0, 1, 2], "C": [1, 1, 0]}}, human, k=50, seed=3)
    text = str(cmp).splitlines()
    assert text[0].startswith("x  1 ") and text[1].startswith("y ")
    data = cmp.to_dict()
    assert data["metrics"][0]["metric"] == "x" and "epsilon" in data["metrics"][0]
    assert data["pvalues"][0][1] == cmp.pvalues[0, 1]
    with pytest.raises(ValueError):
        average_ranks([])
