"""SQuAD v1.1 / v2.0 exact match and F1 as statistics rows (stats -> merge -> score).

One row per question. Every field is summed, so corpus scores, the HasAns/NoAns
splits, bootstrap intervals, paired tests and accumulators come from the rows;
``best_exact_match``/``best_f1`` (v2.0 with no-answer probabilities) sort the
rows by probability and are computed from the kept rows, not from totals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.metrics.squad.inputs import Questions, collect
from nlpeval.metrics.squad.normalize import mlqa_normalizer, squad_normalize
from nlpeval.metrics.squad.thresholds import best_threshold

FIELDS = (
    "exact",
    "f1",
    "raw_exact",
    "raw_f1",
    "has_ans",
    "has_exact",
    "has_f1",
    "no_exact",
    "no_f1",
    "na_prob",
    "pred_nonempty",
    "questions",
)
_SCHEMA = StatsSchema.of(*FIELDS)
_COL = {name: i for i, name in enumerate(FIELDS)}


def _pair_f1(pred: tuple[str, ...], gold: tuple[str, ...], pred_count: Counter, gold_count: Counter, v2: bool) -> float:
    """F1 of one prediction-gold pair, with the official scripts' arithmetic."""
    if v2 and (not gold or not pred):
        return float(gold == pred)
    num_same = sum((pred_count & gold_count).values())
    if num_same == 0:
        return 0.0
    precision = 1.0 * num_same / len(pred)
    recall = 1.0 * num_same / len(gold)
    return (2 * precision * recall) / (precision + recall)


