"""WMT meta-evaluation side by side with google-research/mt-metrics-eval (same inputs, same seeds, one run).

Cases (issue 24): SPA of 12 systems x 500 items with 1,000 permutations; acc_eq with its
epsilon search on 12 systems x 500 items; PERM-BOTH between 6 metrics (all 15 pairs, k=1,000,
block 100 as the WMT tasks) for segment-level Pearson, acc_eq (pairs test, WMT23-25) and SPA.
Every row checks that both sides give identical results (values, epsilons, p-value matrices,
clusters) before it reports the ratio.

Usage: ``PYTHONPATH=python python benchmarks/bench_meta.py [--oracle PATH] [--only TEXT]``
(``benchmarks/run.py`` also picks the cases up when the oracle is beside the repository).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import Case  # noqa: E402

N_SYSTEMS, N_ITEMS, N_METRICS = 12, 500, 6
#: resamples of the PERM-BOTH rows whose oracle side takes minutes per 100 draws (acc_eq pairs test, SPA)
K_SLOW = 200


def _golden_tools() -> Any:
    path = HERE.parent / "tests" / "fixtures" / "meta" / "make_golden.py"
    spec = importlib.util.spec_from_file_location("nlpeval_meta_make_golden", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(seed: int = 2024) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """MQM-like human scores (integer penalties, many ties) and 6 metrics of decreasing quality."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(N_SYSTEMS, 1)) * 2
    human = -np.clip(np.round(rng.gamma(0.6, 4.0, (N_SYSTEMS, N_ITEMS)) - quality), 0, 25)
    metrics = {}
    for i in range(N_METRICS):
        noise = rng.normal(scale=2.0 + 2.5 * i, size=human.shape)
        metrics[f"metric{i}"] = np.round((human + noise) / 25 + 1, 4)
    return human, metrics


def _same(a: Any, b: Any) -> bool:
    return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))


def build(oracle_dir: Path) -> list[tuple[Case, Callable[[Any, Any], None]]]:
    """Cases, each with a check that both sides agree exactly."""
    from nlpeval.correlation import meta_evaluate
    from nlpeval.correlation.compare import compare_metrics
    from nlpeval.correlation.spa import _REFERENCE_P, _signs

    tools = _golden_tools()
    oracle = tools.load_oracle(oracle_dir)
    stats, data = oracle.stats, oracle.data
    human, metrics = inputs()
    gold = tools.gold_list(human)
    flat = {name: m.ravel().tolist() for name, m in metrics.items()}
    m0 = metrics["metric0"]
    out: list[tuple[Case, Callable[[Any, Any], None]]] = []

    # --- SPA, one metric, 1,000 permutations (pce.py's seed 4)
    def ref_spa() -> float:
        return stats.PairwiseConfidenceError(gold, flat["metric0"], N_SYSTEMS)[0]

    def ours_spa_cold() -> float:
        _signs.cache_clear()  # no reuse of the permutations or of the human p-values between calls
        _REFERENCE_P.clear()
        return meta_evaluate(m0, human, method="spa").statistic

    def check_spa(ref: Any, ours: Any) -> None:
        assert ref == ours

    out.append(
        (
            Case(
                "meta: SPA 12 sys x 500 items x 1,000 perms (cold)",
                "mt-metrics-eval",
                ref_spa,
                ours_spa_cold,
                20.0,
                repeat=1,
            ),
            check_spa,
        )
    )

    def ref_spa_next() -> float:
        return stats.PairwiseConfidenceError(gold, flat["metric1"], N_SYSTEMS)[0]

    def ours_spa_next() -> float:
        return meta_evaluate(metrics["metric1"], human, method="spa").statistic

    out.append(
        (
            Case(
                "meta: SPA, each further metric on the same human scores (permutations reused)",
                "mt-metrics-eval",
                ref_spa_next,
                ours_spa_next,
                20.0,
                repeat=1,
            ),
            check_spa,
        )
    )

    # --- acc_eq with its epsilon search
    def ref_acc() -> tuple[float, float]:
        value, eps, _ = stats.KendallWithTiesOpt(gold, flat["metric0"], "acc23", N_SYSTEMS, "item", 1.0)
        return value, eps

    def ours_acc() -> tuple[float, float]:
        res = meta_evaluate(m0, human, level="segment", method="acc_eq", group_by="item")
        return res.statistic, res.epsilon

    def check_acc(ref: Any, ours: Any) -> None:
        assert ref == ours

    out.append(
        (
            Case("meta: acc_eq eps search 12 sys x 500 items", "mt-metrics-eval", ref_acc, ours_acc, 20.0, repeat=1),
            check_acc,
        )
    )

    # --- PERM-BOTH between 6 metrics, all pairs
    psd = stats.PermutationSigDiffParams(100, 0.02, 0.5)
    corrs = {name: stats.Correlation(N_SYSTEMS, gold, values) for name, values in flat.items()}
    for label, kwargs, oracle_call in (
        (
            "seg Pearson",
            {"level": "segment", "method": "pearson", "group_by": None},
            lambda: data.CompareMetrics(corrs, _pearson(), "none", 1000, psd, 0.05),
        ),
        (
            "acc_eq pairs test",
            {"level": "segment", "method": "acc_eq", "group_by": "item"},
            lambda: data.CompareMetrics(
                corrs, stats.KendallWithTiesOpt, "item", K_SLOW, psd, 0.05, False, "pairs", sample_rate=1.0
            ),
        ),
        (
            "SPA",
            {"level": "system", "method": "spa"},
            lambda: data.CompareMetricsWithPairwiseConfidenceError(corrs, K_SLOW, psd, 0.05),
        ),
    ):

        def ref(call: Callable[[], Any] = oracle_call) -> Any:
            np.random.seed(7)
            return call()

        k = 1000 if label == "seg Pearson" else K_SLOW

        def ours(kw: dict[str, Any] = kwargs, k: int = k) -> Any:
            return compare_metrics(metrics, human, k=k, block_size=100, seed=7, **kw)

        def check(ref_result: Any, cmp: Any) -> None:
            ranks, matrix, _, _ = ref_result
            assert list(ranks) == list(cmp.metrics)
            assert [v[1] for v in ranks.values()] == [cmp.ranks[m] for m in cmp.metrics]
            assert _same(matrix, cmp.pvalues)
            assert max(abs(v[0] - cmp.statistics[m]) for m, v in ranks.items()) <= 1e-12

        name = f"meta: PERM-BOTH 6 metrics x 15 pairs, {label} (k={k:,}, block 100)"
        out.append((Case(name, "mt-metrics-eval", ref, ours, 20.0, repeat=1), check))
    return out


