"""The simulations: one observed difference and one significance decision per simulated test set.

Two kinds of draws:

* ``notebook=True`` reproduces Card et al. (2020)'s notebooks draw for draw: NumPy's legacy
  ``RandomState`` seeded with ``seed`` (what ``np.random.seed(seed)`` seeds), the notebooks' calls in
  their order (BLEU.ipynb: per trial ``laplace(mu, b, n)``, ``choice([0, 1], n, p=[p_zero, 1 - p_zero])``,
  then ``rand(n)`` once per randomization; accuracy.ipynb: one ``multinomial(n, table)`` per trial)
  and their decision rules (BLEU.ipynb: the observed difference outside the 2.5-97.5 percentiles of
  the randomization distribution; accuracy.ipynb: statsmodels' exact McNemar test, p <= alpha).
  The ``rand(n)`` calls of a trial are drawn as one block, which yields the same numbers in the same
  order; the swap effects are summed row by row exactly as ``np.sum`` sums each one.
* ``notebook=False`` (the default) draws from NumPy's ``Generator(PCG64(seed))`` and runs the test
  the user will run, with the project's p-value rule (:mod:`nlpeval.significance.paired`):
  randomization swap sets as random bits (:mod:`.linear`), bootstrap resamples as indices.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nlpeval.core.progress import progress_bar, progress_enabled
from nlpeval.significance.legacy_draws import swap_effects
from nlpeval.significance.power.linear import bootstrap_p_value, randomization_p_value, randomization_rejects
from nlpeval.significance.power.models import LaplaceModel, McNemarModel, PilotModel

#: legacy draws of one block of ``rand(n)`` calls: at most this many numbers at a time (small blocks stay
#: in the CPU cache and below the allocator's threshold for fresh pages)
_NOTEBOOK_BLOCK = 1 << 14


@dataclass(frozen=True)
class Outcome:
    """Per simulated test set: the observed difference (system minus baseline) and whether the test rejected."""

    observed: np.ndarray
    significant: np.ndarray


def _trials(n_trials: int, step: Callable[[], tuple[float, bool]], desc: str) -> Outcome:
    observed = np.empty(n_trials)
    significant = np.zeros(n_trials, dtype=bool)
    with progress_bar(n_trials, desc=desc, unit=" trials") as bar:
        for trial in range(n_trials):
            observed[trial], significant[trial] = step()
            bar.update(1)
    return Outcome(observed, significant)


def laplace_notebook(
    model: LaplaceModel, n_trials: int, n_randomizations: int, alpha: float, seed: int | None
) -> Outcome:
    """BLEU.ipynb's loop, draw for draw (see the module notes)."""
    draws = np.random.RandomState(seed)
    n, mu, b = model.n, model.location, model.scale
    upper_q, lower_q = 100 * (1 - alpha / 2), 100 * alpha / 2
    block = max(1, _NOTEBOOK_BLOCK // n)
    buffer = np.empty((block, n))

    def step() -> tuple[float, bool]:
        laplace_samples = draws.laplace(mu, b, size=n)
        zeros = draws.choice([0, 1], size=n, p=[model.p_zero, 1 - model.p_zero])
        samples = zeros * laplace_samples
        observed = -np.sum(samples) / 2
        native = swap_effects(draws, samples, n_randomizations, 0.5)
        if native is not None:  # the same uniforms and sums, made by the core
            return _decide(native + observed, observed)
        effects = np.empty(n_randomizations)
        for start in range(0, n_randomizations, block):
            rows = min(block, n_randomizations - start)
            selected = draws.random_sample(rows * n).reshape(rows, n) > 0.5
            products = np.multiply(samples, selected, out=buffer[:rows])  # the bools count as 1.0 / 0.0
            effects[start : start + rows] = products.sum(axis=1)
        return _decide(effects + observed, observed)

    def _decide(null: np.ndarray, observed: float) -> tuple[float, bool]:
        upper = np.percentile(null, q=upper_q)
        lower = np.percentile(null, q=lower_q)
        return observed, bool(observed >= upper or observed <= lower)

    return _trials(n_trials, step, "power (BLEU.ipynb draws)")


def laplace_fast(
    model: LaplaceModel, n_trials: int, n_randomizations: int, alpha: float, seed: int | None, test: str
) -> Outcome:
    """The Laplace model with PCG64 draws and the project's test (see the module notes)."""
    rng = np.random.default_rng(seed)
    n, mu, b = model.n, model.location, model.scale

    def step() -> tuple[float, bool]:
        swap_effects = rng.laplace(mu, b, size=n)
        swap_effects[rng.random(n) < model.p_zero] = 0.0
        contributions = swap_effects / -2  # a segment's share of the difference; swapping it subtracts twice that
        observed = float(contributions.sum())
        if test == "randomization":
            return observed, randomization_rejects(contributions, n_randomizations, rng, alpha, observed)
        return observed, bootstrap_p_value(contributions, n_randomizations, rng) <= alpha

    return _trials(n_trials, step, "power (Laplace model)")


def mcnemar_p_values(only_system: np.ndarray, only_baseline: np.ndarray) -> np.ndarray:
    """statsmodels' exact McNemar p-values, ``min(1, 2 * binom.cdf(min(b, c), b + c, 0.5))``, for many tables.

    Examples
    --------
    >>> mcnemar_p_values(np.array([10, 3]), np.array([0, 3])).round(6).tolist()
    [0.001953, 1.0]
    """
    from scipy import stats

    statistic = np.minimum(only_system, only_baseline).astype(np.float64)
    total = (only_system + only_baseline).astype(np.int64)
    return np.minimum(stats.binom.cdf(statistic, total, 0.5) * 2, 1)


def mcnemar_simulation(
    model: McNemarModel, n_trials: int, n_randomizations: int, alpha: float, seed: int | None, test: str, notebook: bool
) -> Outcome:
    """Tables of counts drawn from the model's probabilities, each tested (accuracy.ipynb with ``notebook=True``)."""
    pvals = model.array.reshape((4,))
    n = model.n
    if notebook:
        counts = np.random.RandomState(seed).multinomial(n=n, pvals=pvals, size=n_trials)
    else:
        rng = np.random.default_rng(seed)
        counts = rng.multinomial(n, pvals, size=n_trials)
    only_system, only_baseline = counts[:, 1], counts[:, 2]
    observed = (only_system - only_baseline) / n
    if test == "mcnemar":
        with progress_bar(n_trials, desc="power (McNemar)", unit=" trials") as bar:
            significant = mcnemar_p_values(only_system, only_baseline) <= alpha
            bar.update(n_trials)
        return Outcome(observed, significant)
    significant = np.zeros(n_trials, dtype=bool)
    with progress_bar(n_trials, desc=f"power (accuracy, {test})", unit=" trials") as bar:
        for trial in range(n_trials):
            contributions = np.zeros(n)
            wins, losses = int(only_system[trial]), int(only_baseline[trial])
            contributions[:wins] = 1 / n
            contributions[wins : wins + losses] = -1 / n
            if test == "randomization":
                p = randomization_p_value(contributions, n_randomizations, rng)
            else:
                p = bootstrap_p_value(contributions, n_randomizations, rng)
            significant[trial] = p <= alpha
            bar.update(1)
    return Outcome(observed, significant)


def pilot_simulation(
    model: PilotModel, n_trials: int, n_randomizations: int, alpha: float, seed: int | None, test: str
) -> Outcome:
    """Test sets of ``model.n`` segment pairs drawn from the pilot with replacement, each tested with the
    project's own :func:`~nlpeval.significance.paired.approximate_randomization` or
    :func:`~nlpeval.significance.paired.paired_bootstrap` (seeded from the same generator)."""
    from nlpeval.core.stats import Stats
    from nlpeval.significance.paired import approximate_randomization, paired_bootstrap

    rng = np.random.default_rng(seed)
    pilot = len(model.baseline)

    def step() -> tuple[float, bool]:
        rows = rng.integers(pilot, size=model.n)
        test_seed = int(rng.integers(2**63))
        baseline, system = model.baseline.take(rows), model.system.take(rows)
        if model.mix != 1.0:  # the system's output on a share `mix` of the segments, the baseline's elsewhere
            keep = rng.random(model.n) < model.mix
            system = Stats(system.schema, np.where(keep[:, None], system.rows, baseline.rows))
        with progress_enabled(False):
            if test == "randomization":
                result = approximate_randomization(
                    model.metric, baseline, system, n_trials=n_randomizations, seed=test_seed
                )
            else:
                result = paired_bootstrap(model.metric, baseline, system, n_resamples=n_randomizations, seed=test_seed)
        return result.difference, result.p_value <= alpha

    return _trials(n_trials, step, f"power (pilot, {test})")
