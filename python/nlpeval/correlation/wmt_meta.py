"""``meta_evaluate``'s WMT23-25 statistics: acc_eq (segment level) and SPA (system level).

Inputs are systems x items matrices or mappings from system name to per-item
scores; errors name the system (by name when given) and the item.

Examples
--------
>>> human = {"a": [1, 2, 3], "b": [2, 3, 4], "c": [0, 1, 1]}
>>> metric = {"a": [0.5, 0.6, 0.9], "b": [0.7, 0.8, 0.9], "c": [0.1, 0.2, 0.2]}
>>> wmt_meta_evaluate(metric, human, method="spa").statistic
1.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.signature import Signature

_AVERAGE_BY = {"item": "item", "system": "sys", None: "none"}


def aligned_matrices(metric_scores: Any, human_scores: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
    """System names and the metric / human systems x items matrices, checked against each other."""
    names: list[str] | None = None
    if isinstance(metric_scores, Mapping) or isinstance(human_scores, Mapping):
        if not (isinstance(metric_scores, Mapping) and isinstance(human_scores, Mapping)):
            raise InputError("give both scores as mappings from system name, or both as matrices", side="human_scores")
        metric_names, human_names = [str(k) for k in metric_scores], [str(k) for k in human_scores]
        missing = [n for n in human_names if n not in metric_names]
        if missing:
            raise InputError(f"system {missing[0]!r} has human scores but no metric scores", side="metric_scores")
        extra = [n for n in metric_names if n not in human_names]
        if extra:
            raise InputError(f"system {extra[0]!r} has metric scores but no human scores", side="human_scores")
        names = human_names
        metric_lookup = {str(k): v for k, v in metric_scores.items()}
        human_lookup = {str(k): v for k, v in human_scores.items()}
        rows_m, rows_h = [], []
        for name in names:
            m = np.asarray(metric_lookup[name], dtype=np.float64).ravel()
            h = np.asarray(human_lookup[name], dtype=np.float64).ravel()
            if len(m) != len(h):
                side = "metric_scores" if len(m) < len(h) else "human_scores"
                raise InputError(
                    f"system {name!r}: {len(h)} human scores but {len(m)} metric scores "
                    f"(item {min(len(m), len(h))} is missing)",
                    side=side,
                )
            rows_m.append(m)
            rows_h.append(h)
        lengths = {len(r) for r in rows_h}
        if len(lengths) > 1:
            first = names[0]
            odd = next(n for n, r in zip(names, rows_h, strict=True) if len(r) != len(rows_h[0]))
            raise InputError(f"system {odd!r} has a different number of items than {first!r}", side="human_scores")
        metric, human = np.vstack(rows_m), np.vstack(rows_h)
    else:
        try:
            metric = np.asarray(metric_scores, dtype=np.float64)
            human = np.asarray(human_scores, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(
                "expected systems x items matrices of numbers (NaN: not judged)", side="human_scores"
            ) from None
        if metric.ndim != 2 or human.ndim != 2:
            raise InputError("expected systems x items matrices for both scores", side="human_scores")
        if metric.shape != human.shape:
            raise InputError(f"shape {human.shape} differs from metric_scores' {metric.shape}", side="human_scores")
        names = [str(i) for i in range(metric.shape[0])]
    for side, array in (("metric_scores", metric), ("human_scores", human)):
        if np.isinf(array).any():
            s, i = (int(v) for v in np.argwhere(np.isinf(array))[0])
            raise InputError(f"system {names[s]!r}, item {i}: score is infinite", side=side)
    bad = np.isnan(metric) & ~np.isnan(human)
    if bad.any():
        s, i = (int(v) for v in np.argwhere(bad)[0])
        raise InputError(f"system {names[s]!r}, item {i}: no metric score where humans judged", side="metric_scores")
    return names, metric, human


def wmt_meta_evaluate(
    metric_scores: Any,
    human_scores: Any,
    *,
    method: str,
    group_by: str | None = "item",
    epsilon: float | None = None,
    sample_rate: float = 1.0,
    n_permutations: int = 1000,
    seed: int | None = 4,
) -> Any:
    """acc_eq or SPA as a :class:`~nlpeval.correlation.MetaEvaluation` (see ``meta_evaluate``)."""
    from nlpeval.correlation.average import average_correlation
    from nlpeval.correlation.meta import MetaEvaluation
    from nlpeval.correlation.spa import (
        pairwise_p_values_from_signs,
        reference_p_values,
        sign_matrix,
        spa_from_p_values,
    )

    _names, metric, human = aligned_matrices(metric_scores, human_scores)
    n_systems = metric.shape[0]
    if method == "acc_eq":
        if group_by not in _AVERAGE_BY:
            raise ValueError(f"group_by must be 'item', 'system' or None; got {group_by!r}")
        if epsilon is not None and not (epsilon >= 0):
            raise ValueError(f"epsilon must be a non-negative number or None; got {epsilon!r}")
        if not np.isfinite(human).any():
            raise InputError("no judged item to compare", side="human_scores")
        result = average_correlation(
            human,
            metric,
            "acc_eq",
            average_by=_AVERAGE_BY[group_by],
            variant="acc23",
            epsilon=epsilon,
            sample_rate=sample_rate,
            random_state=seed,
        )
        if result.n == 0:
            raise InputError("no group has two judged scores to compare", side="human_scores")
        fields: dict[str, object] = {"level": "segment", "method": "acc_eq", "group": group_by or "none"}
        fields["eps"] = "search" if epsilon is None else f"{epsilon:g}"
        if epsilon is None and sample_rate < 1:
            fields.update(sample=f"{sample_rate:g}", rs=seed)
        return MetaEvaluation(
            statistic=float(result.statistic),
            pvalue=math.nan,
            n=int(np.isfinite(human).sum()),
            n_groups=int(result.n),
            level="segment",
            method="acc_eq",
            group_by=group_by,
            signature=str(Signature.build(**fields)),
            epsilon=float(result.epsilon) if result.epsilon is not None else None,
        )
    if method != "spa":
        raise ValueError(f"method must be 'acc_eq' or 'spa'; got {method!r}")
    if n_systems < 2:
        raise InputError("soft pairwise accuracy needs at least two systems", side="metric_scores")
    if n_permutations < 1:
        raise ValueError("n_permutations must be at least 1")
    complete = ~np.isnan(human).any(axis=0)
    if not complete.any():
        raise InputError("no item has human scores for every system", side="human_scores")
    human, metric = human[:, complete], metric[:, complete]
    signs = sign_matrix(n_permutations, human.shape[1], seed)
    human_p = reference_p_values(human, signs, seed).copy()
    metric_p = pairwise_p_values_from_signs(metric, signs)
    fields = {"level": "system", "method": "spa", "perm": n_permutations, "rs": seed}
    return MetaEvaluation(
        statistic=spa_from_p_values(human_p, metric_p),
        pvalue=math.nan,
        n=int(human.shape[1]),
        n_groups=n_systems,
        level="system",
        method="spa",
        group_by=None,
        signature=str(Signature.build(**fields)),
        pvalues={"human": human_p, "metric": metric_p},
    )
