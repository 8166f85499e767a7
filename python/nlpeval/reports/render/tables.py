"""Text, Markdown and LaTeX renderings: the same tables, three table syntaxes (``nlpeval._tables``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nlpeval._tables import latex_escape, latex_table, markdown_table, one_line
from nlpeval.reports.model import BucketTable, Estimate, MetricInfo, Report

Table = tuple[str, list[str], list[list[str]]]
MAX_NGRAMS = 10


def _plural(n: int, noun: str) -> str:
    """``1 pair``, ``3 pairs``.

    Examples
    --------
    >>> _plural(1, "pair"), _plural(3, "test")
    ('1 pair', '3 tests')
    """
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _num(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "-" if value is None else f"{scale * value:.{digits}f}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _ci(low: float | None, high: float | None, scale: float, digits: int = 2) -> str:
    return "" if low is None or high is None else f" [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"


def tables(model: Report) -> list[Table]:
    """Every table of the report as (title, header, rows) of strings."""
    out: list[Table] = []
    info = {m.name: m for m in model.provenance.metrics}
    out.extend(_leaderboard_tables(model, info))
    out.extend(_length_tables(model))
    out.extend(_human_tables(model, info))
    out.extend(_span_tables(model, info))
    out.extend(_span_f1_tables(model, info))
    if model.sentences is not None and model.sentences.pairs:
        rows = [
            [p.metric, f"{p.system} vs {p.other}", str(p.wins), str(p.ties), str(p.losses), _p(p.p_sign)]
            for p in model.sentences.pairs
        ]
        out.append(
            ("Sentence level: wins, ties, losses", ["metric", "pair", "wins", "ties", "losses", "p (sign)"], rows)
        )
    baseline = model.leaderboard.baseline if model.leaderboard is not None else None
    out.extend(_bucket_table(table, info, baseline) for table in model.buckets)
    for comparison in model.ngrams:
        for better, entries in (
            (comparison.system, comparison.system_better),
            (comparison.other, comparison.other_better),
        ):
            rows = [
                [e.ngram, f"{e.score:.4f}", str(e.count_system), str(e.count_other), _p(e.p_adjusted)]
                for e in entries[:MAX_NGRAMS]
            ]
            header = ["n-gram", "score", comparison.system, comparison.other, "p (BH)"]
            out.append((f"N-grams where {better} is better ({comparison.compare_type})", header, rows))
    if model.classification is not None:
        out.extend(_classification_tables(model))
    return out


def _leaderboard_tables(model: Report, info: Mapping[str, MetricInfo]) -> list[Table]:
    """The leaderboard, its tests (against the baseline; all pairs for more than two systems), its clusters."""
    board = model.leaderboard
    if board is None:
        return []
    header = [
        "system",
        *(f"{info[m].label}{'' if info[m].higher_is_better else ' (lower better)'}" for m in board.metrics),
    ]
    rows = []
    for s in board.systems:
        row = [s]
        for m in board.metrics:
            cell = next(c for c in board.cells if c.system == s and c.metric == m)
            e = cell.estimate
            row.append(_num(e.value, info[m].scale) + _ci(e.low, e.high, info[m].scale))
        rows.append(row)
    out = [(f"Leaderboard ({model.provenance.confidence:.0%} bootstrap intervals, n = segments)", header, rows)]
    n_systems = len(board.systems)
    n_pairs = n_systems * (n_systems - 1) // 2
    families = [
        (
            f"Against the baseline {board.baseline} (p Holm: over the {_plural(n_systems - 1, 'test')} "
            "against the baseline, per metric)",
            board.vs_baseline,
        )
    ]
    if n_systems > 2:  # with two systems the only pair is the test against the baseline: said once
        families.append(
            (
                f"All pairs (p Holm: over all {_plural(n_pairs, 'pair')}, per metric; a larger family than "
                "the baseline's, so larger p-values)",
                board.all_pairs,
            )
        )
    for title, tests in families:
        rows = [
            [
                info[t.metric].label,
                f"{t.system} - {t.other}",
                _num(t.difference, info[t.metric].scale) + _ci(t.ci_low, t.ci_high, info[t.metric].scale),
                _p(t.p_bootstrap),
                _p(t.p_randomization),
                _p(t.p_holm),
                "*" if t.significant else "",
            ]
            for t in tests
        ]
        if rows:
            header = ["metric", "pair", "difference [CI]", "p (bootstrap)", "p (AR)", "p (Holm)", "sig."]
            out.append((title, header, rows))
    if board.clusters:
        rows = [[info[c.metric].label, str(c.rank), ", ".join(c.systems)] for c in board.clusters]
        out.append(("Clusters of systems not significantly different", ["metric", "rank", "systems"], rows))
    return out


def _human_tables(model: Report, info: Mapping[str, MetricInfo]) -> list[Table]:
    """Agreement with humans (none without human scores): each metric's statistics with their cluster ranks."""
    section = model.human_agreement
    if section is None:
        return []

    def cell(value: float | None, rank: int | None) -> str:
        return "-" if value is None else f"{value:.4f}" + ("" if rank is None else f" ({rank})")

    rows = [
        [
            info[r.metric].label if r.metric in info else r.metric,
            cell(r.spa, r.spa_rank),
            cell(r.acc_eq, r.acc_eq_rank),
            "-" if r.acc_eq_epsilon is None else f"{r.acc_eq_epsilon:.4g}",
            cell(r.pearson, r.pearson_rank),
        ]
        for r in section.rows
    ]
    n = len(section.systems)
    title = f"Agreement with humans ({_plural(n, 'system')}, {section.n_judged} judged; (rank): PERM-BOTH cluster)"
    return [(title, ["metric", "SPA (rank)", "acc_eq (rank)", "acc_eq epsilon", "Pearson, system (rank)"], rows)]


