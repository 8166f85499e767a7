"""RIBES (Isozaki et al., 2010) exactly as NLTK's ``corpus_ribes`` / ``sentence_ribes``.

For each reference, NLTK aligns hypothesis words to reference positions (``word_rank_alignment``):
a word found once on both sides maps to its reference position; an ambiguous word is
disambiguated by the shortest context (right first, then left, growing one word at a time) that
occurs exactly once in both; other words are left out. The score of the alignment is the
normalised Kendall's tau of the positions times ``p1 ** alpha`` (unigram precision: aligned
words / hypothesis words) times ``bp ** beta`` (``min(1, exp(1 - |ref| / |hyp|))``). A segment
keeps its best reference (0 for an empty hypothesis or no reference); the corpus RIBES is the mean
of the segments, so rows of ``(ribes, 1)`` merge by sum.

Each pair is aligned by the native kernel (``src/gen/ribes.rs``: the context n-grams of each length
get exact ids only when a word needs that length, and a word whose two contexts can no longer
match stops early); the NumPy path (:mod:`nlpeval.metrics.nltk_lexical.ribes_align`, the whole
corpus window size by window size) gives the same values and the tests compare the two.
:func:`word_order` and :func:`sentence_value` are the same steps for one pair in plain Python
(hash tables of the context n-grams, Kendall's concordant pairs by insertion into a sorted list).
NLTK refuses sentences longer than 2,000 tokens (``MAX_ALIGNMENT_LEN``); nlpeval scores them.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.metrics.nltk_lexical.tokens import native_sequences

_SCHEMA = StatsSchema.of("ribes_sum", "segments", nrefs_min="min", nrefs_max="max")


class _Grams:
    """Counts and first positions of the n-grams of one sequence, built per length on demand."""

    __slots__ = ("_tables", "tokens")

    def __init__(self, tokens: Sequence[Any]) -> None:
        self.tokens = tokens
        self._tables: dict[int, tuple[Counter[tuple[Any, ...]], dict[tuple[Any, ...], int]]] = {}

    def table(self, size: int) -> tuple[Counter[tuple[Any, ...]], dict[tuple[Any, ...], int]]:
        found = self._tables.get(size)
        if found is None:
            tokens = self.tokens
            grams = [tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]
            first: dict[tuple[Any, ...], int] = {}
            for index, gram in enumerate(grams):
                first.setdefault(gram, index)
            found = self._tables[size] = (Counter(grams), first)
        return found


def word_order(reference: Sequence[Any], hypothesis: Sequence[Any]) -> list[int]:
    """NLTK's ``word_rank_alignment(reference, hypothesis)``.

    Examples
    --------
    >>> word_order("the cat sat on the mat".split(), "on the mat the cat sat".split())
    [3, 4, 5, 0, 1, 2]
    """
    ref_counts = Counter(reference)
    hyp_counts = Counter(hypothesis)
    ref_first: dict[Any, int] = {}
    for index, token in enumerate(reference):
        ref_first.setdefault(token, index)
    hyp_len, ref_len = len(hypothesis), len(reference)
    ref_grams, hyp_grams = _Grams(reference), _Grams(hypothesis)
    worder: list[int] = []
    for i, word in enumerate(hypothesis):
        in_ref = ref_counts.get(word, 0)
        if not in_ref:
            continue
        if in_ref == 1 and hyp_counts[word] == 1:
            worder.append(ref_first[word])
            continue
        for window in range(1, min(max(i, hyp_len - i + 1), ref_len)):
            if i + window < hyp_len:  # the right context
                gram = tuple(hypothesis[i : i + window + 1])
                counts, first = ref_grams.table(window + 1)
                if counts.get(gram, 0) == 1 and hyp_grams.table(window + 1)[0][gram] == 1:
                    worder.append(first[gram])
                    break
            if window <= i:  # the left context
                gram = tuple(hypothesis[i - window : i + 1])
                counts, first = ref_grams.table(window + 1)
                if counts.get(gram, 0) == 1 and hyp_grams.table(window + 1)[0][gram] == 1:
                    worder.append(first[gram] + window)
                    break
    return worder


def kendall_tau(worder: Sequence[int]) -> float:
    """NLTK's normalised ``kendall_tau``: ``(2 * increasing / C(k, 2) - 1 + 1) / 2``, 0 below 2 items.

    Examples
    --------
    >>> kendall_tau([0, 2, 1, 3])
    0.8333333333333334
    """
    size = len(worder)
    if size < 2:
        return 0.0
    seen: list[int] = []
    increasing = 0
    for value in worder:  # earlier items smaller than this one
        increasing += bisect.bisect_left(seen, value)
        bisect.insort(seen, value)
    tau = 2 * increasing / (size * (size - 1) // 2) - 1
    return (tau + 1) / 2


def sentence_value(references: Sequence[Sequence[Any]], hypothesis: Sequence[Any], alpha: float, beta: float) -> float:
    """NLTK's ``sentence_ribes`` of one segment."""
    if not references or not hypothesis:
        return 0.0
    best = -1.0
    hyp_len = len(hypothesis)
    for reference in references:
        worder = word_order(reference, hypothesis)
        nkt = kendall_tau(worder)
        bp = min(1.0, math.exp(1.0 - len(reference) / hyp_len))
        p1 = len(worder) / hyp_len
        value = nkt * (p1**alpha) * (bp**beta)
        if value > best:
            best = value
    return best


