"""Where the judged documents land in each ranking, with trec_eval's order and tie-breaking.

trec_eval (``form_res_rels.c``) sorts a query's results by score, descending, and breaks ties by
document id, *descending* (``strcmp(p2->docno, p1->docno)``); the rank field of a run file is
ignored. Every measure computed here depends on a ranking only through the ranks of the
documents that are judged with a positive relevance, so only those are placed: a document's rank
is the number of documents with a higher score plus the number with the same score and a
greater id. Nothing loops over queries in Python past reading the mappings: the runs' scores go
into one ``(queries x longest ranking)`` matrix (NaN-padded) sorted along its rows in one call,
each judged document's position in its row comes from a vectorised binary search, and the ids of
tied documents are compared as NumPy strings (code-point order, the order of their UTF-8 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import itemgetter
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

    The levels are flat arrays (``rels``, ``ideal``) cut by ``starts``/``counts`` (kept documents) and
    ``ideal_starts``/``ideal_counts``, one slot per query of ``queries`` (the mapping's order).

    Examples
    --------
    >>> judged = Judged({"q": {"a": 1, "b": 2, "c": 0, "d": -1}})
    >>> judged.docs["q"], judged.rels.tolist(), judged.ideal.tolist()
    (['a', 'b'], [1, 2], [2, 1])
    """

    def __init__(self, qrels: Qrels, lowest: int = 1) -> None:
        self.qrels = qrels
        self.lowest = lowest
        self.queries = list(qrels)
        self.index = {query: row for row, query in enumerate(self.queries)}
        sizes = np.fromiter(map(len, qrels.values()), dtype=np.int64, count=len(qrels))
        total = int(sizes.sum())
        docs = list(chain.from_iterable(qrels.values()))
        levels = np.fromiter(chain.from_iterable(map(dict.values, qrels.values())), dtype=np.int64, count=total)
        owner = np.repeat(np.arange(len(qrels), dtype=np.int64), sizes)
        keep = levels >= lowest
        kept = list(compress(docs, keep.tolist()))
        self.kept_docs = kept  # flat, cut by starts/counts like rels
        self.rels = levels[keep]
        self.counts = np.bincount(owner[keep], minlength=len(qrels))
        self.starts = np.concatenate(([0], np.cumsum(self.counts)[:-1])).astype(np.int64)
        bounds = np.concatenate((self.starts, [len(kept)])).tolist()
        self.docs = {query: kept[bounds[row] : bounds[row + 1]] for row, query in enumerate(self.queries)}
        positive = levels >= 1
        order = np.lexsort((-levels[positive], owner[positive]))
        self.ideal = levels[positive][order]
        self.ideal_counts = np.bincount(owner[positive], minlength=len(qrels))
        self.ideal_starts = np.concatenate(([0], np.cumsum(self.ideal_counts)[:-1])).astype(np.int64)


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
    n = len(queries)
    slots = np.fromiter(map(judged.index.__getitem__, queries), dtype=np.int64, count=n)
    empty: tuple[dict[str, Any], np.ndarray] = ({}, np.zeros(0))
    entries = [checked.get(query, empty) for query in queries]
    rankeds = [ranked for ranked, _ in entries]
    # the judged documents of each query, looked up in its ranking (NaN: not retrieved)
    counts = judged.counts[slots]
    looked_up = np.fromiter(
        chain.from_iterable(
            map(ranked.get, judged.docs[query], repeat(np.nan)) for ranked, query in zip(rankeds, queries, strict=True)
        ),
        dtype=np.float64,
        count=int(counts.sum()),
    )
    where = _gather(judged.starts[slots], counts)  # positions in judged.rels of the looked-up documents
    found = np.flatnonzero(~np.isnan(looked_up))
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)[found]
    values = looked_up[found]
    rels = judged.rels[where[found]]
    if judged_only:  # trec_eval -J: only the judged documents stay, ranked among themselves
        pool = values
        lengths = np.bincount(rows, minlength=n)
    else:
        lengths = np.fromiter((len(scores) for _, scores in entries), dtype=np.int64, count=n)
        pool = np.concatenate([scores for _, scores in entries]) if n else np.zeros(0)
    if float32_scores:
        with np.errstate(over="ignore"):
            values = values.astype(np.float32)
            pool = pool.astype(np.float32)
    matrix = _padded_scores(pool, lengths)
    ordered = np.sort(matrix, axis=1)
    after = _count_below(ordered, rows, values, strict=False)
    ranks = lengths[rows] - after  # documents scored higher
    shared = after >= 2
    shared[shared] = ordered[rows[shared], after[shared] - 2] == values[shared]
    tied = np.flatnonzero(shared)
    if len(tied):

        def pool_ids(row_list: list[int]) -> tuple[list[Any], np.ndarray]:
            """The documents of these rows' pools, flat in pool order, and where each row starts."""
            row_starts = np.concatenate(([0], np.cumsum(lengths[row_list])[:-1])).astype(np.int64)
            if judged_only:  # a row's pool is its hits, in hit order
                hit_starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
                return hit_ids(_gather(hit_starts[row_list], lengths[row_list])), row_starts
            return list(chain.from_iterable(rankeds[row] for row in row_list)), row_starts

        def hit_ids(hits: np.ndarray) -> list[Any]:
            return itemgetter_list(judged.kept_docs, where[found[hits]])

        ranks[tied] += _tie_breaks(matrix, ordered, rows, values, tied, hit_ids, pool_ids)
    keep = rels >= 1
    rows, ranks, rels = rows[keep], ranks[keep], rels[keep]
    placed_ranks = _scatter(rows, ranks, n, PAD_RANK)  # rows are ascending already; ranks not yet
    by_rank = np.argsort(placed_ranks, axis=1)
    ideal_counts = judged.ideal_counts[slots]
    ideal = judged.ideal[_gather(judged.ideal_starts[slots], ideal_counts)]
    return Placed(
        queries=queries,
        ranks=np.take_along_axis(placed_ranks, by_rank, axis=1),
        rels=np.take_along_axis(_scatter(rows, rels, n, 0), by_rank, axis=1),
        num_ret=lengths,
        levels=_scatter(np.repeat(np.arange(n, dtype=np.int64), ideal_counts), ideal, n, 0),
    )


