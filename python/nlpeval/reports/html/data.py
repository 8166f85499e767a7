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
from collections.abc import Iterable, Mapping, Sequence
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

    def add_all(self, texts: Iterable[str]) -> list[int]:
        """``[self.add(text) for text in texts]``."""
        index_of = self._index
        strings = self.strings
        out: list[int] = []
        append = out.append
        for text in texts:
            index = index_of.get(text)
            if index is None:
                index = index_of[text] = len(strings)
                strings.append(text)
            append(index)
        return out


def _score(value: Any, scale: float) -> float | None:
    if value is not None and type(value) is not float and type(value) is not int:
        from nlpeval.reports.model import plain

        value = plain(value)  # a numpy scalar in a record, as ``to_dict`` gives it
    if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    rounded = round(value * scale, SCORE_DECIMALS)
    return int(rounded) if rounded == int(rounded) else rounded


def _scores_of(values: Sequence[Any], scale: float) -> list[float | None]:
    """``[_score(v, scale) for v in values]``, with finite floats (nearly all) handled inline."""
    isfinite = math.isfinite
    out: list[float | None] = []
    append = out.append
    for value in values:
        if type(value) is float and isfinite(value):
            rounded = round(value * scale, SCORE_DECIMALS)
            append(int(rounded) if rounded == int(rounded) else rounded)
        else:
            append(_score(value, scale))
    return out


def _code_string(indices: Sequence[int]) -> str:
    """Small non-negative integers (and -1) as one character each: ``chr(48 + i)``.

    Examples
    --------
    >>> _code_string([0, 3, -1, 12])
    '03/<'
    """
    try:  # row numbers below 80: one ASCII byte each
        return bytes([48 + i for i in indices]).decode("ascii")
    except (ValueError, TypeError):
        return "".join(chr(48 + int(i)) for i in indices)


def display_offsets(text: str) -> Sequence[int]:
    """Where compare-mt's tokens of ``text`` (stripped, split at single spaces) fall among the page's
    tokens (``text.split()``, the script splits at the same whitespace): token ``j`` covers page tokens
    ``offsets[j]`` to ``offsets[j + 1]`` (an empty token covers none).

    Examples
    --------
    >>> display_offsets(" a  b\\u3000c ")
    [0, 1, 1, 3]
    >>> display_offsets("a b")
    range(0, 3)
    """
    stripped = text.strip()
    if "  " not in stripped and stripped.isprintable():  # every whitespace but " " is unprintable
        count = stripped.count(" ") + 1 if stripped else 0
        return range(count + 1) if count else [0, 0]
    words = text.split()
    if " ".join(words) == stripped:  # single spaces only: one page token per compare-mt token
        return range(len(words) + 1) if words else [0, 0]
    offsets = [0]
    for token in text.strip().split(" "):
        offsets.append(offsets[-1] + len(token.split()))
    return offsets


def _all_offsets(texts: Sequence[Sequence[str]]) -> list[list[Sequence[int]]]:
    """``[[display_offsets(text) for text in row] for row in texts]``, with one check over all the texts
    when none has whitespace but single spaces between words (then each is ``range(words + 1)``)."""
    joined = " ".join(text for row in texts for text in row)
    if "  " in joined or joined[:1] == " " or joined[-1:] == " " or not joined.isprintable():
        return [[display_offsets(text) for text in row] for row in texts]
    return [[range(text.count(" ") + 2) if text else [0, 0] for text in row] for row in texts]


def _flags(flags: str, offsets: Sequence[int]) -> str:
    """The model's flags per compare-mt token carried over to the page's tokens.

    Examples
    --------
    >>> _flags("101", [0, 1, 1, 3]), _flags("10", range(3))
    ('111', '10')
    """
    if len(flags) != len(offsets) - 1:
        return ""
    if isinstance(offsets, range):  # one page token per compare-mt token
        return flags
    return "".join(flag * (offsets[j + 1] - offsets[j]) for j, flag in enumerate(flags))


