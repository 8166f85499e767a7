"""The example browser's data: compact JSON embedded once in the page, safe inside ``<script>``.

Texts are stored once in a string table (identical outputs of several systems, or a
system that copies the reference, cost one entry); sentence scores are arrays per
metric and system on the display scale, rounded to a fixed number of decimals.

Examples
--------
>>> script_json({"t": "</script><b>&\u2028"})
'{"t":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026\\\\u2028"}'
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: decimals kept for sentence scores on the display scale (0-100 for BLEU: 2 decimals)
SCORE_DECIMALS = 2

_UNSAFE = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def script_json(data: Any) -> str:
    """``data`` as JSON that can sit verbatim inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` (so ``</script>`` and ``<!--`` in user text cannot end or
    change the element) and U+2028/U+2029 are written as ``\\u`` escapes; the JSON
    value is unchanged.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in _UNSAFE.items():
        text = text.replace(char, escaped)
    return text


class StringTable:
    """Distinct strings in first-seen order; ``add`` returns a string's index.

    Examples
    --------
    >>> table = StringTable()
    >>> table.add("a"), table.add("b"), table.add("a"), table.strings
    (0, 1, 0, ['a', 'b'])
    """

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.strings)
            self.strings.append(text)
        return index


def _score(value: Any, scale: float) -> float | None:
    if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    rounded = round(value * scale, SCORE_DECIMALS)
    return int(rounded) if rounded == int(rounded) else rounded


def examples_data(
    report: Mapping[str, Any],
    metric_infos: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The example browser's JSON from the report dict (``Report.to_dict()``).

    Keys: ``systems``, ``metrics`` (name, label, scale, higher-is-better), ``strings``,
    ``ids`` (segment ids), ``src`` (string indices or ``null``), ``refs`` (per example,
    a list of string indices), ``hyps`` (per system, string indices), ``scores``
    (per metric, per system, scores on the display scale), ``labels``, ``total``,
    ``max_examples``, ``ngrams`` (salient n-grams per system pair) and ``buckets``
    (sentence bucket tables the browser can filter by).
    """
    systems = list(report.get("systems") or [])
    section = report.get("examples") or {}
    examples = list(section.get("examples") or [])
    table = StringTable()
    metric_names: list[str] = []
    for example in examples:
        for name in example.get("scores") or {}:
            if name not in metric_names:
                metric_names.append(name)
    metrics = []
    for name in metric_names:
        info = metric_infos.get(name, {})
        metrics.append(
            {
                "name": name,
                "label": info.get("label") or name,
                "scale": info.get("scale", 1.0),
                "hib": bool(info.get("higher_is_better", True)),
            }
        )
    has_src = any(example.get("source") is not None for example in examples)
    has_labels = any(example.get("label") is not None for example in examples)
    data: dict[str, Any] = {
        "systems": systems,
        "metrics": metrics,
        "total": section.get("total", len(examples)),
        "max_examples": section.get("max_examples"),
        "sort_metric": section.get("metric"),
        "ids": [int(example.get("id", i)) for i, example in enumerate(examples)],
        "src": [table.add(example.get("source") or "") for example in examples] if has_src else None,
        "refs": [[table.add(ref) for ref in example.get("references") or []] for example in examples],
        "hyps": [
            [
                table.add((example.get("hypotheses") or [])[s] if s < len(example.get("hypotheses") or []) else "")
                for example in examples
            ]
            for s in range(len(systems))
        ],
        "labels": [example.get("label") for example in examples] if has_labels else None,
    }
    scores: dict[str, list[list[float | None]]] = {}
    for metric in metrics:
        scale = float(metric["scale"])
        per_system: list[list[float | None]] = [[] for _ in systems]
        for example in examples:
            values = (example.get("scores") or {}).get(metric["name"]) or []
            for s in range(len(systems)):
                per_system[s].append(_score(values[s], scale) if s < len(values) else None)
        scores[metric["name"]] = per_system
    data["scores"] = scores
    data["ngrams"] = _ngrams(report.get("ngrams") or [])
    data["buckets"] = _buckets(report.get("buckets") or [], metric_infos, metric_names)
    data["strings"] = table.strings
    return data


def _ngrams(comparisons: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for comparison in comparisons:
        out.append(
            {
                "system": comparison.get("system"),
                "other": comparison.get("other"),
                "better": [entry.get("ngram", "") for entry in comparison.get("system_better") or []],
                "worse": [entry.get("ngram", "") for entry in comparison.get("other_better") or []],
            }
        )
    return out


def _buckets(
    tables: Sequence[Mapping[str, Any]], metric_infos: Mapping[str, Mapping[str, Any]], metrics: Sequence[str]
) -> list[dict[str, Any]]:
    """Sentence bucket tables the browser can recompute membership for (reference length,
    length difference, a sentence score embedded in the page, label); word-level tables are
    not segment filters. Membership is ``lower <= value < upper`` (as compare-mt's cutoffs)."""
    out = []
    for table in tables:
        by = str(table.get("by") or "")
        if table.get("kind") != "sentence":
            continue
        base = by.split(":", 1)[0]
        if base not in ("ref-length", "length-diff", "sentence-score", "label"):
            continue
        metric = by.split(":", 1)[1] if base == "sentence-score" and ":" in by else None
        if base == "sentence-score" and metric not in metrics:
            continue
        scale = float(metric_infos.get(metric, {}).get("scale", 1.0)) if metric else 1.0
        rows = []
        for row in table.get("rows") or []:
            lower, upper = row.get("lower"), row.get("upper")
            rows.append(
                {
                    "label": row.get("label", ""),
                    "lo": None if lower is None else _score(lower, scale),
                    "hi": None if upper is None else _score(upper, scale),
                }
            )
        out.append({"id": table.get("id"), "title": table.get("title"), "by": base, "metric": metric, "rows": rows})
    return out