def _pearson() -> Any:
    import scipy.stats

    return scipy.stats.pearsonr


def _oracle_dir(given: Path | None = None) -> Path | None:
    if given is not None:
        return given
    return _golden_tools().find_oracle()


def cases(data: Path) -> list[Case]:
    """For ``benchmarks/run.py``: nothing when the oracle's checkout is absent."""
    oracle = _oracle_dir()
    return [case for case, _ in build(oracle)] if oracle is not None else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, default=None)
    parser.add_argument("--only", default=None)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per side, alternating (median kept)")
    parser.add_argument("--slow-repeat", type=int, default=1, help="runs per side of the PERM-BOTH rows")
    args = parser.parse_args()
    oracle = _oracle_dir(args.oracle)
    if oracle is None:
        print("mt-metrics-eval not found; pass --oracle PATH", file=sys.stderr)
        return 2
    warnings.simplefilter("ignore")
    print(f"warm (one process, after a warm-up call); median of {args.repeat} alternating samples per side;")
    print("a sample of a fast case runs it several times (seconds below are per run); wall and CPU time")
    print("| case | mt-metrics-eval s (wall) | nlpeval s (wall) | ratio wall | ratio CPU | worst pair (CPU) | same |")
    print("|:---|---:|---:|---:|---:|---:|:---|")
    for case, check in build(oracle):
        if args.only and args.only.lower() not in case.name.lower():
            continue
        case.run_nlpeval()  # warm-up (imports)
        slow = "PERM-BOTH" in case.name
        repeat = args.slow_repeat if slow else args.repeat
        start = time.perf_counter()
        check(case.run_reference(), case.run_nlpeval())  # raises when the two sides differ
        calls = 1 if slow else max(1, min(50, int(0.5 / max(time.perf_counter() - start, 1e-6))))
        times: dict[str, list[tuple[float, float]]] = {"ref": [], "ours": []}
        for _ in range(repeat):
            for side, run in (("ref", case.run_reference), ("ours", case.run_nlpeval)):
                wall, cpu = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    result = run()
                times[side].append(((time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls))
                if side == "ref":
                    ref_result = result
            check(ref_result, result)
        ref_w, ref_c = (float(np.median([t[i] for t in times["ref"]])) for i in (0, 1))
        our_w, our_c = (float(np.median([t[i] for t in times["ours"]])) for i in (0, 1))
        worst = min(r[1] / max(o[1], 1e-9) for r, o in zip(times["ref"], times["ours"], strict=True))
        print(
            f"| {case.name} | {ref_w:.4f} | {our_w:.4f} | {ref_w / our_w:.1f}x | {ref_c / max(our_c, 1e-9):.1f}x "
            f"| {worst:.1f}x | yes |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
