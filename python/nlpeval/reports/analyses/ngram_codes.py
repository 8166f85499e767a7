"""Vectorised n-gram counting for the compare-mt analyses: tokens become integer ids, n-grams dense codes.

Counts per segment come from sorting ``segment * M + code`` keys, so a whole corpus is a few numpy calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

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
