"""Inline SVG chart primitives for the HTML report: bars with CI error bars, histograms, scatter, heatmaps.

Each function lays a chart out in plain Python and returns a :class:`Chart`: a tree of
:class:`Element` records (tag, attributes, text). The template macro ``svg_chart`` in
``templates/macros.html.j2`` turns that tree into markup with Jinja2's autoescape, so
labels taken from user input (system names, bucket labels) are always escaped. Layout
is deterministic: the same data gives the same bytes. Colours are presentation
attributes (never ``style=""``), which the page's Content-Security-Policy allows.

Examples
--------
>>> chart = bar_chart(["a", "b"], [[0.3, 0.5]], lows=[[0.2, 0.4]], highs=[[0.4, 0.6]], y_label="BLEU")
>>> chart.width, chart.height
(480, 300)
>>> sorted({element.tag for element in chart.walk()})
['g', 'line', 'rect', 'svg', 'text', 'title']
>>> nice_ticks(0.0, 0.93)
[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

#: tags a chart may contain (the template renders nothing else)
ALLOWED_TAGS = frozenset(
    {"svg", "g", "rect", "line", "path", "circle", "text", "tspan", "title", "defs", "linearGradient", "stop"}
)

#: one colour per system, distinct for 18 systems and safe for colour-blind readers: Okabe-Ito's six
#: strong colours, then Paul Tol's "muted" scheme (no two shades of one hue, as Tableau's second eight
#: were next to Okabe-Ito's first), then black, grey and olive
PALETTE = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#56b4e9",
    "#d55e00",
    "#332288",
    "#999933",
    "#882255",
    "#44aa99",
    "#117733",
    "#aa4499",
    "#ddcc77",
    "#cc6677",
    "#88ccee",
    "#000000",
    "#999999",
    "#7f7f00",
)

AXIS = "#4b5563"
GRID = "#e5e7eb"
TEXT = "#1f2937"
FONT = "11"
#: rough width of one character at the chart font size (no font metrics available)
CHAR_WIDTH = 6.2
#: the width reserved per character of an axis label that must never be clipped (wide letters)
LABEL_CHAR_WIDTH = 7.0


@dataclass(frozen=True)
class Element:
    """One SVG element: tag, attributes (in output order), text content, children."""

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    text: str = ""
    children: tuple[Element, ...] = ()

    def __post_init__(self) -> None:
        if self.tag not in ALLOWED_TAGS:
            raise ValueError(f"SVG tag {self.tag!r} is not allowed")


@dataclass(frozen=True)
class Chart:
    """A laid-out chart: the root ``<svg>`` element and its size; ``label`` is its accessible name."""

    width: int
    height: int
    label: str
    root: Element = field(repr=False)

    def walk(self) -> Iterator[Element]:
        """Every element, depth first."""
        stack = [self.root]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(reversed(element.children))


def num(value: float) -> str:
    """A coordinate for SVG: at most one decimal, no trailing zeros, never ``-0``.

    Examples
    --------
    >>> num(12.0), num(3.14159), num(-0.01)
    ('12', '3.1', '0')
    """
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def color(index: int) -> str:
    """The palette colour of system ``index``.

    Examples
    --------
    >>> color(0), color(15), color(18)
    ('#0072b2', '#000000', '#0072b2')
    """
    return PALETTE[index % len(PALETTE)]


def el(tag: str, text: str = "", children: Sequence[Element] = (), **attrs: object) -> Element:
    """An :class:`Element`; attribute names use ``_`` for ``-`` (``stroke_width`` -> ``stroke-width``).

    Examples
    --------
    >>> el("rect", x=1.25, fill="#fff").attrs
    (('x', '1.2'), ('fill', '#fff'))
    """
    pairs = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        pairs.append((name, num(value) if isinstance(value, float) else str(value)))
    return Element(tag, tuple(pairs), text, tuple(children))


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 times a power of ten) covering ``[low, high]``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high <= low:
        high = low + (abs(low) if low else 1.0)
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def tick_label(value: float, step: float) -> str:
    """A tick label with as many decimals as the step needs.

    Examples
    --------
    >>> tick_label(0.30000000000000004, 0.1), tick_label(20.0, 10.0), tick_label(0.25, 0.05)
    ('0.3', '20', '0.25')
    """
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6:
        decimals += 1
    text = f"{value:.{decimals}f}"
    return "0" if text.strip("-0.") == "" else text


class _Scale:
    """Linear map from data ``[d0, d1]`` to pixels ``[p0, p1]``."""

    def __init__(self, d0: float, d1: float, p0: float, p1: float) -> None:
        self.d0, self.d1, self.p0, self.p1 = d0, d1, p0, p1

    def __call__(self, value: float) -> float:
        if self.d1 == self.d0:
            return (self.p0 + self.p1) / 2
        return self.p0 + (value - self.d0) / (self.d1 - self.d0) * (self.p1 - self.p0)


def _svg(width: int, height: int, label: str, children: list[Element]) -> Chart:
    root = el(
        "svg",
        children=[el("title", label), *children],
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {width} {height}",
        width=width,
        height=height,
        role="img",
        aria_label=label,
        font_size=FONT,
        class_="chart",
    )
    return Chart(width, height, label, root)


def _text(x: float, y: float, text: str, anchor: str = "middle", fill: str = TEXT, **attrs: object) -> Element:
    return el("text", text, (), x=float(x), y=float(y), text_anchor=anchor, fill=fill, **attrs)


def _y_axis(scale: _Scale, ticks: list[float], left: float, right: float, label: str, top: float) -> list[Element]:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    out: list[Element] = []
    for tick in ticks:
        y = scale(tick)
        out.append(el("line", x1=float(left), x2=float(right), y1=y, y2=y, stroke=GRID))
        out.append(_text(left - 6, y + 4, tick_label(tick, step), anchor="end"))
    out.append(el("line", x1=float(left), x2=float(left), y1=scale(ticks[0]), y2=scale(ticks[-1]), stroke=AXIS))
    if label:
        mid = (scale(ticks[0]) + scale(ticks[-1])) / 2
        out.append(_text(14, mid, label, transform=f"rotate(-90 14 {num(mid)})", font_weight="600"))
    return out


def _x_axis_numeric(scale: _Scale, ticks: list[float], y: float, label: str, bottom: float) -> list[Element]:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    out = [el("line", x1=scale(ticks[0]), x2=scale(ticks[-1]), y1=float(y), y2=float(y), stroke=AXIS)]
    for tick in ticks:
        x = scale(tick)
        out.append(el("line", x1=x, x2=x, y1=float(y), y2=float(y + 4), stroke=AXIS))
        out.append(_text(x, y + 16, tick_label(tick, step)))
    if label:
        out.append(_text((scale(ticks[0]) + scale(ticks[-1])) / 2, bottom - 6, label, font_weight="600"))
    return out


def _legend(
    names: Sequence[str], colors: Sequence[str], x: float, y: float, width: float
) -> tuple[list[Element], float]:
    """Legend swatches wrapped over lines within ``width``; returns elements and the height used."""
    out: list[Element] = []
    cx, cy = x, y
    for name, fill in zip(names, colors, strict=True):
        item_width = 18 + CHAR_WIDTH * len(name) + 14
        if cx + item_width > x + width and cx > x:
            cx, cy = x, cy + 16
        out.append(el("rect", x=float(cx), y=float(cy - 9), width=11, height=11, rx=2, fill=fill))
        out.append(_text(cx + 16, cy, name, anchor="start"))
        cx += item_width
    return out, (cy - y) + 16 if names else 0.0


def _category_labels(
    names: Sequence[str], centers: Sequence[float], y: float, slot: float
) -> tuple[list[Element], float]:
    """Category labels under an axis, rotated when they do not fit; returns elements and height used."""
    longest = max((len(n) for n in names), default=0) * CHAR_WIDTH
    if longest <= slot - 4:
        return [_text(cx, y + 14, n) for n, cx in zip(names, centers, strict=True)], 20.0
    out = []
    for name, cx in zip(names, centers, strict=True):
        shown = name if len(name) <= 28 else name[:27] + "…"
        out.append(_text(cx, y + 10, shown, anchor="end", transform=f"rotate(-35 {num(cx)} {num(y + 10)})"))
    return out, min(longest, 28 * CHAR_WIDTH) * 0.6 + 16


def bar_chart(
    categories: Sequence[str],
    values: Sequence[Sequence[float | None]],
    *,
    lows: Sequence[Sequence[float | None]] | None = None,
    highs: Sequence[Sequence[float | None]] | None = None,
    counts: Sequence[Sequence[int | None]] | None = None,
    series: Sequence[str] = (),
    series_colors: Sequence[str] | None = None,
    y_label: str = "",
    label: str = "bar chart",
    width: int = 480,
    height: int = 300,
    value_format: str = "{:.2f}",
) -> Chart:
    """Grouped bars (one group per category, one bar per series) with confidence-interval error bars.

    ``values[s][c]`` is series ``s`` in category ``c`` (``None``: no bar); ``lows``/``highs`` the interval.
    With one series each bar takes its category's palette colour; otherwise series colours and a legend.
    """
    n_series = len(values)
    n_cat = len(categories)
    single = n_series == 1
    if single:
        fills = [[color(c) for c in range(n_cat)]]
    else:
        palette = list(series_colors) if series_colors else [color(s) for s in range(n_series)]
        fills = [[palette[s]] * n_cat for s in range(n_series)]
    finite = [
        v
        for grid in (values, lows or [], highs or [])
        for row in grid
        for v in row
        if v is not None and math.isfinite(v)
    ]
    d_low = min([0.0, *finite])
    d_high = max([0.0, *finite])
    ticks = nice_ticks(d_low, d_high)
    legend_elems: list[Element] = []
    legend_h = 0.0
    left, right, top = 58.0, float(width - 12), 14.0
    if not single and series:
        legend_elems, legend_h = _legend(series, [f[0] for f in fills], left, top + 4, right - left)
        top += legend_h + 4
    slot = (right - left) / max(n_cat, 1)
    centers = [left + slot * (c + 0.5) for c in range(n_cat)]
    labels_probe, label_h = _category_labels(categories, centers, 0, slot)
    bottom = height - label_h - 8
    scale = _Scale(ticks[0], ticks[-1], bottom, top)
    out = [*legend_elems, *_y_axis(scale, ticks, left, right, y_label, top)]
    bar_w = min(42.0, slot * 0.8 / max(n_series, 1))
    zero = scale(0.0) if ticks[0] <= 0 <= ticks[-1] else scale(ticks[0])
    for s in range(n_series):
        for c in range(n_cat):
            value = values[s][c]
            if value is None or not math.isfinite(value):
                continue
            x = centers[c] - bar_w * n_series / 2 + s * bar_w
            y = scale(value)
            low = lows[s][c] if lows else None
            high = highs[s][c] if highs else None
            tip = f"{categories[c]}{' · ' + series[s] if not single and series else ''}: {value_format.format(value)}"
            if low is not None and high is not None:
                tip += f" [{value_format.format(low)}, {value_format.format(high)}]"
            if counts and counts[s][c] is not None:
                tip += f" (n={counts[s][c]})"
            parts = [
                el(
                    "rect",
                    x=x + 1,
                    y=min(y, zero),
                    width=max(bar_w - 2, 1.0),
                    height=max(abs(zero - y), 0.5),
                    fill=fills[s][c],
                    fill_opacity="0.85",
                )
            ]
            if low is not None and high is not None:
                xm = x + bar_w / 2
                cap = min(6.0, bar_w / 4)
                parts += [
                    el("line", x1=xm, x2=xm, y1=scale(low), y2=scale(high), stroke=TEXT, stroke_width="1.3"),
                    el("line", x1=xm - cap, x2=xm + cap, y1=scale(low), y2=scale(low), stroke=TEXT, stroke_width="1.3"),
                    el(
                        "line",
                        x1=xm - cap,
                        x2=xm + cap,
                        y1=scale(high),
                        y2=scale(high),
                        stroke=TEXT,
                        stroke_width="1.3",
                    ),
                ]
            out.append(el("g", children=[el("title", tip), *parts]))
    out.append(el("line", x1=left, x2=right, y1=zero, y2=zero, stroke=AXIS))
    labels, _ = _category_labels(categories, centers, bottom, slot)
    out += labels
    del labels_probe
    return _svg(width, height, label, out)


def histogram(
    edges: Sequence[float],
    counts: Sequence[Sequence[int]],
    *,
    series: Sequence[str] = (),
    series_colors: Sequence[str] | None = None,
    x_label: str = "",
    y_label: str = "segments",
    label: str = "histogram",
    width: int = 480,
    height: int = 280,
) -> Chart:
    """Histograms sharing ``edges``: one series draws filled bars; several draw outlined steps and a legend."""
    n_series = len(counts)
    palette = list(series_colors) if series_colors else [color(s) for s in range(n_series)]
    left, right, top = 58.0, float(width - 14), 14.0
    legend_elems: list[Element] = []
    if n_series > 1 and series:
        legend_elems, legend_h = _legend(series, palette, left, top + 4, right - left)
        top += legend_h + 4
    bottom = float(height - 40)
    if len(edges) < 2:
        edges = [0.0, 1.0]
    x_ticks = nice_ticks(edges[0], edges[-1])
    x_scale = _Scale(x_ticks[0], x_ticks[-1], left, right)
    y_ticks = nice_ticks(0.0, float(max([1, *(c for row in counts for c in row)])), 4)
    y_scale = _Scale(y_ticks[0], y_ticks[-1], bottom, top)
    out = [*legend_elems, *_y_axis(y_scale, y_ticks, left, right, y_label, top)]
    for s, row in enumerate(counts):
        name = series[s] if s < len(series) else ""
        if n_series == 1:
            bars = []
            for i, count in enumerate(row):
                x0, x1 = x_scale(edges[i]), x_scale(edges[i + 1])
                tip = f"{name + ': ' if name else ''}[{edges[i]:g}, {edges[i + 1]:g}): {count}"
                bars.append(
                    el(
                        "rect",
                        children=[el("title", tip)],
                        x=x0 + 0.5,
                        y=y_scale(count),
                        width=max(x1 - x0 - 1, 0.5),
                        height=max(bottom - y_scale(count), 0.0),
                        fill=palette[s],
                        fill_opacity="0.8",
                    )
                )
            out += bars
        else:
            points = [f"M{num(x_scale(edges[0]))} {num(bottom)}"]
            for i, count in enumerate(row):
                y = y_scale(count)
                points.append(f"V{num(y)}H{num(x_scale(edges[i + 1]))}")
            points.append(f"V{num(bottom)}")
            out.append(
                el(
                    "path",
                    children=[el("title", name)],
                    d="".join(points),
                    fill="none",
                    stroke=palette[s],
                    stroke_width="1.6",
                    stroke_linejoin="round",
                )
            )
    out += _x_axis_numeric(x_scale, x_ticks, bottom, x_label, float(height))
    return _svg(width, height, label, out)


def scatter(
    x: Sequence[float | None],
    y: Sequence[float | None],
    *,
    x_label: str = "",
    y_label: str = "",
    label: str = "scatter plot",
    bounds: tuple[float, float] | None = None,
    diagonal: bool = True,
    size: int = 300,
    points_from: Mapping[str, str] | None = None,
) -> Chart:
    """Points ``(x[i], y[i])`` in a square plot with shared axes and the ``y = x`` diagonal.

    All points are one ``<path>`` of zero-length round-capped segments (compact for thousands of
    points); points above the diagonal, on it and below it are coloured apart. With ``points_from``
    (``{"metric": ..., "x": system, "y": system}``) the chart has no points but an empty
    ``<g class="scatter-points">`` carrying those names and the data-to-pixel map
    (``px = ax + bx * value``): the page's script draws the points from the sentence scores
    embedded once in the page (``x``/``y`` still set the axes).
    """
    pairs = [
        (a, b)
        for a, b in zip(x, y, strict=False)
        if a is not None and b is not None and math.isfinite(a) and math.isfinite(b)
    ]
    if bounds is None:
        values = [v for p in pairs for v in p] or [0.0, 1.0]
        bounds = (min(0.0, *values), max(values))
    ticks = nice_ticks(*bounds)
    left, top = 58.0, 12.0
    plot = size - left - 12
    scale_x = _Scale(ticks[0], ticks[-1], left, left + plot)
    scale_y = _Scale(ticks[0], ticks[-1], top + plot, top)
    out = _y_axis(scale_y, ticks, left, left + plot, y_label, top)
    if diagonal:
        out.append(
            el(
                "line",
                x1=scale_x(ticks[0]),
                y1=scale_y(ticks[0]),
                x2=scale_x(ticks[-1]),
                y2=scale_y(ticks[-1]),
                stroke=AXIS,
                stroke_dasharray="4 3",
            )
        )
    if points_from is not None:
        bx = (scale_x(1.0) - scale_x(0.0)) if ticks[-1] != ticks[0] else 0.0
        by = (scale_y(1.0) - scale_y(0.0)) if ticks[-1] != ticks[0] else 0.0
        out.append(
            el(
                "g",
                class_="scatter-points",
                data_metric=points_from.get("metric", ""),
                data_x=points_from.get("x", ""),
                data_y=points_from.get("y", ""),
                data_ax=repr(scale_x(0.0)),
                data_bx=repr(bx),
                data_ay=repr(scale_y(0.0)),
                data_by=repr(by),
            )
        )
        pairs = []
    groups: dict[str, list[str]] = {"above": [], "on": [], "below": []}
    for a, b in pairs:
        key = "above" if b > a else "below" if b < a else "on"
        groups[key].append(f"M{num(scale_x(a))} {num(scale_y(b))}h0")
    fills = {"above": "#d55e00", "on": "#6b7280", "below": "#0072b2"}
    for key in ("on", "below", "above"):
        if groups[key]:
            out.append(
                el(
                    "path",
                    children=[el("title", f"{len(groups[key])} segments {key} the diagonal")],
                    d="".join(sorted(groups[key])),
                    stroke=fills[key],
                    stroke_opacity="0.55",
                    stroke_width="4",
                    stroke_linecap="round",
                    fill="none",
                )
            )
    out += _x_axis_numeric(scale_x, ticks, top + plot, x_label, top + plot + 42)
    return _svg(size, int(top + plot + 44), label, out)


def _mix(c0: tuple[int, int, int], c1: tuple[int, int, int], t: float) -> str:
    t = min(1.0, max(0.0, t))
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(c0, c1, strict=True))


#: sequential ramp from strong (small p) to pale (p = 1)
_P_STRONG = (8, 81, 156)
_P_MID = (107, 174, 214)
_P_PALE = (247, 251, 255)


def p_value_color(p: float | None) -> str:
    """Fill for a p-value on a log scale: 0.001 or less darkest, 1 palest; grey when undefined.

    Examples
    --------
    >>> p_value_color(0.0001), p_value_color(1.0), p_value_color(None)
    ('#08519c', '#f7fbff', '#f3f4f6')
    """
    if p is None or not math.isfinite(p):
        return "#f3f4f6"
    t = (math.log10(max(p, 1e-3)) + 3) / 3  # 0 at p<=0.001, 1 at p=1
    return _mix(_P_STRONG, _P_MID, t / 0.45) if t < 0.45 else _mix(_P_MID, _P_PALE, (t - 0.45) / 0.55)


def heatmap(
    labels: Sequence[str],
    p_values: Sequence[Sequence[float | None]],
    *,
    tips: Sequence[Sequence[str]] | None = None,
    label: str = "p-value heatmap",
    legend_title: str = "p-value",
    alpha: float = 0.05,
) -> Chart:
    """An N x N matrix of p-values: log-scaled colours, values in cells (when they fit), a colour legend.

    Cells with ``p < alpha`` get a bold outline; ``tips[i][j]`` is each cell's tooltip.
    """
    n = len(labels)
    cell = 46.0 if n <= 8 else 30.0 if n <= 14 else 24.0
    shown = [name if len(name) <= 24 else name[:23] + "…" for name in labels]
    # room for the widest label: CHAR_WIDTH is an average, and names of capitals and digits are wider
    label_w = max((len(s) for s in shown), default=1) * LABEL_CHAR_WIDTH + 10
    left = label_w + 8
    top = label_w * 0.72 + 14
    grid = cell * n
    legend_x = left + grid + 26
    width = int(legend_x + 80)
    height = int(max(top + grid + 12, top + 190))
    out: list[Element] = []
    for i, name in enumerate(shown):
        full = [el("title", labels[i])] if name != labels[i] else []  # the whole name on hover
        cy = top + cell * (i + 0.5)
        out.append(el("g", children=[*full, _text(left - 6, cy + 4, name, anchor="end")]))
        cx = left + cell * (i + 0.5)
        rotated = _text(cx, top - 6, name, anchor="start", transform=f"rotate(-45 {num(cx)} {num(top - 6)})")
        out.append(el("g", children=[*full, rotated]))
    for i in range(n):
        for j in range(n):
            p = p_values[i][j]
            x, y = left + cell * j, top + cell * i
            fill = p_value_color(p)
            tip = tips[i][j] if tips else f"{labels[i]} vs {labels[j]}: p = {'—' if p is None else f'{p:.4f}'}"
            parts = [
                el("title", tip),
                el("rect", x=x, y=y, width=cell, height=cell, fill=fill, stroke="#ffffff", stroke_width="1"),
            ]
            if p is not None and p < alpha:
                parts.append(
                    el(
                        "rect",
                        x=x + 1.5,
                        y=y + 1.5,
                        width=cell - 3,
                        height=cell - 3,
                        fill="none",
                        stroke="#111827",
                        stroke_width="1.5",
                    )
                )
            if cell >= 30 and p is not None:
                dark = p < 0.03
                text = "<.001" if p < 0.001 else f"{p:.3f}" if cell >= 46 else f"{p:.2f}".lstrip("0")
                parts.append(_text(x + cell / 2, y + cell / 2 + 4, text, fill="#ffffff" if dark else TEXT))
            elif p is None and i == j:
                parts.append(
                    el("line", x1=x + 6, y1=y + cell - 6, x2=x + cell - 6, y2=y + 6, stroke="#d1d5db", stroke_width="1")
                )
            out.append(el("g", children=parts))
    # legend: gradient bar with ticks at 0.001 .. 1
    bar_top, bar_h = top, 150.0
    stops = [el("stop", offset=f"{k * 10}%", stop_color=p_value_color(10 ** (-3 + 3 * k / 10))) for k in range(11)]
    gradient_id = "pgrad"
    out.append(
        el(
            "defs",
            children=[el("linearGradient", children=stops, id=gradient_id, x1="0", y1="1", x2="0", y2="0")],
        )
    )
    out.append(
        el(
            "rect",
            x=legend_x,
            y=bar_top,
            width=14,
            height=bar_h,
            fill=f"url(#{gradient_id})",
            stroke=AXIS,
            stroke_width="0.5",
        )
    )
    for p in (0.001, 0.01, alpha, 0.2, 1.0):
        t = (math.log10(p) + 3) / 3
        y = bar_top + bar_h * (1 - t)
        out.append(el("line", x1=legend_x + 14, x2=legend_x + 18, y1=y, y2=y, stroke=AXIS))
        out.append(_text(legend_x + 21, y + 4, f"{p:g}", anchor="start"))
    out.append(_text(legend_x, bar_top - 8, legend_title, anchor="start", font_weight="600"))
    return _svg(width, height, label, out)


def stacked_bars(
    rows: Sequence[str],
    parts: Sequence[Sequence[int]],
    *,
    part_names: Sequence[str] = ("wins", "ties", "losses"),
    part_colors: Sequence[str] = ("#009e73", "#d1d5db", "#d55e00"),
    label: str = "win/tie/loss",
    width: int = 560,
) -> Chart:
    """One horizontal 100% bar per row (e.g. win/tie/loss of a pair), counts written in the segments."""
    label_w = min(max((len(r) for r in rows), default=1) * CHAR_WIDTH + 8, 300)
    left, right, top = label_w + 8, float(width - 10), 28.0
    bar_h, gap = 18.0, 8.0
    height = int(top + len(rows) * (bar_h + gap) + 6)
    legend, _ = _legend(part_names, part_colors, left, 14, right - left)
    out = list(legend)
    for r, (name, counts) in enumerate(zip(rows, parts, strict=True)):
        y = top + r * (bar_h + gap)
        total = sum(counts) or 1
        out.append(_text(left - 6, y + bar_h / 2 + 4, name, anchor="end"))
        x = left
        for part, count, fill in zip(part_names, counts, part_colors, strict=True):
            w = (right - left) * count / total
            seg = [
                el("title", f"{name}: {count} {part} ({100 * count / total:.1f}%)"),
                el("rect", x=x, y=y, width=max(w, 0.0), height=bar_h, fill=fill),
            ]
            if w > 30:
                seg.append(_text(x + w / 2, y + bar_h / 2 + 4, str(count), fill="#111827"))
            out.append(el("g", children=seg))
            x += w
    return _svg(width, height, label, out)


def line_chart(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]],
    *,
    series: Sequence[str] = (),
    x_label: str = "",
    y_label: str = "",
    label: str = "curves",
    size: int = 300,
) -> Chart:
    """Curves in the unit square (PR, ROC), one colour per series and a legend."""
    left, top = 58.0, 12.0
    legend, legend_h = _legend(series, [color(i) for i in range(len(series))], left, top + 4, size - left)
    top += legend_h + 4
    plot = size - left - 12
    ticks = nice_ticks(0.0, 1.0)
    scale_x = _Scale(0.0, 1.0, left, left + plot)
    scale_y = _Scale(0.0, 1.0, top + plot, top)
    out = [*legend, *_y_axis(scale_y, ticks, left, left + plot, y_label, top)]
    for i, (xs, ys) in enumerate(curves):
        d = "".join(
            f"{'M' if k == 0 else 'L'}{num(scale_x(a))} {num(scale_y(b))}"
            for k, (a, b) in enumerate(zip(xs, ys, strict=False))
        )
        if d:
            out.append(el("path", d=d, fill="none", stroke=color(i), stroke_width="1.8"))
    out += _x_axis_numeric(scale_x, ticks, top + plot, x_label, top + plot + 40)
    return _svg(size, int(top + plot + 40), label, out)
