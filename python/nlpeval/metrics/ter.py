"""TER, translation edit rate (Snover et al., 2006), exactly as sacreBLEU 2.x computes it.

TER counts the word insertions, deletions, substitutions and block shifts that
turn a hypothesis into its closest reference, relative to the reference length.
The greedy shift search (sacreBLEU's Tercom re-implementation: beam-limited
edit distance, at most 10-word blocks moved at most 50 positions, at most 1,000
evaluated shift candidates per sentence pair) runs in the native core.

Worst case: those limits keep the search's time close to linear in a pair's length,
but with a large constant (up to 1,000 shift evaluations, each over a band of the
edit-distance matrix), and the band widens with the ratio of the lengths. A pair
whose word counts multiply to more than ``max_cells`` (default 10 billion, e.g.
100,000 words a side: seconds) is refused with an
:class:`~nlpeval.core.errors.InputError` naming the segment, before any work
(see :mod:`nlpeval.metrics.wer.bound`); ``max_cells=None`` lifts the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, unicode_checked, validate_text
from nlpeval.metrics.wer.bound import MAX_CELLS, check_max_cells, whitespace_word_count
from nlpeval.tokenizers.tercom import tercom_reference_tokenizer, tercom_tokenizer

_SCHEMA = StatsSchema.of("num_edits", "ref_length", nrefs_min="min", nrefs_max="max")


def ter_values(num_edits: np.ndarray, ref_length: np.ndarray) -> np.ndarray:
    """TER (0–1 scale, may exceed 1) of edit counts and (average) reference lengths.

    As sacreBLEU: ``num_edits / ref_length``; with an empty reference, 1 if
    there are edits (the hypothesis is not empty) and 0 otherwise.

    Examples
    --------
    >>> ter_values(np.array([2.0, 3.0, 0.0]), np.array([4.0, 0.0, 0.0])).tolist()
    [0.5, 1.0, 0.0]
    """
    num_edits = np.asarray(num_edits, dtype=np.float64)
    ref_length = np.asarray(ref_length, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num_edits / ref_length
    return np.where(ref_length > 0, ratio, np.where(num_edits > 0, 1.0, 0.0))


@dataclass(frozen=True)
class TER(CorpusMetric):
    """TER exactly as sacreBLEU 2.x ``TER``.

    Each segment contributes the fewest edits over its references and the
    average length of its references; the corpus TER is total edits over total
    average reference length. A score of 0 is a perfect match; TER can exceed 1.
    As in sacreBLEU, references go through the Tercom tokenizer twice (this
    only makes a difference with ``normalized=True``).

    Parameters
    ----------
    normalized : bool
        Tercom normalization: split punctuation, decode ``&quot;``-style entities,
        join hyphenated line breaks (and split CJK characters with ``asian_support``).
    no_punct : bool
        Remove punctuation (also CJK and full-width punctuation with ``asian_support``).
    asian_support : bool
        Extend ``normalized`` / ``no_punct`` to CJK text; no effect on its own.
    case_sensitive : bool
        Keep case (default: lowercase with Python's ``str.lower()``).
    max_cells : int or None
        Refuse (:class:`~nlpeval.core.errors.InputError`) a hypothesis-reference pair whose
        word counts multiply to more than this; ``None``: no bound. Never changes a value.

    Examples
    --------
    >>> metric = TER()
    >>> score = metric(["the cat sat on the mat"], ["The cat sat on a mat"])
    >>> round(score.score, 4), score.components["num_edits"]
    (0.1667, 1)
    """

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False
    max_cells: int | None = MAX_CELLS

    name: ClassVar[str] = "ter"
    flavor: ClassVar[str] = "sacrebleu"

    @property
    def _options(self) -> dict[str, bool]:
        return {
            "normalized": self.normalized,
            "no_punct": self.no_punct,
            "asian_support": self.asian_support,
            "case_sensitive": self.case_sensitive,
        }

    @cached_property
    def _tokenizers(self) -> tuple[Callable[[str], str], Callable[[str], str]]:
        # sacreBLEU tokenizes references twice (see nlpeval.tokenizers.tercom)
        return tercom_tokenizer(**self._options), tercom_reference_tokenizer(**self._options)

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``num_edits`` (fewest over the references), ``ref_length`` (their
        average length), ``nrefs_min`` and ``nrefs_max``, as float64."""
        hyps, refs = validate_text(hypotheses, references)
        hyp_tok, ref_tok = self._tokenizers
        with unicode_checked(hyps, refs):
            hyp_words, ref_words = [hyp_tok(h) for h in hyps], [[ref_tok(r) for r in seg] for seg in refs]
            check_max_cells(hyp_words, ref_words, self.max_cells, whitespace_word_count, unit="word", metric="TER")
            native = _native.ter_stats(hyp_words, ref_words)
        counts = reference_counts(refs)
        rows = np.empty((len(hyps), _SCHEMA.width), dtype=np.float64)
        rows[:, 0] = native[:, 0]
        # sacreBLEU: sum of the reference lengths (ints) / number of references
        rows[:, 1] = native[:, 1] / counts
        rows[:, 2] = counts
        rows[:, 3] = counts
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        return ter_values(totals[..., 0], totals[..., 1])

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"num_edits": int(totals[0]), "ref_length": float(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[2], totals[3]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        return Signature.build(
            nrefs=nrefs,
            case="mixed" if self.case_sensitive else "lc",
            tok="tercom",
            norm=self.normalized,
            punct=not self.no_punct,
            asian=self.asian_support,
            flavor=self.flavor,
        )


def ter(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus TER of ``hypotheses`` against ``references`` (sacreBLEU's ``TER``).

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the count
        may vary per segment).
    normalized, no_punct, asian_support, case_sensitive : bool
        Tercom tokenizer options (see :class:`TER`).
    max_cells : int or None
        Refuse (:class:`~nlpeval.InputError`, naming the segment) a pair whose word counts
        multiply to more than this, default 10 billion (seconds of shift search); ``None``:
        no bound. Never changes a value.
    segments : bool
        Also return sentence TER per segment (``sacrebleu.sentence_ter`` / 100)
        in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale (sacreBLEU prints 100 times it; it may exceed 1);
        ``components`` has ``num_edits`` (total edits) and ``ref_length`` (total
        average reference length).

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.ter(["a b c d", "the cat"], [["c d a b", "x"], "the cat sat"], segments=True)
    >>> s.components["num_edits"], s.components["ref_length"]
    (2, 5.5)
    >>> s.segments.tolist()
    [0.4, 0.3333333333333333]
    >>> s.signature.split("|version")[0]
    'nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|flavor:sacrebleu'
    """
    metric = TER(
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
        max_cells=max_cells,
    )
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["TER", "ter", "ter_values"]
