"""Per-query values of each measure, vectorised over queries, in trec_eval 9.0.8's definitions.

Each function takes the :class:`~nlpeval.ir.ranking.Placed` matrices (ranks and relevance
of the retrieved documents judged ``>= 1``, ascending by rank) and returns one float per query.
Sums run in rank order (``cumsum`` along a row, not a pairwise sum) as trec_eval's loops add them,
and each term is formed as trec_eval forms it (``rel_so_far / (i + 1)``, ``gain / log2(i + 2)``),
so the values agree with trec_eval to the last bit or within a unit in the last place of ``log2``.

Definitions (R = number of judged documents with relevance ``>= relevance_level``, ``rank`` 1-based):

* ``P_k``: relevant in the top k / k (k even when fewer were retrieved);
* ``recall_k``: relevant in the top k / R (0 when R = 0);
* ``Rprec``: relevant in the top R / R;
* ``recip_rank``: 1 / rank of the first relevant document (0 if none); ``recip_rank_cut_k`` counts
  only the top k (not in trec_eval; ranx's ``mrr@k``);
* ``map``: sum over relevant retrieved documents of (relevant so far / rank), / R; ``map_cut_k`` the
  same over the top k, still / R (trec_eval's ``map_cut``; ranx's ``map@k``);
* ``ndcg``: DCG / ideal DCG, gain = relevance level (all judged levels ``>= 1`` whatever
  ``relevance_level``), discount log2(rank + 1); the ideal ranks every judged document, so it
  may be longer than the run. ``ndcg_cut_k``: both truncated at k. ``ndcg_exp``: gain
  ``2**rel - 1`` (Burges et al. 2005; trec_eval's ``ndcg`` with gains ``1=1,2=3,3=7,...``);
* ``success_k``: 1 if a relevant document is in the top k, else 0.
"""

from __future__ import annotations

import numpy as np

from nlpeval.ir.measures import Measure
from nlpeval.ir.ranking import Placed


def _last(cumulative: np.ndarray) -> np.ndarray:
    return cumulative[:, -1] if cumulative.shape[1] else np.zeros(cumulative.shape[0])


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 where the denominator is 0 (trec_eval leaves such values at 0)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


class Evaluation:
    """The quantities several measures share, computed once per (placement, relevance level)."""

    def __init__(self, placed: Placed, relevance_level: int) -> None:
        self.placed = placed
        self.relevant = placed.rels >= relevance_level
        self.num_rel = placed.num_rel(relevance_level)
        # relevant documents seen so far, at each relevant hit (trec_eval's rel_so_far)
        self.rel_so_far = np.cumsum(self.relevant, axis=1)
        self._gains: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def relevant_in_top(self, k: np.ndarray | int) -> np.ndarray:
        within = self.placed.ranks < np.asarray(k)[..., None] if np.ndim(k) else self.placed.ranks < k
        return np.count_nonzero(self.relevant & within, axis=1)

    def value(self, measure: Measure) -> np.ndarray:
        """The per-query values of ``measure``."""
        kind, k = measure.kind, measure.k
        if kind in ("P", "recall", "success"):
            assert k is not None  # Measure.parse requires their cutoff
            top = self.relevant_in_top(k)
            if kind == "P":
                return top / np.float64(k)
            if kind == "recall":
                return _ratio(top, self.num_rel)
            return (top > 0).astype(np.float64)
        if kind == "Rprec":
            return _ratio(self.relevant_in_top(self.num_rel), self.num_rel)
        if kind == "recip_rank":
            return self._reciprocal_rank(k)
        if kind == "map":
            return self._average_precision(k)
        return self._ndcg(k, exponential=kind == "ndcg_exp")

    def _reciprocal_rank(self, k: int | None) -> np.ndarray:
        ranks = np.where(self.relevant, self.placed.ranks, np.iinfo(np.int64).max)
        first = ranks.min(axis=1, initial=np.iinfo(np.int64).max)
        found = first < (np.iinfo(np.int64).max if k is None else k)
        out = np.zeros(len(first), dtype=np.float64)
        out[found] = 1.0 / (first[found] + 1.0)
        return out

    def _average_precision(self, k: int | None) -> np.ndarray:
        ranks = self.placed.ranks
        counted = self.relevant if k is None else self.relevant & (ranks < k)
        terms = np.zeros(ranks.shape, dtype=np.float64)
        np.divide(self.rel_so_far, ranks + 1.0, out=terms, where=counted)
        return _ratio(_last(np.cumsum(terms, axis=1)), self.num_rel)

    def _discounted(self, exponential: bool) -> tuple[np.ndarray, np.ndarray]:
        """Per-hit and per-ideal-position terms ``gain / log2(rank + 2)`` (zeros where no gain)."""
        key = "exp" if exponential else "linear"
        if key not in self._gains:
            placed = self.placed
            hit_gain = _gain(placed.rels, exponential)
            hit_terms = np.zeros(hit_gain.shape, dtype=np.float64)
            np.divide(hit_gain, np.log2(placed.ranks + 2.0), out=hit_terms, where=hit_gain > 0)
            ideal_gain = _gain(placed.levels, exponential)
            positions = np.log2(np.arange(placed.levels.shape[1], dtype=np.float64) + 2.0)
            ideal_terms = np.zeros(ideal_gain.shape, dtype=np.float64)
            np.divide(ideal_gain, positions, out=ideal_terms, where=ideal_gain > 0)
            self._gains[key] = (hit_terms, ideal_terms)
        return self._gains[key]

    def _ndcg(self, k: int | None, *, exponential: bool) -> np.ndarray:
        hit_terms, ideal_terms = self._discounted(exponential)
        if k is not None:
            hit_terms = np.where(self.placed.ranks < k, hit_terms, 0.0)
            ideal_terms = ideal_terms[:, :k]
        dcg = _last(np.cumsum(hit_terms, axis=1))
        ideal = _last(np.cumsum(ideal_terms, axis=1))
        return _ratio(dcg, ideal)


