"""Exact match as lm-evaluation-harness computes it (``exact_match_hf_evaluate``), per document.

lm-eval scores each document with ``exact_match(references=[gold], predictions=[result],
regexes_to_ignore=..., ignore_case=..., ignore_punctuation=..., ignore_numbers=...)`` (with
several gold answers, ``references=golds`` and the prediction repeated, correct if any
matches) and averages. The transformations, in order: each regex of
``regexes_to_ignore`` removed with ``re.sub`` (from both sides), lowercasing, deleting
``string.punctuation``, deleting the ASCII digits. Because lm-eval holds the strings in
NumPy fixed-width arrays, two NumPy effects are part of its definition and are
reproduced: trailing NUL characters vanish, and a lowercase form longer than the
batch's longest string (``"İ".lower()`` is two characters) is cut to that width.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import as_segment_list

_SCHEMA = StatsSchema.of("matches", "questions")
_PUNCT = str.maketrans("", "", string.punctuation)
_DIGITS = str.maketrans("", "", string.digits)


@dataclass(frozen=True)
class ExactMatch(CorpusMetric):
    """lm-eval's ``exact_match`` with its options.

    Parameters
    ----------
    regexes_to_ignore : tuple of str
        Patterns removed (``re.sub(pattern, "", text)``) from both sides, in order.
    ignore_case, ignore_punctuation, ignore_numbers : bool
        Lowercase; delete ``string.punctuation``; delete ``0-9``.

    Examples
    --------
    >>> metric = ExactMatch(ignore_case=True, ignore_punctuation=True)
    >>> metric(["The answer is 42."], ["the answer is 42"]).score
    1.0
    """

    regexes_to_ignore: tuple[str, ...] = ()
    ignore_case: bool = False
    ignore_punctuation: bool = False
    ignore_numbers: bool = False

    name: ClassVar[str] = "exact_match"

    def __post_init__(self) -> None:
        patterns = (self.regexes_to_ignore,) if isinstance(self.regexes_to_ignore, str) else self.regexes_to_ignore
        object.__setattr__(self, "regexes_to_ignore", tuple(patterns or ()))
        for pattern in self.regexes_to_ignore:
            try:
                re.compile(pattern)
            except re.error as err:
                raise InputError(f"regexes_to_ignore: bad pattern {pattern!r}: {err}") from None

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def transform(self, texts: list[str]) -> list[str]:
        """lm-eval's transformation of one batch (one call's ``predictions`` or ``references``)."""
        if self.regexes_to_ignore:
            for pattern in self.regexes_to_ignore:
                texts = [re.sub(pattern, "", t).rstrip("\x00") for t in texts]
        else:
            texts = [t.rstrip("\x00") for t in texts]
        if self.ignore_case:
            width = max(map(len, texts), default=0)
            texts = [t.lower()[:width].rstrip("\x00") for t in texts]
        if self.ignore_punctuation:
            texts = [t.translate(_PUNCT) for t in texts]
        if self.ignore_numbers:
            texts = [t.translate(_DIGITS) for t in texts]
        return texts

    def segment_stats(self, hypotheses: Sequence[str], references: Sequence[Any]) -> Stats:
        """One row per document: 1 if the prediction matches a gold answer."""
        preds = as_segment_list(hypotheses, "predictions")
        golds = as_segment_list(references, "references")
        if len(preds) != len(golds):
            raise InputError(f"{len(preds)} predictions but {len(golds)} references")
        rows = np.zeros((len(preds), 2), dtype=np.int64)
        rows[:, 1] = 1
        for i, (pred, gold) in enumerate(zip(preds, golds, strict=False)):
            if not isinstance(pred, str):
                raise InputError(f"is {type(pred).__name__}, expected str", segment=i, side="predictions")
            options = [gold] if isinstance(gold, str) else list(gold) if isinstance(gold, (list, tuple)) else None
            if not options or not all(isinstance(g, str) for g in options):
                raise InputError("expected a str or a non-empty list of str", segment=i, side="references")
            candidate = self.transform([pred])[0]
            rows[i, 0] = int(candidate in self.transform(options))
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return totals[..., 0] / totals[..., 1]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"matches": int(totals[0]), "questions": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            regexes=len(self.regexes_to_ignore),
            case="lc" if self.ignore_case else "mixed",
            punct=not self.ignore_punctuation,
            numbers=not self.ignore_numbers,
            flavor="lm-eval",
        )


def exact_match(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    regexes_to_ignore: Sequence[str] | None = None,
    ignore_case: bool = False,
    ignore_punctuation: bool = False,
    ignore_numbers: bool = False,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Share of predictions equal to their reference after lm-eval's transformations.

    Parameters
    ----------
    predictions : sequence of str
        One generated answer per document.
    references : sequence of (str or list of str)
        The gold answer, or several (correct if any matches, as lm-eval's ``multiple_target``).
    regexes_to_ignore : sequence of str, optional
        Patterns removed from both sides, in order.
    ignore_case, ignore_punctuation, ignore_numbers : bool
        lm-eval's options of the same names.
    segments : bool
        Also return the per-document 0/1 values.
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score``: the mean (lm-eval's ``exact_match``); components ``matches``, ``questions``.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.exact_match(["The answer: 42", "no"], ["the answer 42", ["yes", "No"]], ignore_case=True,
    ...                         ignore_punctuation=True)
    >>> s.score, s.components["matches"]
    (1.0, 2)
    """
    metric = ExactMatch(
        regexes_to_ignore=tuple(regexes_to_ignore or ()),
        ignore_case=ignore_case,
        ignore_punctuation=ignore_punctuation,
        ignore_numbers=ignore_numbers,
    )
    return metric.score_from_stats(
        metric.segment_stats(predictions, references), segments=segments, n_bootstrap=n_bootstrap, seed=seed
    )


__all__ = ["ExactMatch", "exact_match"]
