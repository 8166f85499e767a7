"""lm-evaluation-harness's standard errors and aggregations, reproduced exactly (and its two bugs, named).

lm-eval 0.4.13 (``lm_eval/api/metrics.py``) reports beside each metric:

* for metrics aggregated by the mean: the sample standard deviation over ``sqrt(n)``
  (:func:`mean_stderr`);
* for ``perplexity``, ``median``, ``nanmean``, F1, MCC, BLEU/chrF/TER: a bootstrap,
  ``bootstrap_iters`` resamples (100,000 by default; 100 for BLEU/chrF/TER) drawn in
  chunks of ``min(1000, iters)``, chunk ``i`` from ``random.Random(i).choices``; the
  standard error is the sample standard deviation of the resampled statistics
  (:func:`bootstrap_stderr`). Python's ``random.Random(i)`` is the Mersenne Twister
  seeded by ``init_by_array([i])``, the same stream as ``numpy.random.RandomState([i])``,
  and ``choices`` takes ``floor(random() * n)``: the draws are reproduced as whole
  NumPy arrays, not one Python call per draw;
* for a group of tasks: the pooled standard error (:func:`pooled_sample_stderr`).

Where lm-eval is wrong nlpeval computes the right value and says how lm-eval differs:
``median`` (lm-eval returns ``sorted(x)[n // 2]``, the upper middle element for an
even ``n``, PR #4079) and ``acc_all_stderr`` (grouped by question id alone instead of
(paragraph, question), PR #4079); :func:`lm_eval_median` keeps lm-eval's number for
comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from nlpeval.core.errors import InputError


def _values(values: Sequence[float] | np.ndarray, name: str = "values") -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise InputError(f"expected a 1-d sequence of numbers, got shape {array.shape}", side=name)
    return array


def sample_stddev(values: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (``n - 1``), two-pass as lm-eval.

    Examples
    --------
    >>> sample_stddev([1.0, 0.0, 1.0, 1.0])
    0.5
    """
    x = _values(values)
    if len(x) < 2:
        raise InputError(f"a sample standard deviation needs at least 2 values; got {len(x)}")
    mu = x.sum() / len(x)
    return math.sqrt(float(((x - mu) ** 2).sum()) / (len(x) - 1))


def mean_stderr(values: Sequence[float] | np.ndarray) -> float:
    """lm-eval's ``mean_stderr``: sample standard deviation over ``sqrt(n)``.

    Examples
    --------
    >>> mean_stderr([1.0, 0.0, 1.0, 1.0])
    0.25
    """
    return sample_stddev(values) / math.sqrt(len(values))


def _chunk_indices(chunk_index: int, chunk: int, n: int) -> np.ndarray:
    """The ``(chunk, n)`` indices of lm-eval's chunk ``chunk_index`` (``random.Random(i).choices``)."""
    uniform = np.random.RandomState([chunk_index]).random_sample(chunk * n)
    return np.floor(uniform * float(n)).astype(np.int64).reshape(chunk, n)


def resample_indices(n: int, iters: int) -> np.ndarray:
    """All ``(iters // chunk * chunk, n)`` indices lm-eval's bootstrap draws (chunk = ``min(1000, iters)``).

    Examples
    --------
    >>> import random
    >>> resample_indices(5, 3)[0].tolist() == random.Random(0).choices(range(5), k=5)
    True
    """
    chunk = min(1000, iters)
    return np.concatenate([_chunk_indices(i, chunk, n) for i in range(iters // chunk)])


def bootstrap_replicates(
    statistic: Callable[[np.ndarray], np.ndarray], values: Sequence[float] | np.ndarray, iters: int
) -> np.ndarray:
    """The statistic of each of lm-eval's resamples; ``statistic`` maps a ``(k, n)`` array to ``k`` values
    (resamples are drawn a chunk of at most 1,000 at a time)."""
    x = _values(values)
    if iters < 1:
        raise InputError(f"bootstrap_iters must be positive; got {iters}")
    chunk = min(1000, iters)
    return np.concatenate(
        [np.asarray(statistic(x[_chunk_indices(i, chunk, len(x))]), dtype=np.float64) for i in range(iters // chunk)]
    )


def _rowwise_mean(samples: np.ndarray) -> np.ndarray:
    return samples.sum(axis=1) / samples.shape[1]


STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "mean": _rowwise_mean,
    # lm-eval's ``perplexity`` aggregation: exp(-mean(loglikelihoods))
    "perplexity": lambda s: np.exp(-_rowwise_mean(s)),
    # lm-eval's (wrong) median: the element at n // 2 of the sorted sample
    "lm_eval_median": lambda s: np.sort(s, axis=1)[:, s.shape[1] // 2],
    "median": lambda s: np.median(s, axis=1),
}


def bootstrap_stderr(
    statistic: str | Callable[[np.ndarray], np.ndarray], values: Sequence[float] | np.ndarray, iters: int = 100_000
) -> float:
    """lm-eval's ``bootstrap_stderr(f, xs, iters)``, same seeds, same draws.

    Parameters
    ----------
    statistic : str or callable
        ``"perplexity"``, ``"mean"``, ``"median"``, ``"lm_eval_median"`` or a function of a
        ``(k, n)`` array of resamples returning ``k`` values.
    values : sequence of float
        The per-document values lm-eval aggregates.
    iters : int
        lm-eval's ``bootstrap_iters`` (100,000 by default).

    Examples
    --------
    >>> round(bootstrap_stderr("perplexity", [-1.0, -2.0, -0.5, -3.0], iters=2000), 6)
    2.987403
    """
    function = STATISTICS[statistic] if isinstance(statistic, str) else statistic
    return sample_stddev(bootstrap_replicates(function, values, iters))


def pooled_sample_stderr(stderrs: Sequence[float], sizes: Sequence[int]) -> float:
    """lm-eval's pooled standard error of a group of subtasks weighted by size.

    Examples
    --------
    >>> round(pooled_sample_stderr([0.05, 0.02], [100, 400]), 8)
    0.01886221
    """
    if len(stderrs) != len(sizes):
        raise InputError(f"{len(stderrs)} standard errors but {len(sizes)} sizes")
    if sum(sizes) - len(sizes) <= 0:
        raise InputError("pooling needs more documents than subtasks")
    pooled = sum((size - 1) * se**2 * size for size, se in zip(sizes, stderrs, strict=True)) / (sum(sizes) - len(sizes))
    return float(np.sqrt(pooled / sum(sizes)))


def median(values: Sequence[float]) -> float:
    """The median (mean of the two middle values for an even count), unlike lm-eval's ``median``.

    Examples
    --------
    >>> median([1.0, 2.0, 3.0, 10.0]), lm_eval_median([1.0, 2.0, 3.0, 10.0])
    (2.5, 3.0)
    """
    return float(np.median(_values(values)))


def lm_eval_median(values: Sequence[float]) -> float:
    """lm-eval 0.4.13's ``median`` aggregation: ``sorted(x)[len(x) // 2]`` (the upper middle
    value for an even count; PR #3696 fixed the unsorted pick, PR #4079 the even case)."""
    return float(sorted(_values(values).tolist())[len(values) // 2])


def acc_all(
    predictions: Sequence[bool], labels: Sequence[bool], paragraph_ids: Sequence, question_ids: Sequence
) -> tuple[float, float]:
    """MultiRC-style ``acc_all`` and its standard error, both grouped by (paragraph, question).

    A question counts as correct when all its answer options are labelled correctly.
    lm-eval's ``acc_all`` groups by (paragraph, question) but its ``acc_all_stderr`` by the
    question id alone, merging the questions of different paragraphs that share an id
    (PR #4079); nlpeval groups both by (paragraph, question).

    Examples
    --------
    >>> acc, se = acc_all([1, 1, 0, 1], [1, 1, 1, 1], ["p0", "p0", "p1", "p1"], [0, 0, 0, 0])
    >>> acc, round(se, 4)
    (0.5, 0.5)
    """
    n = len(predictions)
    if not (len(labels) == len(paragraph_ids) == len(question_ids) == n):
        raise InputError("predictions, labels, paragraph_ids and question_ids differ in length")
    groups: dict[tuple, bool] = {}
    for pred, label, paragraph, question in zip(predictions, labels, paragraph_ids, question_ids, strict=False):
        key = (paragraph, question)
        groups[key] = groups.get(key, True) and (bool(label) == bool(pred))
    correct = np.array([float(v) for v in groups.values()])
    return float(correct.mean()), mean_stderr(correct) if len(correct) > 1 else float("nan")


__all__ = [
    "acc_all",
    "bootstrap_replicates",
    "bootstrap_stderr",
    "lm_eval_median",
    "mean_stderr",
    "median",
    "pooled_sample_stderr",
    "resample_indices",
    "sample_stddev",
]
