"""Render a score table as text, JSON, CSV, Markdown or LaTeX.

The table model (systems x metrics of :class:`~nlpeval.Score`) is kept apart
from the renderers. Text-like formats show scores x100 with two decimals, as
the MT community prints them; JSON and CSV keep the exact 0–1 values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nlpeval._tables import csv_text, latex_table, markdown_escape, markdown_table, one_line

if TYPE_CHECKING:
    from nlpeval.core.score import Score
    from nlpeval.significance.paired import PairedTestResult

FORMATS = ("text", "json", "csv", "markdown", "latex")


class SystemScores:
    """One system's row: its name and a score per metric (in column order).

    Plain classes here and in :class:`ScoreTable` (not dataclasses): ``nlpeval score``'s
    NumPy-free path imports no ``dataclasses`` (and so no ``inspect``) at all.
    """

    __slots__ = ("name", "p_values", "scores", "tests")

    def __init__(
        self, name: str, scores: dict[str, Score] | None = None, p_values: dict[str, float] | None = None
    ) -> None:
        self.name = name
        self.scores: dict[str, Score] = {} if scores is None else scores
        #: p-value per metric of a paired test against the baseline (the first system)
        self.p_values: dict[str, float] = {} if p_values is None else p_values
        #: the paired test per metric against the baseline (its difference, interval and p-value)
        self.tests: dict[str, PairedTestResult] = {}

    def __repr__(self) -> str:
        return f"SystemScores(name={self.name!r}, scores={self.scores!r}, p_values={self.p_values!r})"


class PairedInfo:
    """What ``--paired-bs``/``--paired-ar`` ran: the test, its resamples (or trials), seed and threshold."""

    __slots__ = ("alpha", "n", "seed", "test")

    def __init__(self, test: str, n: int, seed: int | None, alpha: float = 0.05) -> None:
        self.test, self.n, self.seed, self.alpha = test, n, seed, alpha

    def describe(self, baseline: str) -> str:
        """One line for the text output.

        Examples
        --------
        >>> PairedInfo("paired bootstrap", 1000, 12345).describe("base.txt")[:76]
        'Paired bootstrap against the baseline base.txt (1000 resamples, seed 12345):'
        """
        unit = "trials" if "randomization" in self.test else "resamples"
        interval = " [95% interval]" if "randomization" not in self.test else " (no interval from randomization)"
        test = self.test[0].upper() + self.test[1:]
        return (
            f"{test} against the baseline {baseline} ({self.n} {unit}, seed {self.seed}): "
            f"Δ = system - baseline{interval}, p-value; * p < {self.alpha:g}"
        )


class ScoreTable:
    """Systems x metrics, with each metric's column label and display scale (and the paired test, if any)."""

    __slots__ = ("labels", "metrics", "paired", "scales", "systems")

    def __init__(
        self,
        metrics: Sequence[str],
        labels: dict[str, str],
        scales: dict[str, float],
        systems: list[SystemScores],
        paired: PairedInfo | None = None,
    ) -> None:
        self.metrics, self.labels, self.scales, self.systems = metrics, labels, scales, systems
        self.paired = paired

    def display(
        self, metric: str, score: Score, p_value: float | None = None, test: PairedTestResult | None = None
    ) -> str:
        scale = self.scales[metric]
        text = f"{score.score * scale:.2f}"
        if score.ci is not None:
            text += f" (±{score.ci.half_width * scale:.2f})"
        if test is not None:
            text += f" Δ {test.difference * scale:+.2f}"
            if test.difference_ci is not None:
                text += f" [{test.difference_ci.low * scale:+.2f}, {test.difference_ci.high * scale:+.2f}]"
            text += f" p = {test.p_value:.4f}"
            if self.paired is not None and test.p_value < self.paired.alpha:
                text += " *"
        elif p_value is not None:
            text += f" (p = {p_value:.4f})"
        return text

    def signatures(self) -> dict[str, str]:
        """Signature per metric (from the first system that has one)."""
        out: dict[str, str] = {}
        for system in self.systems:
            for metric, score in system.scores.items():
                out.setdefault(metric, score.signature)
        return out


def _rows(table: ScoreTable) -> tuple[list[str], list[list[str]]]:
    header = ["system", *(table.labels[m] for m in table.metrics)]
    rows = [
        [
            one_line(s.name) + (" (baseline)" if table.paired is not None and i == 0 else ""),
            # the paired test only where there is one: subclasses (nlpeval ir's table) may take three arguments
            *(
                table.display(m, s.scores[m], s.p_values.get(m), s.tests[m])
                if m in s.tests
                else table.display(m, s.scores[m], s.p_values.get(m))
                for m in table.metrics
            ),
        ]
        for i, s in enumerate(table.systems)
    ]
    return header, rows


def render_text(table: ScoreTable, *, segments: bool = False) -> str:
    header, rows = _rows(table)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]
    lines.append("")
    if table.paired is not None and table.systems:
        lines.append(table.paired.describe(table.systems[0].name))
    for metric, signature in table.signatures().items():
        lines.append(f"{table.labels[metric]}: {signature}")
    if segments:
        lines.append("")
        lines.append("system\tmetric\tsegment\tscore")
        for system in table.systems:
            for metric in table.metrics:
                values = system.scores[metric].segments
                for index, value in enumerate([] if values is None else values.tolist()):
                    lines.append(f"{one_line(system.name)}\t{metric}\t{index + 1}\t{value:.6f}")
    spans = span_lines(table)
    if spans:
        lines += ["", *spans]
    return "\n".join(lines) + "\n"


