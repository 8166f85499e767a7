"""``nlpeval.power``, ``nlpeval.minimum_detectable_effect`` and ``nlpeval.required_sample_size``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from nlpeval.core.signature import Signature
from nlpeval.significance.power import simulate
from nlpeval.significance.power.models import (
    LaplaceModel,
    McNemarModel,
    PilotModel,
    PowerSettingError,
    positive_int,
    probability,
)
from nlpeval.significance.power.result import PowerResult, PowerSearch

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.stats import Stats

Model = Literal["laplace", "mcnemar", "pilot"]
Test = Literal["randomization", "bootstrap", "mcnemar"]
_TESTS: dict[str, tuple[str, ...]] = {
    "laplace": ("randomization", "bootstrap"),
    "pilot": ("randomization", "bootstrap"),
}
_TESTS["mcnemar"] = ("mcnemar", "randomization", "bootstrap")


def _model(model: Any, parameters: dict[str, Any]) -> LaplaceModel | McNemarModel | PilotModel:
    unused = {
        "laplace": ("table", "baseline_accuracy", "agreement", "metric", "baseline", "system"),
        "mcnemar": ("p_zero", "b_zero", "metric", "baseline", "system"),
        "pilot": ("p_zero", "b_zero", "table", "baseline_accuracy", "agreement", "delta"),
    }
    if model not in unused:
        raise PowerSettingError("model", f"must be 'laplace', 'mcnemar' or 'pilot'; got {model!r}")
    for name in unused[model]:
        if parameters.get(name) is not None:
            raise PowerSettingError(name, f"is not a parameter of model={model!r}")
    if model == "laplace":
        missing = [name for name in ("p_zero", "b_zero", "n", "delta") if parameters.get(name) is None]
        if missing:
            raise PowerSettingError(missing[0], "is required by model='laplace'")
        return LaplaceModel.build(
            p_zero=parameters["p_zero"], b_zero=parameters["b_zero"], n=parameters["n"], delta=parameters["delta"]
        )
    if model == "mcnemar":
        if parameters.get("n") is None:
            raise PowerSettingError("n", "is required by model='mcnemar'")
        return McNemarModel.build(
            n=parameters["n"],
            table=parameters.get("table"),
            baseline=parameters.get("baseline_accuracy"),
            delta=parameters.get("delta"),
            agreement=parameters.get("agreement"),
        )
    for name in ("metric", "baseline", "system"):
        if parameters.get(name) is None:
            raise PowerSettingError(name, "is required by model='pilot'")
    return PilotModel.build(
        metric=parameters["metric"], baseline=parameters["baseline"], system=parameters["system"], n=parameters.get("n")
    )


def _run_settings(
    model: str, test: Any, alpha: Any, n_trials: Any, n_randomizations: Any, seed: Any, notebook: Any
) -> tuple[str, float, int, int]:
    chosen = test if test is not None else ("mcnemar" if model == "mcnemar" else "randomization")
    if chosen not in _TESTS[model]:
        raise PowerSettingError("test", f"must be one of {', '.join(_TESTS[model])} for model={model!r}; got {test!r}")
    level = probability("alpha", alpha, open_low=True, open_high=True)
    trials = positive_int("n_trials", n_trials)
    randomizations = positive_int("n_randomizations", n_randomizations)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise PowerSettingError("seed", f"must be a non-negative integer or None; got {seed!r}")
    if notebook:
        if model == "pilot":
            raise PowerSettingError(
                "notebook", "reproduces Card et al.'s notebooks: models 'laplace' and 'mcnemar' only"
            )
        if chosen != ("mcnemar" if model == "mcnemar" else "randomization"):
            raise PowerSettingError("notebook", f"the notebook for model={model!r} runs no {chosen} test")
        if seed is not None and seed >= 2**32:
            raise PowerSettingError("seed", f"must be below 2**32 with notebook=True (np.random.seed); got {seed!r}")
    return chosen, level, trials, randomizations


def _summarize(
    observed: np.ndarray, significant: np.ndarray, delta: float, *, per_item_ratio: bool = False
) -> dict[str, Any]:
    """Power, Type-M/S error, mean difference and rejections from per-trial records, by the notebooks'
    formulas (``per_item_ratio``: accuracy.ipynb's mean of ratios for Type-M; else BLEU.ipynb's ratio of
    the mean, which can differ in the last digit).

    Examples
    --------
    >>> _summarize(np.array([1.5, 0.2, -1.0]), np.array([True, False, True]), 1.0)["type_s"]
    0.5
    """
    significant_differences = observed[significant]
    successes = int(np.count_nonzero(significant & (np.sign(observed) == np.sign(delta))))
    type_m = type_s = math.nan  # no significant test set: NaN, as documented
    if len(significant_differences):
        if per_item_ratio:
            type_m = float(np.mean(np.abs(significant_differences) / np.abs(delta)))
        else:
            type_m = float(np.mean(np.abs(significant_differences)) / np.abs(delta))
        type_s = float(np.mean(np.sign(significant_differences) != np.sign(delta)))
    return {
        "power": successes / len(observed),
        "type_m": type_m,
        "type_s": type_s,
        "mean_observed_difference": float(np.mean(observed)),
        "n_significant": int(np.count_nonzero(significant)),
    }


def _simulate(
    spec: LaplaceModel | McNemarModel | PilotModel,
    test: str,
    alpha: float,
    n_trials: int,
    n_randomizations: int,
    seed: int | None,
    notebook: bool,
) -> PowerResult:
    if isinstance(spec, LaplaceModel):
        name = "laplace"
        if notebook:
            outcome = simulate.laplace_notebook(spec, n_trials, n_randomizations, alpha, seed)
        else:
            outcome = simulate.laplace_fast(spec, n_trials, n_randomizations, alpha, seed, test)
    elif isinstance(spec, McNemarModel):
        name = "mcnemar"
        outcome = simulate.mcnemar_simulation(spec, n_trials, n_randomizations, alpha, seed, test, notebook)
    else:
        name = "pilot"
        outcome = simulate.pilot_simulation(spec, n_trials, n_randomizations, alpha, seed, test)
    delta = spec.delta
    observed, significant = outcome.observed, outcome.significant
    summary = _summarize(observed, significant, delta, per_item_ratio=name == "mcnemar")
    settings = spec.settings()
    signature = Signature.build(
        power=name,
        **{key: _show(value) for key, value in settings},
        test=test + (":notebook" if notebook else ""),
        trials=n_trials,
        rand=None if name == "mcnemar" and test == "mcnemar" else n_randomizations,
        alpha=alpha,
        seed=seed,
        draws="legacy" if notebook else "pcg64",
    )
    return PowerResult(
        **summary,
        delta=float(delta),
        model=name,
        test=test,
        n=spec.n,
        n_trials=n_trials,
        n_randomizations=n_randomizations,
        alpha=alpha,
        seed=seed,
        notebook=bool(notebook),
        settings=settings,
        signature=signature,
        observed_differences=tuple(observed.tolist()),
        significant=tuple(significant.tolist()),
    )


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_show(v) for v in value) + "]"
    return repr(value) if isinstance(value, float) else str(value)


def power(
    model: Model = "laplace",
    *,
    n: int | None = None,
    delta: float | None = None,
    p_zero: float | None = None,
    b_zero: float | None = None,
    table: Any = None,
    baseline_accuracy: float | None = None,
    agreement: float | None = None,
    metric: CorpusMetric | None = None,
    baseline: Stats | None = None,
    system: Stats | None = None,
    test: Test | None = None,
    alpha: float = 0.05,
    n_trials: int = 500,
    n_randomizations: int = 1000,
    seed: int | None = 12345,
    notebook: bool = False,
) -> PowerResult:
    """Power, Type-M and Type-S error of a paired test, estimated by simulation.

    Simulates ``n_trials`` test sets of ``n`` segments from a model of two systems' differences, runs the
    paired test on each and counts how often it finds the true effect (significant, right sign).

    Parameters
    ----------
    model : {"laplace", "mcnemar", "pilot"}
        ``"laplace"``: Card et al. (2020)'s model of BLEU differences (``p_zero``, ``b_zero``, ``n``,
        ``delta``). ``"mcnemar"``: two classifiers' paired accuracies on ``n`` items (``baseline_accuracy``,
        ``delta``, ``agreement``, or a ``table`` of joint probabilities). ``"pilot"``: test sets of ``n``
        segment pairs (default: the pilot's size) drawn with replacement from two systems' segment
        statistics ``baseline`` and ``system`` of any corpus ``metric``; the pilot's difference is the truth.
    n : int
        Segments (items) per test set.
    delta : float
        True effect, system minus baseline (BLEU points for ``"laplace"``, accuracy for ``"mcnemar"``).
    p_zero : float
        Laplace model: probability that a segment's translations give the same BLEU contribution (in [0, 1)).
    b_zero : float
        Laplace model: scale of the segment effects, times ``n`` (positive; the notebook's 25.8 for WMT).
    table : array-like of shape (2, 2)
        McNemar: joint probabilities ``[[both wrong, only system right], [only baseline right, both right]]``.
    baseline_accuracy : float
        McNemar: the baseline's accuracy.
    agreement : float
        McNemar: share of items on which both classifiers are right or both wrong.
    metric : CorpusMetric
        Pilot: the metric both systems were scored with.
    baseline, system : Stats
        Pilot: segment statistics of the two systems on the same segments.
    test : {"randomization", "bootstrap", "mcnemar"} or None
        The paired test the user will run: approximate randomization (default for ``"laplace"`` and
        ``"pilot"``) or paired bootstrap, as :mod:`nlpeval.significance.paired` runs them; McNemar's exact
        test (default for ``"mcnemar"``).
    alpha : float
        Significance level.
    n_trials : int
        Simulated test sets.
    n_randomizations : int
        Randomizations (or bootstrap resamples) of each test.
    seed : int or None
        Seed of every draw (None: irreproducible).
    notebook : bool
        Reproduce Card et al.'s notebooks (BLEU.ipynb, accuracy.ipynb) draw for draw: NumPy's legacy
        ``RandomState(seed)``, their draw order and their decision rule (see :mod:`.simulate`).

    Returns
    -------
    PowerResult

    Examples
    --------
    >>> import nlpeval
    >>> result = nlpeval.power("laplace", p_zero=0.13, b_zero=25.8, n=2000, delta=1.0,
    ...                        n_trials=20, n_randomizations=100, seed=2786345, notebook=True)
    >>> result.power, result.type_s
    (0.75, 0.0)
    >>> acc = nlpeval.power("mcnemar", n=500, baseline_accuracy=0.8, delta=0.02, agreement=0.975, n_trials=2000, seed=1)
    >>> 0.7 < acc.power < 0.9
    True
    """
    parameters = {
        "n": n,
        "delta": delta,
        "p_zero": p_zero,
        "b_zero": b_zero,
        "table": table,
        "baseline_accuracy": baseline_accuracy,
        "agreement": agreement,
        "metric": metric,
        "baseline": baseline,
        "system": system,
    }
    spec = _model(model, parameters)
    chosen, level, trials, randomizations = _run_settings(
        model, test, alpha, n_trials, n_randomizations, seed, notebook
    )
    return _simulate(spec, chosen, level, trials, randomizations, seed, bool(notebook))


def _search(
    evaluate: Any, start: float, lower: float, upper: float, target: float, integer: bool, rel_tol: float
) -> tuple[float | None, list[tuple[float, PowerResult]]]:
    """Smallest x in (lower, upper] with evaluate(x).power >= target: bracket from ``start``, then bisect."""
    points: list[tuple[float, PowerResult]] = []

    def at(x: float) -> bool:
        result = evaluate(x)
        points.append((x, result))
        return result.power >= target

    x = min(max(start, lower), upper)
    if integer:
        x = max(math.ceil(x), int(lower) + 1)
    low, high = lower, None
    if at(x):
        high = x
        while True:  # halve until below the target
            smaller = math.floor(x / 2) if integer else x / 2
            if smaller <= lower or (integer and smaller < 1):
                break
            if at(smaller):
                high = x = smaller
            else:
                low = smaller
                break
    else:
        low = x
        while high is None:
            if x >= upper:
                return None, points
            x = min(upper, math.ceil(x * 2) if integer else x * 2)
            if at(x):
                high = x
            else:
                low = x
    while True:
        gap = high - low
        if (integer and gap <= max(1, math.floor(rel_tol * high))) or (not integer and gap <= rel_tol * high):
            return high, points
        middle = (low + high) // 2 if integer else (low + high) / 2
        if at(middle):
            high = middle
        else:
            low = middle


def _search_result(kind: str, value: float | None, points: list, target: float, signature: Signature) -> PowerSearch:
    by_value = {x: result for x, result in points}
    ordered = tuple(sorted((float(x), result.power) for x, result in points))
    if value is None:
        return PowerSearch(kind, math.inf, False, target, None, ordered, signature)
    return PowerSearch(kind, float(value), True, target, by_value[value], ordered, signature)


def minimum_detectable_effect(
    model: Model = "laplace",
    *,
    n: int | None = None,
    p_zero: float | None = None,
    b_zero: float | None = None,
    baseline_accuracy: float | None = None,
    agreement: float | None = None,
    metric: CorpusMetric | None = None,
    baseline: Stats | None = None,
    system: Stats | None = None,
    target_power: float = 0.8,
    rel_tol: float = 0.02,
    test: Test | None = None,
    alpha: float = 0.05,
    n_trials: int = 500,
    n_randomizations: int = 1000,
    seed: int | None = 12345,
    notebook: bool = False,
) -> PowerSearch:
    """The smallest positive true effect whose power reaches ``target_power`` on ``n`` segments.

    Power is simulated (as :func:`power`, with the same seed at every effect, so the curve is smooth)
    while the effect is doubled or halved to bracket the target, then bisected until the bracket is
    within ``rel_tol`` of the effect; the upper end is returned. For ``"mcnemar"`` the effect is the
    accuracy difference at the given agreement rate, at most ``1 - agreement``. For ``"pilot"`` smaller
    effects of the pilot's kind are simulated by giving the system's output on a share ``mix`` of the
    segments and the baseline's elsewhere; the effect at a share is the metric's difference on the mixed
    expected statistics, so the search ends at the pilot's own difference (``mix = 1``: unreachable beyond).

    Parameters
    ----------
    model : {"laplace", "mcnemar", "pilot"}
        As :func:`power`.
    n, p_zero, b_zero, baseline_accuracy, agreement, metric, baseline, system
        As :func:`power` (no ``delta``: it is searched).
    test, alpha, n_trials, n_randomizations, seed, notebook
        As :func:`power`.
    target_power : float
        The power to reach (0.8 by convention).
    rel_tol : float
        Relative width of the final bracket.

    Returns
    -------
    PowerSearch

    Examples
    --------
    >>> import nlpeval
    >>> mde = nlpeval.minimum_detectable_effect("mcnemar", n=1000, baseline_accuracy=0.8, agreement=0.9,
    ...                                         n_trials=400, rel_tol=0.1, seed=1)
    >>> 0.02 < mde.value < 0.04, mde.result.power >= 0.8
    (True, True)
    """
    target = probability("target_power", target_power, open_low=True, open_high=True)
    tolerance = probability("rel_tol", rel_tol, open_low=True, open_high=True)
    if model == "laplace":
        spec = _model("laplace", {"p_zero": p_zero, "b_zero": b_zero, "n": n, "delta": 1.0})
        assert isinstance(spec, LaplaceModel)
        spread = spec.b_zero * math.sqrt(2 * (1 - spec.p_zero) / spec.n) / 2
        start, upper = 2.8 * spread, math.inf

        def build(x: float) -> Any:
            return spec.with_effect(x)
    elif model == "mcnemar":
        probe = _model(
            "mcnemar", {"n": n, "baseline_accuracy": baseline_accuracy, "agreement": agreement, "delta": 1e-9}
        )
        # _model has checked both (present, probabilities): these only give them their float type
        base, agree = probability("baseline_accuracy", baseline_accuracy), probability("agreement", agreement)
        size = probe.n
        upper = min(1 - agree, 1 - base)
        if upper <= 0:
            raise PowerSettingError("agreement", "leaves no room for a positive accuracy difference")
        start = min(upper, 2.8 * math.sqrt((1 - agree) / size))

        def build(x: float) -> Any:
            return McNemarModel.build(n=size, baseline=base, delta=x, agreement=agree)
    elif model == "pilot":
        pilot = _model("pilot", {"metric": metric, "baseline": baseline, "system": system, "n": n})
        assert isinstance(pilot, PilotModel)
        start, upper = 0.5, 1.0

        def build(x: float) -> Any:
            return pilot.with_mix(x)
    else:
        raise PowerSettingError("model", f"must be 'laplace', 'mcnemar' or 'pilot'; got {model!r}")
    chosen, level, trials, randomizations = _run_settings(
        model, test, alpha, n_trials, n_randomizations, seed, notebook
    )

    def evaluate(x: float) -> PowerResult:
        return _simulate(build(x), chosen, level, trials, randomizations, seed, bool(notebook))

    value, points = _search(evaluate, start, 0.0, upper, target, False, tolerance)
    signature = (points[-1][1].signature).with_fields(search="mde", target=target, tol=tolerance)
    if model == "pilot":  # report effects, not shares of the system's segments
        found = next((result for x, result in points if x == value), None)
        points = [(result.delta, result) for _, result in points]
        value = None if found is None else found.delta
    return _search_result("mde", value, points, target, signature)


def required_sample_size(
    model: Model = "laplace",
    *,
    delta: float | None = None,
    p_zero: float | None = None,
    b_zero: float | None = None,
    table: Any = None,
    baseline_accuracy: float | None = None,
    agreement: float | None = None,
    metric: CorpusMetric | None = None,
    baseline: Stats | None = None,
    system: Stats | None = None,
    target_power: float = 0.8,
    n_max: int = 1_000_000,
    rel_tol: float = 0.02,
    test: Test | None = None,
    alpha: float = 0.05,
    n_trials: int = 500,
    n_randomizations: int = 1000,
    seed: int | None = 12345,
    notebook: bool = False,
) -> PowerSearch:
    """The smallest test-set size whose power reaches ``target_power`` for the given true effect.

    Power is simulated (as :func:`power`, with the same seed at every size) while the size is doubled or
    halved to bracket the target, then bisected until the bracket is within ``rel_tol`` of the size (or 1).

    Parameters
    ----------
    model, delta, p_zero, b_zero, table, baseline_accuracy, agreement, metric, baseline, system
        As :func:`power` (no ``n``: it is searched).
    target_power : float
        The power to reach (0.8 by convention).
    n_max : int
        Largest size tried; beyond it the result is unreachable (``value`` = inf).
    rel_tol : float
        Relative width of the final bracket.
    test, alpha, n_trials, n_randomizations, seed, notebook
        As :func:`power`.

    Returns
    -------
    PowerSearch

    Examples
    --------
    >>> import nlpeval
    >>> size = nlpeval.required_sample_size("mcnemar", baseline_accuracy=0.8, delta=0.02, agreement=0.975,
    ...                                     n_trials=400, rel_tol=0.1, seed=1)
    >>> 300 < size.value < 700
    True
    """
    target = probability("target_power", target_power, open_low=True, open_high=True)
    tolerance = probability("rel_tol", rel_tol, open_low=True, open_high=True)
    largest = positive_int("n_max", n_max)
    parameters = {
        "delta": delta,
        "p_zero": p_zero,
        "b_zero": b_zero,
        "table": table,
        "baseline_accuracy": baseline_accuracy,
        "agreement": agreement,
        "metric": metric,
        "baseline": baseline,
        "system": system,
        "n": 100 if model != "pilot" else None,
    }
    spec = _model(model, parameters)
    chosen, level, trials, randomizations = _run_settings(
        model, test, alpha, n_trials, n_randomizations, seed, notebook
    )
    start = float(spec.n)
    if isinstance(spec, LaplaceModel):
        start = (2.8 * spec.b_zero * math.sqrt(2 * (1 - spec.p_zero)) / 2 / abs(spec.delta)) ** 2
    elif isinstance(spec, McNemarModel):
        discordant = spec.table[0][1] + spec.table[1][0]
        start = 2.8**2 * discordant / spec.delta**2

    def evaluate(x: float) -> PowerResult:
        return _simulate(spec.with_size(int(x)), chosen, level, trials, randomizations, seed, bool(notebook))

    value, points = _search(evaluate, max(2.0, start), 1.0, float(largest), target, True, tolerance)
    signature = (points[-1][1].signature).with_fields(search="n", target=target, tol=tolerance, nmax=largest)
    return _search_result("n", value, points, target, signature)