def _span_tables(model: Report, info: Mapping[str, MetricInfo]) -> list[Table]:
    """Per metric that tagged error spans (xCOMET): its top segments' spans, one row each (none without)."""
    out: list[Table] = []
    for section in getattr(model, "error_spans", ()):
        label = info[section.metric].label if section.metric in info else section.metric
        rows = [
            [seg.system, str(seg.id + 1), str(seg.penalty), span.severity, f"{span.confidence:.4f}",
             f"{span.start}-{span.end}", seg.hypothesis[span.start : span.end]]
            for seg in section.segments
            for span in seg.spans
        ]  # fmt: skip
        title = f"Error spans of {label} (the {section.top} segments per system with the largest penalty)"
        out.append((title, ["system", "segment", "penalty", "severity", "confidence", "characters", "span"], rows))
    return out


def _span_f1_tables(model: Report, info: Mapping[str, MetricInfo]) -> list[Table]:
    """Per span F1 metric: every system's per-type and average precision, recall and F1 in percent (none
    without)."""
    out: list[Table] = []
    for section in getattr(model, "span_f1", ()):
        rows = [
            [r.system, r.type, _num(r.precision, 100), _num(r.recall, 100),
             _num(r.f1, 100) + _ci(r.f1_low, r.f1_high, 100), str(r.support), str(r.predicted)]
            for r in section.rows
        ]  # fmt: skip
        interval = (
            f", F1 with {100 * section.confidence:g}% bootstrap intervals over sentences "
            f"({section.n_bootstrap} resamples)"
            if section.n_bootstrap
            else ""
        )
        label = info[section.metric].label if section.metric in info else section.metric
        title = f"Span F1 by type ({label}, mode {section.mode}{interval})"
        out.append((title, ["system", "type", "precision", "recall", "F1", "support", "predicted"], rows))
    return out


def _length_tables(model: Report) -> list[Table]:
    """The length and sanity table (none without the section)."""
    if model.length is None:
        return []
    rows = []
    for length, sanity in zip(model.length.systems, model.length.sanity, strict=True):
        rows.append(
            [
                length.system,
                _num(length.ratio, 1.0, 4),
                _num(length.brevity_penalty, 1.0, 4),
                str(length.hyp_length),
                str(length.ref_length),
                str(sanity.empty.count),
                str(sanity.duplicate.count),
                "-" if sanity.copied_source is None else str(sanity.copied_source.count),
                "-" if sanity.untranslated is None else str(sanity.untranslated.count),
            ]
        )
    header = ["system", "length ratio", "BP", "hyp len", "ref len", "empty", "duplicate", "copied", "untranslated"]
    return [(f"Length and sanity ({model.length.tokenization} tokens)", header, rows)]


