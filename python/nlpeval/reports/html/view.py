"""From the report dict (``Report.to_dict()``) to what the templates show: formatted cells and charts.

The templates only loop and print; every number is formatted here (through :mod:`.fmt`) and
every chart laid out here (through :mod:`.svg`). Nothing in this module escapes text: the
templates autoescape everything they print.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nlpeval.reports.html import svg
from nlpeval.reports.html.fmt import fmt_ci, fmt_diff, fmt_p, fmt_value, p_text, sort_key
from nlpeval.reports.model import heatmap_worth_drawing

Dict = Mapping[str, Any]

#: beyond this many systems, per-pair charts are limited to the pairs with the baseline
MAX_PAIR_CHARTS = 6


def metric_infos(report: Dict) -> dict[str, dict[str, Any]]:
    """``{metric name: MetricInfo dict}`` from the provenance (label, scale, direction, signature)."""
    infos = {}
    for info in (report.get("provenance") or {}).get("metrics") or []:
        infos[info["name"]] = dict(info)
    return infos


def _label(infos: Mapping[str, Dict], metric: str) -> str:
    return str(infos.get(metric, {}).get("label") or metric)


def _scale(infos: Mapping[str, Dict], metric: str) -> float:
    return float(infos.get(metric, {}).get("scale", 1.0))


def _hib(infos: Mapping[str, Dict], metric: str) -> bool:
    return bool(infos.get(metric, {}).get("higher_is_better", True))


def _estimate(est: Dict | None, scale: float) -> dict[str, str]:
    est = est or {}
    return {
        "value": fmt_value(est.get("value"), scale),
        "ci": fmt_ci(est.get("low"), est.get("high"), scale),
        "n": str(est.get("n", "")),
        "key": sort_key(est.get("value")),
    }


def system_colors(systems: Sequence[str]) -> dict[str, str]:
    """The palette colour of each system (same colour in every chart)."""
    return {name: svg.color(i) for i, name in enumerate(systems)}


# ---------------------------------------------------------------------------- provenance


def provenance(report: Dict) -> dict[str, Any]:
    prov = report.get("provenance") or {}
    settings = [
        ("nlpeval", prov.get("nlpeval_version")),
        ("schema", report.get("schema_version")),
        ("task", report.get("task")),
        ("preset", prov.get("preset")),
        ("seed", prov.get("seed")),
        ("bootstrap resamples", prov.get("n_bootstrap")),
        ("randomization trials", prov.get("n_randomization")),
        ("confidence", prov.get("confidence")),
        ("alpha", prov.get("alpha")),
        ("created", prov.get("created")),
    ]
    options = prov.get("options") or {}
    settings += [(str(key), options[key]) for key in sorted(options)]
    return {
        "command": prov.get("command"),
        "settings": [(key, "" if value is None else str(value)) for key, value in settings if value is not None],
        "inputs": prov.get("inputs") or [],
        "metrics": prov.get("metrics") or [],
    }


# ---------------------------------------------------------------------------- leaderboard


def leaderboard(report: Dict, infos: Mapping[str, Dict]) -> dict[str, Any] | None:
    board = report.get("leaderboard")
    if not board:
        return None
    systems = list(board.get("systems") or [])
    metrics = list(board.get("metrics") or [])
    baseline = board.get("baseline")
    cells = {(c["system"], c["metric"]): c.get("estimate") or {} for c in board.get("cells") or []}
    clusters: dict[str, list[dict[str, Any]]] = {}
    for cluster in board.get("clusters") or []:
        clusters.setdefault(cluster["metric"], []).append(
            {"rank": cluster.get("rank"), "systems": list(cluster.get("systems") or [])}
        )
    alpha = float((report.get("provenance") or {}).get("alpha") or 0.05)
    return {
        "best": _best(board, infos, systems, metrics, cells),
        "systems": systems,
        "baseline": baseline,
        "columns": _board_columns(infos, systems, metrics, cells),
        "rows": _board_rows(board, infos, systems, metrics, cells),
        "charts": [_board_chart(infos, systems, metric, cells) for metric in metrics],
        "pairs": [_pair_row(infos, test) for test in board.get("all_pairs") or []],
        # the two Holm families (per metric): the tests against the baseline, and all pairs
        "n_baseline_tests": max(len(systems) - 1, 0),
        "n_pairs": len(systems) * (len(systems) - 1) // 2,
        "clusters": [
            {"metric": _label(infos, m), "groups": sorted(groups, key=lambda g: g["rank"] or 0)}
            for m, groups in clusters.items()
        ],
        "heatmaps": _heatmaps(board, infos, alpha) if heatmap_worth_drawing(len(systems)) else [],
        "colors": [svg.color(i) for i in range(len(systems))],
    }


_Cells = Mapping[tuple[str, str], Dict]


def _board_columns(
    infos: Mapping[str, Dict], systems: list[str], metrics: list[str], cells: _Cells
) -> list[dict[str, Any]]:
    """The leaderboard table's metric columns (label, direction, segment counts)."""
    columns = []
    for metric in metrics:
        ns = {str((cells.get((s, metric)) or {}).get("n", "")) for s in systems}
        columns.append(
            {
                "metric": metric,
                "label": _label(infos, metric),
                "arrow": "↑" if _hib(infos, metric) else "↓",
                "n": ", ".join(sorted(ns)),
            }
        )
    return columns