@dataclass(frozen=True)
class RIBES(CorpusMetric):
    """RIBES exactly as NLTK's ``corpus_ribes`` (segments: ``sentence_ribes``).

    Parameters
    ----------
    alpha : float
        Exponent of the unigram precision (NLTK's 0.25).
    beta : float
        Exponent of the brevity penalty (NLTK's 0.10).

    Examples
    --------
    >>> s = RIBES()(["he read the book because he was interested in world history"],
    ...             ["he was interested in world history because he read the book"])
    >>> round(s.score, 6)
    0.381818
    """

    alpha: float = 0.25
    beta: float = 0.10

    name: ClassVar[str] = "ribes"
    flavor: ClassVar[str] = "nltk"

    def __post_init__(self) -> None:
        for option in ("alpha", "beta"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ValueError(f"{option} must be a finite number >= 0; got {value!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Float rows of ``ribes_sum`` (the segment's RIBES), ``segments`` (1), ``nrefs_min``, ``nrefs_max``."""
        hyps, refs, counts, hyp_lens, ref_lens, checked = native_sequences(hypotheses, references)
        rows = np.empty((len(counts), 4), dtype=np.float64)
        if _native.ribes_values is None:  # a core built before src/gen
            from nlpeval.metrics.nltk_lexical.ribes_align import ribes_values
            from nlpeval.metrics.nltk_lexical.tokens import token_lists

            rows[:, 0] = ribes_values(*token_lists(hypotheses, references), float(self.alpha), float(self.beta))
        else:
            with checked:
                rows[:, 0] = _native.ribes_values(
                    hyps, refs, counts, float(self.alpha), float(self.beta), hyp_lens, ref_lens
                )
        rows[:, 1] = 1.0
        rows[:, 2] = counts
        rows[:, 3] = counts
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        count = totals[..., 1]
        return np.where(count > 0, totals[..., 0] / np.where(count > 0, count, 1.0), 0.0)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"segments": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[2], totals[3]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        return Signature.build(nrefs=nrefs, tok="split", alpha=self.alpha, beta=self.beta, flavor=self.flavor)


def ribes(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    alpha: float = 0.25,
    beta: float = 0.10,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus RIBES of ``hypotheses`` against ``references``, as NLTK's ``corpus_ribes``.

    Parameters
    ----------
    hypotheses : sequence of (str or list of str)
        One system output per segment: text (split on whitespace) or a token list.
    references : sequence
        One item per hypothesis: a reference or a list of references (token lists for token-list
        hypotheses, NLTK's layout).
    alpha : float
        Exponent of the unigram precision (0.25).
    beta : float
        Exponent of the brevity penalty (0.10).
    segments : bool
        Also return ``sentence_ribes`` per segment in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale (as NLTK); ``components`` has ``segments``.

    Examples
    --------
    >>> import nlpeval
    >>> hyps = ["It is a guide to action which ensures that the military always obeys the commands of the party"]
    >>> refs = [["It is a guide to action that ensures that the military will forever heed Party commands"]]
    >>> round(nlpeval.ribes(hyps, refs).score, 6)
    0.884158
    """
    metric = RIBES(alpha=alpha, beta=beta)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["RIBES", "kendall_tau", "ribes", "sentence_value", "word_order"]
