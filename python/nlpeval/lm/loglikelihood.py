"""lm-evaluation-harness's likelihood family from per-document log-likelihoods.

* ``perplexity`` (``loglikelihood`` tasks such as LAMBADA): ``exp(-mean(ll))`` over
  documents; lm-eval's standard error is its bootstrap (:mod:`nlpeval.lm.harness`).
* ``word_perplexity`` / ``byte_perplexity`` (``loglikelihood_rolling`` tasks such as
  WikiText): ``exp(-sum(ll) / sum(words or bytes))``, words counted as lm-eval's
  ``len(re.split(r"\\s+", text))`` (a leading or trailing space adds one) and bytes as
  UTF-8 bytes;
* ``bits_per_byte``: ``-sum(ll) / sum(bytes) / ln 2``.

Each document is one statistics row (``ll``, ``words``, ``bytes``, ``documents``), all summed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import as_segment_list
from nlpeval.lm.harness import bootstrap_stderr

_SCHEMA = StatsSchema.of("ll", "words", "bytes", "documents")
_SPACE = re.compile(r"\s+")
Target = Literal["perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"]


def count_words(text: str) -> int:
    """lm-eval's ``count_words``: ``len(re.split(r"\\s+", text))``.

    Examples
    --------
    >>> count_words("a b  c"), count_words(" a b "), count_words("")
    (3, 4, 1)
    """
    return len(_SPACE.split(text))


@dataclass(frozen=True)
class Likelihood(CorpusMetric):
    """lm-eval's perplexity family (see the module docs).

    Examples
    --------
    >>> metric = Likelihood(target="bits_per_byte")
    >>> round(metric(["abcd"], [-2.772588722239781]).score, 6)
    1.0
    """

    target: Target = "word_perplexity"

    name: ClassVar[str] = "likelihood"

    def __post_init__(self) -> None:
        if self.target not in ("perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"):
            raise ValueError(f"unknown target {self.target!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Any, references: Any) -> Stats:
        """Rows from document texts (``hypotheses``; may be None) and log-likelihoods (``references``)."""
        return self.document_stats(references, hypotheses)

    def document_stats(self, loglikelihoods: Any, texts: Any = None) -> Stats:
        """One row per document; without ``texts`` the word and byte counts are NaN."""
        values = as_segment_list(loglikelihoods, "loglikelihoods")
        if not values:
            raise InputError("no documents to score", side="loglikelihoods")
        rows = np.full((len(values), 4), np.nan)
        try:
            rows[:, 0] = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(
                "expected one number (the document's total log-likelihood) per document", side="loglikelihoods"
            ) from None
        bad = np.flatnonzero(np.isnan(rows[:, 0]) | (rows[:, 0] == np.inf))
        if bad.size:
            raise InputError(f"log-likelihood is {rows[bad[0], 0]}", segment=int(bad[0]), side="loglikelihoods")
        if texts is not None:
            docs = as_segment_list(texts, "texts")
            if len(docs) != len(values):
                raise InputError(f"{len(docs)} texts for {len(values)} log-likelihoods", side="texts")
            for i, text in enumerate(docs):
                if not isinstance(text, str):
                    raise InputError(f"is {type(text).__name__}, expected str", segment=i, side="texts")
                rows[i, 1] = count_words(text)
                rows[i, 2] = len(text.encode("utf-8"))
        elif self.target != "perplexity":
            raise InputError(f"{self.target} needs the document texts (for word and byte counts)", side="texts")
        rows[:, 3] = 1.0
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        t = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.target == "perplexity":
                return np.exp(-(t[..., 0] / t[..., 3]))
            if self.target == "word_perplexity":
                return np.exp(-(t[..., 0] / t[..., 1]))
            if self.target == "byte_perplexity":
                return np.exp(-(t[..., 0] / t[..., 2]))
            return -(t[..., 0] / t[..., 2]) / math.log(2)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        ll, words, size, docs = (float(x) for x in totals)
        out: dict[str, Any] = {"perplexity": _exp(-(ll / docs)), "documents": int(docs), "loglikelihood": ll}
        if not math.isnan(words):
            out.update(
                word_perplexity=_exp(-(ll / words)),
                byte_perplexity=_exp(-(ll / size)),
                bits_per_byte=-(ll / size) / math.log(2),
                words=int(words),
                bytes=int(size),
            )
        return out

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(target=self.target, words="re-split-ws", flavor="lm-eval")


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def likelihood(
    loglikelihoods: Sequence[float],
    texts: Sequence[str] | None = None,
    *,
    target: Target = "word_perplexity",
    bootstrap_iters: int = 0,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """lm-eval's perplexity, word/byte perplexity and bits per byte from document log-likelihoods.

    Parameters
    ----------
    loglikelihoods : sequence of float
        Per document, the total log-likelihood (natural log) of its text.
    texts : sequence of str, optional
        The documents (for word and byte counts); required unless ``target="perplexity"``.
    target : {"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte"}
        The value in ``Score.score``.
    bootstrap_iters : int
        If > 0, add lm-eval's ``perplexity_stderr`` (its bootstrap, same seeds; lm-eval's
        default is 100,000). lm-eval reports no standard error for the other three.
    segments : bool
        Also return each document's value of ``target``.
    n_bootstrap : int
        If > 0, nlpeval's bootstrap 95% confidence interval of ``target``.
    seed : int or None
        Seed of nlpeval's bootstrap.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.likelihood([-12.0, -30.5], ["The cat sat.", "A longer document here."])
    >>> round(s.components["word_perplexity"], 4), round(s.components["bits_per_byte"], 4)
    (433.2992, 1.7518)
    """
    metric = Likelihood(target=target)
    stats = metric.document_stats(loglikelihoods, texts)
    score = metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)
    if bootstrap_iters > 0 and len(stats) > 1:
        extra = {"perplexity_stderr": bootstrap_stderr("perplexity", stats["ll"], bootstrap_iters)}
        score = Score(score.name, score.score, score.signature, {**score.components, **extra}, score.segments, score.ci)
    return score


__all__ = ["Likelihood", "count_words", "likelihood"]
