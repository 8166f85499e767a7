"""Pair-based agreement between a metric and humans: WMT's Kendall-like tau and pairwise accuracy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError

TIES = ("discordant", "exclude")

#: pairs generated at once
_PAIR_BLOCK = 4_000_000


@dataclass(frozen=True)
class KendallLikeResult:
    """WMT's "Kendall-like" tau over relative-ranking pairs.

    Attributes
    ----------
    statistic : float
        ``(concordant - discordant) / (concordant + discordant)``; NaN without pairs.
    concordant : int
        Pairs the metric orders as the humans do (strictly).
    discordant : int
        Pairs it orders the other way, plus metric ties when ``ties="discordant"``.
    metric_ties : int
        Pairs the metric scores equally.
    """

    statistic: float
    concordant: int
    discordant: int
    metric_ties: int

    @property
    def n_pairs(self) -> int:
        """Pairs counted in the denominator."""
        return self.concordant + self.discordant

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "concordant": self.concordant,
            "discordant": self.discordant,
            "metric_ties": self.metric_ties,
        }


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise ValueError(f"ties must be 'discordant' or 'exclude'; got {ties!r}")


def tau_from_counts(concordant: np.ndarray, discordant: np.ndarray) -> np.ndarray:
    """``(C - D) / (C + D)``, NaN without pairs."""
    concordant = np.asarray(concordant, dtype=np.float64)
    discordant = np.asarray(discordant, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (concordant - discordant) / (concordant + discordant)


def kendall_like(better: Sequence[float], worse: Sequence[float], *, ties: str = "discordant") -> KendallLikeResult:
    """WMT's segment-level Kendall-like tau from relative-ranking pairs.

    Each pair is one human judgement "translation A is better than translation B"
    of the same source segment; ``better[i]`` and ``worse[i]`` are the metric's
    scores of A and B. A pair is concordant when the metric scores A higher,
    discordant when lower; a metric tie counts as discordant (``ties="discordant"``,
    WMT14–WMT20 and mt-metrics-eval's ``KendallLike``) or is left out
    (``ties="exclude"``). Human ties are not relative-ranking pairs and must
    not be passed.

    Parameters
    ----------
    better, worse : sequence of float
        Metric scores of the preferred and the dispreferred translation of each pair.
    ties : {"discordant", "exclude"}
        How metric ties count.

    Returns
    -------
    KendallLikeResult

    Raises
    ------
    InputError
        Different lengths, NaN or infinite scores (naming the pair).

    Examples
    --------
    >>> res = kendall_like([0.9, 0.5, 0.4, 0.7], [0.3, 0.6, 0.4, 0.2])
    >>> res.statistic, res.concordant, res.discordant, res.metric_ties
    (0.0, 2, 2, 1)
    >>> kendall_like([0.9, 0.5, 0.4, 0.7], [0.3, 0.6, 0.4, 0.2], ties="exclude").statistic
    0.3333333333333333
    """
    from nlpeval.correlation.coefficients import paired

    _check_ties(ties)
    b, w = paired(better, worse, minimum=0)
    concordant = int(np.count_nonzero(b > w))
    metric_ties = int(np.count_nonzero(b == w))
    discordant = int(np.count_nonzero(b < w)) + (metric_ties if ties == "discordant" else 0)
    statistic = float(tau_from_counts(np.array(concordant), np.array(discordant)))
    return KendallLikeResult(statistic, concordant, discordant, metric_ties)


def relative_ranking_pairs(human: Sequence[float], *, threshold: float = 25.0) -> tuple[np.ndarray, np.ndarray]:
    """Relative-ranking pairs from direct-assessment scores of translations of one source (WMT's daRR).

    Every two translations whose human scores differ by at least ``threshold``
    (WMT17–WMT20 used 25 points on the 0–100 DA scale) give a pair; NaN scores
    (not judged) give none.

    Returns
    -------
    (better, worse) : tuple of numpy.ndarray
        Indices into ``human`` of the preferred and dispreferred translation of each pair.

    Examples
    --------
    >>> relative_ranking_pairs([80.0, 50.0, 70.0, 20.0], threshold=25)
    (array([0, 0, 1, 2]), array([1, 3, 3, 3]))
    """
    scores = np.asarray(human, dtype=np.float64)
    if scores.ndim != 1:
        raise InputError(f"expected a 1-D sequence of scores; got shape {scores.shape}", side="human")
    if not threshold > 0:
        raise ValueError(f"threshold must be positive; got {threshold}")
    first, second = np.triu_indices(len(scores), 1)
    diff = scores[first] - scores[second]
    keep = np.abs(diff) >= threshold
    first, second, diff = first[keep], second[keep], diff[keep]
    return np.where(diff > 0, first, second), np.where(diff > 0, second, first)


def group_pair_counts(
    metric: np.ndarray,
    human: np.ndarray,
    offsets: np.ndarray,
    *,
    kind: str,
    threshold: float = 25.0,
    ties: str = "discordant",
) -> np.ndarray:
    """Per-group pair counts over all pairs of observations within each group.

    ``kind="kendall_like"``: columns concordant, discordant (over pairs whose human
    scores differ by at least ``threshold``); ``kind="accuracy"``: columns agreeing
    pairs (same sign of metric and human difference, ties included, as
    mt-metrics-eval's ``Agreement``) and all pairs.
    """
    n_groups = len(offsets) - 1
    out = np.zeros((n_groups, 2))
    sizes = np.diff(offsets)
    for size in np.unique(sizes):
        if size < 2:
            continue
        groups = np.flatnonzero(sizes == size)
        first, second = np.triu_indices(int(size), 1)
        per_block = max(1, _PAIR_BLOCK // len(first))
        for start in range(0, len(groups), per_block):
            chosen = groups[start : start + per_block]
            base = offsets[chosen][:, None]
            i, j = base + first[None, :], base + second[None, :]
            dh = human[i] - human[j]
            dm = metric[i] - metric[j]
            if kind == "accuracy":
                out[chosen, 0] = (np.sign(dh) == np.sign(dm)).sum(axis=1)
                out[chosen, 1] = len(first)
                continue
            judged = (np.abs(dh) >= threshold) & (dh != 0)
            agree = judged & (np.sign(dh) == np.sign(dm)) & (dm != 0)
            tie = judged & (dm == 0)
            out[chosen, 0] = agree.sum(axis=1)
            out[chosen, 1] = judged.sum(axis=1) - agree.sum(axis=1) - (0 if ties == "discordant" else tie.sum(axis=1))
    return out
