"""EED, extended edit distance (Stanchev, Wang and Ney, 2019), exactly as torchmetrics 1.9 computes it.

EED is a character-level edit distance with a *jump*: after each blank of the reference the alignment may
restart anywhere in the hypothesis at cost ``alpha``, which lets whole words move. A coverage penalty
``rho`` counts hypothesis positions visited more than once or never. Per sentence

    EED = min(1, (d + rho * v) / (|ref| + rho * v))

with ``d`` the distance of the dynamic programme (deletion 0.2, insertion and substitution 1) and ``v``
the visit count. A hypothesis keeps its best (lowest) reference; the corpus EED is the mean over sentences
(rows ``(eed, 1)`` merge by sum). Lower is better; 0-1.

Before scoring, sentences are preprocessed as torchmetrics (and the authors' ``util.py``) do: ``language="en"``
separates ``. ! ? ,`` from the preceding word, squeezes whitespace, rejoins decimal numbers, ``Mr.``-style
abbreviations (the pattern's last character is any character, as in the original) and ``e.g.``, ``i.e.``,
``U.S.``, and pads with one blank each side; ``language="ja"`` strips trailing whitespace and applies
NFKC.

The dynamic programme runs on many sentence pairs at once with NumPy: one array column per pair (pairs of
similar hypothesis lengths batched together), one step per reference character, and within a step one
vector operation per hypothesis position for the deletion chain, in the reference loop's order. Every
floating-point operation is the reference's, so the values equal torchmetrics' bit for bit in float64
(torchmetrics returns them as float32 tensors).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, validate_text
from nlpeval.metrics.best_reference import BestReferenceMean, best_reference_stats

#: languages of the preprocessing
EED_LANGUAGES = ("en", "ja")
_SCHEMA = StatsSchema.of("eed_sum", "segments", nrefs_min="min", nrefs_max="max")
_SPACES = re.compile(r"\s+")
_DECIMAL = re.compile(r"(\d) ([.,]) (\d)")
_TITLES = re.compile(r"(Dr|Jr|Prof|Rev|Gen|Mr|Mt|Mrs|Ms) .")
#: pairs per NumPy batch (a batch holds a few float arrays of this many rows by the longest hypothesis)
_BATCH = 256
#: batches smaller than this run the sequential loop pair by pair
_SMALL = 24


def preprocess_en(sentence: str) -> str:
    """The English preprocessing of EED's ``util.py`` (and torchmetrics).

    Examples
    --------
    >>> preprocess_en("Mr. Smith paid 3.50, e.g. today!  ")  # the rules' order splits 3 .50 and e .g .
    ' Mr. Smith paid 3 .50 , e .g . today ! '
    """
    text = sentence.rstrip()
    for mark in ".!?,":
        text = text.replace(mark, " " + mark)
    text = _SPACES.sub(" ", text)
    text = _DECIMAL.sub(r"\1\2\3", text)
    text = _TITLES.sub(r"\1.", text)
    for spaced, joined in (("e . g .", "e.g."), ("i . e .", "i.e."), ("U . S .", "U.S.")):
        text = text.replace(spaced, joined)
    return f" {text} "


def preprocess_ja(sentence: str) -> str:
    """The Japanese preprocessing: strip trailing whitespace, NFKC.

    Examples
    --------
    >>> preprocess_ja("ＡＢＣ１２３ ")
    'ABC123'
    """
    return unicodedata.normalize("NFKC", sentence.rstrip())


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.int32)


def _pair_eed(hyp: str, ref: str, alpha: float, rho: float, deletion: float, insertion: float) -> float:
    """One pair's EED by the sequential loop (for batches too small for vector operations to pay)."""
    width = len(hyp) + 1
    inf = float("inf")
    row = [0.0] + [1.0] * (width - 1)
    visits = [0] * width
    for char in ref:
        new = [inf] * width
        left = new[0] = row[0] + 1.0
        for i in range(1, width):
            left = min(left + deletion, row[i - 1] + (hyp[i - 1] != char), row[i] + insertion)
            new[i] = left
        smallest = min(new)
        best = new.index(smallest)
        visits[best] += 1
        if char == " ":
            jump = alpha + smallest
            new = [x if x < jump else jump for x in new]
        row = new
    distinct = sum(1 for v in visits if v)
    coverage = rho * ((len(ref) - distinct) + (width - distinct))
    return min(1.0, (row[-1] + coverage) / (float(len(ref)) + coverage))


