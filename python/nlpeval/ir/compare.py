"""Several runs against a baseline: each measure's scores, paired tests over the shared queries, and
Holm or Benjamini-Hochberg adjusted p-values (one family per measure: the runs compared to the baseline)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.ir.api import RetrievalMeasure, RetrievalResult, open_qrels, open_run, retrieval, stats_of
from nlpeval.ir.measures import DEFAULT_MEASURES, Measure, parse_measures

TESTS = ("fisher", "randomization", "bootstrap", "student")
CORRECTIONS = ("holm", "bh", "none")


@dataclass(frozen=True)
class PairedTest:
    """One run against the baseline on one measure, over the queries both were evaluated on."""

    run: str
    measure: str
    baseline: float
    system: float
    p_value: float
    p_adjusted: float
    queries: int

    @property
    def difference(self) -> float:
        """``system - baseline`` over the shared queries."""
        return self.system - self.baseline

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python representation."""
        return {
            "run": self.run,
            "measure": self.measure,
            "baseline": self.baseline,
            "system": self.system,
            "difference": self.difference,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "queries": self.queries,
        }


@dataclass(frozen=True)
class RunComparison:
    """Scores of every run and paired tests of each run against the baseline.

    Attributes
    ----------
    results : dict of str to RetrievalResult
        Per run (in the order given; the baseline first).
    baseline : str
        Name of the baseline run.
    tests : tuple of PairedTest
        One per (run other than the baseline, measure).
    test, correction : str
        The paired test and the multiple-comparison correction used.
    n_resamples : int
        Permutations, trials or bootstrap resamples.
    seed : int or None
        Seed of the test's generator.
    """

    results: dict[str, RetrievalResult]
    baseline: str
    tests: tuple[PairedTest, ...]
    test: str
    correction: str
    n_resamples: int
    seed: int | None

    def p_values(self, measure: str) -> dict[str, float]:
        """Adjusted p-value per run (not the baseline) of one measure."""
        name = parse_measures(measure)[0].name
        return {t.run: t.p_adjusted for t in self.tests if t.measure == name}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready representation."""
        return {
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "runs": {name: result.to_dict() for name, result in self.results.items()},
            "tests": [t.to_dict() for t in self.tests],
        }


def _paired_values(base: RetrievalResult, other: RetrievalResult, measure: str) -> tuple[np.ndarray, np.ndarray]:
    shared = sorted(set(base.queries) & set(other.queries))
    if not shared:
        raise InputError(f"measure {measure}: the baseline and the run share no evaluated query")
    where_a = {q: i for i, q in enumerate(base.queries)}
    where_b = {q: i for i, q in enumerate(other.queries)}
    a = base.query_values(measure)[[where_a[q] for q in shared]]
    b = other.query_values(measure)[[where_b[q] for q in shared]]
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def _p_value(test: str, metric: RetrievalMeasure, a: np.ndarray, b: np.ndarray, n: int, seed: int | None) -> float:
    if test == "fisher":
        from nlpeval.significance.fisher import fisher_randomization_test

        return fisher_randomization_test(a, b, n_permutations=n, seed=seed, exact=False).p_value
    if test == "randomization":
        from nlpeval.significance.paired import approximate_randomization

        return approximate_randomization(metric, stats_of(a), stats_of(b), n_trials=n, seed=seed).p_value
    if test == "bootstrap":
        from nlpeval.significance.paired import paired_bootstrap

        return paired_bootstrap(metric, stats_of(a), stats_of(b), n_resamples=n, seed=seed).p_value
    from scipy.stats import ttest_rel

    if np.array_equal(a, b):
        return 1.0
    return float(ttest_rel(a, b).pvalue)


def compare_runs(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str | Measure] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    test: str = "fisher",
    correction: str = "holm",
    n_resamples: int = 10000,
    seed: int | None = 12345,
    relevance_level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    flavor: str = "trec_eval",
) -> RunComparison:
    """Score several runs and test each against the baseline with paired tests over queries.

    Parameters
    ----------
    qrels : mapping or path
        Judgements (see :func:`nlpeval.retrieval`).
    runs : mapping of str to (mapping or path)
        Run name -> run.
    measures : str or sequence of str
        Measures (see :func:`nlpeval.retrieval`).
    baseline : str or None
        Name of the baseline run (default: the first).
    test : {"fisher", "randomization", "bootstrap", "student"}
        ``fisher``: Fisher's randomisation test on the mean per-query difference, as ranx
        (share of sign flips at least as extreme, ``>=``); ``randomization`` and ``bootstrap``: the
        project's approximate randomisation and paired bootstrap (sacreBLEU's conventions, add-one
        smoothed); ``student``: the paired t-test (ranx's ``student``).
    correction : {"holm", "bh", "none"}
        Adjustment of each measure's p-values over the runs compared to the baseline.
    n_resamples : int
        Permutations, trials or resamples.
    seed : int or None
        Seed of the test's generator.
    relevance_level, complete, judged_only, flavor
        As :func:`nlpeval.retrieval`.

    Returns
    -------
    RunComparison

    Examples
    --------
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> good = {f"q{i}": ["a", "b"] for i in range(8)}
    >>> bad = {f"q{i}": ["b", "a"] for i in range(8)}
    >>> result = compare_runs(qrels, {"bad": bad, "good": good}, ["mrr"], n_resamples=2000, seed=1)
    >>> test = result.tests[0]
    >>> test.baseline, test.system, test.p_value < 0.05
    (0.5, 1.0, True)
    """
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    if not runs:
        raise InputError("no run to compare")
    names = list(runs)
    baseline = names[0] if baseline is None else baseline
    if baseline not in runs:
        raise InputError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    parsed = parse_measures(measures)
    judgements = open_qrels(qrels)  # files stay native: read once, placed without dicts
    options: dict[str, Any] = {
        "relevance_level": relevance_level,
        "complete": complete,
        "judged_only": judged_only,
        "flavor": flavor,
    }
    ordered = [baseline] + [name for name in names if name != baseline]
    results = {name: retrieval(judgements, open_run(runs[name]), parsed, **options) for name in ordered}
    from nlpeval.reports.analyses.multitest import benjamini_hochberg, holm

    tests: list[PairedTest] = []
    for measure in parsed:
        metric = RetrievalMeasure(measure.name, relevance_level, complete, judged_only, flavor)
        raw = []
        for name in ordered[1:]:
            a, b = _paired_values(results[baseline], results[name], measure.name)
            raw.append((name, a, b, _p_value(test, metric, a, b, n_resamples, seed)))
        p_raw = [p for *_, p in raw]
        adjusted = holm(p_raw) if correction == "holm" else benjamini_hochberg(p_raw) if correction == "bh" else p_raw
        for (name, a, b, p), p_adj in zip(raw, adjusted, strict=True):
            tests.append(PairedTest(name, measure.name, float(a.mean()), float(b.mean()), p, float(p_adj), len(a)))
    return RunComparison(results, baseline, tuple(tests), test, correction, n_resamples, seed)
