"""Multiple choice from per-choice log-likelihoods, as lm-evaluation-harness scores it.

For each question lm-eval (``ConfigurableTask.process_results``, ``multiple_choice``)
takes the choice with the largest value of (first one on ties):

* ``acc``: the log-likelihood;
* ``acc_norm``: the log-likelihood over the choice's length in **characters**
  (``len(choice)``, not tokens);
* ``acc_bytes``: the log-likelihood over its UTF-8 length in bytes;
* ``acc_mutual_info``: the log-likelihood minus the unconditional log-likelihood of the
  choice (the answer scored after an empty context);

and is correct if it is the gold index (or one of the gold indices).
``brier_score`` is the mean over questions of ``sum((softmax(ll) - onehot(gold))^2)``.
Every value is one field of a statistics row, so corpus scores, CIs and paired tests
apply; lm-eval's standard errors (sample standard deviation over sqrt(n) of the 0/1
values; none for the Brier score) are added as ``<name>_stderr`` components.
"""

from __future__ import annotations

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
from nlpeval.lm.harness import mean_stderr

FIELDS = ("acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score", "questions")
_SCHEMA = StatsSchema.of(*FIELDS)
Target = Literal["acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score"]


def _matrix(values: Any, side: str, counts: list[int] | None) -> tuple[np.ndarray, list[int]]:
    """Pad per-question float lists into a ``(questions, max choices)`` array (-inf padding)."""
    rows = as_segment_list(values, side)
    lengths = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)):
            raise InputError("expected one number per choice, got a str", segment=i, side=side)
        try:
            lengths.append(len(row))
        except TypeError:
            raise InputError(
                f"expected one number per choice, got {type(row).__name__}", segment=i, side=side
            ) from None
        if not len(row):
            raise InputError("no choices", segment=i, side=side)
        if counts is not None and lengths[-1] != counts[i]:
            raise InputError(f"{lengths[-1]} values for {counts[i]} choices", segment=i, side=side)
    width = max(lengths, default=0)
    out = np.full((len(rows), width), -np.inf)
    for i, row in enumerate(rows):
        try:
            out[i, : lengths[i]] = np.asarray(row, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("a value is not a number", segment=i, side=side) from None
        bad = np.isnan(out[i, : lengths[i]]) | (out[i, : lengths[i]] == np.inf)
        if bad.any():
            raise InputError(
                f"choice {int(np.flatnonzero(bad)[0])} is {out[i, int(np.flatnonzero(bad)[0])]}", segment=i, side=side
            )
    return out, lengths


class GoldIndexError(InputError):
    """A gold choice index beyond a question's choices (``side="gold"``): ``index`` and ``choices``, the
    number of log-likelihoods given, let a caller with files point at the shorter list.

    Examples
    --------
    >>> str(GoldIndexError(3, 2, segment=4))
    'gold: segment 4: gold index 3 outside the 2 choices'
    """

    def __init__(self, index: int, choices: int, *, segment: int) -> None:
        self.index = index
        self.choices = choices
        super().__init__(f"gold index {index} outside the {choices} choices", segment=segment, side="gold")


def _gold(gold: Any, lengths: list[int]) -> tuple[np.ndarray, bool]:
    """A ``(questions, max choices)`` boolean mask of the gold choices; whether every question has one."""
    items = as_segment_list(gold, "gold")
    if len(items) != len(lengths):
        raise InputError(f"{len(items)} gold labels for {len(lengths)} questions", side="gold")
    mask = np.zeros((len(lengths), max(lengths, default=0)), dtype=bool)
    single = True
    for i, label in enumerate(items):
        labels = [label] if isinstance(label, (int, np.integer)) and not isinstance(label, bool) else label
        try:
            labels = [int(x) for x in labels if not isinstance(x, bool) and int(x) == x]
        except (TypeError, ValueError):
            raise InputError(
                f"gold {label!r} is not a choice index (or list of them)", segment=i, side="gold"
            ) from None
        if not labels:
            raise InputError(f"gold {label!r} is not a choice index (or list of them)", segment=i, side="gold")
        for j in labels:
            if not 0 <= j < lengths[i]:
                raise GoldIndexError(int(j), lengths[i], segment=i)
            mask[i, j] = True
        single = single and not isinstance(label, (list, tuple, np.ndarray))
    return mask, single


def _picked(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """1.0 where the first argmax of a row is a gold choice."""
    best = np.argmax(scores, axis=1)
    return gold[np.arange(len(best)), best].astype(np.float64)


@dataclass(frozen=True)
class MultipleChoice(CorpusMetric):
    """lm-eval's multiple-choice metrics from log-likelihoods (see the module docs).

    Parameters
    ----------
    target : {"acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score"}
        The value in ``Score.score`` (what CIs and paired tests use).
    allow_ragged : bool
        Accept questions with different numbers of choices (no Brier score then:
        lm-eval's aggregation needs one array).

    Examples
    --------
    >>> metric = MultipleChoice()
    >>> stats = metric.choice_stats([[-1.0, -2.0], [-3.0, -0.5]], [0, 0])
    >>> metric.score_from_stats(stats).score
    0.5
    """

    target: Target = "acc"
    allow_ragged: bool = False

    name: ClassVar[str] = "multiple_choice"

    def __post_init__(self) -> None:
        if self.target not in FIELDS[:5]:
            raise ValueError(f"target must be one of {FIELDS[:5]}; got {self.target!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def segment_stats(self, hypotheses: Any, references: Any) -> Stats:
        """Rows from log-likelihoods (``hypotheses``) and gold indices (``references``)."""
        return self.choice_stats(hypotheses, references)

    def choice_stats(self, loglikelihoods: Any, gold: Any, *, choices: Any = None, unconditional: Any = None) -> Stats:
        """One row per question; fields that the input cannot give (no ``choices``: no
        ``acc_norm``/``acc_bytes``; no ``unconditional``: no ``acc_mutual_info``) are NaN."""
        lls, lengths = _matrix(loglikelihoods, "loglikelihoods", None)
        if not lengths:
            raise InputError("no questions to score", side="loglikelihoods")
        if not self.allow_ragged:
            differs = [i for i, n in enumerate(lengths) if n != lengths[0]]
            if differs:
                raise InputError(
                    f"{lengths[differs[0]]} choices where question 0 has {lengths[0]} (allow_ragged=True accepts this)",
                    segment=differs[0],
                    side="loglikelihoods",
                )
        mask, single = _gold(gold, lengths)
        rows = np.full((len(lengths), _SCHEMA.width), np.nan)
        rows[:, 0] = _picked(lls, mask)
        rows[:, 5] = 1.0
        if choices is not None:
            texts = as_segment_list(choices, "choices")
            if len(texts) != len(lengths):
                raise InputError(f"{len(texts)} choice lists for {len(lengths)} questions", side="choices")
            chars = np.ones_like(lls)
            size = np.ones_like(lls)
            for i, options in enumerate(texts):
                if (
                    isinstance(options, list)
                    and len(options) != lengths[i]
                    and all(isinstance(t, str) for t in options)
                ):
                    raise InputError(
                        f"{lengths[i]} log-likelihoods for {len(options)} choice texts",
                        segment=i,
                        side="loglikelihoods",
                    )
                if (
                    isinstance(options, str)
                    or len(options) != lengths[i]
                    or not all(isinstance(t, str) for t in options)
                ):
                    raise InputError(f"expected {lengths[i]} choice texts (str)", segment=i, side="choices")
                chars[i, : lengths[i]] = [float(len(t)) for t in options]
                size[i, : lengths[i]] = [float(len(t.encode("utf-8"))) for t in options]
            with np.errstate(divide="ignore", invalid="ignore"):
                rows[:, 1] = _picked(lls / chars, mask)
                rows[:, 2] = _picked(lls / size, mask)
        if unconditional is not None:
            uncond, _ = _matrix(unconditional, "unconditional", lengths)
            with np.errstate(invalid="ignore"):
                mutual = lls - uncond
            padding = np.arange(lls.shape[1]) >= np.asarray(lengths)[:, None]
            mutual[padding] = -np.inf
            rows[:, 3] = _picked(mutual, mask)
        if single and len(set(lengths)) == 1:
            probs = np.exp(lls - lls.max(axis=1, keepdims=True))
            probs = probs / probs.sum(axis=1, keepdims=True)
            rows[:, 4] = np.sum((probs - mask) ** 2, axis=1)
        return Stats(_SCHEMA, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        return totals[..., FIELDS.index(self.target)] / totals[..., 5]

    def segment_values(self, stats: Stats) -> np.ndarray:
        return np.array(stats[self.target], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {
            name: float(totals[i] / totals[5]) for i, name in enumerate(FIELDS[:5]) if not np.isnan(totals[i])
        }
        out["questions"] = int(totals[5])
        return out

    def score_from_stats(self, stats: Stats, **options: Any) -> Score:
        if np.isnan(stats[self.target]).any():
            raise InputError(f"{self.target} needs {_NEEDS[self.target]}")
        score = super().score_from_stats(stats, **options)
        if len(stats) > 1:
            extra = {
                f"{name}_stderr": mean_stderr(stats[name]) for name in FIELDS[:4] if not np.isnan(stats[name]).any()
            }
            score = Score(
                score.name, score.score, score.signature, {**score.components, **extra}, score.segments, score.ci
            )
        return score

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(target=self.target, norm="chars", flavor="lm-eval")


_NEEDS = {
    "acc": "log-likelihoods",
    "acc_norm": "choices (their texts give the lengths)",
    "acc_bytes": "choices (their texts give the lengths)",
    "acc_mutual_info": "unconditional log-likelihoods",
    "brier_score": "one gold index per question and the same number of choices for every question",
}


def multiple_choice(
    loglikelihoods: Sequence[Sequence[float]],
    gold: Sequence[Any],
    *,
    choices: Sequence[Sequence[str]] | None = None,
    unconditional: Sequence[Sequence[float]] | None = None,
    target: Target = "acc",
    allow_ragged: bool = False,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """lm-eval's multiple-choice accuracy family and Brier score from log-likelihoods.

    Parameters
    ----------
    loglikelihoods : sequence of sequence of float
        Per question, the log-likelihood of each choice given the context.
    gold : sequence of (int or list of int)
        The gold choice index per question (a list: any of them counts, lm-eval's
        ``multiple_target``).
    choices : sequence of sequence of str, optional
        The choice texts, for ``acc_norm`` (characters) and ``acc_bytes`` (UTF-8 bytes).
    unconditional : sequence of sequence of float, optional
        Per question, each choice's log-likelihood after an empty context (``acc_mutual_info``).
    target : str
        The value in ``Score.score``.
    allow_ragged : bool
        Accept differing choice counts (otherwise an :class:`~nlpeval.InputError` naming the question).
    segments : bool
        Also return the per-question values of ``target``.
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval of ``target``.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        Components: ``acc`` (and ``acc_norm``, ``acc_bytes``, ``acc_mutual_info``,
        ``brier_score`` when the input allows), ``questions``, and lm-eval's
        ``<name>_stderr`` for the accuracies.

    Examples
    --------
    >>> import nlpeval
    >>> lls = [[-4.0, -6.0, -9.0], [-8.0, -7.5, -9.0]]
    >>> texts = [["a cat", "a big dog", "xyzzy"], ["no", "yes please", "maybe"]]
    >>> s = nlpeval.multiple_choice(lls, [1, 1], choices=texts)
    >>> s.components["acc"], s.components["acc_norm"], round(s.components["brier_score"], 4)
    (0.5, 1.0, 0.9371)
    """
    metric = MultipleChoice(target=target, allow_ragged=allow_ragged)
    stats = metric.choice_stats(loglikelihoods, gold, choices=choices, unconditional=unconditional)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["FIELDS", "MultipleChoice", "multiple_choice"]
