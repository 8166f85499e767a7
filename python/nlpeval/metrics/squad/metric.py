"""SQuAD v1.1 / v2.0 exact match and F1 as statistics rows (stats -> merge -> score).

One row per question. Every field is summed, so corpus scores, the HasAns/NoAns
splits, bootstrap intervals, paired tests and accumulators come from the rows;
``best_exact_match``/``best_f1`` (v2.0 with no-answer probabilities) sort the
rows by probability and are computed from the kept rows, not from totals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain, count
from typing import Any, ClassVar, Literal

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.metrics.squad.inputs import Questions, collect
from nlpeval.metrics.squad.normalize import mlqa_normalizer, squad_normalize, squad_tokens_joined
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


def _pairs(
    questions: Questions, index: dict[str, int], nonempty: np.ndarray, v2: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(question, prediction text, gold text) of every prediction-gold pair, grouped by question. v2.0 drops
    gold answers that normalise to nothing (none left: the gold is "", text 0)."""
    sizes = np.fromiter(map(len, questions.answers), dtype=np.int64, count=len(questions.answers))
    if not v2 and not sizes.all():
        i = int(np.flatnonzero(sizes == 0)[0])
        raise InputError("no gold answer (SQuAD v1.1 needs one; use version='2.0')", segment=i, side="answers")
    gold = np.fromiter(
        map(index.__getitem__, chain.from_iterable(questions.answers)), dtype=np.int64, count=int(sizes.sum())
    )
    question = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    if v2:
        keep = nonempty[gold]
        gold, question = gold[keep], question[keep]
        unanswered = np.setdiff1d(np.arange(len(sizes), dtype=np.int64), question, assume_unique=False)
        if unanswered.size:
            question = np.concatenate([question, unanswered])
            gold = np.concatenate([gold, np.zeros(unanswered.size, dtype=np.int64)])
            order = np.argsort(question, kind="stable")
            question, gold = question[order], gold[order]
    pred_text = np.fromiter(map(index.__getitem__, questions.predictions), dtype=np.int64, count=len(sizes))
    return question, pred_text[question], gold


def _gather(flat: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, texts: np.ndarray) -> np.ndarray:
    """The tokens of ``texts`` (indices into the per-text ``offsets``/``lengths`` of ``flat``), concatenated."""
    sizes = lengths[texts]
    total = int(sizes.sum())
    if not total:
        return np.empty(0, dtype=flat.dtype)
    starts = np.cumsum(sizes) - sizes
    return flat[np.repeat(offsets[texts] - starts, sizes) + np.arange(total)]


def _pair_scores(
    flat: np.ndarray, lengths: np.ndarray, pred: np.ndarray, gold: np.ndarray, v2: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Exact match and F1 of each pair, with the official scripts' arithmetic, over NumPy arrays. Exact:
    the same tokens in the same order. The common-token count of a pair is the sum over its tokens of the
    smaller of the two counts."""
    offsets = np.cumsum(lengths) - lengths
    len_p, len_g = lengths[pred], lengths[gold]
    exact = (len_p == len_g).astype(np.float64)
    same_size = np.flatnonzero((len_p == len_g) & (len_p > 0))
    if same_size.size:
        equal = _gather(flat, offsets, lengths, pred[same_size]) == _gather(flat, offsets, lengths, gold[same_size])
        sizes = len_p[same_size]
        exact[same_size] = np.logical_and.reduceat(equal, np.cumsum(sizes) - sizes)
    len_p, len_g = len_p.astype(np.float64), len_g.astype(np.float64)
    # pairs whose overlap must be counted: both sides have tokens and they differ
    open_ = np.flatnonzero((len_p > 0) & (len_g > 0) & (exact == 0))
    num_same = np.where(exact > 0, len_p, 0.0)
    if open_.size:
        width = int(flat.max(initial=0)) + 1
        keys = []
        for side in (pred, gold):
            tokens = _gather(flat, offsets, lengths, side[open_])
            owner = np.repeat(np.arange(open_.size, dtype=np.int64), lengths[side[open_]])
            keys.append(np.unique(owner * width + tokens, return_counts=True))
        (keys_p, count_p), (keys_g, count_g) = keys
        _, at_p, at_g = np.intersect1d(keys_p, keys_g, assume_unique=True, return_indices=True)
        common = np.minimum(count_p[at_p], count_g[at_g]).astype(np.float64)
        num_same[open_] = np.bincount(keys_p[at_p] // width, weights=common, minlength=open_.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = 1.0 * num_same / len_p
        recall = 1.0 * num_same / len_g
        f1 = np.where(num_same > 0, (2 * precision * recall) / (precision + recall), 0.0)
    if v2:  # an empty side: 1 if both are empty, else 0
        f1 = np.where((len_p == 0) | (len_g == 0), exact, f1)
    return exact, f1


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

    def _token_table(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids of every text, concatenated, and each text's token count (ids by ``setdefault``
        with a running counter: unique, not contiguous, mapped in C)."""
        vocabulary: dict[str, int] = {}
        joined = squad_tokens_joined(texts) if self.lang is None else None
        if joined is None:
            normalize = self._normalize
            words = [normalize(t).split() for t in texts]
            lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
            word_ids = map(vocabulary.setdefault, chain.from_iterable(words), count())
            return np.fromiter(word_ids, dtype=np.int64, count=int(lengths.sum())), lengths
        ids = np.fromiter(map(vocabulary.setdefault, joined, count()), dtype=np.int64, count=len(joined))
        separator = ids == vocabulary.get("\x00", -1)
        bounds = np.concatenate(([-1], np.flatnonzero(separator), [len(ids)]))
        return ids[~separator], np.diff(bounds) - 1

    def segment_stats(self, hypotheses: Any, references: Any, no_answer_probs: Any = None) -> Stats:
        """One row per question from predictions (``hypotheses``) and gold ``references``."""
        return self.question_stats(collect(hypotheses, references, no_answer_probs))

    def question_stats(self, questions: Questions) -> Stats:
        """Rows of checked :class:`~nlpeval.metrics.squad.inputs.Questions`."""
        v2 = self.version == "2.0"
        # every distinct text normalised once (SQuAD's normalisation: in one pass over the joined batch)
        texts = list(dict.fromkeys(chain([""], questions.predictions, chain.from_iterable(questions.answers))))
        index = dict(zip(texts, range(len(texts)), strict=True))
        flat, lengths = self._token_table(texts)
        pair_question, pred_text, gold_text = _pairs(questions, index, lengths > 0, v2)
        exact, f1 = _pair_scores(flat, lengths, pred_text, gold_text, v2)
        starts = np.flatnonzero(np.r_[True, pair_question[1:] != pair_question[:-1]])
        n = len(questions.ids)
        rows = np.zeros((n, _SCHEMA.width), dtype=np.float64)
        rows[:, 2] = np.maximum.reduceat(exact, starts)
        rows[:, 3] = np.maximum.reduceat(f1, starts)
        rows[:, 4] = np.fromiter(map(bool, questions.answers), dtype=bool, count=n)
        rows[:, 10] = np.fromiter(map(bool, questions.predictions), dtype=bool, count=n)
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
