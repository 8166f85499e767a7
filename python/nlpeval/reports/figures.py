"""Paper-ready figures of a report (PDF and PNG, matplotlib, optional ``plot`` extra): ``--figures DIR``.

One file per figure and format: the leaderboard (corpus score per system with its 95%
interval, one panel per metric), every bucket table (grouped bars with intervals) and the
all-pairs p-value heatmap of every metric (three systems or more). matplotlib is imported only when figures are
drawn; the files carry no creation date, so the same report gives the same bytes.

Examples
--------
>>> import tempfile
>>> from nlpeval.reports.demo import demo_report
>>> with tempfile.TemporaryDirectory() as folder:
...     paths = leaderboard_figure(demo_report(n_bootstrap=20).to_dict(), Path(folder), ("png",))
...     [p.name for p in paths]
['leaderboard.png']
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlpeval.reports.html.svg import PALETTE
from nlpeval.reports.model import heatmap_worth_drawing

if TYPE_CHECKING:
    from nlpeval.reports.model import Report

#: figure formats written by default
FORMATS = ("pdf", "png")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("figures need matplotlib: pip install 'nlpeval[plot]'") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.hashsalt": "nlpeval",
            "pdf.fonttype": 42,
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "axes.grid.axis": "y",
            "grid.color": "#e5e7eb",
            "axes.axisbelow": True,
        }
    )
    return plt


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "figure"


def _save(plt: Any, fig: Any, folder: Path, name: str, formats: Sequence[str]) -> list[Path]:
    paths = []
    for fmt in formats:
        path = folder / f"{name}.{fmt}"
        metadata: dict[str, Any] = {"Software": None}
        if fmt == "pdf":
            metadata = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}
        elif fmt == "svg":
            metadata = {"Date": None, "Creator": None}
        fig.savefig(path, format=fmt, dpi=200, bbox_inches="tight", metadata=metadata)
        paths.append(path)
    plt.close(fig)
    return paths


#: longest system name shown as is on an axis or in a legend; longer ones are numbered and truncated
MAX_NAME = 18


def _short_names(names: Sequence[str]) -> tuple[list[str], str]:
    """Axis labels for ``names`` and the key that spells the full names out ("" when all are short).

    Examples
    --------
    >>> _short_names(["A", "B"])
    (['A', 'B'], '')
    >>> labels, key = _short_names(["A", "x" * 30])
    >>> labels, key.splitlines()[1] == "2. " + "x" * 30
    (['1. A', '2. xxxxxxxxxxxxxxxx…'], True)
    """
    if all(len(name) <= MAX_NAME for name in names):
        return list(names), ""
    labels = [
        f"{i}. {name if len(name) <= MAX_NAME - 2 else name[: MAX_NAME - 2] + '…'}" for i, name in enumerate(names, 1)
    ]
    return labels, "\n".join(f"{i}. {name}" for i, name in enumerate(names, 1))


def _add_key(fig: Any, key: str) -> None:
    """The full system names under the figure (after the layout; ``savefig(bbox_inches="tight")`` keeps it)."""
    if key:
        fig.text(0.01, -0.02, key, ha="left", va="top", fontsize=7, color="#374151")


def _scaled(value: Any, scale: float) -> float:
    return math.nan if value is None else float(value) * scale


def _infos(report: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {m["name"]: m for m in (report.get("provenance") or {}).get("metrics") or []}


def _error_bars(values: Sequence[float], lows: Sequence[float], highs: Sequence[float]) -> list[list[float]]:
    below = [0.0 if math.isnan(v) or math.isnan(lo) else max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)]
    above = [0.0 if math.isnan(v) or math.isnan(hi) else max(hi - v, 0.0) for v, hi in zip(values, highs, strict=True)]
    return [below, above]


def leaderboard_figure(report: Mapping[str, Any], folder: Path, formats: Sequence[str]) -> list[Path]:
    """One panel per metric: each system's corpus score with its 95% bootstrap interval."""
    board = report.get("leaderboard")
    if not board:
        return []
    plt = _pyplot()
    infos = _infos(report)
    systems = list(board["systems"])
    metrics = list(board["metrics"])
    cells = {(c["system"], c["metric"]): c["estimate"] for c in board["cells"]}
    short, key = _short_names(systems)
    fig, axes = plt.subplots(1, len(metrics), figsize=(max(3.2, 0.45 * len(systems) + 1.2) * len(metrics), 3.2))
    axes = [axes] if len(metrics) == 1 else list(axes)
    for ax, metric in zip(axes, metrics, strict=True):
        info = infos.get(metric, {})
        scale = float(info.get("scale", 1.0))
        est = [cells.get((s, metric)) or {} for s in systems]
        values = [_scaled(e.get("value"), scale) for e in est]
        lows = [_scaled(e.get("low"), scale) for e in est]
        highs = [_scaled(e.get("high"), scale) for e in est]
        colors = [PALETTE[i % len(PALETTE)] for i in range(len(systems))]
        ax.bar(range(len(systems)), values, color=colors, alpha=0.9, width=0.7)
        ax.errorbar(
            range(len(systems)), values, yerr=_error_bars(values, lows, highs), fmt="none", ecolor="#111827", capsize=3
        )
        ax.set_xticks(
            range(len(systems)),
            short,
            rotation=35 if len(systems) > 3 else 0,
            ha="right" if len(systems) > 3 else "center",
            rotation_mode="anchor",
        )
        arrow = "↑" if info.get("higher_is_better", True) else "↓"
        ax.set_ylabel(f"{info.get('label', metric)} {arrow}")
    fig.tight_layout()
    _add_key(fig, key)
    return _save(plt, fig, folder, "leaderboard", formats)