@dataclass(frozen=True)
class SQuAD(CorpusMetric):
    """SQuAD exact match and F1 (official v1.1 and v2.0 evaluation scripts).

    Parameters
    ----------
    version : {"1.1", "2.0"}
        ``1.1``: F1 of two empty answers is 0, every question needs a gold answer.
        ``2.0``: gold answers that normalise to nothing are dropped (none left: the
        question is unanswerable, gold ``""``); F1 of an empty side is 1 if both are empty
        else 0; the no-answer rule and HasAns/NoAns splits apply.
    no_answer_threshold : float
        v2.0: a question whose no-answer probability exceeds this is answered "no answer".
    target : {"f1", "exact_match"}
        Which value is ``Score.score`` (and what CIs and paired tests use).
    lang : str or None
        ``None``: SQuAD's normalisation. An MLQA language (``en es hi vi de ar zh``):
        MLQA's normalisation for it (its script's F1 is v1.1's).
    with_probs : bool
        Whether no-answer probabilities were given (adds ``best_*`` components).

    Examples
    --------
    >>> metric = SQuAD(version="2.0")
    >>> stats = metric.segment_stats(["Paris", ""], [["paris", "the Paris"], []])
    >>> metric.score_from_stats(stats).components["exact_match"]
    1.0
    """

    version: Literal["1.1", "2.0"] = "1.1"
    no_answer_threshold: float = 1.0
    target: Literal["f1", "exact_match"] = "f1"
    lang: str | None = None
    with_probs: bool = False

    name: ClassVar[str] = "squad"

    def __post_init__(self) -> None:
        if self.version not in ("1.1", "2.0"):
            raise ValueError(f"version must be '1.1' or '2.0'; got {self.version!r}")
        if self.target not in ("f1", "exact_match"):
            raise ValueError(f"target must be 'f1' or 'exact_match'; got {self.target!r}")
        if self.lang is not None:
            mlqa_normalizer(self.lang)  # validates the language

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    @property
    def _normalize(self) -> Callable[[str], str]:
        return squad_normalize if self.lang is None else mlqa_normalizer(self.lang)

    def segment_stats(self, hypotheses: Any, references: Any, no_answer_probs: Any = None) -> Stats:
        """One row per question from predictions (``hypotheses``) and gold ``references``."""
        return self.question_stats(collect(hypotheses, references, no_answer_probs))

    def question_stats(self, questions: Questions) -> Stats:
        """Rows of checked :class:`~nlpeval.metrics.squad.inputs.Questions`."""
        v2 = self.version == "2.0"
        normalize = self._normalize
        tokens: dict[str, tuple[tuple[str, ...], Counter]] = {}

        def parsed(text: str) -> tuple[tuple[str, ...], Counter]:
            hit = tokens.get(text)
            if hit is None:
                words = tuple(normalize(text).split())
                hit = tokens[text] = (words, Counter(words))
            return hit

        n = len(questions.ids)
        rows = np.zeros((n, _SCHEMA.width), dtype=np.float64)
        for i, (pred, golds) in enumerate(zip(questions.predictions, questions.answers, strict=False)):
            if v2:
                parsed_golds = [g for g in map(parsed, golds) if g[0]] or [parsed("")]
            elif not golds:
                raise InputError("no gold answer (SQuAD v1.1 needs one; use version='2.0')", segment=i, side="answers")
            else:
                parsed_golds = [parsed(g) for g in golds]
            p_words, p_count = parsed(pred)
            exact = 0.0
            f1 = 0.0
            for g_words, g_count in parsed_golds:
                if g_words == p_words:
                    exact = 1.0
                value = _pair_f1(p_words, g_words, p_count, g_count, v2)
                if value > f1:
                    f1 = value
            rows[i, 2] = exact
            rows[i, 3] = f1
            rows[i, 4] = 1.0 if golds else 0.0
            rows[i, 10] = 1.0 if pred else 0.0
        if questions.no_answer_probs is not None:
            rows[:, 9] = questions.no_answer_probs
        has = rows[:, 4]
        rows[:, 0], rows[:, 1] = rows[:, 2], rows[:, 3]
        if v2:
            said_none = rows[:, 9] > self.no_answer_threshold
            unanswerable = 1.0 - has
            rows[:, 0] = np.where(said_none, unanswerable, rows[:, 2])
            rows[:, 1] = np.where(said_none, unanswerable, rows[:, 3])
        rows[:, 5] = rows[:, 0] * has
        rows[:, 6] = rows[:, 1] * has
        rows[:, 7] = rows[:, 0] * (1.0 - has)
        rows[:, 8] = rows[:, 1] * (1.0 - has)
        rows[:, 11] = 1.0
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        column = _COL["f1"] if self.target == "f1" else _COL["exact"]
        count = totals[..., _COL["questions"]]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, totals[..., column] / count, np.nan)

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.array(stats["f1" if self.target == "f1" else "exact"], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        t = {name: float(totals[i]) for i, name in enumerate(FIELDS)}
        total = t["questions"]
        out: dict[str, Any] = {
            "exact_match": t["exact"] / total if total else float("nan"),
            "f1": t["f1"] / total if total else float("nan"),
            "total": int(total),
        }
        if self.version == "2.0":
            has, none = t["has_ans"], total - t["has_ans"]
            if has:
                out.update(
                    has_ans_exact_match=t["has_exact"] / has, has_ans_f1=t["has_f1"] / has, has_ans_total=int(has)
                )
            if none:
                out.update(
                    no_ans_exact_match=t["no_exact"] / none, no_ans_f1=t["no_f1"] / none, no_ans_total=round(none)
                )
        return out

    def best_components(self, stats: Stats) -> dict[str, float]:
        """v2.0's ``best_exact``/``best_f1`` and thresholds (0–1 scale) from the question rows."""
        rows = stats.rows
        args = (rows[:, _COL["na_prob"]], rows[:, _COL["has_ans"]] > 0, rows[:, _COL["pred_nonempty"]] > 0)
        best_exact, exact_thresh = best_threshold(rows[:, _COL["raw_exact"]], *args)
        best_f1, f1_thresh = best_threshold(rows[:, _COL["raw_f1"]], *args)
        return {
            "best_exact_match": best_exact,
            "best_exact_match_thresh": exact_thresh,
            "best_f1": best_f1,
            "best_f1_thresh": f1_thresh,
        }

    def score_from_stats(self, stats: Stats, **options: Any) -> Score:
        if not len(stats):
            raise InputError("no questions to score")
        score = super().score_from_stats(stats, **options)
        if self.version == "2.0" and self.with_probs:
            components = {**score.components, **self.best_components(stats)}
            score = Score(score.name, score.score, score.signature, components, score.segments, score.ci)
        return score

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(
            squad=self.version,
            norm="squad" if self.lang is None else f"mlqa-{self.lang}",
            target=self.target,
            na_thresh=self.no_answer_threshold if self.version == "2.0" else None,
        )


__all__ = ["FIELDS", "SQuAD"]
