"""Number formatting for the HTML report (one place, so every table prints numbers the same way).

Examples
--------
>>> fmt_value(0.26651, 100.0), fmt_p(0.00012), fmt_p(0.0312), fmt_diff(-0.0123, 100.0)
('26.65', '<0.001', '0.031', '−1.23')
>>> fmt_ci(0.25, 0.28, 100.0), fmt_value(None, 100.0)
('[25.00, 28.00]', '—')
"""

from __future__ import annotations

import math

DASH = "—"


def _ok(value: float | None) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def fmt_value(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    """``value * scale`` with ``digits`` decimals; a dash when undefined."""
    if not _ok(value):
        return DASH
    assert value is not None
    text = f"{value * scale:.{digits}f}"
    return "0." + "0" * digits if text.strip("-0.") == "" and digits else text.replace("-", "−")


def fmt_diff(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    """A signed difference (``+1.20``, ``−0.35``)."""
    if not _ok(value):
        return DASH
    assert value is not None
    text = fmt_value(value, scale, digits)
    return text if text.startswith("−") else "+" + text


def fmt_ci(low: float | None, high: float | None, scale: float = 1.0, digits: int = 2) -> str:
    """``[low, high]``; empty when the interval is undefined."""
    if not (_ok(low) and _ok(high)):
        return ""
    return f"[{fmt_value(low, scale, digits)}, {fmt_value(high, scale, digits)}]"


def fmt_p(p: float | None) -> str:
    """A p-value: three decimals, ``<0.001`` below that."""
    if not _ok(p):
        return DASH
    assert p is not None
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def sort_key(value: float | None) -> str:
    """The ``data-v`` sort key of a numeric cell (empty when undefined: sorts last).

    Examples
    --------
    >>> sort_key(0.5), sort_key(None)
    ('0.5', '')
    """
    if not _ok(value):
        return ""
    assert value is not None
    return repr(round(float(value), 10))


def p_text(p: float | None) -> str:
    """``p = 0.031`` or ``p < 0.001`` for running text.

    Examples
    --------
    >>> p_text(0.0312), p_text(0.0001)
    ('p = 0.031', 'p < 0.001')
    """
    text = fmt_p(p)
    return f"p < {text[1:]}" if text.startswith("<") else f"p = {text}"