def span_lines(table: ScoreTable) -> list[str]:
    """The error spans of the scores that carry them (xCOMET), one tab-separated line per span: system, metric,
    segment (from 1), severity, confidence, start and end (characters of the hypothesis), the span's text.

    Examples
    --------
    >>> from nlpeval.core.score import Score
    >>> span = {"text": "Katz", "start": 4, "end": 8, "severity": "major", "confidence": 0.8125}
    >>> s = Score("comet", 0.5, "x", error_spans=((), (span,)))
    >>> table = ScoreTable(["comet"], {"comet": "COMET"}, {"comet": 100.0}, [SystemScores("a", {"comet": s})])
    >>> span_lines(table)[2].split()
    ['a', 'comet', '2', 'major', '0.8125', '4', '8', 'Katz']
    """
    lines = []
    for system in table.systems:
        for metric in table.metrics:
            for index, spans in enumerate(system.scores[metric].error_spans or ()):
                lines += [
                    f"{one_line(system.name)}\t{metric}\t{index + 1}\t{one_line(str(span['severity']))}\t"
                    f"{float(span['confidence']):.4f}\t{span['start']}\t{span['end']}\t{one_line(str(span['text']))}"
                    for span in spans
                ]
    if not any(system.scores[m].error_spans is not None for system in table.systems for m in table.metrics):
        return []
    header = "system\tmetric\tsegment\tseverity\tconfidence\tstart\tend\ttext"
    return ["error spans (start, end: characters of the hypothesis; confidence: the tagger's mean probability)",
            header, *lines]  # fmt: skip


def render_json(table: ScoreTable, *, segments: bool = False) -> str:
    payload: dict[str, object] = {
        "systems": [
            {
                "name": s.name,
                "scores": {
                    m: _with_test(_with_p_value(s.scores[m].to_dict(), s.p_values.get(m)), s.tests.get(m), table)
                    for m in table.metrics
                },
            }
            for s in table.systems
        ]
    }
    if table.paired is not None and table.systems:
        info = table.paired
        payload["paired"] = {
            "test": info.test,
            "baseline": table.systems[0].name,
            "n": info.n,
            "seed": info.seed,
            "alpha": info.alpha,
        }
    return to_json(payload)


def _with_test(entry: dict, test: PairedTestResult | None, table: ScoreTable) -> dict:
    """The paired test's difference (system - baseline, 0-1 scale), its interval and significance."""
    if test is not None:
        entry["difference"] = test.difference
        ci = test.difference_ci
        entry["difference_ci"] = None if ci is None else [ci.low, ci.high]
        entry["significant"] = table.paired is not None and test.p_value < table.paired.alpha
    return entry


def _finite_or_null(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(item) for item in value]
    return value


def to_json(payload: object) -> str:
    """Strict JSON (undefined values such as NaN become ``null``), indented, with a final newline.

    Examples
    --------
    >>> to_json({"score": float("nan"), "parts": [1.5, float("inf")]})
    '{\\n  "score": null,\\n  "parts": [\\n    1.5,\\n    null\\n  ]\\n}\\n'
    """
    import json  # here: a text table does not need it

    return json.dumps(_finite_or_null(payload), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def _with_p_value(entry: dict, p_value: float | None) -> dict:
    if p_value is not None:
        entry["p_value"] = p_value
    return entry


def render_csv(table: ScoreTable, *, segments: bool = False) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if segments:
        writer.writerow(["system", "metric", "segment", "score"])
        for system in table.systems:
            for metric in table.metrics:
                values = system.scores[metric].segments
                for index, value in enumerate([] if values is None else values.tolist()):
                    writer.writerow([csv_text(system.name), metric, index + 1, repr(value)])
        return buffer.getvalue()
    paired = [
        f"{m}_{part}" for m in table.metrics for part in ("delta", "delta_low", "delta_high", "p_value")
    ] if table.paired is not None else []  # fmt: skip
    writer.writerow(["system", *table.metrics, *(f"{m}_signature" for m in table.metrics), *paired])
    for system in table.systems:
        tests = []
        if paired:
            for m in table.metrics:
                test = system.tests.get(m)
                ci = None if test is None else test.difference_ci
                tests += ["", "", "", ""] if test is None else [
                    repr(test.difference), "" if ci is None else repr(ci.low), "" if ci is None else repr(ci.high),
                    repr(test.p_value),
                ]  # fmt: skip
        writer.writerow(
            [
                csv_text(system.name),
                *(repr(system.scores[m].score) for m in table.metrics),
                *(csv_text(system.scores[m].signature) for m in table.metrics),
                *tests,
            ]
        )
    return buffer.getvalue()


def render_markdown(table: ScoreTable, *, segments: bool = False) -> str:
    lines = markdown_table(*_rows(table))
    lines.append("")
    lines += [f"- {markdown_escape(table.labels[m])}: `{sig}`" for m, sig in table.signatures().items()]
    return "\n".join(lines) + "\n"


def render_latex(table: ScoreTable, *, segments: bool = False) -> str:
    lines = latex_table(*_rows(table))
    lines += [f"% {table.labels[m]}: {sig}" for m, sig in table.signatures().items()]
    return "\n".join(lines) + "\n"


RENDERERS = {
    "text": render_text,
    "json": render_json,
    "csv": render_csv,
    "markdown": render_markdown,
    "latex": render_latex,
}


def render(table: ScoreTable, fmt: str, *, segments: bool = False) -> str:
    """The table in format ``fmt`` (one of :data:`FORMATS`)."""
    return RENDERERS[fmt](table, segments=segments)


def metric_list(text: str) -> Sequence[str]:
    """Split a ``-m`` value such as ``bleu,chrf`` into names."""
    return [name.strip() for name in text.split(",") if name.strip()]
