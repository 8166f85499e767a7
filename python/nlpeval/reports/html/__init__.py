"""The HTML renderer of the report: one self-contained, offline page.

:func:`render_html` turns a report model (:class:`nlpeval.reports.model.Report`, or its
``to_dict()``) into one HTML file with inline CSS, inline SVG charts, a little plain
JavaScript and the example data embedded once as JSON. A Content-Security-Policy
forbids every network request; scripts and styles are allowed by their sha256 hashes.
All user text goes through Jinja2's autoescape (templates) or ``textContent`` (script);
the same model always gives the same bytes.

Examples
--------
>>> from nlpeval.reports.demo import demo_report
>>> page = render_html(demo_report(n_bootstrap=20))
>>> page.startswith("<!DOCTYPE html>"), "default-src 'none'" in page
(True, True)
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from nlpeval._version import __version__

if TYPE_CHECKING:
    import jinja2

    from nlpeval.reports.model import Report

__all__ = ["content_security_policy", "render_html"]

#: this package's folder (templates/ and static/ are read from it)
_HERE = os.path.dirname(os.path.abspath(__file__))


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    from nlpeval.reports.html.template_cache import template_cache

    options: dict[str, Any] = {
        "autoescape": True,
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": False,
        "lstrip_blocks": False,
        "keep_trailing_newline": True,
    }
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(_HERE, "templates")),  # the package folder: no zip import
        bytecode_cache=template_cache(options),  # compiled templates on disk: a fresh process skips compiling
        **options,
    )
    env.globals["svg_markup"] = svg_markup
    return env


def svg_markup(element: Any) -> Any:
    """The markup of an SVG element tree (``svg.Element``), every tag, attribute and text escaped as
    Jinja2's autoescape does: what a recursive template macro would print, without a macro call per
    element (a scatter plot has thousands).

    Examples
    --------
    >>> from nlpeval.reports.html.svg import el
    >>> str(svg_markup(el("g", children=[el("text", "a<b & 'c'", x=1.5)])))
    '<g><text x="1.5">a&lt;b &amp; &#39;c&#39;</text></g>'
    """
    from markupsafe import Markup

    parts: list[str] = []
    append = parts.append
    stack: list[Any] = [element]
    while stack:
        item = stack.pop()
        if isinstance(item, str):  # a closing tag, already escaped
            append(item)
            continue
        tag = _escape(item.tag)
        append(f"<{tag}")
        for key, value in item.attrs:
            append(f' {_escape(key)}="{_escape(value)}"')
        append(f">{_escape(item.text)}")
        stack.append(f"</{tag}>")
        stack.extend(reversed(item.children))
    return Markup("".join(parts))


#: markupsafe's escapes of a plain string, as one translation table
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;"})


def _escape(value: Any) -> str:
    """``markupsafe.escape(value)`` as text: plain strings through one table, anything else (markup,
    numbers) through markupsafe itself."""
    if type(value) is str:
        return value.translate(_ESCAPES)
    from markupsafe import escape

    return str(escape(value))


@lru_cache(maxsize=4)
def _static(name: str) -> str:
    with open(os.path.join(_HERE, "static", name), encoding="utf-8") as handle:
        return handle.read()


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(css: str, js: str) -> str:
    """The page's policy: nothing may load; only this inline style sheet and script may apply.

    Examples
    --------
    >>> policy = content_security_policy("p{}", "1;")
    >>> policy.split("; ")[0], "connect-src" in policy
    ("default-src 'none'", False)
    """
    return "; ".join(
        [
            "default-src 'none'",
            f"style-src {_sha256(css)}",
            f"script-src {_sha256(js)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def _as_dict(model: Report | dict[str, Any]) -> dict[str, Any]:
    """The report dict the page is built from: ``model.to_dict()``, except that the examples section's
    ``examples`` stay the model's records (the example browser's data reads them directly:
    :func:`~nlpeval.reports.html.data.examples_data`)."""
    if isinstance(model, dict):
        return model
    to_dict = getattr(model, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"render_html expects a report model or its to_dict(), not {type(model).__name__}")
    examples = getattr(model, "examples", None)
    if examples is None or not hasattr(examples, "examples") or not dataclasses.is_dataclass(model):
        return to_dict()
    from nlpeval.reports.model import plain

    report = {f.name: plain(getattr(model, f.name)) for f in dataclasses.fields(model) if f.name != "examples"}
    section = {f.name: plain(getattr(examples, f.name)) for f in dataclasses.fields(examples) if f.name != "examples"}
    section["examples"] = examples.examples
    report["examples"] = section
    return report


def render_html(model: Report | dict[str, Any]) -> str:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    model : Report or dict
        The report model, or its ``to_dict()``.

    Returns
    -------
    str
        The page. Same model, same bytes: nothing depends on the time or the machine.

    Examples
    --------
    >>> from nlpeval.reports.demo import demo_report
    >>> page = render_html(demo_report(n_bootstrap=20))
    >>> "<h2>Leaderboard</h2>" in page, page.count('<script type="application/json"')
    (True, 1)
    """
    from markupsafe import Markup

    from nlpeval.reports.html import view
    from nlpeval.reports.html.data import examples_data, script_json

    report = _as_dict(model)
    built = view.build(report)
    infos = built["infos"]
    css, js = _static("report.css"), _static("report.js")
    if built["sections"].get("error_spans"):  # only pages with the section: the others keep their bytes
        css += _static("error_spans.css")
    examples = report.get("examples") or {}
    has_examples = bool(examples.get("examples"))
    data_json = script_json(examples_data(report, infos)) if has_examples else ""
    kept = len(examples.get("examples") or [])
    total = examples.get("total", kept)
    if has_examples:
        note = f"{kept:,} segments" + (f" of {total:,} (the first {kept:,}, --max-examples)" if kept < total else "")
        note += ". Filter by text, bucket or label, sort by a score or a difference; matched words are highlighted."
    else:
        note = ""
    leaderboard = report.get("leaderboard") or {}
    metric_labels = [view._label(infos, m) for m in leaderboard.get("metrics") or []]
    n_segments = total if examples else None
    if n_segments is None:
        inputs = (report.get("provenance") or {}).get("inputs") or []
        n_segments = next((f.get("lines") for f in inputs if f.get("role") in ("reference", "gold")), None)
    return (
        _environment()
        .get_template("page.html.j2")
        .render(
            title=report.get("title") or "nlpeval report",
            version=(report.get("provenance") or {}).get("nlpeval_version") or __version__,
            schema_version=report.get("schema_version", ""),
            systems=list(report.get("systems") or []),
            baseline=leaderboard.get("baseline"),
            metric_labels=metric_labels,
            n_segments=n_segments,
            warnings=list(report.get("warnings") or []),
            toc=built["toc"],
            s=built["sections"],
            has_examples=has_examples,
            examples_note=note,
            largest=sorted((str(k), list(v)) for k, v in (examples.get("largest_differences") or {}).items()),
            largest_metric=view._label(infos, str(examples.get("metric") or "")),
            data_json=Markup(data_json),
            csp=Markup(content_security_policy(css, js)),
            css=Markup(css),
            js=Markup(js),
        )
    )
