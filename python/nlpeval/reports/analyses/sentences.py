"""Sentence level: per-system sentence-score distributions and per-pair win/tie/loss with a sign test."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from nlpeval.reports.analyses.sanity import histogram
from nlpeval.reports.model import SentenceScores, SentenceSection, SentenceSplit, WinTieLoss


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact sign test (ties dropped); ``None`` when there is no untied segment.

    Examples
    --------
    >>> round(sign_test(9, 1), 6)
    0.021484
    """
    n = wins + losses
    if n == 0:
        return None
    smaller = min(wins, losses)
    if 2 * smaller == n:
        return 1.0
    if n <= 400:
        # exact: 2 * P(X <= smaller) for X ~ Binomial(n, 1/2), summed in integers
        term = total = 1
        for k in range(smaller):
            term = term * (n - k) // (k + 1)
            total += term
        return min(1.0, total / (1 << (n - 1)))
    # log pmf terms from the ratios C(n, i+1) / C(n, i) (relative error of p below 1e-10)
    i = np.arange(smaller, dtype=np.float64)
    logs = np.concatenate([[0.0], np.cumsum(np.log((n - i) / (i + 1)))]) - (n - 1) * math.log(2.0)
    top = float(logs[-1])
    return min(1.0, math.exp(top) * float(np.sum(np.exp(logs - top))))


def score_edges(values: np.ndarray, bins: int = 20) -> list[float]:
    """Bins over [0, 1] for scores in that range, else over the observed range."""
    finite = values[np.isfinite(values)]
    low = float(finite.min()) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 1.0
    if low >= 0.0 and high <= 1.0:
        low, high = 0.0, 1.0
    if high <= low:
        high = low + 1.0
    return [float(x) for x in np.linspace(low, high, bins + 1)]


def sentence_section(
    systems: Sequence[str],
    segment_scores: Mapping[str, Mapping[str, np.ndarray]],
    higher_is_better: Mapping[str, bool],
) -> SentenceSection:
    """Distributions and pairwise win/tie/loss (``system`` wins when its score is better).

    Examples
    --------
    >>> import numpy as np
    >>> section = sentence_section(["A", "B"], {"m": {"A": np.array([1.0, 0.5]), "B": np.array([0.0, 0.5])}},
    ...                            {"m": True})
    >>> (section.pairs[0].wins, section.pairs[0].ties, section.pairs[0].losses)
    (0, 1, 1)
    """
    scores = []
    pairs = []
    for metric, by_system in segment_scores.items():
        everything = np.concatenate([np.asarray(by_system[s], dtype=np.float64) for s in systems])
        edges = score_edges(everything)
        for s in systems:
            values = np.asarray(by_system[s], dtype=np.float64)
            finite = values[np.isfinite(values)]
            scores.append(
                SentenceScores(
                    metric,
                    s,
                    tuple(_finite_or_none(values)),
                    histogram(finite, edges),
                    float(finite.mean()) if finite.size else None,
                )
            )
        sign = 1.0 if higher_is_better.get(metric, True) else -1.0
        for a, b in combinations(systems, 2):
            delta = sign * (np.asarray(by_system[b], dtype=np.float64) - np.asarray(by_system[a], dtype=np.float64))
            wins, losses = int(np.sum(delta > 0)), int(np.sum(delta < 0))
            ties = len(delta) - wins - losses
            pairs.append(WinTieLoss(metric, b, a, wins, ties, losses, sign_test(wins, losses)))
    return SentenceSection(tuple(segment_scores), tuple(scores), tuple(pairs))


def _finite_or_none(values: np.ndarray) -> list[float | None]:
    """The values as Python floats, ``None`` where not finite (NaN, inf)."""
    out: list[float | None] = values.tolist()
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        out[i] = None
    return out


def lsum_sentences(
    splitter: str, references: Sequence[str], hypotheses_by_system: Mapping[str, Sequence[str]]
) -> tuple[tuple[SentenceSplit, ...], tuple[str, ...], int | None]:
    """How ``rougeLsum`` splits the summaries with ``splitter`` (``newline``, ``simple``, ``nltk``): per
    side the sentence counts, and the sentences of the first reference cut in several (else the first).

    Examples
    --------
    >>> splits, example, at = lsum_sentences("simple", ["One. Two.", "Three"], {"A": ["One two.", ""]})
    >>> [(s.side, s.sentences, s.multi_sentence) for s in splits], example, at
    ([('reference', 3, 1), ('A', 1, 0)], ('One.', 'Two.'), 0)
    """
    from nlpeval.metrics.rouge.splitters import resolve_splitter

    split = resolve_splitter(splitter) or (lambda text: text.split("\n"))

    def sentences(text: str) -> list[str]:
        return [piece for piece in split(text) if piece.strip()]

    ref_sentences = [sentences(r) for r in references]
    splits = [
        SentenceSplit(
            "reference", len(references), sum(map(len, ref_sentences)), sum(len(x) > 1 for x in ref_sentences)
        )
    ]
    for system, hyps in hypotheses_by_system.items():
        counts = [len(sentences(h)) for h in hyps]
        splits.append(SentenceSplit(system, len(hyps), sum(counts), sum(c > 1 for c in counts)))
    at = next((i for i, x in enumerate(ref_sentences) if len(x) > 1), 0 if references else None)
    return tuple(splits), tuple(ref_sentences[at]) if at is not None else (), at


_OP_CODES = {"equal": "=", "substitute": "S", "delete": "D", "insert": "I"}


def word_alignments(
    metric: Any, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
) -> list[tuple[str, int]]:
    """jiwer's word alignment of each segment under ``metric``'s normalisation (an edit-rate metric
    of the WER family), as ``(ops, reference index)`` with one character per aligned position
    (``=`` equal, ``S`` substitution, ``D`` deletion, ``I`` insertion).

    Examples
    --------
    >>> from nlpeval.metrics.wer.metric import make_edit_metric
    >>> word_alignments(make_edit_metric("wer"), ["cat sat on a mat"], [["the cat sat on the"]])
    [('D===IS', 0)]
    """
    from nlpeval.metrics.wer import edit_alignment

    result = edit_alignment(
        list(hypotheses),
        [list(group) for group in references],
        unit="word",
        lowercase=metric.lowercase,
        remove_punctuation=metric.remove_punctuation,
        nfkc=metric.nfkc,
        whitespace=metric.whitespace,
        split_unspaced=metric.split_unspaced,
    )
    return [("".join(_OP_CODES[op] for op in segment.ops), segment.reference_index) for segment in result.segments]
