"""Validated settings of the three power models: Card et al.'s Laplace model for BLEU, McNemar's
table for accuracy, and pilot data of two systems.

Every check raises :class:`PowerSettingError`, a ``ValueError`` that names the parameter, so the
command line can name the flag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.stats import Stats


class PowerSettingError(ValueError):
    """A power-analysis setting out of its range; ``parameter`` names it.

    Examples
    --------
    >>> error = PowerSettingError("n", "must be a positive integer; got 0")
    >>> str(error), error.parameter
    ('n must be a positive integer; got 0', 'n')
    """

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        self.message = message
        super().__init__(f"{parameter} {message}")


def positive_int(name: str, value: Any) -> int:
    """``value`` as an int >= 1, or a :class:`PowerSettingError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer() and value >= 1:
            return int(value)
        raise PowerSettingError(name, f"must be a positive integer; got {value!r}")
    if value < 1:
        raise PowerSettingError(name, f"must be a positive integer; got {value!r}")
    return int(value)


def finite(name: str, value: Any) -> float:
    """``value`` as a finite float, or a :class:`PowerSettingError` naming ``name``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PowerSettingError(name, f"must be a number; got {value!r}") from None
    if not math.isfinite(number):
        raise PowerSettingError(name, f"must be a finite number; got {value!r}")
    return number


def probability(name: str, value: Any, *, open_low: bool = False, open_high: bool = False) -> float:
    """``value`` as a float in [0, 1] (ends excluded on request), or a :class:`PowerSettingError`."""
    number = finite(name, value)
    low_bad = number <= 0 if open_low else number < 0
    high_bad = number >= 1 if open_high else number > 1
    if low_bad or high_bad:
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise PowerSettingError(name, f"must be a probability in {interval}; got {value!r}")
    return number


def nonzero_effect(name: str, value: Any) -> float:
    """A finite, non-zero effect (power is undefined for a true effect of zero)."""
    number = finite(name, value)
    if number == 0:
        raise PowerSettingError(name, "must not be 0: power is undefined when the true effect is zero")
    return number


@dataclass(frozen=True)
class LaplaceModel:
    """Card et al. (2020)'s model of segment-level BLEU differences.

    Each of ``n`` segments changes the corpus difference by an amount that is 0 with
    probability ``p_zero`` and otherwise Laplace-distributed with location
    ``-2 * delta / (n * (1 - p_zero))`` and scale ``b_zero / n`` (the swap effect of the
    notebook, whose half-sum with the sign flipped is the observed difference).
    """

    p_zero: float
    b_zero: float
    n: int
    delta: float

    @classmethod
    def build(cls, *, p_zero: Any, b_zero: Any, n: Any, delta: Any) -> LaplaceModel:
        p = probability("p_zero", p_zero, open_high=True)
        b = finite("b_zero", b_zero)
        if b <= 0:
            raise PowerSettingError("b_zero", f"must be positive; got {b_zero!r}")
        return cls(p, b, positive_int("n", n), nonzero_effect("delta", delta))

    @property
    def location(self) -> float:
        """``mu`` of the notebook: Laplace location of one segment's swap effect."""
        return -2 * self.delta / (self.n * (1 - self.p_zero))

    @property
    def scale(self) -> float:
        """``b`` of the notebook: Laplace scale of one segment's swap effect."""
        return self.b_zero / self.n

    def with_effect(self, delta: float) -> LaplaceModel:
        return LaplaceModel(self.p_zero, self.b_zero, self.n, delta)

    def with_size(self, n: int) -> LaplaceModel:
        return LaplaceModel(self.p_zero, self.b_zero, n, self.delta)

    def settings(self) -> tuple[tuple[str, float | int], ...]:
        return (("p_zero", self.p_zero), ("b_zero", self.b_zero), ("n", self.n), ("delta", self.delta))


def mcnemar_table(baseline: float, delta: float, agreement: float) -> np.ndarray:
    """Joint probabilities of correctness as accuracy.ipynb builds them from an agreement rate.

    Rows: the baseline (model 1) incorrect / correct; columns: the system (model 2) incorrect /
    correct. ``delta`` is the system's accuracy minus the baseline's; ``agreement`` the share of
    items on which both are right or both wrong. The discordant cells are
    ``(1 - agreement - delta) / 2`` (only the baseline right) and that plus ``delta`` (only the
    system right), computed with the notebook's operations so that the same inputs give the same
    floating-point table.

    Examples
    --------
    >>> mcnemar_table(0.8, 0.02, 0.975).round(6).tolist()
    [[0.1775, 0.0225], [0.0025, 0.7975]]
    """
    disagreement = 1 - agreement
    if delta > 0:
        only_baseline = (disagreement - delta) / 2
        only_system = (disagreement - delta) / 2 + delta
    else:
        only_baseline = (disagreement + delta) / 2 - delta
        only_system = (disagreement + delta) / 2
    both_correct = baseline - only_baseline
    both_incorrect = 1.0 - both_correct - only_baseline - only_system
    return np.array([[both_incorrect, only_system], [only_baseline, both_correct]])


@dataclass(frozen=True)
class McNemarModel:
    """Paired accuracies of two classifiers on ``n`` items, as a 2x2 table of joint probabilities.

    ``table[0, 1]`` is the probability that only the system (model 2) is right, ``table[1, 0]``
    that only the baseline is; their difference is the true accuracy difference.
    """

    table: tuple[tuple[float, float], tuple[float, float]]
    n: int

    @classmethod
    def build(
        cls, *, n: Any, table: Any = None, baseline: Any = None, delta: Any = None, agreement: Any = None
    ) -> McNemarModel:
        size = positive_int("n", n)
        if table is None:
            missing = [
                name
                for name, v in (("baseline_accuracy", baseline), ("delta", delta), ("agreement", agreement))
                if v is None
            ]
            if missing:
                raise PowerSettingError(missing[0], "is required by model='mcnemar' (or give table=)")
            base = probability("baseline_accuracy", baseline)
            effect = nonzero_effect("delta", delta)
            agree = probability("agreement", agreement)
            if abs(effect) > 1 - agree:
                raise PowerSettingError(
                    "delta",
                    f"|delta| = {abs(effect)!r} cannot exceed the disagreement rate 1 - agreement = {1 - agree!r}",
                )
            array = mcnemar_table(base, effect, agree)
            if not 0 <= base + effect <= 1:
                raise PowerSettingError("delta", f"baseline + delta = {base + effect!r} is not an accuracy in [0, 1]")
            if np.any(array < -1e-12):
                raise PowerSettingError(
                    "agreement", f"{agree!r} with baseline {base!r} and delta {effect!r} gives a negative probability"
                )
        else:
            for name, value in (("baseline_accuracy", baseline), ("delta", delta), ("agreement", agreement)):
                if value is not None:
                    raise PowerSettingError(name, "cannot be given together with table=")
            try:
                array = np.asarray(table, dtype=np.float64)
            except (TypeError, ValueError):
                raise PowerSettingError("table", "must be a 2x2 table of probabilities") from None
            if array.shape != (2, 2):
                raise PowerSettingError("table", f"must be a 2x2 table of probabilities; got shape {array.shape}")
            for value in array.ravel():
                probability("table", value)
            if abs(array.sum() - 1) > 1e-9:
                raise PowerSettingError("table", f"probabilities must sum to 1; they sum to {array.sum()!r}")
            if array[0, 1] == array[1, 0]:
                raise PowerSettingError(
                    "table", "power is undefined when the true effect is zero (table[0,1] == table[1,0])"
                )
        rows = ((float(array[0, 0]), float(array[0, 1])), (float(array[1, 0]), float(array[1, 1])))
        return cls(rows, size)

    @property
    def array(self) -> np.ndarray:
        return np.array(self.table, dtype=np.float64)

    @property
    def delta(self) -> float:
        """True accuracy difference, system minus baseline."""
        return self.table[0][1] - self.table[1][0]

    def with_size(self, n: int) -> McNemarModel:
        return McNemarModel(self.table, n)

    def settings(self) -> tuple[tuple[str, Any], ...]:
        return (("table", [list(row) for row in self.table]), ("n", self.n), ("delta", self.delta))


@dataclass(frozen=True)
class PilotModel:
    """Segment statistics of two systems on the same pilot segments; test sets of ``n`` segments
    are drawn from the pilot pairs with replacement, and the pilot's corpus difference is the truth.
    With ``mix < 1`` (the minimum-detectable-effect search) each drawn segment keeps the system's
    statistics with probability ``mix`` and the baseline's otherwise."""

    metric: CorpusMetric
    baseline: Stats
    system: Stats
    n: int
    mix: float = 1.0

    @classmethod
    def build(cls, *, metric: Any, baseline: Any, system: Any, n: Any) -> PilotModel:
        from nlpeval.core.errors import InputError
        from nlpeval.core.metric import CorpusMetric
        from nlpeval.core.stats import Stats

        if not isinstance(metric, CorpusMetric):
            raise PowerSettingError("metric", f"must be a corpus metric such as nlpeval.BLEU(); got {metric!r}")
        for name, value in (("baseline", baseline), ("system", system)):
            if not isinstance(value, Stats):
                raise PowerSettingError(
                    name, f"must be segment statistics (metric.segment_stats(...)); got {type(value).__name__}"
                )
        if baseline.schema != system.schema:
            raise PowerSettingError("system", "was scored with other statistics than the baseline")
        if len(baseline) != len(system):
            raise InputError(
                f"pilot systems have different lengths: baseline {len(baseline)} segments, system {len(system)}",
                segment=min(len(baseline), len(system)),
                side="system" if len(system) > len(baseline) else "baseline",
            )
        if len(baseline) < 2:
            raise PowerSettingError("baseline", f"pilot data need at least 2 segments; got {len(baseline)}")
        size = len(baseline) if n is None else positive_int("n", n)
        model = cls(metric, baseline, system, size)
        if model.delta == 0 or not math.isfinite(model.delta):
            raise PowerSettingError("system", f"the pilot difference is {model.delta!r}: power needs a non-zero effect")
        return model

    @property
    def delta(self) -> float:
        """The simulation's true effect, system minus baseline: the pilot's corpus difference, or with
        ``mix < 1`` the difference the metric gives the expected totals of the mixed system."""
        base_totals = self.baseline.totals()
        system_totals = self.system.totals()
        if self.mix != 1.0:
            mixed = np.array(system_totals, dtype=np.float64)
            for column, rule in enumerate(self.baseline.schema.merge):
                if rule == "sum":
                    mixed[column] = self.mix * system_totals[column] + (1 - self.mix) * base_totals[column]
            system_totals = mixed
        system = float(self.metric.corpus_values(system_totals))
        return system - float(self.metric.corpus_values(base_totals))

    def with_size(self, n: int) -> PilotModel:
        return PilotModel(self.metric, self.baseline, self.system, n, self.mix)

    def with_mix(self, mix: float) -> PilotModel:
        """The same pilot whose simulated system keeps the system's output on a share ``mix`` of the
        segments and the baseline's on the rest (a smaller effect of the same kind)."""
        return PilotModel(self.metric, self.baseline, self.system, self.n, mix)

    def settings(self) -> tuple[tuple[str, Any], ...]:
        mix = () if self.mix == 1.0 else (("mix", self.mix),)
        return (("pilot_segments", len(self.baseline)), ("n", self.n), *mix, ("delta", self.delta))
