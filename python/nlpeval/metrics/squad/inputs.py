"""SQuAD input layouts: aligned lists, id mappings, or SQuAD/HF-style records, checked once."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nlpeval.core.errors import InputError

_STR = frozenset({str})


@dataclass(frozen=True)
class Questions:
    """Checked questions: ids, one prediction and the gold answers of each, optional no-answer probabilities."""

    ids: list[Any]
    predictions: list[str]
    answers: list[list[str]]
    no_answer_probs: list[float] | None


def _record_answers(item: Mapping[str, Any], index: int) -> list[str]:
    answers = item.get("answers")
    if isinstance(answers, Mapping):  # HF datasets: {"text": [...], "answer_start": [...]}
        answers = answers.get("text")
    elif isinstance(answers, list) and answers and isinstance(answers[0], Mapping):  # SQuAD json: [{"text": ...}]
        answers = [a.get("text") for a in answers]
    if answers is None:
        raise InputError("record has no 'answers'", segment=index, side="answers")
    return answers


def _from_records(predictions: list[Any], answers: list[Any]) -> tuple[dict[Any, Any], dict[Any, Any], dict]:
    preds: dict[Any, Any] = {}
    probs: dict[Any, Any] = {}
    for i, item in enumerate(predictions):
        if not isinstance(item, Mapping) or "id" not in item or "prediction_text" not in item:
            raise InputError("expected a record with 'id' and 'prediction_text'", segment=i, side="predictions")
        if item["id"] in preds:
            raise InputError(f"duplicate question id {item['id']!r}", segment=i, side="predictions")
        preds[item["id"]] = item["prediction_text"]
        if "no_answer_probability" in item:
            probs[item["id"]] = item["no_answer_probability"]
    golds: dict[Any, Any] = {}
    for i, item in enumerate(answers):
        if not isinstance(item, Mapping) or "id" not in item:
            raise InputError("expected a record with 'id' and 'answers'", segment=i, side="answers")
        if item["id"] in golds:
            raise InputError(f"duplicate question id {item['id']!r}", segment=i, side="answers")
        golds[item["id"]] = _record_answers(item, i)
    return preds, golds, probs


def _check_answers(value: Any, index: int) -> list[str]:
    if type(value) is list and _STR.issuperset(map(type, value)):
        return value
    if isinstance(value, str):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise InputError(
            f"answers are {type(value).__name__}; expected str or a list of str", segment=index, side="answers"
        ) from None
    for j, text in enumerate(items):
        if not isinstance(text, str):
            raise InputError(f"answer {j} is {type(text).__name__}, expected str", segment=index, side="answers")
    return items


def collect(predictions: Any, answers: Any, no_answer_probs: Any) -> Questions:
    """Align predictions with answers (by id for mappings and records, by position for lists).

    Question order is the order of ``predictions`` (the official v2.0 script sorts the
    no-answer probabilities stably, so ties are taken in that order).
    """
    if isinstance(predictions, (str, bytes)) or isinstance(answers, (str, bytes)):
        raise InputError("expected one item per question, got one str", side="predictions")
    probs_by_id: Mapping[Any, Any] | None = None
    if isinstance(predictions, Mapping) or isinstance(answers, Mapping):
        if not (isinstance(predictions, Mapping) and isinstance(answers, Mapping)):
            raise InputError("pass both predictions and answers as mappings by question id, or both as lists")
        preds, golds = dict(predictions), dict(answers)
        probs_by_id = no_answer_probs if isinstance(no_answer_probs, Mapping) else None
    else:
        predictions, answers = list(predictions), list(answers)
        if predictions and isinstance(predictions[0], Mapping):
            preds, golds, record_probs = _from_records(predictions, answers)
            if no_answer_probs is None and record_probs:
                if len(record_probs) != len(preds):
                    missing = next(k for k in preds if k not in record_probs)
                    raise InputError(f"question id {missing!r} has no 'no_answer_probability'", side="predictions")
                probs_by_id = record_probs
            elif isinstance(no_answer_probs, Mapping):
                probs_by_id = no_answer_probs
        else:
            if len(predictions) != len(answers):
                raise InputError(f"{len(predictions)} predictions but {len(answers)} answer sets")
            ids = list(range(len(predictions)))
            for i, text in enumerate(predictions):
                if not isinstance(text, str):
                    raise InputError(f"is {type(text).__name__}, expected str", segment=i, side="predictions")
            gold_lists = [_check_answers(a, i) for i, a in enumerate(answers)]
            probs = _probs_list(no_answer_probs, ids)
            return Questions(ids, predictions, gold_lists, probs)
    for position, qid in enumerate(preds):
        if qid not in golds:
            raise InputError(f"prediction for unknown question id {qid!r}", segment=position, side="predictions")
    missing = [qid for qid in golds if qid not in preds]
    if missing:
        raise InputError(
            f"no prediction for question id {missing[0]!r} ({len(missing)} questions without one)", side="predictions"
        )
    ids = list(preds)
    for i, qid in enumerate(ids):
        if not isinstance(preds[qid], str):
            raise InputError(
                f"prediction for id {qid!r} is {type(preds[qid]).__name__}, expected str", segment=i, side="predictions"
            )
    gold_lists = [_check_answers(golds[qid], i) for i, qid in enumerate(ids)]
    if probs_by_id is not None:
        absent = [qid for qid in ids if qid not in probs_by_id]
        if absent:
            raise InputError(f"no no-answer probability for question id {absent[0]!r}", side="no_answer_probs")
        unknown = [qid for qid in probs_by_id if qid not in golds]
        if unknown:
            raise InputError(f"no-answer probability for unknown question id {unknown[0]!r}", side="no_answer_probs")
        probs = _probs_list([probs_by_id[qid] for qid in ids], ids)
    else:
        probs = _probs_list(no_answer_probs, ids)
    return Questions(ids, [preds[q] for q in ids], gold_lists, probs)


def _probs_list(values: Any, ids: Sequence[Any]) -> list[float] | None:
    if values is None:
        return None
    if isinstance(values, Mapping):
        raise InputError(
            "no_answer_probs is a mapping but the questions have no ids; pass a list", side="no_answer_probs"
        )
    probs = list(values)
    if len(probs) != len(ids):
        raise InputError(f"{len(probs)} no-answer probabilities for {len(ids)} questions", side="no_answer_probs")
    out = []
    for i, p in enumerate(probs):
        try:
            value = float(p)
        except (TypeError, ValueError):
            raise InputError(
                f"no-answer probability {p!r} is not a number", segment=i, side="no_answer_probs"
            ) from None
        if math.isnan(value):
            raise InputError(
                f"no-answer probability is NaN (question id {ids[i]!r})", segment=i, side="no_answer_probs"
            )
        out.append(value)
    return out
