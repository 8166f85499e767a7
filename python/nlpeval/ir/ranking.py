"""Where the judged documents land in each ranking, with trec_eval's order and tie-breaking.

trec_eval (``form_res_rels.c``) sorts a query's results by score, descending, and breaks ties by
document id, *descending* (``strcmp(p2->docno, p1->docno)``); the rank field of a run file is
ignored. Every measure computed here depends on a ranking only through the ranks of the
documents that are judged with a positive relevance, so only those are placed: a document's rank
is the number of documents with a higher score plus the number with the same score and a
greater id. The full ranking is never sorted, and scores are compared only with the judged
documents' scores (one sort of each query's scores, then binary searches).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.ir.inputs import Qrels, checked_run

#: rank of an empty slot of the padded matrices (greater than any cutoff)
PAD_RANK = np.iinfo(np.int64).max // 4


@dataclass(frozen=True)
class Placed:
    """The evaluated queries, each with its positively judged retrieved documents (padded rows).

    Attributes
    ----------
    queries : list of str
        Evaluated query ids, sorted (trec_eval's order).
    ranks : numpy.ndarray
        ``(n_queries, width)`` 0-based ranks of retrieved documents judged ``>= 1``, ascending
        per row; empty slots hold :data:`PAD_RANK`.
    rels : numpy.ndarray
        ``(n_queries, width)`` their relevance values (0 in empty slots).
    num_ret : numpy.ndarray
        Documents retrieved per query (after ``judged_only`` filtering).
    levels : numpy.ndarray
        ``(n_queries, depth)`` relevance values ``>= 1`` of all judged documents, descending
        (the ideal ranking), padded with 0.
    """

    queries: list[str]
    ranks: np.ndarray
    rels: np.ndarray
    num_ret: np.ndarray
    levels: np.ndarray

    def num_rel(self, relevance_level: int) -> np.ndarray:
        """Relevant documents per query: judged ``>= relevance_level``."""
        return np.count_nonzero(self.levels >= relevance_level, axis=1)


class Judged:
    """Judgements indexed once for any number of runs: per query, the documents judged at least
    ``lowest`` (1, or 0 for ``judged_only``) with their levels, and the ideal order of levels ``>= 1``.

    Examples
    --------
    >>> judged = Judged({"q": {"a": 1, "b": 2, "c": 0, "d": -1}})
    >>> judged.docs["q"], judged.rels["q"].tolist(), judged.ideal["q"]
    (['a', 'b'], [1, 2], [2, 1])
    """

    def __init__(self, qrels: Qrels, lowest: int = 1) -> None:
        self.qrels = qrels
        self.lowest = lowest
        self.docs: dict[str, list[str]] = {}
        self.rels: dict[str, np.ndarray] = {}
        self.ideal: dict[str, list[int]] = {}
        for query, judged in qrels.items():
            rels = np.fromiter(judged.values(), dtype=np.int64, count=len(judged))
            keep = rels >= lowest
            self.docs[query] = list(compress(judged, keep.tolist()))
            self.rels[query] = rels[keep]
            self.ideal[query] = np.sort(rels[rels >= 1])[::-1].tolist()


def place(
    qrels: Qrels | Judged,
    run: Any,
    *,
    complete: bool = False,
    judged_only: bool = False,
    float32_scores: bool = True,
) -> Placed:
    """Place the judged documents of every evaluated query.

    ``run`` is a checked run (:func:`~nlpeval.ir.inputs.checked_run`) or a plain
    ``{query: {doc: score}}``. Evaluated queries are those with judgements and a ranking
    (trec_eval 9.0.8 and pytrec_eval: a ranked query without judgements is skipped); with
    ``complete`` (trec_eval ``-c``), every judged query, an unranked one scoring 0 on every measure.
    ``float32_scores``: compare scores rounded to single precision, as trec_eval 9.0.8 (and so
    pytrec_eval 0.5.11) stores them (``float sim``); trec_eval 10.0 keeps doubles.

    Examples
    --------
    >>> placed = place({"q": {"a": 1, "b": 2, "c": 0}}, {"q": {"a": 0.5, "b": 0.5, "c": 0.9, "x": 1.0}})
    >>> placed.ranks.tolist(), placed.rels.tolist(), placed.num_ret.tolist(), placed.levels.tolist()
    ([[2, 3]], [[2, 1]], [4], [[2, 1]])
    """
    lowest = 0 if judged_only else 1
    judged = qrels if isinstance(qrels, Judged) and qrels.lowest == lowest else None
    if judged is None:
        judged = Judged(qrels.qrels if isinstance(qrels, Judged) else qrels, lowest)
    checked = checked_run(run)
    queries = sorted(judged.qrels) if complete else sorted(q for q in checked if q in judged.qrels)
    empty: tuple[dict[str, Any], np.ndarray] = ({}, np.zeros(0))
    found_scores: list[np.ndarray] = []
    found_index: list[np.ndarray] = []
    pools: list[np.ndarray] = []
    for query in queries:
        ranked, scores = checked.get(query, empty)
        docs = judged.docs[query]
        looked_up = np.fromiter(map(ranked.get, docs, repeat(np.nan, len(docs))), dtype=np.float64, count=len(docs))
        index = np.flatnonzero(~np.isnan(looked_up))
        found_scores.append(looked_up[index])
        found_index.append(index)
        pools.append(scores)
    per_query = np.fromiter(map(len, found_index), dtype=np.int64, count=len(queries))
    rows = np.repeat(np.arange(len(queries), dtype=np.int64), per_query)
    values = np.concatenate(found_scores) if queries else np.zeros(0)
    rels = np.concatenate(
        [judged.rels[q][i] for q, i in zip(queries, found_index, strict=True)] or [np.zeros(0, np.int64)]
    )
    if float32_scores:
        with np.errstate(over="ignore"):
            values = values.astype(np.float32)
            pools = [pool.astype(np.float32) for pool in pools]
    if judged_only:  # trec_eval -J: only the judged documents stay, ranked among themselves
        pools = np.split(values, np.cumsum(per_query)[:-1]) if len(queries) else []
    lengths = np.fromiter(map(len, pools), dtype=np.int64, count=len(pools))
    first, after, orders = _bounds(pools, per_query, values)
    ranks = lengths[rows] - after  # documents scored higher
    tied = np.flatnonzero(after - first > 1)
    if len(tied):
        starts = np.concatenate(([0], np.cumsum(per_query)))

        def hit_docs(row: int) -> list[str]:
            docs = judged.docs[queries[row]]
            return [docs[i] for i in found_index[row].tolist()]

        def pool_docs(row: int) -> list[str]:
            return hit_docs(row) if judged_only else list(checked[queries[row]][0])

        _break_ties(ranks, tied, rows, first, after, orders, hit_docs, pool_docs, starts)
    keep = rels >= 1
    rows, ranks, rels = rows[keep], ranks[keep], rels[keep]
    order = np.lexsort((ranks, rows))
    return Placed(
        queries=queries,
        ranks=_scatter(rows[order], ranks[order], len(queries), PAD_RANK),
        rels=_scatter(rows[order], rels[order], len(queries), 0),
        num_ret=lengths,
        levels=_padded([judged.ideal[q] for q in queries], 0),
    )


def _bounds(
    pools: list[np.ndarray], per_query: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
    """For each hit (grouped by query), ``searchsorted(sorted(its query's scores), score)``, left and right,
    and for each query where a hit ties with another document the order that sorts its scores."""
    first = np.zeros(len(values), dtype=np.int64)
    after = np.zeros(len(values), dtype=np.int64)
    orders: dict[int, np.ndarray] = {}
    start = 0
    for row, (pool, count) in enumerate(zip(pools, per_query.tolist(), strict=True)):
        if count:
            ordered = np.sort(pool)
            mine = values[start : start + count]
            left = ordered.searchsorted(mine, side="left")
            right = ordered.searchsorted(mine, side="right")
            first[start : start + count] = left
            after[start : start + count] = right
            if (right - left > 1).any():
                orders[row] = np.argsort(pool)
            start += count
    return first, after, orders


def _break_ties(
    ranks: np.ndarray,
    tied: np.ndarray,
    rows: np.ndarray,
    first: np.ndarray,
    after: np.ndarray,
    orders: dict[int, np.ndarray],
    hit_docs: Callable[[int], list[str]],
    pool_docs: Callable[[int], list[str]],
    starts: np.ndarray,
) -> None:
    """Add to the rank of each tied hit the documents with its score and a greater id (trec_eval's order).

    The documents with a hit's score are those between its left and right insertion points in the
    query's sorted scores (``orders`` maps those positions back to the documents)."""
    tied_rows = rows[tied]
    extra: list[int] = []
    for here in np.split(tied, np.flatnonzero(np.diff(tied_rows)) + 1):
        row = int(rows[here[0]])
        order = orders[row].tolist()
        names = pool_docs(row)
        docs = hit_docs(row)
        start = int(starts[row])
        try:
            for hit, lo, hi in zip(here.tolist(), first[here].tolist(), after[here].tolist(), strict=True):
                doc = docs[hit - start]
                extra.append(sum([names[i] > doc for i in order[lo:hi]]))
        except TypeError:
            raise InputError("run: document ids are str; a tie compared a str with another type") from None
    ranks[tied] += np.array(extra, dtype=np.int64)


def _scatter(rows: np.ndarray, values: np.ndarray, n_rows: int, fill: int) -> np.ndarray:
    """Values grouped by (sorted) row into a padded ``(n_rows, max_count)`` matrix."""
    counts = np.bincount(rows, minlength=n_rows)
    width = int(counts.max(initial=0)) or 1
    out = np.full((n_rows, width), fill, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out[rows, np.arange(len(rows)) - starts[rows]] = values
    return out


def _padded(rows: list[list[int]], fill: int) -> np.ndarray:
    """Rows of different lengths as one ``(n, max_len)`` int64 matrix (at least one column)."""
    width = max([len(row) for row in rows], default=0) or 1
    out = np.full((len(rows), width), fill, dtype=np.int64)
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if lengths.any():
        mask = np.arange(width) < lengths[:, None]
        out[mask] = np.fromiter((value for row in rows for value in row), dtype=np.int64, count=int(lengths.sum()))
    return out
