"""NLTK's RIBES alignment and Kendall's tau for a whole corpus at once, with NumPy.

Every (hypothesis, reference) pair is aligned as ``nltk.translate.ribes_score.word_rank_alignment``
does, but window size by window size over all pairs together: the n-grams of length ``w + 1`` get
exact ids (``np.unique`` of (id of the w-gram, next token)), their counts in each hypothesis and
reference come from one sort, and every still ambiguous word is looked up at once (right context
first, then left, as NLTK). Concordant pairs of the aligned positions are counted per alignment
length with a triangular mask. The values are NLTK's, operation for operation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.metrics.ngram_table import token_ids, unique_inverse

_POW = np.frompyfunc(pow, 2, 1)


def _counts_and_first(keys: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted), their counts and the position of the first occurrence of each.

    The first occurrence is the smallest position when positions increase along equal keys (as
    they do here: a key names one sequence, whose tokens are laid out in order), so one stable
    sort of the keys does what a sort by (key, position) would.
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    if ordered.shape[0] == 0:
        return ordered, ordered, ordered
    new = np.empty(ordered.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, ordered.shape[0]))
    return ordered[starts], counts, positions[order[starts]]


def _find(keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each query in the sorted ``keys`` and whether it is there."""
    if keys.shape[0] == 0:
        return np.zeros(queries.shape[0], dtype=np.int64), np.zeros(queries.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(keys, queries), keys.shape[0] - 1)
    return at, keys[at] == queries


