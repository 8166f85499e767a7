"""SQuAD v1.1 / v2.0 (and MLQA) exact match and F1, equal to the official evaluation scripts."""

from __future__ import annotations

from typing import Any, Literal

from nlpeval.core.score import Score
from nlpeval.metrics.squad.inputs import collect
from nlpeval.metrics.squad.metric import SQuAD
from nlpeval.metrics.squad.normalize import MLQA_LANGUAGES, mlqa_normalizer, squad_normalize


def squad(
    predictions: Any,
    answers: Any,
    *,
    version: Literal["1.1", "2.0"] = "1.1",
    no_answer_probs: Any = None,
    no_answer_threshold: float = 1.0,
    target: Literal["f1", "exact_match"] = "f1",
    lang: str | None = None,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """SQuAD exact match and F1 (official v1.1 / v2.0 scripts), on the 0–1 scale.

    Parameters
    ----------
    predictions : sequence of str, mapping id -> str, or records
        One answer per question (``""`` for "no answer" in v2.0). Records are
        HF-style dicts ``{"id", "prediction_text"[, "no_answer_probability"]}``.
    answers : sequence of (str or list of str), mapping id -> list of str, or records
        The gold answers of each question (records: ``{"id", "answers": {"text": [...]}}``
        or SQuAD JSON's ``[{"text": ...}]``). With mappings or records, questions are
        matched by id: a prediction for an unknown id, a duplicate id or a question
        without a prediction is an :class:`~nlpeval.InputError`.
    version : {"1.1", "2.0"}
        The official script to follow (see :class:`SQuAD`).
    no_answer_probs : sequence of float or mapping id -> float, optional
        v2.0: the model's probability that there is no answer. With it, a question whose
        probability exceeds ``no_answer_threshold`` counts as answered "no answer", and
        ``best_exact_match``/``best_f1`` and their thresholds are added.
    no_answer_threshold : float
        The official script's ``--na-prob-thresh`` (default 1.0).
    target : {"f1", "exact_match"}
        The headline value in ``Score.score`` (used by CIs and paired tests).
    lang : str or None
        MLQA's normalisation for this language (``en es hi vi de ar zh``); ``None``: SQuAD's.
    segments : bool
        Also return the per-question ``target`` values in ``Score.segments``.
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval of ``target`` from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``components``: ``exact_match``, ``f1``, ``total``; for v2.0 also
        ``has_ans_*``/``no_ans_*`` (when such questions exist) and, with
        ``no_answer_probs``, ``best_exact_match``, ``best_exact_match_thresh``,
        ``best_f1``, ``best_f1_thresh``. The official scripts print 100 times the values.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.squad(["the Eiffel Tower", "in 1889"], [["Eiffel Tower"], ["1889", "in 1887"]])
    >>> s.components["exact_match"], round(s.components["f1"], 4)
    (0.5, 0.8333)
    >>> v2 = nlpeval.squad(["Paris", ""], [["Paris"], []], version="2.0", no_answer_probs=[0.1, 0.8])
    >>> v2.components["no_ans_exact_match"], v2.components["best_f1_thresh"]
    (1.0, 0.1)
    """
    questions = collect(predictions, answers, no_answer_probs)
    metric = SQuAD(
        version=version,
        no_answer_threshold=no_answer_threshold,
        target=target,
        lang=lang,
        with_probs=questions.no_answer_probs is not None,
    )
    return metric.score_from_stats(
        metric.question_stats(questions), segments=segments, n_bootstrap=n_bootstrap, seed=seed
    )


__all__ = ["MLQA_LANGUAGES", "SQuAD", "mlqa_normalizer", "squad", "squad_normalize"]