def _batch_eed(
    hyps: list[np.ndarray],
    refs: list[np.ndarray],
    *,
    alpha: float,
    rho: float,
    deletion: float,
    insertion: float,
) -> np.ndarray:
    """EED of each (hypothesis, reference) pair of code arrays; pairs sorted by reference length, longest first.

    Arrays are laid out position by pair (``(len(hyp) + 1, pairs)``) so each step of the deletion chain is
    one vector operation over the pairs."""
    n = len(hyps)
    hyp_len = np.fromiter(map(len, hyps), dtype=np.int64, count=n)
    ref_len = np.fromiter(map(len, refs), dtype=np.int64, count=n)
    width = int(hyp_len.max()) + 1
    hyp_codes = np.full((width - 1, n), -1, dtype=np.int32)
    ref_codes = np.full((max(int(ref_len.max()), 1), n), -2, dtype=np.int32)
    for k in range(n):
        hyp_codes[: hyp_len[k], k] = hyps[k]
        ref_codes[: ref_len[k], k] = refs[k]
    # padded positions (past a pair's hypothesis) are never read by real ones; only argmin must skip them
    penalty = np.where(np.arange(width)[:, None] > hyp_len[None, :], np.inf, 0.0)
    row = np.ones((width, n), dtype=np.float64)
    row[0] = 0.0
    visited = np.zeros((width, n), dtype=bool)
    space = ord(" ")
    nxt = np.empty_like(row)
    scratch = np.empty_like(row)
    differs = np.empty((width - 1, n), dtype=bool)
    chained = np.empty(n, dtype=np.float64)
    for step in range(int(ref_len.max()) if n else 0):
        active = int(np.searchsorted(-ref_len, -(step + 1), side="right"))  # pairs with len(ref) > step
        cur, new, tmp = row[:, :active], nxt[:, :active], scratch[:, :active]
        char = ref_codes[step, :active]
        np.add(cur[0], 1.0, out=new[0])
        np.not_equal(hyp_codes[:, :active], char[None, :], out=differs[:, :active])
        np.add(cur[:-1], differs[:, :active], out=new[1:])
        np.add(cur[1:], insertion, out=tmp[1:])
        np.minimum(new[1:], tmp[1:], out=new[1:])
        # next[i] = min(next[i-1] + deletion, ...), position by position as the reference's loop
        link = chained[:active]
        for i in range(1, width):
            np.add(new[i - 1], deletion, out=link)
            np.minimum(new[i], link, out=new[i])
        np.add(new, penalty[:, :active], out=tmp)
        best = np.argmin(tmp, axis=0)  # the first minimal position, as list.index(min(...))
        columns = np.arange(active)
        visited[best, columns] = True
        jumps = np.flatnonzero(char == space)
        if jumps.shape[0]:
            jump = alpha + new[best[jumps], jumps]
            new[:, jumps] = np.minimum(new[:, jumps], jump[None, :])
        np.copyto(cur, new)
    distinct = visited.sum(axis=0)
    coverage = rho * ((ref_len - distinct) + (hyp_len + 1 - distinct)).astype(np.float64)
    final = row[hyp_len, np.arange(n)]
    return np.minimum(1.0, (final + coverage) / (ref_len.astype(np.float64) + coverage))


