"""CharacTER (Wang et al., 2016), character-level TER, exactly as the ``cer`` package 1.2 (and HF evaluate's
``character`` metric, which calls it) computes it.

Words are ``str.split()`` tokens. Word blocks of the hypothesis are shifted greedily, as TER does but with
CharacTER's rules: every block that occurs at another position of the reference (the longest run from each
matching word pair whose positions differ) is a candidate, moved to the reference's position; the candidate
that lowers the word-level edit distance (normalised by the reference's word count) most is applied, ties
going to the largest shifted word list in Python's order (the package sorts ``(gain, words)`` tuples), until
no candidate helps. The score is then the character-level Levenshtein distance between the shifted
hypothesis and the reference (words joined by one blank), plus a shift cost (the average word length of each
shifted block, found by the package's scan of the shifted words), divided by the hypothesis' length in
characters, capped at 1. A hypothesis keeps its best (lowest) reference; the corpus CharacTER is the mean over
sentences (rows ``(character, 1)`` merge by sum). Lower is better.

The package divides by the reference's word count before anything else, so an empty reference raises
``ZeroDivisionError`` there; nlpeval scores it 1 (0 when the hypothesis is empty too).

Implementation: all hypothesis-reference pairs advance together; each round lists every pair's candidates,
measures all of them in one call of rapidfuzz's ``cpdist`` (words coded as one character each, so a word
sequence is a string), and applies each pair's best shift.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, validate_text
from nlpeval.metrics.best_reference import BestReferenceMean, best_reference_stats

_SCHEMA = StatsSchema.of("character_sum", "segments", nrefs_min="min", nrefs_max="max")
#: words are coded as code points from here on (no whitespace, no surrogates: plane 1 onwards)
_CODE_BASE = 0x10000


def _distances(left: list[str], right: list[str]) -> np.ndarray:
    """Levenshtein distances of the pairs ``(left[i], right[i])`` (code points), in one rapidfuzz call."""
    try:
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cpdist
    except ImportError as exc:  # pragma: no cover - rapidfuzz is in the character extra
        raise ImportError("CharacTER needs rapidfuzz: pip install 'nlpeval[character]'") from exc
    if not left:
        return np.empty(0, dtype=np.int64)
    return np.asarray(cpdist(left, right, scorer=Levenshtein.distance, workers=1), dtype=np.int64)


def _candidates(hyp: str, ref: str, positions: dict[str, list[int]]) -> list[tuple[int, int, int]]:
    """The package's ``couple_discoverer``: ``(hyp_start, ref_start, length)`` for every pair of equal words at
    different positions, with the length of the run of equal words from there."""
    out = []
    n_hyp, n_ref = len(hyp), len(ref)
    for start_h, word in enumerate(hyp):
        for start_r in positions.get(word, ()):
            if start_h == start_r:
                continue
            length = 1
            while (
                start_h + length < n_hyp and start_r + length < n_ref and hyp[start_h + length] == ref[start_r + length]
            ):
                length += 1
            out.append((start_h, start_r, length))
    return out


def _shift(hyp: str, start_h: int, start_r: int, length: int) -> str:
    """The block ``hyp[start_h:start_h + length]`` taken out and put back at ``start_r`` (list slice semantics)."""
    rest = hyp[:start_h] + hyp[start_h + length :]
    return rest[:start_r] + hyp[start_h : start_h + length] + rest[start_r:]


def shift_cost(shifted: Sequence[str], original: Sequence[str]) -> float:
    """The package's shift cost of ``shifted`` (a permutation of ``original``, words): for each position where
    they differ, the average length of the run of ``original``'s words found again further on in ``shifted``
    (the scan then skips the run's words).

    Examples
    --------
    >>> shift_cost(["b", "cc", "a"], ["a", "b", "cc"])  # cer.cer._shift_cost: 1.0
    1.0
    """
    cost = 0.0
    size = len(shifted)
    position = 0
    while position < size:
        if original[position] == shifted[position]:
            position += 1
            continue
        anchor = position
        average = 0.0
        for found in range(position + 1, size):
            if original[anchor] != shifted[found]:
                continue
            length = 1
            for step in range(1, len(original) - anchor):
                if found + step < size and original[anchor + step] == shifted[found + step]:
                    length += 1
                    if position + 1 < len(original):
                        position += 1
                else:
                    break
            average = sum(len(original[anchor + k]) for k in range(length)) / length
            break
        cost += average
        position += 1
    return cost


def character_pairs(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> np.ndarray:
    """CharacTER of each (hypothesis words, reference words) pair, as ``cer.calculate_cer``.

    Examples
    --------
    >>> character_pairs([["the", "cat", "sat"]], [["cat", "the", "sat"]]).tolist()  # calculate_cer: same
    [0.2727272727272727]
    """
    n = len(hyps)
    out = np.empty(n, dtype=np.float64)
    vocabulary = {w: chr(_CODE_BASE + i) for i, w in enumerate(dict.fromkeys(w for seq in (*hyps, *refs) for w in seq))}
    current = ["".join(map(vocabulary.__getitem__, h)) for h in hyps]
    targets = ["".join(map(vocabulary.__getitem__, r)) for r in refs]
    words_of = {c: w for w, c in vocabulary.items()}
    pre = np.zeros(n, dtype=np.float64)
    active: list[int] = []
    first = _distances(current, targets)
    for k in range(n):
        if not refs[k]:
            out[k] = 1.0 if hyps[k] else 0.0
            continue
        pre[k] = first[k] / len(refs[k])
        if pre[k] == 0:
            out[k] = 0.0
        else:
            active.append(k)
    finishing = list(active)
    positions = {}
    for k in active:
        table: dict[str, list[int]] = {}
        for index, word in enumerate(targets[k]):
            table.setdefault(word, []).append(index)
        positions[k] = table
    while active:
        shifted: list[str] = []
        owners: list[int] = []
        bounds = []
        for k in active:
            start = len(shifted)
            for start_h, start_r, length in _candidates(current[k], targets[k], positions[k]):
                shifted.append(_shift(current[k], start_h, start_r, length))
            owners.extend([k] * (len(shifted) - start))
            bounds.append((k, start, len(shifted)))
        owner = np.asarray(owners, dtype=np.int64)
        lengths = np.fromiter((len(refs[k]) for k in owners), dtype=np.float64, count=len(owners))
        gains = pre[owner] - _distances(shifted, [targets[k] for k in owners]) / lengths
        still = []
        for k, start, stop in bounds:
            if start == stop:
                continue
            block = gains[start:stop]
            best = block.max()
            if not best > 0:
                continue
            tied = np.flatnonzero(block == best)
            if tied.shape[0] == 1:
                choice = shifted[start + int(tied[0])]
            else:  # the package sorts (gain, words) tuples: the largest word list wins a tie
                choice = max((shifted[start + int(i)] for i in tied), key=lambda s: [words_of[c] for c in s])
            current[k] = choice
            pre[k] = pre[k] - best
            still.append(k)
        active = still
    if finishing:
        joined = [" ".join(words_of[c] for c in current[k]) for k in finishing]
        char_dist = _distances(joined, [" ".join(refs[k]) for k in finishing])
        for k, text, dist in zip(finishing, joined, char_dist.tolist(), strict=True):
            if not text:
                out[k] = 1.0
                continue
            cost = dist + shift_cost([words_of[c] for c in current[k]], hyps[k])
            out[k] = min(1.0, cost / len(text))
    return out


@dataclass(frozen=True)
class CharacTER(BestReferenceMean):
    """CharacTER as the ``cer`` package (see :func:`character`).

    Examples
    --------
    >>> s = CharacTER()(["this week the saudis denied information published in the new york times"],
    ...                 ["saudi arabia denied this week information published in the american new york times"])
    >>> s.score  # evaluate's docstring: {'cer_score': 0.36619718309859156}
    0.36619718309859156
    """

    name: ClassVar[str] = "character"

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``character_sum`` (the sentence CharacTER against its best reference), ``segments`` (1)
        and the reference counts."""
        hyps, refs = validate_text(hypotheses, references)
        counts = reference_counts(refs)
        pair_hyps = [h.split() for h, k in zip(hyps, counts.tolist(), strict=True) for _ in range(k)]
        pair_refs = [r.split() for seg in refs for r in seg]
        return best_reference_stats(_SCHEMA, character_pairs(pair_hyps, pair_refs), counts)

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(nrefs=self.nrefs(totals), tok="whitespace", flavor="cer")


def character(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """CharacTER of ``hypotheses`` against ``references`` (the ``cer`` package; evaluate's ``character``).

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment (words: ``str.split()``).
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the best one counts).
    segments : bool
        Also return each sentence's CharacTER (``cer.calculate_cer``).
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score``: the mean sentence CharacTER (evaluate's ``aggregate="mean"``), 0-1, lower is better.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.character(["this week the saudis denied information published in the new york times",
    ...                        "this is in fact an estimate"],
    ...                       ["saudi arabia denied this week information published in the american new york times",
    ...                        "this is actually an estimate"], segments=True)
    >>> s.segments.tolist()  # evaluate: [0.36619718309859156, 0.25925925925925924]
    [0.36619718309859156, 0.25925925925925924]
    """
    metric = CharacTER()
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["CharacTER", "character", "character_pairs", "shift_cost"]