def examples_data(
    report: Mapping[str, Any],
    metric_infos: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The example browser's JSON from the report dict (``Report.to_dict()``; the examples section's
    ``examples`` may also be the model's :class:`~nlpeval.reports.model.Example` records themselves).

    Keys: ``systems``, ``metrics`` (name, label, scale, higher-is-better), ``strings``,
    ``ids`` (segment ids), ``src`` (string indices or ``null``), ``refs`` (per example,
    a list of string indices), ``hyps`` (per system, string indices), ``scores``
    (per metric, per system, one score per *segment* of the test set, indexed by segment id,
    on the display scale: the example browser and the sentence scatter plots read the same
    array), ``labels``, ``total``, ``max_examples``, ``matched`` (per system, per example, one
    ``"0"``/``"1"`` per whitespace token: matched in the reference), ``align`` and ``align_ref``
    (per system, per example, the jiwer word alignment ``=SDI`` and the reference used; ``null``
    without a WER-family metric), ``ngrams`` (salient n-grams per
    system pair with their occurrences) and ``buckets`` (sentence bucket tables with each example's
    bucket). Everything the page highlights or filters by comes from the model; the script
    only displays it.
    """
    systems = list(report.get("systems") or [])
    n_systems = len(systems)
    section = report.get("examples") or {}
    examples = list(section.get("examples") or [])
    rows = _Rows(examples)
    table = StringTable()
    metric_names: list[str] = []
    for scores in rows.scores:
        for name in scores:
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
    has_src = any(source is not None for source in rows.sources)
    has_labels = any(label is not None for label in rows.labels)
    ids = [int(i) for i in rows.ids]
    hypotheses = [list(hyps[:n_systems]) + [""] * (n_systems - len(hyps)) for hyps in rows.hypotheses]
    data: dict[str, Any] = {
        "systems": systems,
        "metrics": metrics,
        "total": section.get("total", len(examples)),
        "max_examples": section.get("max_examples"),
        "sort_metric": section.get("metric"),
        "ids": ids,
        "src": table.add_all([source or "" for source in rows.sources]) if has_src else None,
        "refs": _split(table.add_all([ref for refs in rows.references for ref in refs]), rows.references),
        "hyps": [table.add_all([hyps[s] for hyps in hypotheses]) for s in range(n_systems)],
        "labels": rows.labels if has_labels else None,
    }
    data["scores"] = _scores(report, rows, metrics, systems)
    offsets = _all_offsets(hypotheses)
    data["matched"] = [
        [_flags(matched[s] if s < len(matched) else "", offsets[i][s]) for i, matched in enumerate(rows.matched)]
        for s in range(n_systems)
    ]
    data["ngrams"] = _ngrams(report.get("ngrams") or [], ids, systems, offsets)
    if examples and all(len(alignments) == n_systems for alignments in rows.alignments):
        data["align"] = [[alignments[s] for alignments in rows.alignments] for s in range(n_systems)]
        refs_used = [[int(used[s]) for used in rows.alignment_references] for s in range(n_systems)]
        data["align_ref"] = refs_used if any(any(r) for r in refs_used) else None
    else:
        data["align"] = data["align_ref"] = None
    data["buckets"] = _buckets(report.get("buckets") or [], systems, ids)
    data["strings"] = table.strings
    return data


def _split(flat: list[int], like: Sequence[Sequence[Any]]) -> list[list[int]]:
    """``flat`` cut into lists as long as those of ``like``."""
    if all(len(item) == 1 for item in like):
        return [[value] for value in flat]
    out, start = [], 0
    for item in like:
        out.append(flat[start : start + len(item)])
        start += len(item)
    return out


class _Rows:
    """The examples' fields as columns, from ``Example`` records or their dicts (the same values:
    ``to_dict`` only turns tuples into lists, numpy integers into ints, NaN into ``None``, which the
    sentence scores go through again in :func:`_scores_of`)."""

    def __init__(self, examples: Sequence[Any]) -> None:
        if examples and all(not isinstance(example, Mapping) for example in examples):
            self.ids: list[Any] = [example.id for example in examples]
            self.segments: list[Any] = self.ids
            self.sources: list[Any] = [example.source for example in examples]
            self.references: list[Any] = [example.references for example in examples]
            self.hypotheses: list[Any] = [example.hypotheses for example in examples]
            self.scores: list[Any] = [example.scores for example in examples]
            self.labels: list[Any] = [example.label for example in examples]
            self.matched: list[Any] = [example.matched for example in examples]
            self.alignments: list[Any] = [example.alignments for example in examples]
            self.alignment_references: list[Any] = [example.alignment_references for example in examples]
            return
        from nlpeval.reports.model import plain

        examples = [example if isinstance(example, Mapping) else plain(example) for example in examples]
        self.ids = [example.get("id", i) for i, example in enumerate(examples)]
        self.segments = [example.get("id", 0) for example in examples]
        self.sources = [example.get("source") for example in examples]
        self.references = [example.get("references") or [] for example in examples]
        self.hypotheses = [example.get("hypotheses") or [] for example in examples]
        self.scores = [example.get("scores") or {} for example in examples]
        self.labels = [example.get("label") for example in examples]
        self.matched = [example.get("matched") or [] for example in examples]
        self.alignments = [example.get("alignments") or [] for example in examples]
        self.alignment_references = [example.get("alignment_references") for example in examples]


def _scores(
    report: Mapping[str, Any],
    rows: _Rows,
    metrics: Sequence[Mapping[str, Any]],
    systems: Sequence[str],
) -> dict[str, list[list[float | None]]]:
    """Per metric and system, the sentence scores of every segment (from the sentence section when
    the report has one, else the examples' scores at their segment ids)."""
    by_pair = {
        (item.get("metric"), item.get("system")): item.get("values") or []
        for item in (report.get("sentences") or {}).get("scores") or []
    }
    total = int((report.get("examples") or {}).get("total") or 0)
    segments = [int(i) for i in rows.segments]
    total = max([total, *(i + 1 for i in segments)]) if segments else total
    scores: dict[str, list[list[float | None]]] = {}
    for metric in metrics:
        scale = float(metric["scale"])
        per_system: list[list[float | None]] = []
        for s, system in enumerate(systems):
            values = by_pair.get((metric["name"], system))
            if values is None:
                values = [None] * total
                for segment, example_scores in zip(segments, rows.scores, strict=True):
                    row = example_scores.get(metric["name"]) or []
                    values[segment] = row[s] if s < len(row) else None
            per_system.append(_scores_of(values, scale))
        scores[metric["name"]] = per_system
    return scores


def _ngrams(
    comparisons: Sequence[Mapping[str, Any]],
    ids: Sequence[int],
    systems: Sequence[str],
    offsets: Sequence[Sequence[Sequence[int]]],
) -> list[dict[str, Any]]:
    """Per comparison: its n-grams (``better`` then ``worse`` form the entry index) and ``spans``, flat
    ``[example, side, start, length, entry, ...]`` in page tokens (``side`` 0: ``system``'s output,
    1: ``other``'s)."""
    index = {segment: i for i, segment in enumerate(ids)}
    out = []
    for comparison in comparisons:
        entries = list(comparison.get("system_better") or []) + list(comparison.get("other_better") or [])
        orders = [int(e.get("order") or len(str(e.get("ngram", "")).split(" "))) for e in entries]
        sides = [systems.index(comparison.get("system")), systems.index(comparison.get("other"))]
        spans: list[int] = []
        for segment, side, start, entry in comparison.get("spans") or []:
            i = index.get(segment)
            if i is None or entry >= len(orders):
                continue
            where = offsets[i][sides[side]]
            stop = min(start + orders[entry], len(where) - 1)
            if start < stop and where[start] < where[stop]:
                spans.extend((i, side, where[start], where[stop] - where[start], entry))
        out.append(
            {
                "system": comparison.get("system"),
                "other": comparison.get("other"),
                "better": [entry.get("ngram", "") for entry in comparison.get("system_better") or []],
                "worse": [entry.get("ngram", "") for entry in comparison.get("other_better") or []],
                "spans": spans,
            }
        )
    return out


def _buckets(tables: Sequence[Mapping[str, Any]], systems: Sequence[str], ids: Sequence[int]) -> list[dict[str, Any]]:
    """Sentence bucket tables with each example's bucket (word-level tables are not segment filters):
    ``seg`` one character per example (``chr(48 + row)``, ``/`` for none) when membership is the same
    for every system, else ``sys``, one such string per system."""
    out = []
    for table in tables:
        if table.get("kind") != "sentence":
            continue
        shared = table.get("segment_buckets")
        by_system: Mapping[str, Any] = table.get("segment_buckets_by_system") or {}
        if shared is None and not by_system:
            continue
        entry: dict[str, Any] = {
            "id": table.get("id"),
            "title": table.get("title"),
            "rows": [row.get("label", "") for row in table.get("rows") or []],
        }
        if shared is not None:
            entry["seg"] = _code_string(_at(shared, ids))
        else:
            entry["sys"] = [_code_string(_at(by_system.get(s) or [], ids)) for s in systems]
        out.append(entry)
    return out


def _at(values: Sequence[int], ids: Sequence[int]) -> Sequence[int]:
    """``values[i]`` for each of ``ids`` (``-1`` past the end)."""
    n = len(values)
    if len(ids) == n and list(ids) == list(range(n)):
        return values  # every segment in order
    return [values[i] if i < n else -1 for i in ids]
