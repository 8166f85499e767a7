"""Retrieval evaluation with trec_eval's definitions: P@k, recall@k, R-precision, (M)RR, MAP, nDCG, success@k.

``nlpeval.retrieval(qrels, run, measures)`` (:func:`nlpeval.ir.retrieval`) returns a
:class:`RetrievalResult` of per-query values and means; :func:`compare_runs` tests several runs
against a baseline over the same queries.
"""

from __future__ import annotations

from nlpeval.ir.api import FLAVORS, RetrievalMeasure, RetrievalResult, retrieval
from nlpeval.ir.compare import RunComparison, compare_runs
from nlpeval.ir.measures import DEFAULT_MEASURES, Measure, parse_measures

__all__ = [
    "DEFAULT_MEASURES",
    "FLAVORS",
    "Measure",
    "RetrievalMeasure",
    "RetrievalResult",
    "RunComparison",
    "compare_runs",
    "parse_measures",
    "retrieval",
]
