"""Agreement of the report's metrics with human scores: which metric deserves trust on this data (issue 24).

Per metric, the statistics the WMT23-25 metrics tasks rank metrics by, computed as ``nlpeval meta`` does
(:func:`nlpeval.correlation.compare.compare_metrics`, mt-metrics-eval's statistics): soft pairwise
accuracy (SPA, system level, from the segment scores), tie-calibrated pairwise accuracy (acc_eq, segment
level, averaged by item) and Pearson's r between corpus scores and the systems' mean human scores, each with
its PERM-BOTH significance cluster (rank 1: not significantly worse than the best metric).

Human scores are given per system: one score per segment of the report (NaN: not judged) or one
system-level score. Lower-is-better metrics (TER, WER...) are negated first. Systems of the report
without human scores are left out (listed); human scores for a system the report lacks are an error
naming it. A statistic that cannot be computed (one judged system, constant human scores, no item judged
for every system for SPA) is ``None`` with a note saying why; nothing raises for such data.

Examples
--------
>>> human = {"A": [1.0, 2.0, 3.0], "B": [0.0, 1.0, 1.0], "C": [2.0, 2.0, 3.0]}
>>> metric = {"chrf": {"A": [0.5, 0.6, 0.9], "B": [0.1, 0.2, 0.2], "C": [0.6, 0.7, 0.9]}}
>>> corpus = {"chrf": {"A": 0.66, "B": 0.16, "C": 0.73}}
>>> res = human_agreement(human_scores(human, 3), metric, corpus, {"chrf": True}, k=0)
>>> res.rows[0].metric, round(res.rows[0].pearson, 4), res.rows[0].pearson_rank
('chrf', 0.997, 1)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.reports.model import HumanAgreement, HumanAgreementRow
from nlpeval.reports.record import FrozenRecord, record

#: statistic -> (level, method, group_by) of :func:`~nlpeval.correlation.compare.compare_metrics` (as ``nlpeval meta``)
STATISTICS = {
    "spa": ("system", "spa", None),
    "acc_eq": ("segment", "acc_eq", "item"),
    "pearson": ("system", "pearson", None),
}


@record
class HumanScores(FrozenRecord):
    """Human scores of some systems: ``segments`` (systems x segments, NaN not judged) or ``system`` (one each)."""

    source: str
    systems: tuple[str, ...]
    segments: np.ndarray | None
    system: np.ndarray | None

    @property
    def level(self) -> str:
        return "segment" if self.segments is not None else "system"


def human_scores(scores: Mapping[str, Any], n_segments: int, source: str = "human scores") -> HumanScores:
    """:class:`HumanScores` from ``system -> one score per segment`` (None/NaN: not judged) or ``system -> score``.

    Examples
    --------
    >>> human_scores({"A": [1, None], "B": [0, 2]}, 2).segments.tolist()
    [[1.0, nan], [0.0, 2.0]]
    >>> human_scores({"A": 70.5, "B": 68}, 2).level
    'system'
    """
    if not scores:
        raise InputError("no human scores", side=source)
    systems = tuple(str(s) for s in scores)
    scalar = [np.ndim(v) == 0 for v in scores.values()]
    if any(scalar) and not all(scalar):
        first = systems[scalar.index(not scalar[0])]
        raise InputError(f"system {first!r}: mix of system-level and segment-level human scores", side=source)
    rows = []
    for system, values in zip(systems, scores.values(), strict=True):
        try:
            row = np.array([np.nan if v is None else v for v in np.atleast_1d(values)], dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"system {system!r}: human scores must be numbers", side=source) from None
        if np.isinf(row).any():
            raise InputError(f"system {system!r}, segment {int(np.argmax(np.isinf(row)))}: infinite score", side=source)
        if not scalar[0] and len(row) != n_segments:
            raise InputError(
                f"system {system!r} has {len(row)} human scores but the report has {n_segments} segments", side=source
            )
        rows.append(row)
    matrix = np.vstack(rows)
    if scalar[0]:
        return HumanScores(source, systems, None, matrix[:, 0])
    return HumanScores(source, systems, matrix, None)


def human_agreement(
    human: HumanScores,
    segment_scores: Mapping[str, Mapping[str, Any]],
    corpus_scores: Mapping[str, Mapping[str, float]],
    higher_is_better: Mapping[str, bool],
    *,
    k: int = 1000,
    block_size: int = 100,
    alpha: float = 0.05,
    seed: int | None = 12345,
) -> HumanAgreement:
    """Every metric's SPA, acc_eq and system-level Pearson against ``human``, with PERM-BOTH clusters.

    Parameters
    ----------
    human : HumanScores
    segment_scores, corpus_scores : mapping
        Metric -> system -> its segment scores (one per segment) / its corpus score.
    higher_is_better : mapping
        Metric -> direction (lower-is-better metrics are negated).
    k, block_size, alpha, seed
        Resamples per pair of metrics, early-stopping block, cluster significance level and seed of
        the permutation tests (``nlpeval meta``'s ``--k --block-size --pval --seed``).

    Returns
    -------
    HumanAgreement
    """
    metrics = list(corpus_scores)
    reported = {s for m in metrics for s in corpus_scores[m]}
    unknown = [s for s in human.systems if s not in reported]
    if unknown:
        raise InputError(f"system {unknown[0]!r} has human scores but is not in the report", side=human.source)
    order = [s for s in next(iter(corpus_scores.values()), {}) if s in human.systems] if metrics else []
    unjudged = tuple(s for s in next(iter(corpus_scores.values()), {}) if s not in human.systems) if metrics else ()
    rows_of = [human.systems.index(s) for s in order]
    negated = tuple(m for m in metrics if not higher_is_better.get(m, True))
    sign = {m: (-1.0 if m in negated else 1.0) for m in metrics}
    notes: list[str] = []
    values: dict[str, dict[str, tuple[float | None, int | None]]] = {}
    epsilons: dict[str, float | None] = {}
    corpus = {m: np.array([sign[m] * corpus_scores[m][s] for s in order]) for m in metrics}
    if human.segments is not None:
        matrix = human.segments[rows_of]
        n_items, n_judged = matrix.shape[1], int(np.isfinite(matrix).sum())
        judged_systems = np.isfinite(matrix).any(axis=1)
        for s, ok in zip(order, judged_systems, strict=True):
            if not ok:
                notes.append(f"system {s!r} has no judged segment: left out")
        keep = np.flatnonzero(judged_systems)
        order = [order[i] for i in keep]
        matrix = matrix[keep]
        corpus = {m: v[keep] for m, v in corpus.items()}
        segs = {
            m: np.vstack([sign[m] * np.asarray(segment_scores[m][s], dtype=np.float64) for s in order])
            if order
            else np.zeros((0, n_items))
            for m in metrics
        }
        complete = np.flatnonzero(np.isfinite(matrix).all(axis=0)) if order else np.zeros(0, dtype=np.int64)
        if 0 < len(complete) < n_items:
            notes.append(f"SPA over the {len(complete)} of {n_items} segments judged for every system")
        inputs: dict[str, tuple[Any, Any]] = {
            "spa": ({m: v[:, complete] for m, v in segs.items()}, matrix[:, complete]),
            "acc_eq": (segs, matrix),
            "pearson": (corpus, matrix),
        }
    else:
        matrix = human.system[rows_of] if human.system is not None else np.zeros(0)
        n_items, n_judged = 0, int(np.isfinite(matrix).sum())
        inputs = {"pearson": (corpus, matrix)}
        notes.append("system-level human scores: SPA and acc_eq need one human score per segment")
    for stat in STATISTICS:
        if stat not in inputs:
            continue
        result = _compare(stat, *inputs[stat], len(order), k=k, block_size=block_size, alpha=alpha, seed=seed)
        if isinstance(result, str):
            notes.append(f"{stat}: {result}")
            continue
        values[stat] = {m: (_finite(result.statistics[m]), result.ranks[m]) for m in metrics}
        if stat == "acc_eq" and result.epsilons:
            epsilons = {m: _finite(result.epsilons[m]) for m in metrics}
    rows = []
    for m in metrics:
        spa, acc, pearson = (values.get(stat, {}).get(m, (None, None)) for stat in STATISTICS)
        rows.append(
            HumanAgreementRow(
                metric=m,
                spa=spa[0],
                spa_rank=spa[1],
                acc_eq=acc[0],
                acc_eq_epsilon=epsilons.get(m),
                acc_eq_rank=acc[1],
                pearson=pearson[0],
                pearson_rank=pearson[1],
            )
        )
    return HumanAgreement(
        source=human.source,
        level=human.level,
        systems=tuple(order),
        unjudged=unjudged,
        n_items=n_items,
        n_judged=n_judged,
        negated=negated,
        rows=tuple(rows),
        k=k,
        seed=seed,
        alpha=alpha,
        notes=tuple(notes),
    )


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _compare(stat: str, scores: Mapping[str, Any], human: np.ndarray, n_systems: int, **kw: Any) -> Any:
    """:func:`compare_metrics` of one statistic, or the reason it is undefined on these data."""
    from nlpeval.correlation.compare import compare_metrics

    level, method, group_by = STATISTICS[stat]
    if n_systems < 2:
        return f"undefined with {n_systems} judged system{'s' if n_systems != 1 else ''} (needs at least 2)"
    if stat == "spa" and human.shape[1] == 0:
        return "no segment is judged for every system"
    judged = human[np.isfinite(human)]
    if judged.size and np.all(judged == judged[0]):
        return "undefined: the human scores are all equal"
    try:
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")
            return compare_metrics(
                scores,
                human,
                level=level,
                method=method,
                group_by=group_by,
                k=kw["k"],
                block_size=kw["block_size"],
                pval=kw["alpha"],
                seed=kw["seed"],
            )
    except InputError as exc:
        return f"undefined: {exc.message}"