def _bucket_table(table: BucketTable, info: Mapping[str, MetricInfo], baseline: str | None) -> Table:
    """One bucket table: each cell's value with interval, n and marker (a count for count tables)."""
    scale = info[table.statistic].scale if table.statistic in info else (100.0 if table.statistic == "bleu" else 1.0)
    systems = [c.system for c in table.rows[0].cells] if table.rows else []
    rows = []
    for row in table.rows:
        cells = []
        for c in row.cells:
            if table.statistic == "count":
                cells.append(str(c.estimate.n))
            elif c.estimate.n == 0:  # an empty bucket has no value, interval or test
                cells.append("–")
            else:
                digits = 4 if table.kind == "word" else 2
                text = _num(c.estimate.value, scale, digits) + _ci(c.estimate.low, c.estimate.high, scale, digits)
                untested = c.p_value is None and c.system != baseline
                mark = f" {c.marker}" if c.marker else (" (not tested)" if untested else "")
                cells.append(f"{text} n={c.estimate.n}{mark}")
        rows.append([row.label + (" (few)" if row.few else ""), *cells])
    title = table.title if table.note is None else f"{table.title} ({table.note})"
    return (title, [table.by, *systems], rows)


def _est(e: Estimate) -> str:
    return _num(e.value, 1.0, 4) + _ci(e.low, e.high, 1.0, 4)


def _classification_tables(model: Report) -> list[Table]:
    section = model.classification
    assert section is not None
    out: list[Table] = []
    rows = [[s.system, _est(s.accuracy), _est(s.macro_f1)] for s in section.systems]
    out.append(("Classifiers (bootstrap intervals)", ["system", "accuracy", "macro F1"], rows))
    for s in section.systems:
        rows = [[c.label, _est(c.precision), _est(c.recall), _est(c.f1), str(c.support)] for c in s.classes]
        out.append((f"{s.system}: per class", ["class", "precision", "recall", "F1", "support"], rows))
        rows = [[gold, *(str(x) for x in row)] for gold, row in zip(section.labels, s.confusion, strict=True)]
        out.append((f"{s.system}: confusion matrix (rows gold, columns predicted)", ["gold", *section.labels], rows))
    if section.mcnemar:
        rows = [
            [f"{t.system} vs {t.other}", str(t.only_system), str(t.only_other), _p(t.p_value), _p(t.p_holm)]
            for t in section.mcnemar
        ]
        header = ["pair", "only system right", "only other right", "p (McNemar exact)", "p (Holm)"]
        out.append(("McNemar tests", header, rows))
    return out


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    header = [one_line(h) for h in header]
    rows = [[one_line(str(c)) for c in row] for row in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths, strict=True)))
    ]
    for row in rows:
        lines.append(
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        )
    return lines


def _header(model: Report) -> list[str]:
    p = model.provenance
    lines = [
        f"nlpeval {p.nlpeval_version}; seed {p.seed}; {p.n_bootstrap} bootstrap resamples; "
        f"{p.n_randomization} randomization trials; alpha {p.alpha}"
    ]
    lines += [f"{m.label}: {m.signature}" for m in p.metrics]
    lines += [f"{i.role} {i.name}: {i.lines} lines, sha256 {i.sha256}" for i in p.inputs]
    if p.command:
        lines.append(f"command: {p.command}")
    lines += [f"warning: {w}" for w in model.warnings]
    if model.human_agreement is not None:
        agreement = model.human_agreement
        lines.append(f"human scores: {agreement.source} ({agreement.level} level)")
        if agreement.unjudged:
            lines.append(f"human scores: not judged, left out: {', '.join(agreement.unjudged)}")
        lines += [f"human scores: {note}" for note in agreement.notes]
    return [one_line(line) for line in lines]  # a file name holding a newline must not start a line of its own


def render_tables(model: Report, fmt: str) -> str:
    """The report's tables as ``text``, ``markdown`` or ``latex``.

    Examples
    --------
    >>> from nlpeval.reports.demo import demo_report
    >>> "| system |" in render_tables(demo_report(n_bootstrap=20), "markdown")
    True
    """
    parts: list[str] = []
    if fmt == "markdown":
        parts.append(f"# {one_line(model.title)}\n")
        parts.append("\n".join(f"- {line}" for line in _header(model)) + "\n")
        for title, header, rows in tables(model):
            parts.append(f"## {one_line(title)}\n\n" + "\n".join(markdown_table(header, rows)) + "\n")
    elif fmt == "latex":
        parts.append("% " + latex_escape(model.title) + "\n" + "\n".join("% " + line for line in _header(model)) + "\n")
        for title, header, rows in tables(model):
            parts.append(f"% {one_line(title)}\n" + "\n".join(latex_table(header, rows)) + "\n")
    elif fmt == "text":
        parts.append(one_line(model.title) + "\n" + "\n".join(_header(model)) + "\n")
        for title, header, rows in tables(model):
            parts.append(f"--- {one_line(title)}\n" + "\n".join(_text_table(header, rows)) + "\n")
    else:
        raise ValueError(f"unknown table format {fmt!r}")
    return "\n".join(parts)