def _board_rows(
    board: Dict, infos: Mapping[str, Dict], systems: list[str], metrics: list[str], cells: _Cells
) -> list[dict[str, Any]]:
    """The leaderboard table's rows: each system's estimates, cluster ranks and test against the baseline."""
    baseline = board.get("baseline")
    vs_base = {(t["system"], t["metric"]): t for t in board.get("vs_baseline") or []}
    rank = {}
    for cluster in board.get("clusters") or []:
        for name in cluster.get("systems") or []:
            rank[(name, cluster["metric"])] = cluster.get("rank")
    rows = []
    for system in systems:
        row_cells = []
        for metric in metrics:
            scale = _scale(infos, metric)
            test = vs_base.get((system, metric))
            cell: dict[str, Any] = _estimate(cells.get((system, metric)), scale)
            cell["rank"] = rank.get((system, metric))
            if test and system != baseline:
                better = (test.get("difference") or 0) > 0
                if not _hib(infos, metric):
                    better = not better
                cell.update(
                    diff=fmt_diff(test.get("difference"), scale),
                    diff_key=sort_key(test.get("difference")),
                    diff_ci=fmt_ci(test.get("ci_low"), test.get("ci_high"), scale),
                    p=p_text(test.get("p_holm", test.get("p_bootstrap"))),
                    p_boot=p_text(test.get("p_bootstrap")),
                    p_ar=p_text(test.get("p_randomization")),
                    significant=bool(test.get("significant")),
                    direction="better" if better else "worse",
                )
            row_cells.append(cell)
        rows.append({"system": system, "baseline": system == baseline, "cells": row_cells})
    return rows


def _board_chart(infos: Mapping[str, Dict], systems: list[str], metric: str, cells: _Cells) -> Any:
    """One metric's bar chart of every system with its interval."""
    scale = _scale(infos, metric)
    est = [cells.get((s, metric)) or {} for s in systems]
    scaled = [[None if e.get(k) is None else e[k] * scale for e in est] for k in ("value", "low", "high")]
    return svg.bar_chart(
        systems,
        [scaled[0]],
        lows=[scaled[1]],
        highs=[scaled[2]],
        counts=[[e.get("n") for e in est]],
        y_label=_label(infos, metric),
        label=f"{_label(infos, metric)} by system with 95% confidence intervals",
        width=max(300, min(900, 52 * len(systems) + 90)),
    )


