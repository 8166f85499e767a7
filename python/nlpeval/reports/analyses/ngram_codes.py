"""Vectorised n-gram counting for the compare-mt analyses: tokens become integer ids, n-grams dense codes.

Counts per segment come from sorting ``segment * M + code`` keys, so a whole corpus is a few numpy calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

Tokens = list[str]


@dataclass
class Corpus:
    """Token ids of several sides (reference, systems) of the same segments, with a shared vocabulary.

    N-grams get dense codes order by order: an n-gram is the pair (code of its first n-1 words, id of its
    last word), numbered by ``numpy.unique``; codes of order n follow those of order n-1, so one code space
    holds every order and stays small whatever the vocabulary size.
    """

    words: list[str]
    sides: dict[str, tuple[np.ndarray, np.ndarray]]  # name -> (flat ids, segment offsets)
    _levels: list[tuple[np.ndarray, np.ndarray, int]] | None = None  # per order: (code per position, pairs, offset)
    _starts_cache: dict[tuple, tuple[np.ndarray, ...]] = field(default_factory=dict)

    @classmethod
    def encode(cls, sides: dict[str, Sequence[Tokens]]) -> Corpus:
        """Word ids ``1..V`` in order of first occurrence (side by side, segment by segment)."""
        vocab: dict[str, int] = {}
        # a new word gets the running token number (in C: map over setdefault), renumbered 1..V below
        position = itertools.count(1)
        raw = {}
        for name, segments in sides.items():
            lengths = np.fromiter(map(len, segments), dtype=np.int64, count=len(segments))
            offsets = np.zeros(len(segments) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            tokens = list(itertools.chain.from_iterable(segments))
            raw[name] = (
                np.fromiter(map(vocab.setdefault, tokens, position), dtype=np.int64, count=len(tokens)),
                offsets,
            )
        first = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
        dense = np.zeros(int(first[-1]) + 1 if len(first) else 1, dtype=np.int64)
        dense[first] = np.arange(1, len(first) + 1)
        encoded = {name: (dense[ids], offsets) for name, (ids, offsets) in raw.items()}
        return cls(["", *vocab], encoded)

    def _build(self, max_order: int) -> None:
        names = list(self.sides)
        flat = np.concatenate([self.sides[n][0] for n in names])
        # a global segment number per token (sides one after another), to keep n-grams inside a segment
        counts = np.concatenate([np.diff(self.sides[n][1]) for n in names])
        self._segment = np.repeat(np.arange(len(counts)), counts)
        self._starts = dict(zip(names, np.cumsum([0, *(len(self.sides[n][0]) for n in names)])[:-1], strict=True))
        base = len(self.words) + 1
        levels = []
        current = flat.copy()  # order-1 codes are the word ids
        offset = 0
        levels.append((current, np.zeros(0, dtype=np.int64), offset))
        offset += base
        for n in range(2, max_order + 1):
            prev = levels[-1][0]
            if len(prev) < 2:
                break
            pairs = prev[:-1] * base + flat[n - 1 : n - 1 + len(prev) - 1]
            unique, inverse = np.unique(pairs, return_inverse=True)
            levels.append((inverse.ravel().astype(np.int64), unique, offset))
            offset += len(unique)
        self._levels = levels
        self._n_codes = offset

    @property
    def n_codes(self) -> int:
        """Size of the code space (every order built so far); codes are ``0 <= code < n_codes``."""
        if self._levels is None:
            self._build(4)
        return self._n_codes

    def ngrams(self, name: str, min_order: int, max_order: int) -> tuple[np.ndarray, np.ndarray]:
        """``(segment, code)`` of every n-gram of side ``name`` with ``min_order <= n <= max_order``."""
        if self._levels is None or len(self._levels) < max_order:
            self._build(max_order)
        assert self._levels is not None
        flat, offsets = self.sides[name]
        first = int(self._starts[name])
        local = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        segs, codes = [], []
        for n in range(min_order, max_order + 1):
            if n > len(self._levels) or len(flat) < n:
                continue
            level, _, offset = self._levels[n - 1]
            start = np.arange(first, first + len(flat) - n + 1)
            inside = self._segment[start] == self._segment[start + n - 1]
            start = start[inside]
            segs.append(local[start - first])
            codes.append(level[start] + offset)
        if not segs:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(segs), np.concatenate(codes)

    def decode(self, code: int) -> tuple[str, ...]:
        """The n-gram of a code."""
        assert self._levels is not None
        base = len(self.words) + 1
        code = int(code)
        order = max(i for i, (_, _, offset) in enumerate(self._levels) if code >= offset) + 1
        out: list[str] = []
        while order > 1:
            _, unique, offset = self._levels[order - 1]
            prefix, last = divmod(int(unique[code - offset]), base)
            out.append(self.words[last])
            code = prefix + self._levels[order - 2][2]
            order -= 1
        out.append(self.words[code])
        return tuple(reversed(out))


def segment_counts(segments: np.ndarray, dense: np.ndarray, n_dense: int) -> tuple[np.ndarray, np.ndarray]:
    """Unique ``segment * n_dense + dense`` keys (sorted) and their counts."""
    keys, counts = np.unique(segments * n_dense + dense, return_counts=True)
    return keys, counts


def clipped(out_keys: np.ndarray, out_counts: np.ndarray, ref_keys: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
    """Per output key, ``min(count in output, count in reference)`` (0 when absent from the reference)."""
    position = np.searchsorted(ref_keys, out_keys)
    position = np.minimum(position, max(len(ref_keys) - 1, 0))
    present = (ref_keys[position] == out_keys) if len(ref_keys) else np.zeros(len(out_keys), dtype=bool)
    return np.where(present, np.minimum(out_counts, ref_counts[position] if len(ref_keys) else 0), 0)


REF = "\0reference"


def word_rows(corpus: Corpus, system: str, bucket_of_id: np.ndarray, n_buckets: int) -> np.ndarray:
    """compare-mt's per-segment word counts ``(n, 3, B)``: matched, output and reference words per bucket."""
    rows = np.zeros((len(corpus.sides[REF][1]) - 1, 3, n_buckets), dtype=np.int64)
    n_segments = rows.shape[0]
    width = len(corpus.words) + 1
    counted = {}
    for side in (REF, system):
        flat, offsets = corpus.sides[side]
        segment_of = np.repeat(np.arange(n_segments), np.diff(offsets))
        counted[side] = segment_counts(segment_of, flat, width)
    ref_keys, ref_counts = counted[REF]
    out_keys, out_counts = counted[system]
    matched = clipped(out_keys, out_counts, ref_keys, ref_counts)
    for slot, (keys, weights) in enumerate(((out_keys, matched), (out_keys, out_counts), (ref_keys, ref_counts))):
        cell = (keys // width) * n_buckets + bucket_of_id[keys % width]
        rows[:, slot, :] = np.bincount(cell, weights=weights, minlength=n_segments * n_buckets).reshape(
            n_segments, n_buckets
        )
    return rows


@dataclass
class Matches:
    """Clipped n-gram matches of every system: totals per dense n-gram and the segments they occur in."""

    codes: np.ndarray  # dense index -> code
    totals: dict[str, np.ndarray]
    where: dict[str, tuple[np.ndarray, np.ndarray]]  # system -> (segment, dense) of matched n-grams


def matches(corpus: Corpus, systems: Sequence[str], min_order: int = 1, max_order: int = 4) -> Matches:
    """compare-mt's ``match`` counts of every system against the reference."""
    sides = [REF, *systems]
    grams = {side: corpus.ngrams(side, min_order, max_order) for side in sides}
    # the codes are already dense over every side's n-grams: the "dense index" of an n-gram is its code
    m = corpus.n_codes
    codes = np.arange(m, dtype=np.int64)
    ref_keys, ref_counts = segment_counts(grams[REF][0], grams[REF][1], m)
    totals, where = {}, {}
    for s in systems:
        keys, counts = segment_counts(grams[s][0], grams[s][1], m)
        hit = clipped(keys, counts, ref_keys, ref_counts)
        nz = hit > 0
        totals[s] = np.bincount(keys[nz] % m, weights=hit[nz], minlength=m).astype(np.int64)
        where[s] = (keys[nz] // m, keys[nz] % m)
    return Matches(codes, totals, where)


def salient(
    corpus: Corpus, found: Matches, first: str, second: str, top: int, alpha: float = 1.0, lowest: bool = False
) -> list[tuple[int, tuple[str, ...], float, int, int]]:
    """The ``top`` salient n-grams of ``first`` vs ``second`` (``lowest``: lowest scores first), as
    ``(dense index, n-gram, score, c_first, c_second)``; ties as :func:`comparemt.salient_ngrams`."""
    c1, c2 = found.totals[first], found.totals[second]
    universe = np.flatnonzero((c1 + c2) > 0)
    a, b = c1[universe], c2[universe]
    score = (a + alpha) / (a + b + 2 * alpha)
    # primary keys: score (desc, or asc for lowest), then the count (of first, or of second for lowest), desc
    primary = score if lowest else -score
    secondary = -(b if lowest else a)
    if len(primary) > top:
        # only n-grams whose primary key reaches the top-th smallest can be chosen
        kth = np.partition(primary, top - 1)[top - 1]
        candidates = np.flatnonzero(primary <= kth)
    else:
        candidates = np.arange(len(primary))
    order = candidates[np.lexsort((secondary[candidates], primary[candidates]))]
    if len(order) <= top:
        chosen = order
        boundary: list[int] = []
    else:
        last = order[top - 1]
        tied = (primary == primary[last]) & (secondary == secondary[last])
        better = (primary < primary[last]) | ((primary == primary[last]) & (secondary < secondary[last]))
        chosen = order[better[order]]
        boundary = list(np.flatnonzero(tied))
    rows = [
        (int(universe[i]), float(score[i]), int(a[i]), int(b[i]), float(primary[i]), float(secondary[i]))
        for i in chosen
    ]
    decoded = [(row, corpus.decode(found.codes[row[0]])) for row in rows]
    ties = [
        (
            (int(universe[i]), float(score[i]), int(a[i]), int(b[i]), float(primary[i]), float(secondary[i])),
            corpus.decode(found.codes[universe[i]]),
        )
        for i in boundary
    ]
    ties.sort(key=lambda item: item[1])
    decoded.sort(key=lambda item: (item[0][4], item[0][5], item[1]))
    picked = decoded + ties[: top - len(decoded)]
    return [(row[0], gram, row[1], row[2], row[3]) for row, gram in picked]


def matched_flags(corpus: Corpus, system: str) -> np.ndarray:
    """Per output token (flat, in ``corpus.sides[system]`` order) whether it is matched in the reference:
    a word occurring ``k`` times in the segment's reference matches its first ``k`` occurrences in the
    output (compare-mt's clipped word matching; per word, the flags sum to :func:`word_rows`' matches).

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b", "a"]], "S": [["a", "a", "a", "c", "b"]]})
    >>> matched_flags(corpus, "S").tolist()
    [True, True, False, False, True]
    """
    width = len(corpus.words) + 1
    flats = {}
    for side in (REF, system):
        flat, offsets = corpus.sides[side]
        segment_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        flats[side] = segment_of * width + flat
    ref_keys, ref_counts = np.unique(flats[REF], return_counts=True)
    keys = flats[system]
    # occurrence rank of each token among the same word of its segment (stable: left to right)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(first)
    group_start = starts[np.cumsum(first) - 1] if len(ordered) else np.zeros(0, dtype=np.int64)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys)) - group_start
    available = clipped(keys, np.full(len(keys), np.iinfo(np.int64).max), ref_keys, ref_counts)
    return rank < available