def _gain(levels: np.ndarray, exponential: bool) -> np.ndarray:
    """Gain of each relevance level (0 for levels below 1)."""
    positive = levels > 0
    if exponential:
        return np.where(positive, np.ldexp(1.0, np.where(positive, levels, 0)) - 1.0, 0.0)
    return np.where(positive, levels.astype(np.float64), 0.0)


def evaluate(placed: Placed, measures: list[Measure], relevance_level: int = 1) -> dict[str, np.ndarray]:
    """Per-query values of every measure, by canonical name.

    Examples
    --------
    >>> from nlpeval.ir.ranking import place
    >>> placed = place({"q": {"a": 1, "b": 2}}, {"q": {"x": 3.0, "a": 2.0, "b": 1.0}})
    >>> values = evaluate(placed, [Measure.parse("map"), Measure.parse("P@2")])
    >>> [round(float(values[name][0]), 4) for name in ("map", "P_2")]
    [0.5833, 0.5]
    """
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise TypeError(f"relevance_level must be an int; got {relevance_level!r}")
    native = _native_values(placed, measures, int(relevance_level))
    if native is not None:
        return native
    evaluation = Evaluation(placed, int(relevance_level))
    return {measure.name: evaluation.value(measure) for measure in measures}


def _native_values(placed: Placed, measures: list[Measure], relevance_level: int) -> dict[str, np.ndarray] | None:
    """Every measure by the core's kernel (``src/retrieval/measures.rs``: the same terms and sums, queries in
    parallel), or ``None`` without it. Its ``log2`` is the C library's, as trec_eval's; NumPy's differs from it
    by a unit in the last place at a few ranks (1619, 3240, ...), so the two paths agree to ~1e-16."""
    from nlpeval import _native

    if _native.trec_measures is None:
        return None
    values = _native.trec_measures(
        np.ascontiguousarray(placed.ranks, dtype=np.int64),
        np.ascontiguousarray(placed.rels, dtype=np.int64),
        np.ascontiguousarray(placed.levels, dtype=np.int64),
        [(measure.kind, measure.k) for measure in measures],
        min(relevance_level, 2**62),  # a level above every i64 level: nothing is relevant either way
    )
    return {measure.name: np.ascontiguousarray(values[:, i]) for i, measure in enumerate(measures)}