def _pair_row(infos: Mapping[str, Dict], test: Dict) -> Dict:
    """One row of the all-pairs table."""
    scale = _scale(infos, test["metric"])
    return {
        "metric": _label(infos, test["metric"]),
        "system": test["system"],
        "other": test["other"],
        "diff": fmt_diff(test.get("difference"), scale),
        "diff_key": sort_key(test.get("difference")),
        "ci": fmt_ci(test.get("ci_low"), test.get("ci_high"), scale),
        "p_boot": fmt_p(test.get("p_bootstrap")),
        "p_boot_key": sort_key(test.get("p_bootstrap")),
        "p_ar": fmt_p(test.get("p_randomization")),
        "p_ar_key": sort_key(test.get("p_randomization")),
        "p_holm": fmt_p(test.get("p_holm")),
        "p_holm_key": sort_key(test.get("p_holm")),
        "significant": bool(test.get("significant")),
    }


def _heatmaps(board: Dict, infos: Mapping[str, Dict], alpha: float) -> list[dict[str, Any]]:
    """The all-pairs p-value heatmap of every metric, with each cell's test as its tooltip."""
    heatmaps = []
    pair_index = {(t["system"], t["other"], t["metric"]): t for t in board.get("all_pairs") or []}
    for matrix in board.get("matrices") or []:
        names = list(matrix.get("systems") or [])
        metric = matrix["metric"]
        scale = _scale(infos, metric)
        tips = []
        for i, a in enumerate(names):
            row = []
            for j, b in enumerate(names):
                p = (matrix.get("p_values") or [])[i][j]
                test = pair_index.get((a, b, metric)) or pair_index.get((b, a, metric))
                if i == j:
                    row.append(a)
                    continue
                tip = f"{a} vs {b}: p (Holm) = {fmt_p(p)}"
                if test:
                    sign = 1 if test["system"] == a else -1
                    diff = test.get("difference")
                    lo, hi = test.get("ci_low"), test.get("ci_high")
                    if sign < 0:
                        diff = None if diff is None else -diff
                        lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
                    tip += f"; Δ = {fmt_diff(diff, scale)} {fmt_ci(lo, hi, scale)}"
                row.append(tip)
            tips.append(row)
        heatmaps.append(
            {
                "metric": _label(infos, metric),
                "chart": svg.heatmap(
                    names,
                    matrix.get("p_values") or [],
                    tips=tips,
                    label=f"Holm-adjusted p-values between all pairs of systems, {_label(infos, metric)}",
                    alpha=alpha,
                ),
            }
        )
    return heatmaps


def _best(
    board: Dict, infos: Mapping[str, Dict], systems: list[str], metrics: list[str], cells: _Cells
) -> list[dict[str, Any]]:
    """The best system of every metric, and whether it is significantly better than the others."""
    best = []
    for metric in metrics:
        scored = [(s, cells[(s, metric)]) for s in systems if (cells.get((s, metric)) or {}).get("value") is not None]
        if not scored:
            continue
        sign = 1.0 if _hib(infos, metric) else -1.0
        name, est = max(scored, key=lambda item: sign * item[1]["value"])
        groups = clusters_of(board, metric)
        top = [g for g in groups if name in g]
        tied = [s for s in (top[0] if top else [name]) if s != name]
        if len(systems) < 2 or not top:
            note = ""
        elif tied:
            note = f"not significantly better than {len(tied)} other system{'s' if len(tied) != 1 else ''}"
        else:
            note = "significantly better than every other system"
        best.append(
            {
                "label": _label(infos, metric),
                "arrow": "↑" if _hib(infos, metric) else "↓",
                "system": name,
                "value": fmt_value(est.get("value"), _scale(infos, metric)),
                "ci": fmt_ci(est.get("low"), est.get("high"), _scale(infos, metric)),
                "n": est.get("n"),
                "note": note,
            }
        )
    return best


def clusters_of(board: Dict, metric: str) -> list[list[str]]:
    """The clusters of ``metric``, best first (systems not significantly different from each other)."""
    groups = [c for c in board.get("clusters") or [] if c.get("metric") == metric]
    return [list(c.get("systems") or []) for c in sorted(groups, key=lambda c: c.get("rank") or 0)]


# ---------------------------------------------------------------------------- length and sanity