def ribes_values(
    hyp_tokens: Sequence[Sequence[Any]], ref_tokens: Sequence[Sequence[Sequence[Any]]], alpha: float, beta: float
) -> np.ndarray:
    """NLTK's ``sentence_ribes`` of every segment.

    Examples
    --------
    >>> ribes_values([["a", "b", "c"]], [[["c", "b", "a"], ["a", "b", "c"]]], 0.25, 0.1).tolist()
    [1.0]
    """
    n_seg = len(hyp_tokens)
    counts = np.fromiter(map(len, ref_tokens), dtype=np.int64, count=n_seg)
    n_pairs = int(counts.sum())
    flat = [ref for refs in ref_tokens for ref in refs]
    ids, lengths, vocabulary = token_ids([*hyp_tokens, *flat])
    n_seq = lengths.shape[0]
    starts = np.zeros(n_seq + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    owner = np.repeat(np.arange(n_seq, dtype=np.int64), lengths)
    offset = np.arange(ids.shape[0], dtype=np.int64) - starts[owner]
    remaining = lengths[owner] - offset
    seg_of_pair = np.repeat(np.arange(n_seg, dtype=np.int64), counts)
    ref_seq = n_seg + np.arange(n_pairs, dtype=np.int64)  # sequence index of each pair's reference
    hyp_len = lengths[seg_of_pair]
    ref_len = lengths[ref_seq]

    # every (pair, hypothesis position): the words to align
    q_pair = np.repeat(np.arange(n_pairs, dtype=np.int64), hyp_len)
    q_pos = np.arange(q_pair.shape[0], dtype=np.int64) - np.repeat(np.cumsum(hyp_len) - hyp_len, hyp_len)
    q_hyp = seg_of_pair[q_pair]
    q_start = starts[q_hyp] + q_pos  # index of the word in ``ids``
    q_value = np.full(q_pair.shape[0], -1, dtype=np.int64)

    gram = ids  # ids of the m-grams starting at each index (valid where remaining >= m)
    width = max(vocabulary, 1)
    m = 1
    # the words still to place: original index, pair, position, hypothesis and index in ``ids``
    live = np.arange(q_pair.shape[0], dtype=np.int64)
    l_pair, l_pos, l_hyp, l_start = q_pair, q_pos, q_hyp, q_start
    while live.shape[0]:
        scale = int(gram.max()) + 1 if gram.shape[0] else 1
        index = np.flatnonzero(remaining >= m)
        keys, key_counts, first = _counts_and_first(owner[index] * scale + gram[index], offset[index])

        def lookup(seq: np.ndarray, at_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """Count of the m-gram starting at ``at_index`` within sequence ``seq``, and its first offset."""
            at, found = _find(keys, seq * scale + gram[at_index])  # noqa: B023
            return np.where(found, key_counts[at], 0), np.where(found, first[at], -1)  # noqa: B023

        if m == 1:
            in_ref, ref_first = lookup(ref_seq[l_pair], l_start)
            in_hyp, _ = lookup(l_hyp, l_start)
            unique = (in_ref == 1) & (in_hyp == 1)
            q_value[live[unique]] = ref_first[unique]
            still = (in_ref > 0) & ~unique
        else:
            window = m - 1
            l_hyp_len = hyp_len[l_pair]
            still = window < np.minimum(np.maximum(l_pos, l_hyp_len - l_pos + 1), ref_len[l_pair])
            # a context whose n-gram is not in the reference never will be with more words (a longer
            # context contains it), nor one past the sentence's end: a word with both sides closed
            # can never be aligned and leaves the loop now rather than at NLTK's last window
            closed = {"right": l_pos + window >= l_hyp_len, "left": window > l_pos}
            for side in ("right", "left"):  # NLTK tries the right context first
                sel = np.flatnonzero(still & ~closed[side])
                start = l_start[sel] - (window if side == "left" else 0)
                if not sel.shape[0]:
                    continue
                in_ref, ref_first = lookup(ref_seq[l_pair[sel]], start)
                in_hyp, _ = lookup(l_hyp[sel], start)
                ok = (in_ref == 1) & (in_hyp == 1)
                q_value[live[sel[ok]]] = ref_first[ok] + (window if side == "left" else 0)
                still[sel[ok]] = False
                closed[side][sel[in_ref == 0]] = True
            still &= ~(closed["right"] & closed["left"])
        live, l_pair, l_pos, l_hyp, l_start = live[still], l_pair[still], l_pos[still], l_hyp[still], l_start[still]
        if not live.shape[0]:
            break
        # keep only the sequences an open word still needs (its hypothesis and reference)
        needed = np.zeros(n_seq, dtype=bool)
        needed[l_hyp] = True
        needed[ref_seq[l_pair]] = True
        keep = needed[owner]
        if keep.sum() * 4 < keep.shape[0] * 3:
            new_index = np.cumsum(keep) - 1
            ids, gram, owner, offset, remaining = ids[keep], gram[keep], owner[keep], offset[keep], remaining[keep]
            l_start = new_index[l_start]
        # the (m+1)-grams: exact ids from (m-gram id, next token)
        m += 1
        keys_next = np.where(remaining >= m, gram * width + np.roll(ids, -(m - 1)), -1)
        _, gram = unique_inverse(keys_next)

    # Kendall's tau of each pair's aligned positions (in hypothesis order)
    aligned = q_value >= 0
    a_pair = q_pair[aligned]
    a_value = q_value[aligned]
    k = np.bincount(a_pair, minlength=n_pairs)
    increasing = np.zeros(n_pairs, dtype=np.int64)
    a_start = np.zeros(n_pairs + 1, dtype=np.int64)
    np.cumsum(k, out=a_start[1:])
    for size in np.unique(k).tolist():
        if size < 2:
            continue
        pairs = np.flatnonzero(k == size)
        matrix = a_value[a_start[pairs][:, None] + np.arange(size)[None, :]]
        upper = np.triu(np.ones((size, size), dtype=bool), 1)
        increasing[pairs] = ((matrix[:, :, None] < matrix[:, None, :]) & upper).sum(axis=(1, 2))
    possible = k * (k - 1) // 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(k >= 2, (2 * increasing) / np.where(possible > 0, possible, 1) - 1, -1.0)
    nkt = (tau + 1) / 2
    safe_hyp = np.where(hyp_len > 0, hyp_len, 1)
    exponents = [1.0 - r / h for r, h in zip(ref_len.tolist(), safe_hyp.tolist(), strict=True)]
    bp = np.minimum(1.0, np.array([math.exp(x) for x in exponents], dtype=np.float64))
    p1 = k / safe_hyp
    powered_p1 = np.asarray(_POW(p1, float(alpha)), dtype=np.float64)
    value = nkt * powered_p1 * np.asarray(_POW(bp, float(beta)), dtype=np.float64)

    best = np.full(n_seg, -1.0)
    first_pair = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(counts, out=first_pair[1:])
    for j in range(int(counts.max()) if n_seg else 0):  # the first reference with the highest value
        having = np.flatnonzero(counts > j)
        candidate = value[first_pair[having] + j]
        best[having] = np.where(candidate > best[having], candidate, best[having])
    empty = (lengths[:n_seg] == 0) | (counts == 0)
    return np.where(empty, 0.0, best)


__all__ = ["ribes_values"]