def eed_pairs(
    hyps: Sequence[str],
    refs: Sequence[str],
    *,
    alpha: float = 2.0,
    rho: float = 0.3,
    deletion: float = 0.2,
    insertion: float = 1.0,
) -> np.ndarray:
    """EED of each already preprocessed (hypothesis, reference) pair, in batches of similar lengths.

    Examples
    --------
    >>> eed_pairs([" a b "], [" a b "]).tolist()  # position 0 is never visited: coverage 0.3 / 5.3
    [0.05660377358490566]
    """
    n = len(hyps)
    out = np.empty(n, dtype=np.float64)
    if not n:
        return out
    hyp_codes = [_codes(h) for h in hyps]
    ref_codes = [_codes(r) for r in refs]
    hyp_len = np.fromiter(map(len, hyp_codes), dtype=np.int64, count=n)
    ref_len = np.fromiter(map(len, ref_codes), dtype=np.int64, count=n)
    order = np.lexsort((ref_len, hyp_len))  # batches of similar hypothesis lengths
    for start in range(0, n, _BATCH):
        chunk = order[start : start + _BATCH]
        if chunk.shape[0] < _SMALL:
            for k in chunk.tolist():
                out[k] = _pair_eed(hyps[k], refs[k], alpha, rho, deletion, insertion)
            continue
        chunk = chunk[np.argsort(-ref_len[chunk], kind="stable")]
        out[chunk] = _batch_eed(
            [hyp_codes[k] for k in chunk],
            [ref_codes[k] for k in chunk],
            alpha=alpha,
            rho=rho,
            deletion=deletion,
            insertion=insertion,
        )
    return out


@dataclass(frozen=True)
class EED(BestReferenceMean):
    """Extended edit distance as torchmetrics 1.9's ``extended_edit_distance`` (see :func:`eed`).

    Examples
    --------
    >>> s = EED()(["this is the prediction", "here is an other sample"],
    ...           ["this is the reference", "here is another one"])
    >>> round(s.score, 4)  # torchmetrics' docstring: tensor(0.3078)
    0.3078
    """

    language: str = "en"
    alpha: float = 2.0
    rho: float = 0.3
    deletion: float = 0.2
    insertion: float = 1.0

    name: ClassVar[str] = "eed"

    def __post_init__(self) -> None:
        if self.language not in EED_LANGUAGES:
            raise ValueError(f"language must be 'en' or 'ja'; got {self.language!r}")
        for field in ("alpha", "rho", "deletion", "insertion"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or value == np.inf:
                raise ValueError(f"{field} must be a finite number >= 0; got {value!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``eed_sum`` (the sentence EED against its best reference), ``segments`` (1), reference counts."""
        hyps, refs = validate_text(hypotheses, references)
        prep = preprocess_en if self.language == "en" else preprocess_ja
        counts = reference_counts(refs)
        pair_hyps = [prep(h) for h, k in zip(hyps, counts.tolist(), strict=True) for _ in range(k)]
        pair_refs = [prep(r) for seg in refs for r in seg]
        values = eed_pairs(
            pair_hyps,
            pair_refs,
            alpha=float(self.alpha),
            rho=float(self.rho),
            deletion=float(self.deletion),
            insertion=float(self.insertion),
        )
        return best_reference_stats(_SCHEMA, values, counts)

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            nrefs=self.nrefs(totals),
            lang=self.language,
            alpha=self.alpha,
            rho=self.rho,
            deletion=self.deletion,
            insertion=self.insertion,
            flavor="torchmetrics",
        )


def eed(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    language: str = "en",
    alpha: float = 2.0,
    rho: float = 0.3,
    deletion: float = 0.2,
    insertion: float = 1.0,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Extended edit distance of ``hypotheses`` against ``references`` (torchmetrics' ``extended_edit_distance``).

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the best one counts).
    language : {"en", "ja"}
        The preprocessing (see the module's description).
    alpha : float
        Cost of a jump (after a blank of the reference).
    rho : float
        Coverage cost per repeated or missed visit.
    deletion, insertion : float
        Costs of deleting a hypothesis character and of inserting or substituting one.
    segments : bool
        Also return each sentence's EED (torchmetrics' ``return_sentence_level_score``).
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score``: the mean sentence EED, 0-1, lower is better.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.eed(["this is the prediction", "here is an other sample"],
    ...                 ["this is the reference", "here is another one"], segments=True)
    >>> [round(v, 6) for v in s.segments.tolist()]
    [0.383459, 0.232068]
    >>> s.signature.split("|version")[0]
    'nrefs:1|lang:en|alpha:2.0|rho:0.3|deletion:0.2|insertion:1.0|flavor:torchmetrics'
    """
    metric = EED(language=language, alpha=alpha, rho=rho, deletion=deletion, insertion=insertion)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["EED", "eed", "eed_pairs", "preprocess_en", "preprocess_ja"]