def itemgetter_list(items: list[Any], positions: np.ndarray) -> list[Any]:
    """``[items[i] for i in positions]`` at C speed."""
    if len(positions) == 0:
        return []
    if len(positions) == 1:
        return [items[int(positions[0])]]
    return list(itemgetter(*positions.tolist())(items))


def _gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] .. starts[i] + counts[i] - 1`` of every ``i``, concatenated."""
    total = int(counts.sum())
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total, dtype=np.int64)


def _padded_scores(pool: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each query's scores as a row of one ``(queries, longest)`` matrix, padded with NaN (sorted last)."""
    n = len(lengths)
    width = int(lengths.max(initial=0))
    if n and (lengths == width).all():
        return pool.reshape(n, width).copy()
    matrix = np.full((n, width), np.nan, dtype=pool.dtype)
    matrix[np.arange(width) < lengths[:, None]] = pool
    return matrix


def _count_below(ordered: np.ndarray, rows: np.ndarray, values: np.ndarray, *, strict: bool) -> np.ndarray:
    """For each value, how many entries of its row of ``ordered`` (rows sorted ascending, NaN last) are
    ``<=`` it (``<`` with ``strict``): one vectorised binary search over all rows."""
    width = ordered.shape[1]
    flat = ordered.reshape(-1)
    base = rows * width - 1
    found = np.zeros(len(rows), dtype=np.int64)
    step = 1 << max(width.bit_length() - 1, 0) if width else 0
    while step:
        probe = found + step
        inside = probe <= width
        probe_values = flat[base + np.minimum(probe, width)]
        below = probe_values < values if strict else probe_values <= values
        found += step * (inside & below)
        step >>= 1
    return found


def _tie_breaks(
    matrix: np.ndarray,
    ordered: np.ndarray,
    rows: np.ndarray,
    values: np.ndarray,
    tied: np.ndarray,
    hit_ids: Any,
    pool_ids: Any,
) -> np.ndarray:
    """For each tied hit, the documents with its score and a greater id (trec_eval's order).

    Those documents sit between the hit's left and right insertion points in its row of
    ``ordered``; a stable argsort of the rows with ties maps those positions back to the documents."""
    tied_rows = rows[tied]
    row_list, row_of = np.unique(tied_rows, return_inverse=True)
    orders = np.argsort(matrix[row_list], axis=1, kind="stable")
    first = _count_below(ordered, tied_rows, values[tied], strict=True)
    last = _count_below(ordered, tied_rows, values[tied], strict=False)
    sizes = last - first
    pair_hit = np.repeat(np.arange(len(tied), dtype=np.int64), sizes)
    sorted_positions = _gather(first, sizes)
    original = orders[row_of[pair_hit], sorted_positions]
    ids, row_starts = pool_ids(row_list.tolist())
    members = itemgetter_list(ids, row_starts[row_of[pair_hit]] + original)
    mine = hit_ids(tied)
    if not (_all_str(members) and _all_str(mine)):
        raise InputError("run: document ids are str; a tie compared a str with another type")
    from numpy.dtypes import StringDType

    greater = np.array(members, dtype=StringDType()) > np.array(mine, dtype=StringDType())[pair_hit]
    return np.bincount(pair_hit, weights=greater, minlength=len(tied)).astype(np.int64)


def _all_str(items: list[Any]) -> bool:
    """Whether every item is a ``str`` (a C-level scan of the types; ``str`` subclasses such as NumPy's
    ``str_`` keys of a qrels mapping pass the slower check)."""
    return frozenset({str}).issuperset(map(type, items)) or all(isinstance(item, str) for item in items)


def _scatter(rows: np.ndarray, values: np.ndarray, n_rows: int, fill: int) -> np.ndarray:
    """Values grouped by (sorted) row into a padded ``(n_rows, max_count)`` matrix."""
    counts = np.bincount(rows, minlength=n_rows)
    width = int(counts.max(initial=0)) or 1
    out = np.full((n_rows, width), fill, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out[rows, np.arange(len(rows)) - starts[rows]] = values
    return out
