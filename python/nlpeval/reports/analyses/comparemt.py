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
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema

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


@dataclass(frozen=True)
class CompareMtBLEU(CorpusMetric):
    """compare-mt's corpus BLEU on token lists (one reference), as a metric over segment statistics.

    Examples
    --------
    >>> metric = CompareMtBLEU()
    >>> stats = metric.segment_stats([tokenize("a b c d")], [tokenize("a b c d")])
    >>> float(metric.corpus_values(stats.totals()))
    1.0
    """

    max_order: int = 4
    name: ClassVar[str] = "bleu"

    @property
    def schema(self) -> StatsSchema:
        orders = range(1, self.max_order + 1)
        return StatsSchema.of("ref_len", "out_len", *(f"num{n}" for n in orders), *(f"den{n}" for n in orders))

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``ref_len, out_len, num1..k, den1..k`` (each ``den`` at least 1, as compare-mt)."""
        if not len(hypotheses):
            return Stats(self.schema, np.zeros((0, 2 + 2 * self.max_order), dtype=np.int64))
        return self.stats_from_native(native_rows(hypotheses, references, self.max_order))

    def stats_from_native(self, native: np.ndarray) -> Stats:
        """The statistics of :func:`native_rows` (of this metric's ``max_order``)."""
        k = self.max_order
        rows = np.empty((len(native), 2 + 2 * k), dtype=np.int64)
        # native columns: hyp_len, ref_len_closest, ref_len_shortest, correct_1..k, total_1..k
        rows[:, 0], rows[:, 1] = native[:, 1], native[:, 0]
        rows[:, 2 : 2 + k] = native[:, 3 : 3 + k]
        rows[:, 2 + k :] = np.maximum(1, native[:, 3 + k : 3 + 2 * k])
        return Stats(self.schema, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        k = self.max_order
        ref_len, out_len = totals[..., 0], totals[..., 1]
        weight = 1.0 / k
        log_precision = np.zeros(totals.shape[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            for n in range(1, k + 1):
                num, den = totals[..., 1 + n], totals[..., 1 + k + n]
                p = np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0)
                log_precision = log_precision + np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0) * weight
            bp = np.where(
                out_len != 0, np.minimum(1.0, np.exp(1.0 - ref_len / np.where(out_len != 0, out_len, 1.0))), 0.0
            )
        return np.where(totals[..., 2] == 0, 0.0, bp * np.exp(log_precision))

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"ref_len": int(totals[0]), "out_len": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(nrefs=1, tok="space", order=self.max_order, flavor="compare-mt")


def native_rows(outs: Sequence[Any], refs: Sequence[Any], max_order: int = 4) -> np.ndarray:
    """The native BLEU rows (``hyp_len, ref_len, ref_len, correct_1..k, total_1..k``) of token lists
    against one reference each: the counts behind both compare-mt's BLEU and its sentence BLEU.

    Examples
    --------
    >>> native_rows([tokenize("a b c")], [tokenize("a b d")], 2).tolist()
    [[3, 3, 3, 2, 1, 3, 2]]
    """
    from nlpeval import _native

    hyps = [h if type(h) is list else list(h) for h in outs]
    return np.asarray(_native.bleu_stats_tokens(hyps, [[r if type(r) is list else list(r)] for r in refs], max_order))


def native_rows_ids(
    outs: tuple[np.ndarray, np.ndarray], refs: tuple[np.ndarray, np.ndarray], max_order: int = 4
) -> np.ndarray:
    """:func:`native_rows` of token ids: ``(flat ids, segment offsets)`` of the outputs and of the
    references, one reference per segment (the layout of ``ngram_codes.Corpus.sides``). Same rows as
    the token lists they encode, without handing every token to the native core as a Python string.

    Examples
    --------
    >>> import numpy as np
    >>> ids = lambda *seqs: (np.array([i for s in seqs for i in s]), np.cumsum([0, *map(len, seqs)]))
    >>> native_rows_ids(ids([1, 2, 3]), ids([1, 2, 4]), 2).tolist()
    [[3, 3, 3, 2, 1, 3, 2]]
    """
    from nlpeval import _native

    out_ids, out_offsets = outs
    ref_ids, ref_offsets = refs
    ones = np.ones(len(out_offsets) - 1, dtype=np.int64)
    lengths = [np.ascontiguousarray(np.diff(o), dtype=np.int64) for o in (out_offsets, ref_offsets)]
    return np.asarray(
        _native.bleu_stats_flat(
            np.ascontiguousarray(out_ids, dtype=np.int64),
            lengths[0],
            np.ascontiguousarray(ref_ids, dtype=np.int64),
            lengths[1],
            ones,
            max_order,
        )
    )


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
