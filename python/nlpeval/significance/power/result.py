"""Frozen results of a power simulation and of a search for the minimum detectable effect or test-set size."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from nlpeval.core.signature import Signature


@dataclass(frozen=True)
class PowerResult:
    """Outcome of a power simulation.

    Attributes
    ----------
    power : float
        Share of simulated test sets on which the test rejected the null hypothesis *and* the observed
        difference has the sign of the true effect (Card et al.'s definition).
    type_m : float
        Type-M (magnitude) error: mean absolute observed difference among the significant test sets,
        divided by the absolute true effect (1 = no exaggeration). NaN when no test set was significant.
    type_s : float
        Type-S (sign) error: share of the significant test sets whose difference has the wrong sign.
        NaN when no test set was significant.
    mean_observed_difference : float
        Mean observed difference (system minus baseline) over all simulated test sets.
    delta : float
        The true effect of the model (for ``model="pilot"``, the pilot's corpus difference).
    n_significant : int
        Test sets on which the test rejected, whatever the sign.
    model, test : str
        The model of the data and the paired test simulated.
    n, n_trials, n_randomizations : int
        Segments per test set, simulated test sets, and randomizations (or bootstrap resamples) per test.
    alpha : float
        Significance level.
    seed : int or None
        Seed of the draws.
    notebook : bool
        Whether the draws and decision rule are those of Card et al.'s notebooks.
    settings : tuple of (str, object)
        The model's parameters.
    signature : Signature
        Every setting above, ``key:value|...``.
    observed_differences : tuple of float
        The observed difference of every simulated test set, in order (not in :meth:`to_dict`).
    significant : tuple of bool
        Whether the test rejected on each simulated test set, in order (not in :meth:`to_dict`).
    """

    power: float
    type_m: float
    type_s: float
    mean_observed_difference: float
    delta: float
    n_significant: int
    model: str
    test: str
    n: int
    n_trials: int
    n_randomizations: int
    alpha: float
    seed: int | None
    notebook: bool
    settings: tuple[tuple[str, Any], ...]
    signature: Signature
    observed_differences: tuple[float, ...] = field(default=(), repr=False)
    significant: tuple[bool, ...] = field(default=(), repr=False)

    @property
    def power_standard_error(self) -> float:
        """Monte Carlo standard error of :attr:`power`, ``sqrt(power * (1 - power) / n_trials)``."""
        return math.sqrt(self.power * (1 - self.power) / self.n_trials)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready except NaN), the signature as text."""
        return {
            "model": self.model,
            "test": self.test,
            "power": self.power,
            "power_standard_error": self.power_standard_error,
            "type_m": self.type_m,
            "type_s": self.type_s,
            "mean_observed_difference": self.mean_observed_difference,
            "delta": self.delta,
            "n_significant": self.n_significant,
            "n": self.n,
            "n_trials": self.n_trials,
            "n_randomizations": self.n_randomizations,
            "alpha": self.alpha,
            "seed": self.seed,
            "notebook": self.notebook,
            "settings": dict(self.settings),
            "signature": str(self.signature),
        }


@dataclass(frozen=True)
class PowerSearch:
    """The smallest effect (``kind="mde"``) or test-set size (``kind="n"``) whose simulated power reaches
    ``target_power``, found by bracketing and bisection with the same seed at every point.

    Attributes
    ----------
    kind : {"mde", "n"}
        What was searched.
    value : float
        The minimum detectable effect, or the number of segments (a whole number); ``inf`` when the
        search range holds no value with enough power (``reachable`` is then False).
    reachable : bool
        Whether some value in the range reached the target.
    target_power : float
        The power aimed at.
    result : PowerResult or None
        The simulation at ``value`` (None when unreachable).
    points : tuple of (float, float)
        Every value simulated and its power, in increasing order of value.
    signature : Signature
        The settings of the search.
    """

    kind: str
    value: float
    reachable: bool
    target_power: float
    result: PowerResult | None
    points: tuple[tuple[float, float], ...]
    signature: Signature

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready except NaN/inf)."""
        return {
            "kind": self.kind,
            "value": self.value,
            "reachable": self.reachable,
            "target_power": self.target_power,
            "result": None if self.result is None else self.result.to_dict(),
            "points": [list(point) for point in self.points],
            "signature": str(self.signature),
        }
