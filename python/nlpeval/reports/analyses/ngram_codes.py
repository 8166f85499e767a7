"""Vectorised n-gram counting for the compare-mt analyses: tokens become integer ids (one vocabulary for
every side); word counts per segment come from sorting ``segment * V + id`` keys (a few numpy calls), the
clipped n-gram matches and the occurrences of chosen n-grams from native kernels (``nlpeval._native``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Tokens = list[str]


@dataclass
class Corpus:
    """Token ids of several sides (reference, systems) of the same segments, with a shared vocabulary."""

    words: list[str]
    sides: dict[str, tuple[np.ndarray, np.ndarray]]  # name -> (flat ids, segment offsets)

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

    @classmethod
    def encode_lines(cls, sides: dict[str, Sequence[str]]) -> Corpus:
        """:meth:`encode` of compare-mt's tokens of lines (``line.strip().split(" ")``), tokenised and
        numbered natively (the same ids; lines that are not valid UTF-8, e.g. with lone surrogates, take
        the Python path).

        Examples
        --------
        >>> corpus = Corpus.encode_lines({REF: [" a b ", ""], "S": ["b  c"]})
        >>> corpus.words, corpus.sides["S"][0].tolist(), corpus.sides["S"][1].tolist()
        (['', 'a', 'b', '', 'c'], [2, 3, 4], [0, 3])
        """
        from nlpeval import _native

        try:
            words, encoded = _native.report_encode_lines([list(lines) for lines in sides.values()])
        except UnicodeEncodeError:
            return cls.encode({name: [line.strip().split(" ") for line in lines] for name, lines in sides.items()})
        return cls(["", *words], dict(zip(sides, encoded, strict=True)))


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


def word_rows(
    corpus: Corpus, system: str, bucket_of_id: np.ndarray, n_buckets: int, matched: Sequence[str] | None = None
) -> np.ndarray:
    """compare-mt's per-segment word counts ``(n, 3, B)``: matched, output and reference words per bucket.

    A word occurring ``k`` times in a segment's reference matches its first ``k`` occurrences in the
    output (:func:`matched_strings`; pass them as ``matched``, one string per segment, when already
    made), so the matches of a word are ``min(count in output, count in reference)``.

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b", "a"]], "S": [["a", "a", "a", "c"]]})
    >>> word_rows(corpus, "S", np.array([0, 0, 1, 1]), 2)[0].tolist()
    [[2, 0], [3, 1], [2, 1]]
    """
    n_segments = len(corpus.sides[REF][1]) - 1
    if matched is None:
        matched = matched_strings(corpus, system, n_segments)
    flags = np.frombuffer("".join(matched).encode("ascii"), dtype=np.uint8) == ord("1")
    rows = np.empty((n_segments, 3, n_buckets), dtype=np.int64)
    size = n_segments * n_buckets
    for slot, side in ((1, system), (2, REF)):
        flat, offsets = corpus.sides[side]
        # each token's (segment, bucket of its word) cell
        cell = np.repeat(np.arange(n_segments) * n_buckets, np.diff(offsets)) + bucket_of_id[flat]
        rows[:, slot, :] = np.bincount(cell, minlength=size).reshape(n_segments, n_buckets)
        if slot == 1:
            rows[:, 0, :] = np.bincount(cell[flags], minlength=size).reshape(n_segments, n_buckets)
    return rows


@dataclass
class Matches:
    """Clipped n-gram matches of every system: totals per matched n-gram type and the segments they occur in.

    Types are numbered in the native kernel's order of first match; ``start``/``order`` place one
    occurrence of each in the reference's flat ids (to spell it).
    """

    words: list[str]
    reference: np.ndarray  # the reference's flat ids
    start: np.ndarray
    order: np.ndarray
    totals: dict[str, np.ndarray]
    where: dict[str, tuple[np.ndarray, np.ndarray]]  # system -> (segment, type) of matched n-grams

    def decode(self, kind: int) -> tuple[str, ...]:
        """The n-gram of type ``kind``."""
        at = int(self.start[kind])
        return tuple(self.words[i] for i in self.reference[at : at + int(self.order[kind])].tolist())


def matches(corpus: Corpus, systems: Sequence[str], min_order: int = 1, max_order: int = 4) -> Matches:
    """compare-mt's ``match`` counts of every system against the reference (per segment, each n-gram
    of the output counts ``min(count in output, count in reference)``; one native pass).

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b", "a"]], "S": [["a", "a", "a", "b"]]})
    >>> found = matches(corpus, ["S"], max_order=2)
    >>> sorted((found.decode(t), int(c)) for t, c in enumerate(found.totals["S"]))
    [(('a',), 2), (('a', 'b'), 1), (('b',), 1)]
    """
    from nlpeval import _native

    reference = corpus.sides[REF]
    start, order, per_system = _native.report_ngram_matches(
        reference, [corpus.sides[s] for s in systems], min_order, max_order
    )
    totals = {s: found[0] for s, found in zip(systems, per_system, strict=True)}
    where = {s: (found[1], found[2]) for s, found in zip(systems, per_system, strict=True)}
    return Matches(corpus.words, reference[0], start, order, totals, where)


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
    decoded = [(row, found.decode(row[0])) for row in rows]
    ties = [
        (
            (int(universe[i]), float(score[i]), int(a[i]), int(b[i]), float(primary[i]), float(secondary[i])),
            found.decode(universe[i]),
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


def occurrence_spans(
    corpus: Corpus, system: str, other: str, ngrams: Sequence[Sequence[str]], n_segments: int
) -> tuple[tuple[int, int, int, int], ...]:
    """Every occurrence of ``ngrams`` (entry ``k`` is ``ngrams[k]``; an n-gram listed twice keeps its first
    entry) in ``system``'s (side 0) and ``other``'s (side 1) outputs of the first ``n_segments`` segments,
    as sorted ``(segment, side, start, entry)``.

    Examples
    --------
    >>> corpus = Corpus.encode({REF: [["a", "b"]], "S": [["a", "b", "a", "b"]], "T": [["b", "a"]]})
    >>> occurrence_spans(corpus, "S", "T", [("a", "b"), ("b",)], 1)
    ((0, 0, 0, 0), (0, 0, 1, 1), (0, 0, 2, 0), (0, 0, 3, 1), (0, 1, 0, 1))
    """
    from nlpeval import _native

    vocab = {w: i for i, w in enumerate(corpus.words) if i}
    # an n-gram with a word the corpus never saw occurs nowhere: it is left empty (never matched)
    grams = [[vocab.get(w, 0) for w in gram] for gram in ngrams]
    grams = [gram if gram and 0 not in gram else [] for gram in grams]
    lengths = np.fromiter(map(len, grams), dtype=np.int64, count=len(grams))
    offsets = np.zeros(len(grams) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.fromiter(itertools.chain.from_iterable(grams), dtype=np.int64, count=int(offsets[-1]))
    rows: list[Any] = []
    for side, name in enumerate((system, other)):
        segment, start, entry = _native.report_ngram_occurrences(corpus.sides[name], n_segments, (flat, offsets))
        rows.extend(zip(segment.tolist(), [side] * len(segment), start.tolist(), entry.tolist(), strict=True))
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
    from nlpeval import _native

    # natively (the same strings as matched_flags' "0"/"1" per token, segment by segment)
    return _native.report_matched_strings(corpus.sides[REF], corpus.sides[system], n_segments)