def bucket_figures(report: Mapping[str, Any], folder: Path, formats: Sequence[str]) -> list[Path]:
    """Grouped bars (one group per bucket, one bar per system) with intervals, per bucket table."""
    tables = report.get("buckets") or []
    if not tables:
        return []
    plt = _pyplot()
    infos = _infos(report)
    systems = list(report.get("systems") or [])
    paths: list[Path] = []
    for table in tables:
        statistic = str(table.get("statistic") or "")
        is_count = statistic == "count"
        scale = (
            1.0
            if is_count
            else 100.0
            if statistic in ("fmeas", "prec", "rec")
            else float(infos.get(statistic, {}).get("scale", 1.0))
        )
        rows = list(table.get("rows") or [])
        names = []
        for row in rows:
            for cell in row.get("cells") or []:
                if cell["system"] not in names:
                    names.append(cell["system"])
        width = 0.8 / max(len(names), 1)
        short, key = _short_names(names)
        fig, ax = plt.subplots(figsize=(max(4.0, 0.22 * len(rows) * max(len(names), 2) + 1.5), 3.0))
        for s, name in enumerate(names):
            values, lows, highs = [], [], []
            for row in rows:
                est: dict[str, Any] = next((c["estimate"] for c in row.get("cells") or [] if c["system"] == name), {})
                empty = not est.get("n") and not is_count
                values.append(math.nan if empty else _scaled(est.get("value"), scale))
                lows.append(math.nan if empty else _scaled(est.get("low"), scale))
                highs.append(math.nan if empty else _scaled(est.get("high"), scale))
            xs = [r - 0.4 + width * (s + 0.5) for r in range(len(rows))]
            color = PALETTE[(systems.index(name) if name in systems else s) % len(PALETTE)]
            ax.bar(xs, values, width=width * 0.92, color=color, label=short[s], alpha=0.9)
            if not all(math.isnan(v) for v in lows):
                ax.errorbar(xs, values, yerr=_error_bars(values, lows, highs), fmt="none", ecolor="#111827", capsize=2)
        ax.set_xticks(
            range(len(rows)), [str(r.get("label", "")) for r in rows], rotation=30, ha="right", rotation_mode="anchor"
        )
        labels = {"fmeas": "word F-measure", "prec": "word precision", "rec": "word recall", "count": "segments"}
        ax.set_ylabel(labels.get(statistic, str(infos.get(statistic, {}).get("label", statistic))))
        ax.set_title(str(table.get("title", "")), fontsize=9)
        if len(names) > 1:
            ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        _add_key(fig, key)
        paths += _save(plt, fig, folder, f"buckets-{_slug(str(table.get('id', 'table')))}", formats)
    return paths


def heatmap_figures(report: Mapping[str, Any], folder: Path, formats: Sequence[str]) -> list[Path]:
    """The Holm-adjusted p-values between all pairs, one heatmap per metric (log colour scale).

    None with two systems: the one pair is the leaderboard's test against the baseline.
    """
    board = report.get("leaderboard") or {}
    matrices = [m for m in board.get("matrices") or [] if heatmap_worth_drawing(len(m["systems"]))]
    if not matrices:
        return []
    plt = _pyplot()
    from matplotlib.colors import LogNorm

    infos = _infos(report)
    paths: list[Path] = []
    for matrix in matrices:
        names = list(matrix["systems"])
        grid = [[math.nan if p is None else max(float(p), 1e-3) for p in row] for row in matrix["p_values"]]
        size = max(3.0, 0.42 * len(names) + 1.8)
        fig, ax = plt.subplots(figsize=(size + 0.8, size))
        image = ax.imshow(grid, cmap="Blues_r", norm=LogNorm(vmin=1e-3, vmax=1.0))
        short, key = _short_names(names)
        ax.set_xticks(range(len(names)), short, rotation=45, ha="right")
        ax.set_yticks(range(len(names)), short)
        ax.grid(False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        if len(names) <= 10:
            for i, row in enumerate(matrix["p_values"]):
                for j, p in enumerate(row):
                    if p is not None:
                        text = "<.001" if p < 0.001 else f"{p:.3f}"
                        ax.text(
                            j, i, text, ha="center", va="center", fontsize=7, color="white" if p < 0.03 else "black"
                        )
        bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_ticks([1e-3, 1e-2, 0.05, 0.2, 1.0], labels=["0.001", "0.01", "0.05", "0.2", "1"])
        bar.set_label("p-value (Holm)")
        metric = matrix["metric"]
        ax.set_title(str(infos.get(metric, {}).get("label", metric)), fontsize=9)
        fig.tight_layout()
        _add_key(fig, key)
        paths += _save(plt, fig, folder, f"pvalues-{_slug(metric)}", formats)
    return paths


def write_figures(
    model: Report | Mapping[str, Any], directory: str | Path, *, formats: Sequence[str] = FORMATS
) -> list[Path]:
    """Write the report's figures to ``directory`` (created if needed) and return their paths.

    Parameters
    ----------
    model : Report or dict
        The report model, or its ``to_dict()``.
    directory : str or Path
        Output folder.
    formats : sequence of str
        matplotlib formats (``pdf``, ``png``, ``svg``...).

    Returns
    -------
    list of Path
        The files written, in a fixed order.
    """
    report = model if isinstance(model, Mapping) else model.to_dict()
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = leaderboard_figure(report, folder, formats)
    paths += heatmap_figures(report, folder, formats)
    paths += bucket_figures(report, folder, formats)
    return paths