def ngram_starts(corpus: Corpus, name: str, min_order: int, max_order: int) -> tuple[np.ndarray, ...]:
    """``(segment, start, code)`` of every n-gram of side ``name``: like :meth:`Corpus.ngrams` with the
    position of the n-gram's first token in its segment (kept on the corpus: each side is a party to
    several comparisons)."""
    if corpus._levels is None or len(corpus._levels) < max_order:
        corpus._build(max_order)
    key = (name, min_order, max_order, len(corpus._levels))
    cached = corpus._starts_cache.get(key)
    if cached is None:
        cached = corpus._starts_cache[key] = _ngram_starts(corpus, name, min_order, max_order)
    return cached


def _ngram_starts(corpus: Corpus, name: str, min_order: int, max_order: int) -> tuple[np.ndarray, ...]:
    assert corpus._levels is not None
    assert corpus._levels is not None
    flat, offsets = corpus.sides[name]
    first = int(corpus._starts[name])
    local = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for n in range(min_order, max_order + 1):
        if n > len(corpus._levels) or len(flat) < n:
            continue
        level, _, offset = corpus._levels[n - 1]
        start = np.arange(first, first + len(flat) - n + 1)
        start = start[corpus._segment[start] == corpus._segment[start + n - 1]]
        segment = local[start - first]
        out.append((segment, start - first - offsets[segment], level[start] + offset))
    if not out:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return tuple(np.concatenate(parts) for parts in zip(*out, strict=True))


