"""Markdown and LaTeX tables (first column left-aligned, the rest right), shared by the renderers."""

from __future__ import annotations

from collections.abc import Sequence

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


#: characters that would end or break a line of a table, comment or row, written visibly instead
_CONTROLS = {code: f"\\x{code:02x}" for code in [*range(32), 127]} | {
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
    0x85: "\\x85",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}

#: first characters that make a spreadsheet treat a CSV cell as a formula
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters written as visible escapes.

    A file name holding a newline must not add a row to a table or end a LaTeX comment.

    Examples
    --------
    >>> print(one_line("a\\nb\\tc"))
    a\\nb\\tc
    """
    return text.translate(_CONTROLS)


def csv_text(text: str) -> str:
    """A text cell (a name, a signature) safe in CSV: on one line, and never read as a spreadsheet formula.

    Examples
    --------
    >>> csv_text("=HYPERLINK(1)"), csv_text("system-a")
    ("'=HYPERLINK(1)", 'system-a')
    """
    text = one_line(text)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def markdown_escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell (on one line, pipes escaped).

    Examples
    --------
    >>> markdown_escape("a|b")
    'a\\\\|b'
    """
    return one_line(text).replace("|", "\\|")


def latex_escape(text: str) -> str:
    """``text`` on one line (see :func:`one_line`) with LaTeX's special characters escaped.

    Examples
    --------
    >>> latex_escape("50% of a_b")
    '50\\\\% of a\\\\_b'
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in one_line(text))


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table.

    Examples
    --------
    >>> markdown_table(["metric", "value"], [["BLEU", "26.65"]])
    ['| metric | value |', '|:---|---:|', '| BLEU | 26.65 |']
    """
    lines = [
        "| " + " | ".join(markdown_escape(h) for h in header) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in rows]
    return lines


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a booktabs LaTeX ``tabular``.

    Examples
    --------
    >>> print("\\n".join(latex_table(["metric", "value"], [["BLEU", "26.65"]])))
    \\begin{tabular}{lr}
    \\toprule
    metric & value \\\\
    \\midrule
    BLEU & 26.65 \\\\
    \\bottomrule
    \\end{tabular}
    """
    lines = [
        r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in header) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines
