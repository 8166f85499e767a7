"""Perplexity from per-token log-probabilities: stats -> merge -> score.

Each sequence contributes one row of sufficient statistics (negative
log-likelihood in nats, token count, its log token-perplexity, 1). Rows merge
by summing, so corpus perplexity, the seed's mean perplexity, streaming,
parallel reduction and bootstrap intervals all come from the same rows, and
everything stays in log space until the final ``exp`` (no overflow on the way:
a huge perplexity is ``inf``, never an exception).

* token (per-sequence) perplexity: ``exp(-sum(log p) / n_tokens)``;
* corpus perplexity (the score): ``exp(total NLL / total tokens)``;
* mean perplexity: the geometric mean of the per-sequence token perplexities,
  ``exp(mean(log ppl_i))`` (every sequence weighs the same, whatever its length).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval.core.accumulator import Accumulator
from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema

if TYPE_CHECKING:
    from typing_extensions import Self

    from nlpeval.core.score import Score

_SCHEMA = StatsSchema.of("nll", "tokens", "log_ppl", "sequences")


def _base_name(base: float) -> str:
    if base == math.e:
        return "e"
    return f"{base:g}"


def _as_sequences(logprobs: Any) -> list[np.ndarray]:
    """A list of 1-d float arrays, one per sequence (a 2-d array is one sequence per row)."""
    if isinstance(logprobs, (str, bytes)):
        raise InputError("got a str; expected one sequence of log-probabilities per segment", side="logprobs")
    if hasattr(logprobs, "detach"):
        logprobs = logprobs.detach().cpu().numpy()
    if isinstance(logprobs, np.ndarray):
        if logprobs.ndim == 1 and logprobs.dtype != object:
            raise InputError(
                "got one 1-d array; pass a list of sequences (e.g. [logprobs]) for a single sequence",
                side="logprobs",
            )
        if logprobs.ndim == 2:
            return [row.astype(np.float64) for row in logprobs]
    try:
        items = list(logprobs)
    except TypeError:
        raise InputError(f"got {type(logprobs).__name__}; expected a list of sequences", side="logprobs") from None
    out = []
    for index, item in enumerate(items):
        if hasattr(item, "detach"):
            item = item.detach().cpu().numpy()
        if isinstance(item, (str, bytes)) or np.ndim(item) != 1:
            raise InputError(
                "is not a 1-d sequence of log-probabilities (a list of lists is expected)",
                segment=index,
                side="logprobs",
            )
        arr = np.asarray(item)
        if arr.dtype.kind not in "biuf":
            raise InputError(f"has dtype {arr.dtype}; expected numbers", segment=index, side="logprobs")
        out.append(arr.astype(np.float64, copy=False))
    return out


@dataclass(frozen=True)
class Perplexity(CorpusMetric):
    """Perplexity of per-token log-probabilities, as a :class:`~nlpeval.CorpusMetric`.

    Parameters
    ----------
    base : float
        Base of the input logarithms (``math.e``, 2 or 10); perplexities are
        the same whatever the base.

    Examples
    --------
    >>> metric = Perplexity(base=2)
    >>> metric([[-1.0, -1.0], [-2.0]], segments=True).segments.tolist()
    [2.0, 4.0]
    """

    base: float = math.e
    name: ClassVar[str] = "perplexity"

    def __post_init__(self) -> None:
        if not (isinstance(self.base, (int, float)) and self.base > 0 and self.base != 1 and math.isfinite(self.base)):
            raise ValueError(f"base must be a positive finite number other than 1; got {self.base!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    @property
    def _nats(self) -> float:
        return 1.0 if self.base == math.e else math.log(self.base)

    def segment_stats(self, hypotheses: Any, references: Any = None) -> Stats:
        """One row per sequence: (NLL in nats, tokens, log token-perplexity, 1).

        ``hypotheses`` is the list of per-token log-probability sequences;
        ``references`` is unused (perplexity has none).
        """
        sequences = _as_sequences(hypotheses)
        lengths = np.fromiter((s.shape[0] for s in sequences), dtype=np.int64, count=len(sequences))
        empty = np.flatnonzero(lengths == 0)
        if empty.size:
            raise InputError(
                "has no log-probabilities: the perplexity of an empty sequence is undefined",
                segment=int(empty[0]),
                side="logprobs",
            )
        flat = np.concatenate(sequences) if sequences else np.empty(0)
        bad = np.isnan(flat) | (flat > 0) | np.isposinf(flat)
        if bad.any():
            position = int(np.flatnonzero(bad)[0])
            segment = int(np.searchsorted(np.cumsum(lengths), position, side="right"))
            value = flat[position]
            what = "NaN" if np.isnan(value) else f"{float(value)!r} > 0 (a probability above 1)"
            raise InputError(f"contains {what}; expected log-probabilities <= 0", segment=segment, side="logprobs")
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if sequences else np.empty(0, dtype=np.int64)
        nll = -np.add.reduceat(flat, starts) * self._nats if sequences else np.empty(0)
        rows = np.empty((len(sequences), 4), dtype=np.float64)
        rows[:, 0] = nll
        rows[:, 1] = lengths
        rows[:, 2] = nll / lengths
        rows[:, 3] = 1.0
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return np.exp(totals[..., 0] / totals[..., 1])

    def segment_values(self, stats: Stats) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(stats.rows[:, 2])

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        nll, tokens, log_ppl, sequences = (float(v) for v in totals)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            mean_ppl = float(np.exp(np.float64(log_ppl) / sequences))
        return {
            "mean_perplexity": mean_ppl,
            "cross_entropy": nll / tokens / self._nats if tokens else math.nan,
            "nll": nll,
            "tokens": int(tokens),
            "sequences": int(sequences),
        }

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(metric="perplexity", base=_base_name(self.base))

    def __call__(self, hypotheses: Any, references: Any = None, *, segments: bool = False) -> Score:
        return self.score_from_stats(self.segment_stats(hypotheses), segments=segments)

    def accumulator(self, *, keep_segments: bool = False) -> PerplexityAccumulator:
        """A streaming accumulator of the perplexity sums."""
        return PerplexityAccumulator(self, keep_segments=keep_segments)


class PerplexityAccumulator(Accumulator):
    """Running perplexity sums: ``update(logprobs)`` / ``merge`` / ``compute`` / ``reset``.

    Examples
    --------
    >>> acc = Perplexity().accumulator()
    >>> acc.update([[-1.0, -2.0]]).update([[-0.5]])
    Accumulator(perplexity, 2 segments)
    >>> acc.compute().score == perplexity([[-1.0, -2.0], [-0.5]]).score
    True
    """

    def update(self, logprobs: Sequence[Any], references: Any = None) -> Self:
        """Add a batch of sequences of per-token log-probabilities."""
        stats = self.metric.segment_stats(logprobs, [])  # perplexity reads no references
        self._add(stats.rows, stats.totals())
        return self


def perplexity(logprobs: Any, *, base: float = math.e, segments: bool = False) -> Score:
    """Corpus perplexity of per-token log-probabilities (one sequence per item).

    Parameters
    ----------
    logprobs : list of array-like
        One 1-d sequence of per-token log-probabilities per text (lists, NumPy
        arrays or tensors; a 2-d array is one sequence per row). Values must be
        <= 0; ``-inf`` (probability 0) gives an infinite perplexity.
    base : float
        Base of the logarithms: ``math.e`` (default), 2 or 10.
    segments : bool
        Also return each sequence's token perplexity in ``.segments``.

    Returns
    -------
    Score
        ``.score`` = corpus perplexity exp(total NLL / total tokens);
        ``.components["mean_perplexity"]`` = geometric mean of the per-sequence
        perplexities; also ``cross_entropy`` (in the input's base), ``nll`` (nats),
        ``tokens`` and ``sequences``.

    Examples
    --------
    >>> import math
    >>> s = perplexity([[math.log(0.5), math.log(0.25)], [math.log(0.5)]], segments=True)
    >>> round(s.score, 6), round(s.components["mean_perplexity"], 6), [round(v, 6) for v in s.segments.tolist()]
    (2.519842, 2.378414, [2.828427, 2.0])
    >>> perplexity([[-1.0, -3.0]], base=2).score
    4.0
    """
    return Perplexity(base=base)(logprobs, segments=segments)
