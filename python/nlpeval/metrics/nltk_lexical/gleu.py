"""GLEU, the Google-BLEU of Wu et al. (2016), exactly as NLTK's ``corpus_gleu`` / ``sentence_gleu``.

For each segment and each reference: ``tp`` is the number of n-grams (orders ``min_len..max_len``
together) the hypothesis shares with the reference (clipped counts), ``n_all`` the larger of the
hypothesis' and the reference's n-gram totals. The segment keeps the reference with the highest
``tp / n_all`` (the first on ties; references with ``n_all == 0`` are skipped, and a segment with
none adds nothing). The corpus GLEU is ``sum tp / sum n_all`` (0 when the sum is 0), a segment's
its own ratio (``sentence_gleu``). It decomposes: rows of ``(n_match, n_all)`` merge by sum.

Flavors: ``nltk`` splits strings on whitespace; ``hf`` is Hugging Face ``evaluate``'s
``google_bleu`` (its ``Tokenizer13a`` then NLTK's ``corpus_gleu``; ``evaluate`` loads that metric
script from the Hub, so its live test runs NLTK on evaluate's tokenization instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import as_segment_list
from nlpeval.metrics.nltk_lexical.tokens import Pretokenizer, is_text, native_sequences, pair_rows

#: GLEU flavors: NLTK (whitespace split) and HF evaluate's google_bleu (13a tokens).
GLEU_FLAVORS = ("nltk", "hf")

_SCHEMA = StatsSchema.of("n_match", "n_all", nrefs_min="min", nrefs_max="max")


def gleu_rows(pair_stats: np.ndarray, counts: np.ndarray, *, min_len: int, max_len: int) -> np.ndarray:
    """``(n_segments, 2)`` integer rows of the chosen reference's ``tp`` and ``n_all`` per segment.

    ``pair_stats`` are :func:`~nlpeval.metrics.nltk_lexical.tokens.pair_rows` of order ``max_len``
    (one row per reference), ``counts`` the number of references of each segment.

    Examples
    --------
    >>> from nlpeval.metrics.nltk_lexical.tokens import pair_rows
    >>> rows, counts = pair_rows(["a b c"], [["a b", "a b c d"]], max_order=2)
    >>> gleu_rows(rows, counts, min_len=1, max_len=2).tolist()
    [[5, 7]]
    """
    n_seg = counts.shape[0]
    out = np.zeros((n_seg, 2), dtype=np.int64)
    if min_len > max_len or n_seg == 0:
        return out
    width = max_len
    correct = pair_stats[:, 3 + min_len - 1 : 3 + max_len]
    tpfp = pair_stats[:, 3 + width + min_len - 1 : 3 + width + max_len].sum(axis=1)
    orders = np.arange(min_len, max_len + 1)
    tpfn = np.maximum(pair_stats[:, 1:2] - orders[None, :] + 1, 0).sum(axis=1)
    tp = correct.sum(axis=1)
    n_all = np.maximum(tpfp, tpfn)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(n_all > 0, tp / np.where(n_all > 0, n_all, 1), -np.inf)
    first = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    best = np.full(n_seg, -1, dtype=np.int64)
    best_ratio = np.full(n_seg, -np.inf)
    for k in range(int(counts.max())):  # the first reference with the highest ratio (Python's max)
        having = np.flatnonzero(counts > k)
        index = first[having] + k
        better = ratio[index] > best_ratio[having]
        best[having[better]] = index[better]
        best_ratio[having[better]] = ratio[index[better]]
    chosen = best >= 0
    out[chosen, 0] = tp[best[chosen]]
    out[chosen, 1] = n_all[best[chosen]]
    return out


def gleu_values(n_match: np.ndarray, n_all: np.ndarray) -> np.ndarray:
    """``n_match / n_all``, 0 where ``n_all`` is 0 (NLTK's convention).

    Examples
    --------
    >>> gleu_values(np.array([1, 0]), np.array([4, 0])).tolist()
    [0.25, 0.0]
    """
    n_match = np.asarray(n_match, dtype=np.float64)
    n_all = np.asarray(n_all, dtype=np.float64)
    return np.where(n_all > 0, n_match / np.where(n_all > 0, n_all, 1.0), 0.0)


@dataclass(frozen=True)
class GLEU(CorpusMetric):
    """GLEU exactly as NLTK's ``corpus_gleu`` (segments: ``sentence_gleu``).

    Parameters
    ----------
    min_len, max_len : int
        The n-gram orders counted (NLTK's defaults 1 and 4).
    flavor : {"nltk", "hf"}
        ``nltk``: strings split on whitespace; ``hf``: evaluate's ``google_bleu`` (13a tokens).

    Examples
    --------
    >>> s = GLEU()(["the cat sat on the mat"], [["the cat is on the mat"]])
    >>> s.score, s.components["n_match"], s.components["n_all"]
    (0.5, 9, 18)
    """

    min_len: int = 1
    max_len: int = 4
    flavor: str = "nltk"

    name: ClassVar[str] = "gleu"

    def __post_init__(self) -> None:
        if self.flavor not in GLEU_FLAVORS:
            raise ValueError(f"unknown GLEU flavor {self.flavor!r}; choose one of {', '.join(GLEU_FLAVORS)}")
        for option in ("min_len", "max_len"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{option} must be a positive int; got {value!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Integer rows of ``n_match``, ``n_all`` (of the chosen reference), ``nrefs_min``, ``nrefs_max``."""
        pretokenize = None
        if self.flavor == "hf":
            from nlpeval.metrics.bleu.hf import hf_13a

            pretokenize = hf_13a
        hypotheses = as_segment_list(hypotheses, "hypotheses")  # read once: the general path may follow
        references = as_segment_list(references, "references")
        native = self._native_rows(hypotheses, references, pretokenize)
        if native is not None:
            matches, counts = native
        else:
            pairs, counts = pair_rows(hypotheses, references, max_order=self.max_len, pretokenize=pretokenize)
            matches = gleu_rows(pairs, counts, min_len=self.min_len, max_len=self.max_len)
        rows = np.empty((counts.shape[0], 4), dtype=np.int64)
        rows[:, :2] = matches
        rows[:, 2] = counts
        rows[:, 3] = counts
        return Stats(_SCHEMA, rows)

    def _native_rows(
        self, hypotheses: Sequence[Any], references: Sequence[Any], pretokenize: Pretokenizer | None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``(n_match, n_all)`` rows and reference counts from the native GLEU kernel (text input,
        orders up to 4; references kept prepared in its reference cache), or None for the
        general path (token lists, a core without the kernel, larger orders or vocabularies)."""
        if _native.gleu_rows is None or self.max_len > 4 or not is_text(hypotheses):
            return None
        hyps, refs, counts, _hyp_lens, _ref_lens, checked = native_sequences(hypotheses, references)
        with checked:
            if pretokenize is not None:
                hyps, refs = pretokenize(hyps), pretokenize(refs)
            rows = _native.gleu_rows(hyps, refs, counts, self.min_len, self.max_len)
        if rows is None:
            return None
        return rows, np.asarray(counts, dtype=np.int64)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals)
        return gleu_values(totals[..., 0], totals[..., 1])

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"n_match": int(totals[0]), "n_all": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            nrefs=nrefs_field(int(totals[2]), int(totals[3])) if len(totals) and totals[3] >= 0 else "0",
            tok="13a" if self.flavor == "hf" else "split",
            min_len=self.min_len,
            max_len=self.max_len,
            flavor=self.flavor,
        )


def gleu(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    flavor: str = "nltk",
    min_len: int = 1,
    max_len: int = 4,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus GLEU (Google-BLEU) of ``hypotheses`` against ``references``, as NLTK's ``corpus_gleu``.

    Parameters
    ----------
    hypotheses : sequence of (str or list of str)
        One system output per segment: text (split on whitespace) or a token list.
    references : sequence
        One item per hypothesis: a reference or a list of references (token lists for token-list
        hypotheses, NLTK's layout).
    flavor : {"nltk", "hf"}
        ``nltk``: NLTK on whitespace tokens; ``hf``: Hugging Face evaluate's ``google_bleu``
        (its 13a tokenizer, then NLTK's ``corpus_gleu``).
    min_len, max_len : int
        Shortest and longest n-gram counted (1 and 4).
    segments : bool
        Also return ``sentence_gleu`` per segment in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale (as NLTK); ``components`` has ``n_match`` and ``n_all``.

    Examples
    --------
    >>> import nlpeval
    >>> hyps = ["he read the book because he was interested in world history"]
    >>> refs = [["he was interested in world history because he read the book"]]
    >>> round(nlpeval.gleu(hyps, refs).score, 6)
    0.789474
    """
    metric = GLEU(min_len=min_len, max_len=max_len, flavor=flavor)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["GLEU", "GLEU_FLAVORS", "gleu", "gleu_rows", "gleu_values"]
