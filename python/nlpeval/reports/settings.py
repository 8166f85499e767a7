"""The settings every resampled analysis of a report shares, given once instead of parameter by parameter.

:class:`Resampling` is how intervals and tests are drawn (resamples, trials, seed, levels);
:class:`Comparison` is who is compared with whom under those settings (the systems, the baseline, the
trust threshold of a bucket). Both are frozen: a report builds them once (:mod:`nlpeval.reports.context`)
and every analysis reads them.

Examples
--------
>>> compared = Comparison(("A", "B"), "A", Resampling(n_bootstrap=100, seed=1))
>>> compared.others, compared.resampling.n_bootstrap, compared.min_segments
(('B',), 100, 10)
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from nlpeval.reports.record import FrozenRecord, record


@record
class Resampling(FrozenRecord):
    """Bootstrap and randomization settings of a report.

    Parameters
    ----------
    n_bootstrap : int
        Bootstrap resamples (intervals, paired bootstrap tests; a Holm family gets at least
        :func:`~nlpeval.reports.analyses.leaderboard.family_resamples`).
    n_randomization : int
        Approximate-randomization trials (0 disables).
    seed : int or None
        Seed of every draw (same inputs and seed, same report).
    alpha : float
        Significance threshold (after Holm / BH).
    confidence : float
        Interval level.
    """

    n_bootstrap: int = 1000
    n_randomization: int = 1000
    seed: int | None = 12345
    alpha: float = 0.05
    confidence: float = 0.95

    def leaderboard_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`~nlpeval.reports.analyses.leaderboard.leaderboard` they set.

        Examples
        --------
        >>> Resampling(seed=3).leaderboard_options()["seed"]
        3
        """
        return {
            "n_bootstrap": self.n_bootstrap,
            "n_randomization": self.n_randomization,
            "seed": self.seed,
            "level": self.confidence,
            "alpha": self.alpha,
        }


@record
class Comparison(FrozenRecord):
    """Systems compared against a baseline under one :class:`Resampling`.

    Parameters
    ----------
    systems : tuple of str
        System names in report order.
    baseline : str
        The system every other is tested against.
    resampling : Resampling
        How intervals and tests are drawn.
    min_segments : int
        Buckets with fewer segments (words for word tables) are flagged ``few`` (no significance marker).
    """

    systems: tuple[str, ...]
    baseline: str
    resampling: Resampling = field(default_factory=Resampling)
    min_segments: int = 10

    @property
    def others(self) -> tuple[str, ...]:
        """Every system but the baseline, in report order."""
        return tuple(s for s in self.systems if s != self.baseline)
