"""Qrels and runs given as Python mappings: checked once, up front, naming the query and document.

* qrels: ``{query_id: {doc_id: relevance}}`` with integer relevance (trec_eval: ``>= 0`` judged,
  negative "in the pool but not judged"), or ``{query_id: [doc_id, ...]}`` for binary judgements.
* run: ``{query_id: {doc_id: score}}`` with finite or infinite float scores (NaN is refused), or
  ``{query_id: [doc_id, ...]}`` already ranked, best first (scored ``n, n-1, ..., 1``).

Query and document ids are ``str`` (trec_eval compares them as byte strings; Python's order of
``str`` is the same as the order of their UTF-8 bytes).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

_STR = frozenset({str})
_INT = frozenset({int})


def _where(query: str, doc: Any = None) -> str:
    return f"query {query!r}" + ("" if doc is None else f", document {doc!r}")


def check_qrels(qrels: Any) -> Qrels:
    """The judgements as ``{query: {doc: int}}``, or an :class:`InputError` naming the bad entry.

    Examples
    --------
    >>> check_qrels({"q1": ["d1", "d2"], "q2": {"d3": 2}})
    {'q1': {'d1': 1, 'd2': 1}, 'q2': {'d3': 2}}
    """
    if not isinstance(qrels, Mapping):
        raise InputError(f"qrels: expected a mapping of query id to judgements; got {type(qrels).__name__}")
    out: Qrels = {}
    for query, judged in qrels.items():
        if not isinstance(query, str):
            raise InputError(f"qrels: query ids are str; got {type(query).__name__} {query!r}")
        if isinstance(judged, Mapping):
            if _INT.issuperset(map(type, judged.values())) and _STR.issuperset(map(type, judged)):
                out[query] = dict(judged)  # the common case, checked by C-level scans
                continue
            levels = {}
            for doc, rel in judged.items():
                if not isinstance(doc, str):
                    raise InputError(f"qrels: {_where(query)}: document ids are str; got {type(doc).__name__}")
                if isinstance(rel, bool) or not isinstance(rel, numbers.Integral):
                    raise InputError(f"qrels: {_where(query, doc)}: relevance must be an integer; got {rel!r}")
                levels[doc] = int(rel)
            out[query] = levels
        elif isinstance(judged, Sequence) and not isinstance(judged, (str, bytes)):
            levels = {}
            for doc in judged:
                if not isinstance(doc, str):
                    raise InputError(f"qrels: {_where(query)}: document ids are str; got {type(doc).__name__}")
                levels[doc] = 1
            out[query] = levels
        else:
            raise InputError(f"qrels: {_where(query)}: expected {{doc: relevance}} or a list of relevant docs")
    return out


def check_run(run: Any, *, side: str = "run") -> Run:
    """The ranking as ``{query: {doc: float}}``, or an :class:`InputError` naming the bad entry.

    A list of documents is a ranking, best first; a document listed twice is an error.

    Examples
    --------
    >>> check_run({"q1": ["d2", "d1"], "q2": {"d3": 0.5}})
    {'q1': {'d2': 2.0, 'd1': 1.0}, 'q2': {'d3': 0.5}}
    """
    return {query: ranked for query, (ranked, _) in checked_run(run, side=side).items()}


class CheckedRun(dict):
    """A run that :func:`checked_run` has checked: query -> (``{doc: score}``, scores as float64)."""


def checked_run(run: Any, *, side: str = "run") -> CheckedRun:
    """Each query's ``{doc: score}`` and its scores as a float64 array (in the mapping's order).

    Document ids that are not ``str`` are only noticed where they are compared (a tie with a
    judged document): a score check per document is all a 5-million-line run can afford.
    """
    if isinstance(run, CheckedRun):
        return run
    if not isinstance(run, Mapping):
        raise InputError(f"{side}: expected a mapping of query id to ranked documents; got {type(run).__name__}")
    out = CheckedRun()
    # the scores' sum (a type check, `_all_numbers`) overflows or meets inf - inf in NumPy scalars without
    # anything being wrong with them: no warning for it (one context for the whole run: cheaper than per query)
    with np.errstate(over="ignore", invalid="ignore"):
        _check_queries(run, out, side)
    return out


def _check_queries(run: Mapping[Any, Any], out: CheckedRun, side: str) -> None:
    """:func:`checked_run`'s loop: each query's ``(ranked, scores)`` into ``out``."""
    for query, ranked in run.items():
        if not isinstance(query, str):
            raise InputError(f"{side}: query ids are str; got {type(query).__name__} {query!r}")
        if isinstance(ranked, Mapping):
            ranked = ranked if type(ranked) is dict else dict(ranked)
            out[query] = (ranked, _check_scores(ranked, query, side))
        elif isinstance(ranked, Sequence) and not isinstance(ranked, (str, bytes)):
            docs = list(ranked)
            scores: dict[str, float] = {}
            for position, doc in enumerate(docs):
                if not isinstance(doc, str):
                    raise InputError(f"{side}: {_where(query)}: document ids are str; got {type(doc).__name__}")
                if doc in scores:
                    raise InputError(f"{side}: {_where(query, doc)}: listed twice (position {position + 1})")
                scores[doc] = float(len(docs) - position)
            out[query] = (scores, np.arange(len(docs), 0, -1, dtype=np.float64))
        else:
            raise InputError(f"{side}: {_where(query)}: expected {{doc: score}} or a ranked list of docs")


def _check_scores(ranked: Mapping[str, Any], query: str, side: str) -> np.ndarray:
    """The scores as float64, each a real number and none NaN (one vectorised pass; a slow search
    only to name the culprit)."""
    try:
        values = np.fromiter(ranked.values(), dtype=np.float64, count=len(ranked))
    except (TypeError, ValueError):
        values = None
    if values is not None and not np.isnan(values).any() and _all_numbers(ranked):
        return values
    for doc, score in ranked.items():
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            raise InputError(f"{side}: {_where(query, doc)}: score must be a number; got {score!r}")
        if score != score:
            raise InputError(f"{side}: {_where(query, doc)}: score is NaN")
    raise AssertionError("unreachable: a score failed the vectorised check but none fails the exact one")


def _all_numbers(ranked: Mapping[str, Any]) -> bool:
    """Whether the scores add up: ``np.fromiter`` also accepts ``"1.5"``, which a sum refuses (a C-level
    loop, cheaper than looking at every score's type)."""
    try:
        sum(ranked.values())
    except TypeError:
        return False
    return True
