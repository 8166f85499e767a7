"""NIST (Doddington, 2002) exactly as NLTK's ``corpus_nist`` / ``sentence_nist``.

Each n-gram of the references gets an information weight ``log2(count(w1..wn-1) / count(w1..wn))``
(for unigrams the numerator is the total number of reference words), counted over the
references of the corpus. For every order ``i = 1..n``, segment and reference, the matched
information is the sum of the weights of the clipped overlap; the reference with the highest
``(precision, information, hypothesis n-grams, reference length)`` (Python's tuple order) counts.
The score sums over the orders the total information over the total hypothesis n-grams, times
``exp(beta * log(ratio) ** 2)`` for a length ratio (hypothesis/reference words, summed over the
orders as NLTK does) below 1, with ``beta = log(0.5) / log(1.5) ** 2``.

**NIST does not decompose per segment**: the information weights come from the whole corpus's
references. Scoring takes two passes: the first counts reference n-grams, the second scores each
segment with those weights; the rows keep the weighted sums, so the corpus score, bootstrap
resampling (with the corpus's weights) and paired tests work from rows. Each row also carries the
segment's ``sentence_nist`` parts (weights from its own references), which give the per-segment
values. Rows of two separate calls do not merge into the joined corpus's score.

Where NLTK divides by zero (no hypothesis n-gram of some order in the corpus, or no reference
word) and raises ``ZeroDivisionError``, ``zero_division`` decides. mteval-v13a's NIST (the Perl
script; it differs from NLTK in its length penalty and its treatment of multiple references) is
not provided: the script is not on PyPI inside a package this project can install.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.zero_division import ZeroDivision, check_zero_division, safe_divide
from nlpeval.metrics.bleu import _pymath
from nlpeval.metrics.ngram_table import NgramTable, ngram_table, unique_inverse
from nlpeval.metrics.nltk_lexical.tokens import native_sequences, token_lists

if TYPE_CHECKING:
    from nlpeval.metrics.two_pass import CorpusPassAccumulator

#: NLTK's length-penalty constant: a ratio of 1.5 ... scores 0.5.
_BETA = math.log(0.5) / math.log(1.5) ** 2
_LOG2 = math.log(2)


def nist_schema(n: int) -> StatsSchema:
    """Row fields for orders ``1..n``."""
    orders = range(1, n + 1)
    return StatsSchema.of(
        "hyp_len",
        *(f"info_{i}" for i in orders),
        *(f"hyp_ngrams_{i}" for i in orders),
        *(f"ref_len_{i}" for i in orders),
        *(f"sentence_info_{i}" for i in orders),
        *(f"sentence_ref_len_{i}" for i in orders),
        nrefs_min="min",
        nrefs_max="max",
    )


def _information(numerator: np.ndarray, frequency: np.ndarray) -> np.ndarray:
    """``math.log(numerator / frequency, 2)`` element-wise, once per distinct pair."""
    width = int(frequency.max()) + 1 if frequency.shape[0] else 1
    distinct, inverse = unique_inverse(numerator.astype(np.int64) * width + frequency)
    ratios = (distinct // width).astype(np.float64) / (distinct % width).astype(np.float64)
    values = _pymath.log(ratios) / _LOG2 if ratios.shape[0] else ratios
    return values[inverse]


def _lookup(keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``queries`` in ``keys`` (any order) and whether each was found."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    if ordered.shape[0] == 0:
        return np.zeros(queries.shape[0], dtype=np.int64), np.zeros(queries.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(ordered, queries), ordered.shape[0] - 1)
    return order[at], ordered[at] == queries


def _best_reference(
    table: NgramTable, weights: Sequence[np.ndarray], segment_of_ref: np.ndarray, counts: np.ndarray, n: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per set of weights, segment and order: the matched information and the length of the best reference.

    The matching of reference and hypothesis n-grams (and NLTK's summation order) is found once
    and serves every set of ``weights``.
    """
    n_seg = counts.shape[0]
    n_refs = int(counts.sum())
    is_ref = table.sequence < n_refs
    segment = np.where(is_ref, segment_of_ref[np.minimum(table.sequence, max(n_refs - 1, 0))], table.sequence - n_refs)
    n_grams = max(table.n_grams, 1)
    hyp_entry = np.flatnonzero(~is_ref)
    ref_entry = np.flatnonzero(is_ref)
    at, found = _lookup(
        segment[hyp_entry] * n_grams + table.gram[hyp_entry], segment[ref_entry] * n_grams + table.gram[ref_entry]
    )
    ref_hit, hyp_hit = ref_entry[found], hyp_entry[at[found]]
    # NLTK sums in the hypothesis' n-gram order: sort by (reference, hypothesis entry); the pairs
    # are distinct (one hypothesis entry per distinct n-gram of a reference), so one key does it
    entries = max(table.sequence.shape[0], 1)
    arrange = np.argsort(table.sequence[ref_hit] * entries + hyp_hit)
    ref_hit, hyp_hit = ref_hit[arrange], hyp_hit[arrange]
    clipped = np.minimum(table.count[ref_hit], table.count[hyp_hit])
    slot = table.sequence[ref_hit] * n + table.order[ref_hit] - 1
    hyp_ngrams = table.ngram_counts()[n_refs:]  # (n_seg, n)
    den = hyp_ngrams[segment_of_ref]
    ref_len = table.lengths[:n_refs]
    first = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    results = []
    for weight in weights:
        info = np.bincount(slot, weights=weight[ref_hit] * clipped, minlength=n_refs * n).reshape(n_refs, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(den > 0, info / np.where(den > 0, den, 1), 0.0)
        best_p = np.full((n_seg, n), -np.inf)
        best_info = np.zeros((n_seg, n))
        best_len = np.full((n_seg, n), -1, dtype=np.int64)
        for k in range(int(counts.max()) if n_seg else 0):  # max() of (precision, info, den, ref_len) tuples
            having = np.flatnonzero(counts > k)
            index = first[having] + k
            p, i, r = precision[index], info[index], ref_len[index][:, None]
            bp, bi, br = best_p[having], best_info[having], best_len[having]
            better = (p > bp) | ((p == bp) & ((i > bi) | ((i == bi) & (r > br))))
            best_p[having] = np.where(better, p, bp)
            best_info[having] = np.where(better, i, bi)
            best_len[having] = np.where(better, r, br)
        results.append((best_info, best_len))
    return results


def nist_rows(hyp_tokens: Sequence[Sequence[Any]], ref_tokens: Sequence[Sequence[Sequence[Any]]], n: int) -> np.ndarray:
    """Rows of :func:`nist_schema` (both passes: corpus weights and each segment's own weights).

    The NumPy implementation; :class:`NIST` takes the native kernel (``_native.nist_rows``, one
    hash table of n-grams instead of sorts), which gives the same rows and which the tests check
    against this function.
    """
    n_seg = len(hyp_tokens)
    counts = np.fromiter(map(len, ref_tokens), dtype=np.int64, count=n_seg)
    n_refs = int(counts.sum())
    flat = [ref for refs in ref_tokens for ref in refs]
    table = ngram_table([*flat, *hyp_tokens], max_order=n)
    segment_of_ref = np.repeat(np.arange(n_seg, dtype=np.int64), counts)
    is_ref = table.sequence < n_refs
    n_grams = max(table.n_grams, 1)
    ref_len = table.lengths[:n_refs]

    # pass 1 (corpus): n-gram frequencies over every reference
    freq = np.bincount(table.gram[is_ref], weights=table.count[is_ref], minlength=n_grams).astype(np.int64)
    total_words = int(ref_len.sum())
    numerator = np.where(table.prefix >= 0, freq[np.maximum(table.prefix, 0)], total_words)
    weight = np.zeros(table.gram.shape[0])
    weight[is_ref] = _information(numerator[is_ref], freq[table.gram[is_ref]])

    # the same per segment (sentence_nist): frequencies over the segment's own references
    segment = segment_of_ref[np.minimum(table.sequence, max(n_refs - 1, 0))]
    ref_idx = np.flatnonzero(is_ref)
    seg_keys = segment[ref_idx] * n_grams + table.gram[ref_idx]
    distinct, inverse = unique_inverse(seg_keys)
    seg_freq = np.bincount(inverse, weights=table.count[ref_idx]).astype(np.int64)
    seg_words = np.bincount(segment_of_ref, weights=ref_len, minlength=n_seg).astype(np.int64)
    prefix = table.prefix[ref_idx]
    at = np.searchsorted(distinct, segment[ref_idx] * n_grams + np.maximum(prefix, 0))
    at = np.minimum(at, max(distinct.shape[0] - 1, 0))
    seg_numerator = np.where(prefix >= 0, seg_freq[at], seg_words[segment[ref_idx]])
    sentence_weight = np.zeros(table.gram.shape[0])
    sentence_weight[ref_idx] = _information(seg_numerator, seg_freq[inverse])

    # pass 2: every segment with the weights
    (info, best_len), (s_info, s_len) = _best_reference(table, (weight, sentence_weight), segment_of_ref, counts, n)
    schema = nist_schema(n)
    rows = np.empty((n_seg, schema.width), dtype=np.float64)
    rows[:, 0] = table.lengths[n_refs:]
    rows[:, 1 : 1 + n] = info
    rows[:, 1 + n : 1 + 2 * n] = table.ngram_counts()[n_refs:]
    rows[:, 1 + 2 * n : 1 + 3 * n] = best_len
    rows[:, 1 + 3 * n : 1 + 4 * n] = s_info
    rows[:, 1 + 4 * n : 1 + 5 * n] = s_len
    rows[:, -2] = counts
    rows[:, -1] = counts
    return rows


@dataclass(frozen=True)
class NIST(CorpusMetric):
    """NIST exactly as NLTK's ``corpus_nist`` (segments: ``sentence_nist``).

    Parameters
    ----------
    n : int
        Largest n-gram order (NLTK's default 5).
    zero_division : {"warn", "raise", 0, 1, nan}
        Where NLTK raises ``ZeroDivisionError`` (an order without hypothesis n-grams, no
        reference words): the value of that precision or length penalty.

    Examples
    --------
    >>> s = NIST()(["the cat sat on the mat today"], ["the cat sat on a mat today"])
    >>> round(s.score, 6)
    2.406304
    """

    n: int = 5
    zero_division: ZeroDivision = "warn"

    name: ClassVar[str] = "nist"
    flavor: ClassVar[str] = "nltk"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a positive int; got {self.n!r}")
        check_zero_division(self.zero_division)

    @cached_property
    def schema(self) -> StatsSchema:
        return nist_schema(self.n)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Float rows: ``hyp_len``, per order the matched information (corpus weights), the
        hypothesis n-grams and the best reference's length, the same with the segment's own
        weights, ``nrefs_min`` and ``nrefs_max`` (both passes over the corpus)."""
        if _native.nist_rows is None:  # a core built before src/gen
            return Stats(self.schema, nist_rows(*token_lists(hypotheses, references), self.n))
        hyps, refs, counts, hyp_lens, ref_lens, checked = native_sequences(hypotheses, references)
        with checked:
            return Stats(self.schema, _native.nist_rows(hyps, refs, counts, self.n, hyp_lens, ref_lens))

    def _value(self, totals: np.ndarray, *, sentence: bool) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        n = self.n
        info = totals[..., 1 + (3 * n if sentence else 0) : 1 + (3 * n if sentence else 0) + n]
        den = totals[..., 1 + n : 1 + 2 * n]
        ref = totals[..., 1 + (4 * n if sentence else 2 * n) : 1 + (4 * n if sentence else 2 * n) + n].sum(axis=-1)
        hyp = totals[..., 0] * n
        precision = safe_divide(info, den, self.zero_division, what="NIST precision (no hypothesis n-gram)")
        total = np.zeros(precision.shape[:-1])
        for i in range(n):  # NLTK adds the orders one after another
            total = total + precision[..., i]
        ratio = safe_divide(hyp, ref, self.zero_division, what="NIST length ratio (no reference word)")
        inside = (ratio > 0) & (ratio < 1)
        logs = _pymath.log(np.where(inside, ratio, 1.0))
        penalty = np.where(inside, _pymath.exp(_BETA * logs**2), np.clip(ratio, 0.0, 1.0))
        return total * penalty

    def check_input(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """Validate one batch (as :meth:`segment_stats` does), naming the offending segment."""
        token_lists(hypotheses, references)
        return list(hypotheses), list(references)

    def accumulator(self, *, keep_segments: bool = False) -> CorpusPassAccumulator:
        """A streaming accumulator that keeps the batches: NIST's weights need the whole corpus."""
        from nlpeval.metrics.two_pass import CorpusPassAccumulator

        return CorpusPassAccumulator(self, keep_segments=keep_segments)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._value(totals, sentence=False)

    def segment_values(self, stats: Stats) -> np.ndarray:
        """``sentence_nist`` of each segment (information weights from its own references)."""
        return np.asarray(self._value(stats.rows, sentence=True), dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        n = self.n
        return {
            "hyp_len": int(totals[0]),
            "information": [float(v) for v in totals[1 : 1 + n]],
            "hyp_ngrams": [int(v) for v in totals[1 + n : 1 + 2 * n]],
        }

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[-2], totals[-1]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        return Signature.build(nrefs=nrefs, tok="split", n=self.n, flavor=self.flavor)


def nist(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    n: int = 5,
    zero_division: ZeroDivision = "warn",
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    flavor: str = "nltk",
    preserve_case: bool = False,
    international: bool = False,
    split_non_ascii: bool = False,
) -> Score:
    """Corpus NIST of ``hypotheses`` against ``references``, as NLTK's ``corpus_nist`` (or mteval-v13a).

    Parameters
    ----------
    hypotheses : sequence of (str or list of str)
        One system output per segment: text (split on whitespace) or a token list.
    references : sequence
        One item per hypothesis: a reference or a list of references (token lists for token-list
        hypotheses, NLTK's layout).
    n : int
        Largest n-gram order (5).
    zero_division : {"warn", "raise", 0, 1, nan}
        Value where NLTK raises ``ZeroDivisionError`` (an order with no hypothesis n-gram, e.g. a
        corpus of 3-word hypotheses with ``n=5``; no reference word); "warn" uses 0 and warns.
    segments : bool
        Also return ``sentence_nist`` per segment in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval (the corpus's information weights stay).
    seed : int or None
        Seed of the bootstrap.
    flavor : {"nltk", "mteval"}
        ``"mteval"``: NIST's own ``mteval-v13a.pl`` (its tokenization, clipping and length penalty; see
        :func:`nlpeval.metrics.nist_mteval.mteval_nist`, which takes text only and no ``zero_division``).
    preserve_case : bool
        ``flavor="mteval"`` only: keep upper case (mteval's ``-c``).
    international : bool
        ``flavor="mteval"`` only: mteval's ``--international-tokenization`` (Unicode punctuation and
        symbols split off; needs regex). NLTK's ``corpus_nist`` has no tokenizer of its own: it takes
        tokens, and the ``nltk`` flavor splits text on whitespace only.
    split_non_ascii : bool
        ``flavor="mteval"`` with ``international`` only: mteval's ``-e`` (each non-ASCII character a word).

    Returns
    -------
    Score
        ``score`` on NIST's own scale (as NLTK prints it); ``components`` has ``hyp_len``,
        ``information`` and ``hyp_ngrams`` per order.

    Examples
    --------
    >>> import nlpeval
    >>> hyps = ["It is a guide to action which ensures that the military always obeys the commands of the party"]
    >>> refs = [["It is a guide to action that ensures that the military will forever heed Party commands"]]
    >>> round(nlpeval.nist(hyps, refs).score, 6)
    2.447712
    >>> round(nlpeval.nist(hyps, refs, flavor="mteval", international=True).score, 4)
    2.6699
    """
    if flavor == "mteval":
        from nlpeval.metrics.nist_mteval import mteval_nist

        if zero_division != "warn":
            raise ValueError("zero_division is NLTK's; mteval-v13a divides by max(count, 1)")
        return mteval_nist(
            hypotheses,
            references,
            n=n,
            preserve_case=preserve_case,
            international=international,
            split_non_ascii=split_non_ascii,
            segments=segments,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    if flavor != "nltk":
        raise ValueError(f"unknown NIST flavor {flavor!r}; choose nltk or mteval")
    if preserve_case:
        raise ValueError("preserve_case is mteval-v13a's -c (flavor='mteval'); NLTK's NIST keeps case")
    for option, value, what in (
        ("international", international, "--international-tokenization"),
        ("split_non_ascii", split_non_ascii, "-e"),
    ):
        if value:
            raise ValueError(
                f"{option} is mteval-v13a's {what} (flavor='mteval'); NLTK's corpus_nist takes tokens "
                "(the nltk flavor splits text on whitespace)"
            )
    metric = NIST(n=n, zero_division=zero_division)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["NIST", "nist", "nist_rows", "nist_schema"]
