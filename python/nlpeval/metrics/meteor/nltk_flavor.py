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
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, validate_text
from nlpeval.core.zero_division import safe_divide
from nlpeval.metrics.meteor.tokens import split_intern
from nlpeval.metrics.meteor.wordnet import WordNet

_SCHEMA = StatsSchema.of("score", "segments", nrefs_min="min", nrefs_max="max")


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
        wordnet = self._wordnet()
        words = split_intern([*hyps, *(r for seg in refs for r in seg)], java=False, key=str.lower)
        n_hyp_tokens = int(words.lens[: len(hyps)].sum())
        keys: dict[str, int] = {}
        stem_of = np.fromiter(
            (keys.setdefault(stem, len(keys)) for stem in _native.nltk_porter_stems(words.types)),
            dtype=np.uint32,
            count=len(words.types),
        )
        # synonyms are only looked up for hypothesis stems; the others get none
        stems = list(keys)
        synonyms = {
            key: [keys[name] for name in wordnet.nltk_synonyms(stems[key]) if name in keys]
            for key in np.unique(stem_of[words.ids[:n_hyp_tokens]]).tolist()
        }
        synonym_lens = np.zeros(len(stems), dtype=np.int64)
        synonym_lens[list(synonyms)] = [len(v) for v in synonyms.values()]
        synonym_ids = np.fromiter(
            chain.from_iterable(synonyms.values()), dtype=np.uint32, count=int(synonym_lens.sum())
        )
        counts = reference_counts(refs)
        scores = _native.nltk_meteor_scores(
            words.ids[:n_hyp_tokens],
            words.lens[: len(hyps)],
            words.ids[n_hyp_tokens:],
            words.lens[len(hyps) :],
            counts,
            stem_of,
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