def _ids(entry: Dict | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {"count": entry.get("count", 0), "ids": list(entry.get("example_ids") or [])}


def length(report: Dict) -> dict[str, Any] | None:
    section = report.get("length")
    if not section:
        return None
    rows = []
    for item in section.get("systems") or []:
        rows.append(
            {
                "system": item["system"],
                "hyp": item.get("hyp_length"),
                "ref": item.get("ref_length"),
                "ratio": fmt_value(item.get("ratio"), 1.0, 3),
                "ratio_key": sort_key(item.get("ratio")),
                "bp": fmt_value(item.get("brevity_penalty"), 1.0, 3),
                "bp_key": sort_key(item.get("brevity_penalty")),
            }
        )
    sanity = [
        {
            "system": row["system"],
            "empty": _ids(row.get("empty")),
            "duplicate": _ids(row.get("duplicate")),
            "copied": _ids(row.get("copied_source")),
            "untranslated": _ids(row.get("untranslated")),
        }
        for row in section.get("sanity") or []
    ]
    ref_hist = section.get("reference_histogram") or {}
    hists = [item.get("histogram") or {} for item in section.get("systems") or []]
    names = ["reference"] + [item["system"] for item in section.get("systems") or []]
    chart = None
    edges = ref_hist.get("edges") or (hists[0].get("edges") if hists else None)
    if edges and all((h.get("edges") or edges) == edges for h in hists):
        counts = [list(ref_hist.get("counts") or [0] * (len(edges) - 1))]
        counts += [list(h.get("counts") or [0] * (len(edges) - 1)) for h in hists]
        chart = svg.histogram(
            edges,
            counts,
            series=names,
            series_colors=["#111827"] + [svg.color(i) for i in range(len(hists))],
            x_label=f"length ({section.get('tokenization') or 'tokens'})",
            label="Length histograms of the reference and each system",
            width=640,
        )
    return {
        "tokenization": section.get("tokenization"),
        "rows": rows,
        "sanity": sanity,
        "has_src": any(r["copied"] is not None for r in sanity),
        "chart": chart,
    }


# ---------------------------------------------------------------------------- sentence level


def sentences(report: Dict, infos: Mapping[str, Dict]) -> dict[str, Any] | None:
    section = report.get("sentences")
    if not section:
        return None
    systems = list(report.get("systems") or [])
    baseline = (report.get("leaderboard") or {}).get("baseline") or (systems[0] if systems else None)
    by_metric: dict[str, list[Dict]] = {}
    for item in section.get("scores") or []:
        by_metric.setdefault(item["metric"], []).append(item)
    metrics = []
    for metric in section.get("metrics") or list(by_metric):
        items = by_metric.get(metric, [])
        scale = _scale(infos, metric)
        label = _label(infos, metric)
        hist_chart = None
        if items and items[0].get("histogram", {}).get("edges"):
            edges = [e * scale for e in items[0]["histogram"]["edges"]]
            hist_chart = svg.histogram(
                edges,
                [list(i["histogram"].get("counts") or []) for i in items],
                series=[i["system"] for i in items],
                series_colors=[
                    svg.color(systems.index(i["system"])) if i["system"] in systems else "#666" for i in items
                ],
                x_label=f"sentence {label}",
                label=f"Distribution of sentence-level {label} per system",
                width=640,
            )
        values = {i["system"]: i.get("values") or [] for i in items}
        means = [
            {"system": i["system"], "mean": fmt_value(i.get("mean"), scale), "n": len(i.get("values") or [])}
            for i in items
        ]
        pair_rows = []
        pair_charts = []
        wtl = [p for p in section.get("pairs") or [] if p.get("metric") == metric]
        for p in wtl:
            total = p.get("wins", 0) + p.get("ties", 0) + p.get("losses", 0)
            pair_rows.append(
                {
                    "system": p["system"],
                    "other": p["other"],
                    "wins": p.get("wins", 0),
                    "ties": p.get("ties", 0),
                    "losses": p.get("losses", 0),
                    "n": total,
                    "p": fmt_p(p.get("p_sign")),
                    "p_key": sort_key(p.get("p_sign")),
                }
            )
        chosen = wtl if len(wtl) <= MAX_PAIR_CHARTS else [p for p in wtl if baseline in (p["system"], p["other"])]
        for p in chosen[: max(MAX_PAIR_CHARTS, len(systems))]:
            xs = [None if v is None else v * scale for v in values.get(p["other"], [])]
            ys = [None if v is None else v * scale for v in values.get(p["system"], [])]
            pair_charts.append(
                {
                    "title": f"{p['system']} vs {p['other']}",
                    "chart": svg.scatter(
                        xs,
                        ys,
                        x_label=f"{p['other']} ({label})",
                        y_label=f"{p['system']} ({label})",
                        label=f"Sentence {label}: {p['system']} against {p['other']}",
                        points_from={"metric": metric, "x": p["other"], "y": p["system"]},
                    ),
                    "wins": p.get("wins", 0),
                    "ties": p.get("ties", 0),
                    "losses": p.get("losses", 0),
                    "p": fmt_p(p.get("p_sign")),
                    "p_text": p_text(p.get("p_sign")),
                }
            )
        wtl_chart = (
            svg.stacked_bars(
                [f"{p['system']} vs {p['other']}" for p in wtl],
                [(p.get("wins", 0), p.get("ties", 0), p.get("losses", 0)) for p in wtl],
                label=f"Win/tie/loss counts on sentence {label}",
                width=640,
            )
            if wtl and len(wtl) <= 40
            else None
        )
        metrics.append(
            {
                "metric": metric,
                "label": label,
                "hib": _hib(infos, metric),
                "histogram": hist_chart,
                "means": means,
                "pairs": pair_rows,
                "scatters": pair_charts,
                "wtl_chart": wtl_chart,
                "scatter_note": len(wtl) > len(chosen),
            }
        )
    return {"metrics": metrics, "baseline": baseline}


# ---------------------------------------------------------------------------- buckets


def buckets(report: Dict, infos: Mapping[str, Dict]) -> list[dict[str, Any]]:
    systems = list(report.get("systems") or [])
    baseline = (report.get("leaderboard") or {}).get("baseline")
    out = []
    for table in report.get("buckets") or []:
        statistic = str(table.get("statistic") or "")
        is_count = statistic == "count"
        scale = 1.0 if is_count else (100.0 if statistic in ("fmeas", "prec", "rec") else _scale(infos, statistic))
        digits = 0 if is_count else 2
        rows = []
        names: list[str] = []
        for row in table.get("rows") or []:
            cells = []
            for cell in row.get("cells") or []:
                est = cell.get("estimate") or {}
                if cell["system"] not in names:
                    names.append(cell["system"])
                if not is_count and not est.get("n"):  # an empty bucket: no value, interval or test
                    cells.append(
                        {"system": cell["system"], "value": "–", "key": sort_key(None), "ci": "", "n": 0}
                        | {"marker": "", "p": "—", "untested": False}
                    )
                    continue
                cells.append(
                    {
                        "system": cell["system"],
                        "value": fmt_value(est.get("value") if est.get("n") or is_count else None, scale, digits),
                        "key": sort_key(est.get("value")),
                        "ci": fmt_ci(est.get("low"), est.get("high"), scale, digits),
                        "n": est.get("n"),
                        "marker": cell.get("marker") or "",
                        "p": fmt_p(cell.get("p_adjusted")),
                        "untested": not is_count and cell["system"] != baseline and cell.get("p_value") is None,
                    }
                )
            rows.append({"label": row.get("label", ""), "few": bool(row.get("few")), "cells": cells})
        names = names or systems
        index = {name: i for i, name in enumerate(names)}
        values: list[list[float | None]] = [[None] * len(rows) for _ in names]
        lows: list[list[float | None]] = [[None] * len(rows) for _ in names]
        highs: list[list[float | None]] = [[None] * len(rows) for _ in names]
        counts: list[list[int | None]] = [[None] * len(rows) for _ in names]
        for r, row in enumerate(table.get("rows") or []):
            for cell in row.get("cells") or []:
                est = cell.get("estimate") or {}
                s = index[cell["system"]]
                counts[s][r] = est.get("n")
                if not est.get("n") and not is_count:
                    continue
                for grid, key in ((values, "value"), (lows, "low"), (highs, "high")):
                    grid[s][r] = None if est.get(key) is None else est[key] * scale
                counts[s][r] = est.get("n")
        stat_label = {"fmeas": "word F-measure", "prec": "word precision", "rec": "word recall", "count": "segments"}
        chart = svg.bar_chart(
            [row["label"] for row in rows],
            values,
            lows=lows,
            highs=highs,
            counts=counts,
            series=names,
            series_colors=[svg.color(systems.index(n)) if n in systems else svg.color(i) for i, n in enumerate(names)],
            y_label=stat_label.get(statistic, _label(infos, statistic)),
            label=f"{table.get('title', '')}",
            width=max(480, min(960, 40 + len(rows) * (24 * len(names) + 20))),
            value_format="{:.0f}" if is_count else "{:.2f}",
        )
        out.append(
            {
                "id": table.get("id"),
                "title": table.get("title"),
                "kind": table.get("kind"),
                "by": table.get("by"),
                "statistic": stat_label.get(statistic, _label(infos, statistic)),
                "systems": names,
                "rows": rows,
                "chart": chart,
                "depends": bool(table.get("depends_on_hypothesis")),
                "min_segments": table.get("min_segments", 0),
                "note": table.get("note"),
                "has_few": any(r["few"] for r in rows),
                "is_count": is_count,
                "baseline": baseline,
            }
        )
    return out


# ---------------------------------------------------------------------------- n-grams


def ngrams(report: Dict) -> list[dict[str, Any]]:
    out = []
    for k, comparison in enumerate(report.get("ngrams") or []):
        sides = []
        for key, winner in (("system_better", comparison.get("system")), ("other_better", comparison.get("other"))):
            entries = [
                {
                    "ngram": e.get("ngram", ""),
                    "order": e.get("order"),
                    "score": f"{e.get('score', 0):.3f}",
                    "score_key": sort_key(e.get("score")),
                    "a": e.get("count_system"),
                    "b": e.get("count_other"),
                    "p": fmt_p(e.get("p_adjusted")),
                    "p_key": sort_key(e.get("p_adjusted")),
                }
                for e in comparison.get(key) or []
            ]
            sides.append({"winner": winner, "entries": entries})
        out.append(
            {
                "index": k,
                "system": comparison.get("system"),
                "other": comparison.get("other"),
                "compare_type": comparison.get("compare_type"),
                "orders": f"{comparison.get('min_order')}–{comparison.get('max_order')}",
                "alpha": comparison.get("alpha"),
                "top_k": comparison.get("top_k"),
                "sides": sides,
            }
        )
    return out


# ---------------------------------------------------------------------------- task sections


def classification(report: Dict) -> dict[str, Any] | None:
    section = report.get("classification")
    if not section:
        return None
    labels = list(section.get("labels") or [])
    systems = []
    for item in section.get("systems") or []:
        confusion = [list(row) for row in item.get("confusion") or []]
        peak = max([1, *(v for row in confusion for v in row)])
        matrix = [
            [{"v": v, "q": min(9, int(10 * v / peak)), "diag": i == j} for j, v in enumerate(row)]
            for i, row in enumerate(confusion)
        ]
        classes = [
            {
                "label": c.get("label"),
                "p": _estimate(c.get("precision"), 100.0),
                "r": _estimate(c.get("recall"), 100.0),
                "f": _estimate(c.get("f1"), 100.0),
                "support": c.get("support"),
            }
            for c in item.get("classes") or []
        ]
        curves: dict[str, list[Dict]] = {}
        for curve in item.get("curves") or []:
            curves.setdefault(curve.get("kind"), []).append(curve)
        charts = []
        for kind, group in sorted(curves.items()):
            x_label, y_label = (
                ("recall", "precision") if kind == "pr" else ("false positive rate", "true positive rate")
            )
            charts.append(
                svg.line_chart(
                    [(c.get("x") or [], c.get("y") or []) for c in group],
                    series=[
                        f"{c.get('label')} ({'AUC' if kind != 'pr' else 'AP'} {fmt_value(c.get('area'), 1.0, 3)})"
                        for c in group
                    ],
                    x_label=x_label,
                    y_label=y_label,
                    label=f"{str(kind).upper()} curves of {item.get('system')}",
                )
            )
        systems.append(
            {
                "system": item.get("system"),
                "accuracy": _estimate(item.get("accuracy"), 100.0),
                "macro_f1": _estimate(item.get("macro_f1"), 100.0),
                "matrix": matrix,
                "classes": classes,
                "charts": charts,
            }
        )
    mcnemar = [
        {
            "system": t.get("system"),
            "other": t.get("other"),
            "only_system": t.get("only_system"),
            "only_other": t.get("only_other"),
            "p": fmt_p(t.get("p_value")),
            "p_holm": fmt_p(t.get("p_holm")),
        }
        for t in section.get("mcnemar") or []
    ]
    return {"labels": labels, "systems": systems, "mcnemar": mcnemar}


def summarization(report: Dict, infos: Mapping[str, Dict]) -> dict[str, Any] | None:
    section = report.get("summarization")
    if not section:
        return None
    metrics = list(section.get("metrics") or [])
    cells = {(c["system"], c["metric"]): c.get("estimate") for c in section.get("cells") or []}
    systems = []
    for c in section.get("cells") or []:
        if c["system"] not in systems:
            systems.append(c["system"])
    rows = [{"system": s, "cells": [_estimate(cells.get((s, m)), _scale(infos, m)) for m in metrics]} for s in systems]
    return {
        "columns": [
            {
                "label": _label(infos, m),
                "n": ", ".join(sorted({str((cells.get((s, m)) or {}).get("n", "")) for s in systems})),
            }
            for m in metrics
        ],
        "rows": rows,
        "splitter": section.get("lsum_sentence_splitter"),
        "splits": section.get("lsum_splits") or [],
        "example": section.get("lsum_example") or [],
        "example_id": section.get("lsum_example_id"),
    }


def human_agreement(report: Dict, infos: Mapping[str, Dict]) -> dict[str, Any] | None:
    """The "Agreement with humans" table: per metric each statistic, its PERM-BOTH cluster and acc_eq's epsilon."""
    section = report.get("human_agreement")
    if not section:
        return None

    def cell(value: float | None, rank: int | None) -> dict[str, Any]:
        shown = "—" if value is None else f"{value:.4f}"
        return {"text": shown, "key": "" if value is None else value, "rank": rank, "top": rank == 1}

    rows = [
        {
            "metric": _label(infos, r["metric"]),
            "negated": r["metric"] in (section.get("negated") or []),
            "cells": [
                cell(r.get("spa"), r.get("spa_rank")),
                cell(r.get("acc_eq"), r.get("acc_eq_rank")),
                cell(r.get("pearson"), r.get("pearson_rank")),
            ],
            "epsilon": "—" if r.get("acc_eq_epsilon") is None else f"{r['acc_eq_epsilon']:.4g}",
        }
        for r in section.get("rows") or []
    ]
    return {
        "source": section.get("source"),
        "level": section.get("level"),
        "systems": section.get("systems") or [],
        "unjudged": section.get("unjudged") or [],
        "n_judged": section.get("n_judged"),
        "n_items": section.get("n_items"),
        "k": section.get("k"),
        "alpha": section.get("alpha"),
        "notes": section.get("notes") or [],
        "rows": rows,
    }


def highlighted(text: str, spans: Sequence[Dict]) -> list[dict[str, Any]]:
    """``text`` cut into pieces, each plain (``severity`` None) or one error span (its severity and a tooltip);
    a span overlapping an earlier one or outside the text is left out of the highlighting.

    Examples
    --------
    >>> [(p["text"], p["severity"]) for p in highlighted("Die Katz sitzt", [{"start": 4, "end": 8,
    ...     "severity": "major", "confidence": 0.5, "text": "Katz"}])]
    [('Die ', None), ('Katz', 'major'), (' sitzt', None)]
    """
    pieces: list[dict[str, Any]] = []
    at = 0
    for span in sorted(spans, key=lambda s: (int(s["start"]), int(s["end"]))):
        start, end = int(span["start"]), min(int(span["end"]), len(text))
        if start < at or start >= end:
            continue
        if start > at:
            pieces.append({"text": text[at:start], "severity": None, "title": ""})
        title = f"{span['severity']}, confidence {float(span['confidence']):.2f}"
        severity = str(span["severity"])
        css = f"err-{severity}" if severity in ("minor", "major", "critical") else "err-other"
        pieces.append({"text": text[start:end], "severity": severity, "title": title, "css": css})
        at = end
    if at < len(text):
        pieces.append({"text": text[at:], "severity": None, "title": ""})
    return pieces


def error_spans(report: Dict, infos: Mapping[str, Dict]) -> list[dict[str, Any]]:
    """Per metric that tagged error spans: its systems' counts and top segments, each hypothesis cut into pieces
    (:func:`highlighted`)."""
    out = []
    for section in report.get("error_spans") or []:
        metric = section["metric"]
        scale = _scale(infos, metric)
        rows = [
            {
                "system": seg["system"],
                "segment": seg["id"] + 1,
                "score": f"{seg['score'] * scale:.2f}",
                "penalty": seg["penalty"],
                "pieces": highlighted(seg["hypothesis"], seg["spans"]),
            }
            for seg in section["segments"]
        ]
        counts = [
            {"system": name, "spans": n, "segments": section["n_segments"].get(name, 0)}
            for name, n in section["n_spans"].items()
        ]
        out.append({"metric": _label(infos, metric), "top": section["top"], "counts": counts, "rows": rows})
    return out


def span_f1(report: Dict, infos: Mapping[str, Dict]) -> list[dict[str, Any]]:
    """Per span F1 metric: its display label, mode, interval note and rows (percent, two decimals; the averages
    marked)."""
    out = []
    for section in report.get("span_f1") or []:
        rows = []
        for r in section["rows"]:
            low, high = r.get("f1_low"), r.get("f1_high")
            rows.append(
                {
                    "system": r["system"],
                    "type": r["type"],
                    "average": r["type"].endswith(" avg"),
                    "precision": f"{100 * r['precision']:.2f}",
                    "recall": f"{100 * r['recall']:.2f}",
                    "f1": f"{100 * r['f1']:.2f}",
                    "ci": "" if low is None or high is None else f"[{100 * low:.2f}, {100 * high:.2f}]",
                    "support": r["support"],
                    "predicted": r["predicted"],
                }
            )
        n = section["n_bootstrap"]
        note = (
            f"F1 intervals: {100 * section['confidence']:g}% percentile bootstrap over sentences, {n} resamples."
            if n
            else "No intervals (no resampling)."
        )
        out.append({"metric": _label(infos, section["metric"]), "mode": section["mode"], "note": note, "rows": rows})
    return out


def build(report: Dict) -> dict[str, Any]:
    """Everything the page template needs, from ``Report.to_dict()``."""
    infos = metric_infos(report)
    sections = {
        "provenance": provenance(report),
        "leaderboard": leaderboard(report, infos),
        "length": length(report),
        "sentences": sentences(report, infos),
        "buckets": buckets(report, infos),
        "ngrams": ngrams(report),
        "classification": classification(report),
        "summarization": summarization(report, infos),
        "human_agreement": human_agreement(report, infos),
        "error_spans": error_spans(report, infos),
        "span_f1": span_f1(report, infos),
    }
    names = [
        ("leaderboard", "Leaderboard"),
        ("classification", "Classification"),
        ("summarization", "Summarisation"),
        ("human_agreement", "Agreement with humans"),
        ("error_spans", "Error spans"),
        ("span_f1", "Span F1 by type"),
        ("length", "Length & sanity"),
        ("sentences", "Sentence level"),
        ("buckets", "Buckets"),
        ("ngrams", "N-gram differences"),
    ]
    toc = [(key, title) for key, title in names if sections[key]]
    if (report.get("examples") or {}).get("examples"):
        toc.append(("examples", "Examples"))
    toc.append(("provenance", "Provenance"))
    return {"sections": sections, "toc": toc, "infos": infos}
