"""Renderers of the report model: text, Markdown, JSON, LaTeX and (lazily) HTML.

Examples
--------
>>> from nlpeval.reports.demo import demo_report
>>> render(demo_report(n_bootstrap=20), "json").startswith('{"schema_version"')
True
"""

from __future__ import annotations

from nlpeval.reports.model import Report

FORMATS = ("html", "markdown", "text", "json", "latex")

#: -o suffix -> format
SUFFIXES = {".html": "html", ".htm": "html", ".md": "markdown", ".txt": "text", ".json": "json", ".tex": "latex"}


def render(model: Report, fmt: str) -> str:
    """``model`` as a document in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        from nlpeval.reports.render.json import render_json

        return render_json(model)
    if fmt in ("text", "markdown", "latex"):
        from nlpeval.reports.render.tables import render_tables

        return render_tables(model, fmt)
    if fmt == "html":
        from nlpeval.reports.html import render_html

        return render_html(model)
    raise ValueError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
