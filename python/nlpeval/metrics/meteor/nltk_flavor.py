"""METEOR as NLTK computes it (``nltk.translate.meteor_score.meteor_score``).

NLTK lowercases the (whitespace-split) words, then matches greedily in three
stages: exact words, Porter stems, and WordNet synonyms of the stems left over;
each stage takes hypothesis words from the last one backwards and pairs each with
the last unmatched reference word of the same key. The sentence score is
``(1 - gamma * (chunks / matches) ** beta) * P * R / (alpha * P + (1 - alpha) * R)``,
the best over the references. NLTK has no corpus-level METEOR; the corpus value
here is the mean of the sentence scores, as HF ``evaluate`` reports it.

Unlike NLTK, no pair of words is compared twice: each stage is a hash lookup, so
long inputs cost linear time (NLTK's own matching was quadratic before 3.9.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, unicode_checked, validate_text
from nlpeval.core.zero_division import safe_divide
from nlpeval.metrics.meteor.language import warn_unless_english
from nlpeval.metrics.meteor.tokens import split_intern
from nlpeval.metrics.meteor.wordnet import WordNet

_SCHEMA = StatsSchema.of("score", "segments", nrefs_min="min", nrefs_max="max")


class _Lexicon:
    """Porter stems and WordNet synonyms as integer ids, remembered across calls.

    Stems and synonym names share one id space; a word's stem and a stem's
    synonyms are computed once per process (the tables are dropped when large).
    """

    LIMIT = 2_000_000

    def __init__(self, wordnet: WordNet) -> None:
        self.wordnet = wordnet
        self.reset()

    def reset(self) -> None:
        self.ids: dict[str, int] = {}
        self.names: list[str] = []
        self.stem_of: dict[str, int] = {}
        self.synonyms_of: dict[int, np.ndarray] = {}

    def _id(self, name: str) -> int:
        found = self.ids.get(name)
        if found is None:
            found = self.ids[name] = len(self.names)
            self.names.append(name)
        return found

    def stems(self, words: list[str]) -> np.ndarray:
        """Id of the Porter stem of each (lowercased) word."""
        if len(self.names) > self.LIMIT:
            self.reset()
        new = [w for w in words if w not in self.stem_of]
        for word, stem in zip(new, _native.nltk_porter_stems(new), strict=True):
            self.stem_of[word] = self._id(stem)
        return np.fromiter(map(self.stem_of.__getitem__, words), dtype=np.int64, count=len(words))

    def synonyms(self, stem: int) -> np.ndarray:
        """Ids of the synonyms NLTK accepts for a stem (including itself)."""
        found = self.synonyms_of.get(stem)
        if found is None:
            names = self.wordnet.nltk_synonyms(self.names[stem])
            found = self.synonyms_of[stem] = np.array([self._id(n) for n in sorted(names)], dtype=np.int64)
        return found


_LEXICONS: dict[str, _Lexicon] = {}


def _lexicon(wordnet: WordNet) -> _Lexicon:
    key = str(wordnet.root)
    if key not in _LEXICONS or _LEXICONS[key].wordnet is not wordnet:
        _LEXICONS[key] = _Lexicon(wordnet)
    return _LEXICONS[key]


@dataclass(frozen=True)
class NltkMETEOR(CorpusMetric):
    """METEOR exactly as NLTK's ``meteor_score`` computes it, per segment.

    Parameters
    ----------
    alpha, beta, gamma : float
        NLTK's parameters (precision/recall balance, penalty shape and weight).
    wordnet : str, optional
        WordNet 3.0 folder or zip (found automatically when omitted).

    Notes
    -----
    Sentence scores do not decompose; the statistics row of a segment is its
    score, and the corpus value is their mean.

    Examples
    --------
    >>> metric = NltkMETEOR()
    >>> metric.alpha, metric.beta, metric.gamma
    (0.9, 3.0, 0.5)
    >>> round(metric(["the cat sat on the mat"], ["a cat sat on the mat"]).score, 4)  # doctest: +SKIP
    0.83
    """

    alpha: float = 0.9
    beta: float = 3.0
    gamma: float = 0.5
    wordnet: str | None = None

    name: ClassVar[str] = "meteor"
    flavor: ClassVar[str] = "nltk"

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def _wordnet(self) -> WordNet:
        return WordNet.open(self.wordnet)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        hyps, refs = validate_text(hypotheses, references)
        warn_unless_english(refs)
        with unicode_checked(hyps, refs):  # a lone surrogate is an InputError naming the segment
            return self._validated_stats(hyps, refs)

    def _validated_stats(self, hyps: list[str], refs: list[list[str]]) -> Stats:
        wordnet = self._wordnet()
        words = split_intern([*hyps, *(r for seg in refs for r in seg)], java=False, lowercase=True)
        n_hyp_tokens = int(words.lens[: len(hyps)].sum())
        lexicon = _lexicon(wordnet)
        # the batch's stems as local ids (the ref words' stems are matched against hypothesis synonyms)
        stem_ids, stem_of = np.unique(lexicon.stems(words.types), return_inverse=True)
        hyp_keys = np.unique(stem_of[words.ids[:n_hyp_tokens]])
        # synonyms of hypothesis stems only, restricted to the batch's stems
        lists = [lexicon.synonyms(stem) for stem in stem_ids[hyp_keys].tolist()]
        every = np.concatenate(lists) if lists else np.empty(0, dtype=np.int64)
        where = np.minimum(np.searchsorted(stem_ids, every), max(len(stem_ids) - 1, 0))
        present = stem_ids[where] == every if len(stem_ids) else np.zeros(0, dtype=bool)
        owner = np.repeat(np.arange(len(lists)), [len(x) for x in lists])
        synonym_lens = np.zeros(len(stem_ids), dtype=np.int64)
        synonym_lens[hyp_keys] = np.bincount(owner[present], minlength=len(lists))
        synonym_ids = where[present].astype(np.uint32)
        counts = reference_counts(refs)
        scores = _native.nltk_meteor_scores(
            words.ids[:n_hyp_tokens],
            words.lens[: len(hyps)],
            words.ids[n_hyp_tokens:],
            words.lens[len(hyps) :],
            counts,
            stem_of.astype(np.uint32),
            synonym_ids,
            synonym_lens,
            (float(self.alpha), float(self.beta), float(self.gamma)),
        )
        counts = counts.astype(np.float64)
        rows = np.column_stack([scores, np.ones(len(hyps)), counts, counts]) if hyps else np.empty((0, 4))
        return Stats(self.schema, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        return safe_divide(totals[..., 0], totals[..., 1], zero_division=0.0, what="mean METEOR")

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.asarray(stats["score"], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"segments": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        nrefs = nrefs_field(int(totals[2]), int(totals[3])) if totals[1] else "0"
        return Signature.build(
            nrefs=nrefs,
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            stem="porter",
            wn=self._wordnet().version,
            flavor=self.flavor,
        )
