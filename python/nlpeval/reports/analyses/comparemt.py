"""compare-mt's default analyses, with its exact definitions (written from its documented behaviour).

compare-mt (neulab/compare-mt 0.2.10) splits a line on single spaces after stripping it
(``line.strip().split(" ")``, so an empty line is one empty token), and defines:

* BLEU: per segment clipped n-gram counts against one reference, each denominator at least 1,
  0 when no unigram matches, ``log p = 0`` for a zero precision, ``BP = min(1, exp(1 - r/c))``;
* length ratio: output words / reference words;
* word accuracy by bucket: output words matched greedily (left to right) to reference words,
  buckets by the word's frequency in the reference (or a frequency corpus), edges
  ``1, 2, 3, 4, 5, 10, 100, 1000``; precision, recall, F (0 when nothing matches);
* sentence buckets: by reference length (edges 10..60), by output-minus-reference length
  (edges -20..21, counts), by sentence BLEU (NLTK ``sentence_bleu`` with ``method2``, x100,
  edges 10..90, counts);
* salient n-grams: matched n-gram counts per system (n = 1..4), score
  ``(c1 + alpha) / (c1 + c2 + 2 alpha)``.

Every function here returns numbers on compare-mt's own scale except where noted; nothing is formatted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.core.stats import Stats

# compare-mt's BLEU and its native rows live with the other BLEU flavors; imported here as before
from nlpeval.metrics.bleu.comparemt import CompareMtBLEU as CompareMtBLEU
from nlpeval.metrics.bleu.comparemt import native_rows as native_rows
from nlpeval.metrics.bleu.comparemt import native_rows_ids as native_rows_ids

Tokens = list[str]

#: compare-mt's default bucket edges
FREQ_EDGES = (1, 2, 3, 4, 5, 10, 100, 1000)
LENGTH_EDGES = (10, 20, 30, 40, 50, 60)
LENGTHDIFF_EDGES = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)
SENTBLEU_EDGES = tuple(x * 100.0 / 10.0 for x in range(1, 10))


def tokenize(line: str) -> Tokens:
    """compare-mt's tokens of a line.

    Examples
    --------
    >>> tokenize(" a  b "), tokenize("")
    (['a', '', 'b'], [''])
    """
    return line.strip().split(" ")


def bucket_labels(edges: Sequence[float], integer: bool = True) -> list[str]:
    """compare-mt's bucket names for ``edges``.

    Examples
    --------
    >>> bucket_labels([1, 2, 3, 5])
    ['<1', '1', '2', '[3,5)', '>=5']
    """
    labels = []
    for i, edge in enumerate(edges):
        if i == 0:
            labels.append(f"<{edge}")
        elif integer and edge - 1 == edges[i - 1]:
            labels.append(f"{edge - 1}")
        else:
            labels.append(f"[{edges[i - 1]},{edge})")
    labels.append(f">={edges[-1]}")
    return labels


def bucket_of(values: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    """Index of the first edge a value is below (``len(edges)`` when none): compare-mt's rule."""
    return np.searchsorted(np.asarray(edges, dtype=np.float64), np.asarray(values, dtype=np.float64), side="right")


def sentence_bleu_stats(metric: Any, native: np.ndarray) -> Stats:
    """compare-mt's sentence-BLEU statistics (``metric`` an NLTK-flavor BLEU of 4 orders, no method5/7)
    from the same :func:`native_rows` (one reference per segment): equal to
    ``metric.segment_stats(outs, [[r] for r in refs])`` without counting the n-grams again."""
    from nlpeval.metrics.bleu.nltk import nltk_rows

    ones = np.ones((len(native), 2), dtype=np.int64)  # nrefs_min, nrefs_max
    base = np.hstack([np.asarray(native, dtype=np.int64), ones])
    return Stats(metric.schema, nltk_rows(base, len(metric.weights), last_order5=False))


def length_ratio(outs: Sequence[Tokens], refs: Sequence[Tokens]) -> tuple[float, int, int]:
    """compare-mt's length ratio (on the 0-1 scale it prints) with the word counts."""
    out_words = sum(len(x) for x in outs)
    ref_words = sum(len(x) for x in refs)
    return (out_words / ref_words if ref_words else 0.0), ref_words, out_words


def frequencies(corpus: Sequence[Tokens]) -> Counter:
    """Word counts of a tokenized corpus (the reference by default, or ``--freq-corpus``)."""
    counts: Counter = Counter()
    for words in corpus:
        counts.update(words)
    return counts


