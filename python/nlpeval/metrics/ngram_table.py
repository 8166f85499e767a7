"""Exact n-gram identities of many token sequences at once, with NumPy.

Tokens become integer ids (one dictionary pass); the n-grams of order ``k`` get ids from
``np.unique`` of (id of the (k-1)-gram, next token) pairs, so two n-grams share an id exactly
when they are equal, with no hashing. :class:`NgramTable` then lists each sequence's distinct
n-grams with their counts *in the order Python's ``Counter``/``defaultdict`` would hold them*
(order by order, by first occurrence), so sums over them can follow the reference tools'
summation order bit for bit. Used by CIDEr, GLEU and NIST.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NgramTable:
    """The distinct n-grams of each sequence, one entry per (sequence, n-gram).

    Attributes
    ----------
    sequence : numpy.ndarray
        Index of the sequence of each entry (entries are grouped by sequence, in order).
    gram : numpy.ndarray
        Global id of the n-gram (shared by equal n-grams of every sequence and order).
    order : numpy.ndarray
        Length of the n-gram.
    count : numpy.ndarray
        Occurrences of the n-gram in the sequence.
    lengths : numpy.ndarray
        Number of tokens of each sequence.
    n_grams : int
        Number of distinct n-grams overall (ids are ``0..n_grams-1``).
    prefix : numpy.ndarray
        Global id of each entry's n-gram without its last token (-1 for unigrams and for
        prefixes of orders below ``min_order``).
    min_order, max_order : int
        The orders listed.

    Examples
    --------
    >>> t = ngram_table([["a", "b", "a"], ["b", "a"]], max_order=2)
    >>> t.sequence.tolist(), t.order.tolist(), t.count.tolist()
    ([0, 0, 0, 0, 1, 1, 1], [1, 1, 2, 2, 1, 1, 2], [2, 1, 1, 1, 1, 1, 1])
    >>> t.gram[t.sequence == 1].tolist() == [t.gram[1], t.gram[0], t.gram[3]]
    True
    """

    sequence: np.ndarray
    gram: np.ndarray
    order: np.ndarray
    count: np.ndarray
    lengths: np.ndarray
    n_grams: int
    min_order: int
    max_order: int
    prefix: np.ndarray

    @property
    def n_sequences(self) -> int:
        """Number of sequences."""
        return int(self.lengths.shape[0])

    def ngram_counts(self) -> np.ndarray:
        """``(n_sequences, max_order)`` numbers of n-gram occurrences of each order (``max(0, len - k + 1)``)."""
        orders = np.arange(1, self.max_order + 1)
        return np.maximum(self.lengths[:, None] - orders[None, :] + 1, 0)


def token_ids(sequences: Sequence[Sequence[object]]) -> tuple[np.ndarray, np.ndarray, int]:
    """All tokens as one int64 id array, the sequence lengths, and the vocabulary size.

    Examples
    --------
    >>> ids, lengths, size = token_ids([["x", "y"], ["y"]])
    >>> ids.tolist(), lengths.tolist(), size
    ([0, 1, 1], [2, 1], 2)
    """
    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    tokens = list(itertools.chain.from_iterable(sequences))
    # one dictionary pass: each token maps to the index of its first occurrence ...
    first: dict[object, int] = {}
    at_first = np.array(list(map(first.setdefault, tokens, itertools.count())), dtype=np.int64)
    # ... and the ids are the ranks of those first occurrences (ids in order of first appearance)
    rank = np.cumsum(at_first == np.arange(at_first.shape[0], dtype=np.int64)) - 1
    return rank[at_first], lengths, len(first)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D integer array, sorted (by sorting, not hashing).

    Examples
    --------
    >>> sorted_unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, kind="stable")
    if ordered.shape[0] == 0:
        return ordered
    keep = np.empty(ordered.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _stable_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` sorted and the stable sorting permutation (ties keep their index order).

    Integer values whose range, shifted left by the bits of the array's length, fits in 62 bits
    are packed with their index into one key and sorted by value (no permutation sort, about
    twice as fast); others take a stable argsort. Both give the same two arrays.

    Examples
    --------
    >>> ordered, order = _stable_order(np.array([3, -1, 3, 0]))
    >>> ordered.tolist(), order.tolist()
    ([-1, 0, 3, 3], [1, 3, 0, 2])
    """
    size = values.shape[0]
    if size and values.dtype.kind in "iu":
        low, high = int(values.min()), int(values.max())
        shift = size.bit_length()
        if low > -(2**62) and high < 2**62 and (high - low + 1) << shift < 2**62:
            packed = (values.astype(np.int64) - low) << shift
            packed |= np.arange(size, dtype=np.int64)
            packed.sort(kind="stable")  # runs of already sorted keys are common
            order = packed & ((1 << shift) - 1)
            packed >>= shift
            packed += low
            return packed.astype(values.dtype, copy=False), order
    order = np.argsort(values, kind="stable")
    return values[order], order


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` by one sort."""
    ordered, order = _stable_order(values)
    new = np.empty(ordered.shape[0], dtype=bool)
    if ordered.shape[0]:
        new[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    group = np.cumsum(new) - 1
    inverse = np.empty(values.shape[0], dtype=np.int64)
    inverse[order] = group
    return ordered[new], inverse


def _first_and_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct key (in sorted order): the index of its first occurrence and its count."""
    ordered, order = _stable_order(keys)
    if ordered.shape[0] == 0:
        return order, order
    new = np.empty(ordered.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, ordered.shape[0]))
    return order[starts], counts


def _by_sequence(sequence: np.ndarray, n_sequences: int) -> np.ndarray:
    """Stable sorting permutation of sequence indices (a radix sort when they fit in 16 bits)."""
    small = sequence.astype(np.int16) if n_sequences <= 2**15 else sequence
    return np.argsort(small, kind="stable")


def ngram_table(sequences: Sequence[Sequence[object]], *, max_order: int, min_order: int = 1) -> NgramTable:
    """The :class:`NgramTable` of ``sequences`` (lists of hashable tokens) for orders ``min_order..max_order``."""
    ids, lengths, vocabulary = token_ids(sequences)
    n_seq = lengths.shape[0]
    starts = np.zeros(n_seq, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    owner = np.repeat(np.arange(n_seq, dtype=np.int64), lengths)
    remaining = lengths[owner] - (np.arange(ids.shape[0], dtype=np.int64) - starts[owner])  # tokens from here on
    occ_seq, occ_gram, occ_order, occ_prefix = [], [], [], []
    offset = 0
    previous_offset = -1  # global offset of order k-1 (-1: not listed)
    local = ids  # ids of the k-grams starting at each position (valid where remaining >= k)
    prefix_local = ids
    width = max(vocabulary, 1)
    for k in range(1, max_order + 1):
        if k > 1:
            valid = remaining >= k
            keys = np.where(valid, local * width + np.roll(ids, -(k - 1)), -1)
            uniq, local = unique_inverse(keys)
            if uniq.shape[0] and uniq[0] == -1:  # the invalid positions' key
                local = local - 1
                n_local = uniq.shape[0] - 1
            else:
                n_local = uniq.shape[0]
            local = local.astype(np.int64, copy=False)
        else:
            n_local = vocabulary
        positions = np.flatnonzero(remaining >= k)
        if k >= min_order:
            occ_seq.append(owner[positions])
            occ_gram.append(local[positions] + offset)
            occ_order.append(np.full(positions.shape[0], k, dtype=np.int64))
            if k > 1 and previous_offset >= 0:
                occ_prefix.append(prefix_local[positions] + previous_offset)
            else:
                occ_prefix.append(np.full(positions.shape[0], -1, dtype=np.int64))
            previous_offset = offset
            offset += n_local
        prefix_local = local
    if occ_seq:
        seq = np.concatenate(occ_seq)
        gram = np.concatenate(occ_gram)
        order = np.concatenate(occ_order)
        prefix = np.concatenate(occ_prefix)
    else:
        seq = gram = order = prefix = np.empty(0, dtype=np.int64)
    n_grams = max(offset, 1)
    first, counts = _first_and_counts(seq * n_grams + gram)
    # entries in Counter order: by sequence, then by first occurrence (order by order); the
    # occurrences are listed by order, sequence and position, so the first occurrences in that
    # listing, stably sorted by sequence, are in that order
    is_first = np.zeros(seq.shape[0], dtype=bool)
    is_first[first] = True
    count_at = np.zeros(seq.shape[0], dtype=np.int64)
    count_at[first] = counts
    chosen = np.flatnonzero(is_first)
    first = chosen[_by_sequence(seq[chosen], n_seq)]
    return NgramTable(
        sequence=seq[first],
        gram=gram[first],
        order=order[first],
        count=count_at[first],
        lengths=lengths,
        n_grams=offset,
        min_order=min_order,
        max_order=max_order,
        prefix=prefix[first],
    )


__all__ = ["NgramTable", "ngram_table", "sorted_unique", "token_ids", "unique_inverse"]
