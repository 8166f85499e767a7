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


def markdown_escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell.

    Examples
    --------
    >>> markdown_escape("a|b")
    'a\\\\|b'
    """
    return text.replace("|", "\\|")


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped.

    Examples
    --------
    >>> latex_escape("50% of a_b")
    '50\\\\% of a\\\\_b'
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


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