def word_bucket_rows(
    outs: Sequence[Tokens], refs: Sequence[Tokens], freq: Counter, edges: Sequence[float] = FREQ_EDGES
) -> np.ndarray:
    """Per segment and bucket: matched, output and reference word counts, ``(n, 3, n_buckets)``.

    compare-mt matches output words greedily to reference occurrences of the same word, so the
    matches of a word type are ``min(count in output, count in reference)``.
    """
    n_buckets = len(edges) + 1
    rows = np.zeros((len(outs), 3, n_buckets), dtype=np.int64)
    cache: dict[str, int] = {}

    def bucket(word: str) -> int:
        b = cache.get(word)
        if b is None:
            b = cache[word] = int(bucket_of(np.array([freq.get(word, 0)]), edges)[0])
        return b

    for i, (out, ref) in enumerate(zip(outs, refs, strict=True)):
        out_counts, ref_counts = Counter(out), Counter(ref)
        for word, count in out_counts.items():
            b = bucket(word)
            rows[i, 1, b] += count
            rows[i, 0, b] += min(count, ref_counts.get(word, 0))
        for word, count in ref_counts.items():
            rows[i, 2, bucket(word)] += count
    return rows


def word_accuracy(totals: np.ndarray) -> dict[str, np.ndarray]:
    """Recall, precision and F per bucket of summed ``(..., 3, n_buckets)`` counts (0 where nothing matches)."""
    totals = np.asarray(totals, dtype=np.float64)
    matched, out_total, ref_total = totals[..., 0, :], totals[..., 1, :], totals[..., 2, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = np.where(matched == 0, 0.0, matched / ref_total)
        prec = np.where(matched == 0, 0.0, matched / out_total)
        fmeas = np.where(matched == 0, 0.0, 2 * prec * rec / (prec + rec))
    return {"rec": rec, "prec": prec, "fmeas": fmeas}


def ngram_table(words: Tokens, min_order: int = 1, max_order: int = 4) -> Counter:
    """Counts of every n-gram of ``words`` with ``min_order <= n <= max_order`` (one table for all orders)."""
    return Counter(
        gram for n in range(min_order, max_order + 1) for gram in zip(*(words[i:] for i in range(n)), strict=False)
    )


def matched_ngrams(
    outs: Sequence[Tokens],
    refs: Sequence[Tokens],
    min_order: int = 1,
    max_order: int = 4,
    ref_tables: Sequence[Counter] | None = None,
) -> tuple[Counter, list[Counter]]:
    """compare-mt's ``match`` counts of one system (clipped n-gram matches, n = min..max order), in
    total and per segment (for the example links).

    Examples
    --------
    >>> total, per_segment = matched_ngrams([["a", "b", "a"]], [["a", "b"]], max_order=2)
    >>> sorted(total.items())
    [(('a',), 1), (('a', 'b'), 1), (('b',), 1)]
    """
    if ref_tables is None:
        ref_tables = [ngram_table(ref, min_order, max_order) for ref in refs]
    total: Counter = Counter()
    per_segment = []
    for out, ref_table in zip(outs, ref_tables, strict=True):
        matched = ngram_table(out, min_order, max_order) & ref_table
        per_segment.append(matched)
        total.update(matched)
    return total, per_segment


def salient_ngrams(
    first: Counter, second: Counter, alpha: float = 1.0, top: int | None = None, lowest: bool = False
) -> list[tuple[tuple[str, ...], float]]:
    """compare-mt's salient-feature scores ``(c1 + alpha) / (c1 + c2 + 2 alpha)``, highest first
    (``lowest``: lowest first); ``top`` keeps only that many.

    compare-mt breaks ties in ``set`` order (varies between runs); here ties are ordered by the
    n-gram's count in ``first`` (highest first; with ``lowest``, in ``second``) and then by the n-gram.
    """
    import heapq

    items = []
    for gram in first.keys() | second.keys():
        c1, c2 = first.get(gram, 0), second.get(gram, 0)
        score = (c1 + alpha) / (c1 + c2 + 2 * alpha)
        items.append((score, -c2, gram) if lowest else (-score, -c1, gram))
    chosen = heapq.nsmallest(top, items) if top is not None else sorted(items)
    return [(gram, key if lowest else -key) for key, _, gram in chosen]
