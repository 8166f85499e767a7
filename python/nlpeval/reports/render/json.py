"""The JSON document of a report: ``Report.to_dict()``, keys in model order, no NaN."""

from __future__ import annotations

import json

from nlpeval.reports.model import Report


def render_json(model: Report) -> str:
    """The report as JSON (UTF-8 text, one trailing newline; numbers as Python prints them).

    Examples
    --------
    >>> from nlpeval.reports.demo import demo_report
    >>> json.loads(render_json(demo_report(n_bootstrap=20)))["schema_version"]
    '1.1'
    """
    return json.dumps(model.to_dict(), ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