def ngram_code(corpus: Corpus, words: Sequence[str], vocab: Mapping[str, int]) -> int | None:
    """The code of an n-gram (``None`` when it occurs nowhere in the corpus); the inverse of
    :meth:`Corpus.decode` (``vocab`` maps a word to its id in ``corpus.words``)."""
    ids = {w: vocab.get(w, 0) for w in words}
    assert corpus._levels is not None
    if not words or len(words) > len(corpus._levels) or any(ids[w] == 0 for w in words):
        return None
    base = len(corpus.words) + 1
    local = ids[words[0]]
    for k in range(2, len(words) + 1):
        _, unique, _ = corpus._levels[k - 1]
        pair = local * base + ids[words[k - 1]]
        at = int(np.searchsorted(unique, pair))
        if at >= len(unique) or unique[at] != pair:
            return None
        local = at
    return int(local + corpus._levels[len(words) - 1][2])


def occurrence_spans(
    corpus: Corpus, system: str, other: str, ngrams: Sequence[Sequence[str]], n_segments: int
) -> tuple[tuple[int, int, int, int], ...]:
    """Every occurrence of ``ngrams`` (entry ``k`` is ``ngrams[k]``) in ``system``'s (side 0) and
    ``other``'s (side 1) outputs of the first ``n_segments`` segments, as sorted
    ``(segment, side, start, entry)``.

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b"]], "S": [["a", "b", "a", "b"]], "T": [["b", "a"]]})
    >>> occurrence_spans(corpus, "S", "T", [("a", "b"), ("b",)], 1)
    ((0, 0, 0, 0), (0, 0, 1, 1), (0, 0, 2, 0), (0, 0, 3, 1), (0, 1, 0, 1))
    """
    max_order = max((len(g) for g in ngrams), default=1)
    if corpus._levels is None or len(corpus._levels) < max_order:
        corpus._build(max_order)
    entry_of: dict[int, int] = {}
    vocab = {w: i for i, w in enumerate(corpus.words) if i}
    for k, gram in enumerate(ngrams):
        code = ngram_code(corpus, list(gram), vocab)
        if code is not None:
            entry_of.setdefault(code, k)
    if not entry_of:
        return ()
    codes = np.fromiter(entry_of, dtype=np.int64, count=len(entry_of))
    rows = []
    for side, name in enumerate((system, other)):
        segment, start, code = ngram_starts(corpus, name, 1, max_order)
        keep = (segment < n_segments) & np.isin(code, codes)
        for seg, st, c in zip(segment[keep].tolist(), start[keep].tolist(), code[keep].tolist(), strict=True):
            rows.append((seg, side, st, entry_of[c]))
    return tuple(sorted(rows))


def matched_strings(corpus: Corpus, system: str, n_segments: int) -> list[str]:
    """Per segment (the first ``n_segments``), one character per token of ``system``'s output:
    ``"1"`` matched in the reference, ``"0"`` not (:func:`matched_flags`).

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b"], ["x"]], "S": [["a", "c", "b"], []]})
    >>> matched_strings(corpus, "S", 2)
    ['101', '']
    """
    text = (matched_flags(corpus, system).astype(np.uint8) + ord("0")).tobytes().decode("ascii")
    offsets = corpus.sides[system][1].tolist()
    return [text[offsets[i] : offsets[i + 1]] for i in range(n_segments)]
