"""CharCut (Lardilleux and Lepage, IWSLT 2017), exactly as the ``charcut`` package 1.1.1 scores it.

CharCut compares a hypothesis (candidate) and its reference as character strings (each stripped of surrounding
whitespace, as the package reads its files):

1. **Common substrings.** Every substring common to both sides is listed: word-based ones (sequences of words and
   single non-word characters, any length for a common prefix or suffix of the segments, else at least
   ``match_size`` characters) and character-based ones inside word chunks (a word with the non-word runs around
   it, starting in the leading run or the word, at least ``match_size`` characters). For a substring found both
   ways the character-based occurrences count.
2. **Greedy matching.** Substrings are taken longest first (then: unequal occurrence counts first, fewer
   occurrences first, earlier candidate positions first); each is matched at its first candidate and reference
   occurrences whose characters are still uncovered, as often as it still fits. Uncovered characters are
   deletions (candidate) and insertions (reference).
3. **Shifts.** Matches outside the longest common sequence of matched characters (``difflib``'s matching
   blocks, as the package) are shifts; a shift whose distance to the nearest crossing regular match exceeds
   ``e ** len`` becomes a deletion plus an insertion; a shift of distance 0 counts as a match.

The cost is deleted + inserted + shifted characters, bounded by the divisor ``len(candidate) + len(reference)``
(``alt_norm``: ``2 * len(candidate)``). A segment's score is cost / divisor (0 when the divisor is 0); the corpus
CharCut is the sum of costs over the sum of divisors (rows ``(cost, divisor)`` merge by sum). Lower is better,
0-1. One reference per segment (the package compares one pair of files).

The greedy matching keeps the package's order and choices but walks its sorted list once (a substring that no
longer fits is dropped for good, as the package's repeated filtering drops it), instead of filtering the whole
list after every match.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import validate_text

_SCHEMA = StatsSchema.of("cost", "divisor")
_NON_WORD = re.compile(r"(\W)")
_WORD = re.compile(r"(\w+)")

#: a common substring: its text, its start positions in the candidate and in the reference
Match = tuple[str, list[int], list[int]]


def _common(
    seq1: Sequence[Any],
    seq2: Sequence[Any],
    starts1: list[int],
    starts2: list[int],
    min_size: int,
    fixes: bool,
    found: dict[str, tuple[list[int], list[int]]],
) -> None:
    """Add to ``found`` every token sequence common to ``seq1`` and ``seq2`` starting at the given starts, with
    all its start positions on both sides (the package's ``iter_common_substrings`` yield rules)."""
    n1, n2 = len(seq1), len(seq2)
    pending = [(starts1, starts2, 0)]
    while pending:
        pos1, pos2, offset = pending.pop()
        groups1: dict[Any, list[int]] = {}
        for p in pos1:
            if p + offset < n1:
                groups1.setdefault(seq1[p + offset], []).append(p)
        groups2: dict[Any, list[int]] = {}
        for p in pos2:
            if p + offset < n2:
                groups2.setdefault(seq2[p + offset], []).append(p)
        for token, same1 in groups1.items():
            same2 = groups2.get(token)
            if not same2:
                continue
            first = same1[0]
            text = "".join(seq1[first : first + offset + 1])
            if len(text) >= min_size:
                found[text] = (same1, same2)
            elif fixes and same1[0] == 0 and same2[0] == 0:  # common prefix
                found[text] = ([0], [0])
            elif fixes and n1 - 1 - offset in same1 and n2 - 1 - offset in same2:  # common suffix
                found[text] = ([n1 - 1 - offset], [n2 - 1 - offset])
            pending.append((same1, same2, offset + 1))


def _word_tokens(text: str) -> tuple[list[str], list[int]]:
    """Words and single non-word characters, with their character offsets."""
    tokens = [t for t in _NON_WORD.split(text) if t]
    offsets = []
    position = 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    return tokens, offsets


def _char_chunks(text: str, sign: int) -> tuple[list[Any], list[int], list[int]]:
    """Characters of each word chunk (leading non-word run, word, trailing run), chunks separated by a unique
    token; their original offsets, and the indices where a match may start (not in a trailing run)."""
    parts = _WORD.split(text)
    if len(parts) == 1:
        parts = ["", parts[0], ""]
    offsets = [0]
    for part in parts[:-1]:
        offsets.append(offsets[-1] + len(part))
    chars: list[Any] = []
    origin: list[int] = []
    starts: list[int] = []
    for i in range(0, len(parts) - 2, 2):
        if i:
            chars.append(i * sign)  # differs on the two sides: no match spans two chunks
            origin.append(-1)
        for j in (i, i + 1, i + 2):
            for k, char in enumerate(parts[j]):
                if j != i + 2:
                    starts.append(len(chars))
                chars.append(char)
                origin.append(offsets[j] + k)
    return chars, origin, starts


def common_substrings(cand: str, ref: str, min_size: int) -> list[Match]:
    """Every common substring with its occurrences (character offsets), in the package's order.

    Examples
    --------
    >>> [m[0] for m in common_substrings("the cat", "a cat", 3)]
    [' cat', ' ca', 'cat']
    """
    found: dict[str, tuple[list[int], list[int]]] = {}
    words1, off1 = _word_tokens(cand)
    words2, off2 = _word_tokens(ref)
    by_words: dict[str, tuple[list[int], list[int]]] = {}
    _common(words1, words2, list(range(len(words1))), list(range(len(words2))), min_size, True, by_words)
    for text, (p1, p2) in by_words.items():
        found[text] = ([off1[i] for i in p1], [off2[i] for i in p2])
    chars1, origin1, starts1 = _char_chunks(cand, 1) if cand else ([], [], [])
    chars2, origin2, starts2 = _char_chunks(ref, -1) if ref else ([], [], [])
    by_chars: dict[str, tuple[list[int], list[int]]] = {}
    _common(chars1, chars2, starts1, starts2, min_size, False, by_chars)
    for text, (p1, p2) in by_chars.items():
        found[text] = ([origin1[i] for i in p1], [origin2[i] for i in p2])
    matches = [(text, p1, p2) for text, (p1, p2) in found.items()]
    matches.sort(key=lambda m: (-len(m[0]), len(m[1]) == len(m[2]), len(m[1]) + len(m[2]), m[1]))
    return matches


def greedy_matches(cand: str, ref: str, min_size: int) -> tuple[list[tuple[int, int, str]], bytearray, bytearray]:
    """The matches the package retains, in its order, and the masks of uncovered characters (1: uncovered)."""
    free1 = bytearray(b"\x01" * len(cand))
    free2 = bytearray(b"\x01" * len(ref))
    kept: list[tuple[int, int, str]] = []
    for text, pos1, pos2 in common_substrings(cand, ref, min_size):
        size = len(text)
        while True:
            i = next((p for p in pos1 if 0 not in free1[p : p + size]), None)
            if i is None:
                break
            j = next((p for p in pos2 if 0 not in free2[p : p + size]), None)
            if j is None:
                break
            kept.append((i, j, text))
            free1[i : i + size] = bytes(size)
            free2[j : j + size] = bytes(size)
    return kept, free1, free2


def _regular(kept: list[tuple[int, int, str]]) -> set[tuple[int, int, str]]:
    """The matches in ``difflib``'s matching blocks of the matched characters in candidate vs reference order."""
    by_cand = sorted(kept)
    by_ref = sorted(by_cand, key=lambda m: m[1])
    chars1 = [(m, i) for m in by_cand for i in range(len(m[2]))]
    chars2 = [(m, i) for m in by_ref for i in range(len(m[2]))]
    blocks = difflib.SequenceMatcher(None, chars1, chars2, autojunk=False).get_matching_blocks()
    return {m for a, _, size in blocks for m, _ in chars1[a : a + size]}


def _shift_distance(shift: tuple[int, int, str], regular: set[tuple[int, int, str]]) -> int:
    crossing = sorted(m for m in regular if (m[0] - shift[0]) * (m[1] - shift[1]) < 0)
    if crossing[0][0] < shift[0]:
        return crossing[0][0] - shift[0]
    return crossing[-1][0] + len(crossing[-1][2]) - (shift[0] + len(shift[2]))


def pair_cost(cand: str, ref: str, *, match_size: int = 3, alt_norm: bool = False) -> tuple[int, int]:
    """``(bounded cost, divisor)`` of one stripped candidate/reference pair (the package's ``score_pair``).

    Examples
    --------
    >>> pair_cost("the cat sat on the mat", "the cat is on the mat")
    (5, 43)
    """
    kept, free1, free2 = greedy_matches(cand, ref, match_size)
    cost = sum(free1) + sum(free2)
    regular = _regular(kept) if kept else set()
    for match in kept:
        if match in regular:
            continue
        distance = _shift_distance(match, regular)
        size = len(match[2])
        if size > 709 or math.exp(size) >= abs(distance):  # e ** 710 overflows: any distance fits
            cost += size if distance else 0
        else:  # too far: a deletion plus an insertion
            cost += 2 * size
    divisor = 2 * len(cand) if alt_norm else len(cand) + len(ref)
    return min(cost, divisor), divisor


@dataclass(frozen=True)
class CharCut(CorpusMetric):
    """CharCut as the ``charcut`` package (see :func:`charcut`).

    Examples
    --------
    >>> s = CharCut()(["the cat sat on the mat"], ["the cat is on the mat"])
    >>> s.score, dict(s.components)  # charcut.calculate_charcut: 0.11627906976744186
    (0.11627906976744186, {'cost': 5, 'divisor': 43})
    """

    match_size: int = 3
    alt_norm: bool = False

    name: ClassVar[str] = "charcut"

    def __post_init__(self) -> None:
        if isinstance(self.match_size, bool) or not isinstance(self.match_size, int) or self.match_size < 1:
            raise ValueError(f"match_size must be an int >= 1; got {self.match_size!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``cost`` (bounded) and ``divisor`` per segment (integers)."""
        hyps, refs = validate_text(hypotheses, references)
        rows = np.zeros((len(hyps), 2), dtype=np.int64)
        for k, (hyp, seg) in enumerate(zip(hyps, refs, strict=True)):
            if len(seg) != 1:
                raise InputError(
                    f"has {len(seg)} references; CharCut compares one reference per segment",
                    segment=k,
                    side="references",
                )
            rows[k] = pair_cost(hyp.strip(), seg[0].strip(), match_size=self.match_size, alt_norm=self.alt_norm)
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], 0.0)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"cost": int(totals[0]), "divisor": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            nrefs=1, match_size=self.match_size, norm="cand" if self.alt_norm else "both", flavor="charcut"
        )


def charcut(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    match_size: int = 3,
    alt_norm: bool = False,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """CharCut of ``hypotheses`` against ``references`` (the ``charcut`` package's ``calculate_charcut``).

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment (stripped of surrounding whitespace, as the package reads its files).
    references : sequence of str
        One reference per segment.
    match_size : int
        Shortest common substring matched, in characters (the package's ``match_size``, 3).
    alt_norm : bool
        Divide by twice the candidate's length instead of both lengths.
    segments : bool
        Also return each segment's cost / divisor (the package's plain output).
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score``: summed costs over summed divisors, 0-1, lower is better; ``components``: ``cost``, ``divisor``.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.charcut(["the cat sat on the mat", "a b c"], ["the cat is on the mat", "a b c"], segments=True)
    >>> s.score, s.segments.tolist()  # charcut.calculate_charcut: (0.09433962264150944, 2)
    (0.09433962264150944, [0.11627906976744186, 0.0])
    """
    metric = CharCut(match_size=match_size, alt_norm=alt_norm)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["CharCut", "charcut", "common_substrings", "pair_cost"]
