"""Registry entries of the retrieval measures (trec_eval's): listed by ``nlpeval metrics`` and
``nlpeval explain``, scored by ``nlpeval ir`` and ``nlpeval.retrieval``.

A retrieval measure scores a ranked run against qrels, not hypotheses against references, so its
entries say ``inputs="retrieval"``: ``nlpeval score -m ndcg@10`` (and the report, the integrations and
Dask, which score texts) refuse the name with one line naming ``nlpeval ir``. ``registry.build("ndcg@10")``
gives the :class:`~nlpeval.ir.api.RetrievalMeasure` (``segment_stats(run, qrels)``). The patterns
accept the spellings :meth:`nlpeval.ir.measures.Measure.parse` accepts (trec_eval's ``P_10``,
``ndcg_cut.10`` and the aliases ``P@10``, ``mrr@10``, ``hit@3``), any case; the measure's options
(``-l``, ``-c``, ``-J``, ``--flavor``) are flags of ``nlpeval ir``, not of ``score``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

_CUTOFF = r"[@_.]\d+"


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """The measure ``name`` (any spelling) at trec_eval's defaults (``-l 1``, no ``-c``/``-J``, 9.0.8)."""
    from nlpeval.ir.api import RetrievalMeasure

    return RetrievalMeasure(name)


def _entry(name: str, label: str, stems: str, cutoff: str, also: str = "") -> MetricEntry:
    """``cutoff``: "required" (``P@k``), "optional" (``map``, ``map@k``) or "no" (``Rprec``); ``also``: another
    alternative of the pattern."""
    tail = {"required": _CUTOFF, "optional": f"(?:{_CUTOFF})?", "no": ""}[cutoff]
    return MetricEntry(
        name,
        factory="nlpeval.metrics.entries.retrieval:build",
        family="retrieval",
        card="retrieval",
        label=label,
        pattern=f"(?i:{stems}){tail}" + (f"|{also}" if also else ""),
        scale=1.0,
        flavors=("trec_eval", "trec_eval10"),
        option_group="Retrieval options (flags of nlpeval ir: -l, -c, -J, --flavor; none in score)",
        inputs="retrieval",
    )


ENTRIES = (
    _entry("P@<k>", "P@k", "p|precision", "required"),
    _entry("recall@<k>", "R@k", "r|recall", "required"),
    _entry("Rprec", "R-prec", "rprec|r-prec|r-precision|r_precision", "no"),
    _entry("mrr[@<k>]", "MRR", "rr|mrr|recip_rank|recip_rank_cut", "optional"),
    # a bare "ap" is classification's average precision (its own card and API); "ap@10" is retrieval's
    _entry("map[@<k>]", "MAP", "map|map_cut", "optional", also=f"(?i:ap){_CUTOFF}"),
    _entry("ndcg[@<k>]", "nDCG", "ndcg|ndcg_cut", "optional"),
    _entry("ndcg_exp[@<k>]", "nDCG-exp", "ndcg_exp|ndcg_exp_cut|ndcg_burges", "optional"),
    _entry("success@<k>", "Success@k", "success|hits?|hit_rate|hitrate", "required"),
)
