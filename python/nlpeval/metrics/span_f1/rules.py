"""Chunk rules of span F1: how each mode reads a label and where chunks start and end.

Three readings, each written from its reference's documented behaviour:

* ``conlleval`` (conlleval.pl, 2004-01-26): a label is ``PREFIX-TYPE`` split at the first hyphen
  (no hyphen: the whole label is the prefix, the type is empty); a type ``"0"`` counts as empty (Perl
  truthiness). Chunk starts and ends follow its ``startOfChunk``/``endOfChunk`` (IOB1, IOB2, IOE1, IOE2
  and ``[``/``]`` brackets; an ``I-`` after ``O`` starts a chunk; a type change starts and ends one).
* ``lenient`` (seqeval 1.2.2's default): the prefix is the label's first character (``suffix=True``:
  its last), the type what follows the first hyphen (or ``_``); seqeval's start/end rules also know
  ``S``-prefixed singletons and that ``E`` closes a chunk.
* ``strict`` (seqeval 1.2.2's ``mode="strict"``): a chunk must follow the scheme's start, inside and
  end patterns exactly (IOB1, IOE1, IOB2, IOE2, IOBES, BILOU); other chunks are dropped.

Each rule is a boolean table over (previous prefix, current prefix, previous type == current type),
indexed by the prefix codes below, so the chunker applies it to every position at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Prefix codes: the prefixes some rule names, then every other prefix.
PREFIXES = ("O", "B", "I", "E", "S", "L", "U", ".", "[", "]")
OTHER = len(PREFIXES)
N_PREFIXES = OTHER + 1
_CODE = {prefix: code for code, prefix in enumerate(PREFIXES)}

SCHEMES = ("IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU")
MODES = ("lenient", "strict", "conlleval")


def prefix_code(prefix: str) -> int:
    """The code of a prefix string (``OTHER`` for one no rule names)."""
    return _CODE.get(prefix, OTHER)


def conlleval_label(label: str) -> tuple[str, str]:
    """(prefix, type) as conlleval.pl reads a label.

    Examples
    --------
    >>> conlleval_label("B-ARGM-LOC"), conlleval_label("O"), conlleval_label("I-0")
    (('B', 'ARGM-LOC'), ('O', ''), ('I', ''))
    """
    prefix, hyphen, kind = label.partition("-")
    if not hyphen:
        return label, ""
    return prefix, "" if kind == "0" else kind


def lenient_label(label: str, suffix: bool = False) -> tuple[str, str]:
    """(prefix, type) as seqeval 1.2.2's default mode reads a label.

    Examples
    --------
    >>> lenient_label("B-PER"), lenient_label("O"), lenient_label("PER-B", suffix=True)
    (('B', 'PER'), ('O', '_'), ('B', 'PER'))
    """
    if suffix:
        return label[-1], label[:-1].rsplit("-", maxsplit=1)[0] or "_"
    return label[0], label[1:].split("-", maxsplit=1)[-1] or "_"


def strict_label(label: str, suffix: bool = False) -> tuple[str, str]:
    """(prefix, type) as seqeval 1.2.2's strict mode reads a label.

    Examples
    --------
    >>> strict_label("B-PER"), strict_label("O"), strict_label("PER-U", suffix=True)
    (('B', 'PER'), ('O', '_'), ('U', 'PER'))
    """
    if suffix:
        return label[-1], label[:-1].strip("-") or "_"
    return label[0], label[1:].strip("-") or "_"


Rule = Callable[[str, str, bool], bool]


def _conlleval_end(prev: str, cur: str, same: bool) -> bool:
    pairs = {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
    return (prev, cur) in pairs or (prev not in ("O", ".") and not same) or prev in ("[", "]")


def _conlleval_start(prev: str, cur: str, same: bool) -> bool:
    pairs = {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
    return (prev, cur) in pairs or (cur not in ("O", ".") and not same) or cur in ("[", "]")


def _lenient_end(prev: str, cur: str, same: bool) -> bool:
    pairs = {("B", "B"), ("B", "S"), ("B", "O"), ("I", "B"), ("I", "S"), ("I", "O")}
    return prev in ("E", "S") or (prev, cur) in pairs or (prev not in ("O", ".") and not same)


def _lenient_start(prev: str, cur: str, same: bool) -> bool:
    pairs = {("E", "E"), ("E", "I"), ("S", "E"), ("S", "I"), ("O", "E"), ("O", "I")}
    return cur in ("B", "S") or (prev, cur) in pairs or (cur not in ("O", ".") and not same)


# Strict schemes: (allowed prefixes, start, inside, end patterns); a pattern is
# "PREV CUR TAG" with PREV/CUR a set of prefixes ("*" any) and TAG same, diff or any.
_STRICT: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "IOB1": (
        "IOB",
        ("O I any", "I I diff", "B I any", "I B same", "B B same"),
        ("B I same", "I I same"),
        ("I I diff", "I O any", "I B any", "B O any", "B I diff", "B B same"),
    ),
    "IOE1": (
        "IOE",
        ("O I any", "I I diff", "E I any", "E E same"),
        ("I I same", "I E same"),
        ("I I diff", "I O any", "I E diff", "E I same", "E E same"),
    ),
    "IOB2": (
        "IOB",
        ("* B any",),
        ("B I same", "I I same"),
        ("I O any", "I I diff", "I B any", "B O any", "B I diff", "B B any"),
    ),
    "IOE2": (
        "IOE",
        ("O I any", "O E any", "E I any", "E E any", "I I diff", "I E diff"),
        ("I E same", "I I same"),
        ("E * any",),
    ),
    "IOBES": (
        "IOBES",
        ("* B any", "* S any"),
        ("B I same", "B E same", "I I same", "I E same"),
        ("S * any", "E * any"),
    ),
    "BILOU": (
        "BILOU",
        ("* B any", "* U any"),
        ("B I same", "B L same", "I I same", "I L same"),
        ("U * any", "L * any"),
    ),
}


def _patterns(patterns: tuple[str, ...]) -> Rule:
    parsed = [pattern.split() for pattern in patterns]

    def rule(prev: str, cur: str, same: bool) -> bool:
        for p, c, tag in parsed:
            if (p == "*" or prev == p) and (c == "*" or cur == c) and (tag == "any" or (tag == "same") == same):
                return True
        return False

    return rule


def table(rule: Rule) -> np.ndarray:
    """The rule as a boolean array ``[prev_code, cur_code, same]``."""
    names = (*PREFIXES, "\x00other")
    out = np.zeros((N_PREFIXES, N_PREFIXES, 2), dtype=bool)
    for i, prev in enumerate(names):
        for j, cur in enumerate(names):
            for same in (0, 1):
                out[i, j, same] = rule(prev, cur, bool(same))
    return out


def chunk_tables(mode: str, scheme: str | None = None) -> dict[str, np.ndarray]:
    """``start``/``end`` tables (``conlleval``, ``lenient``) or ``start``/``inside``/``end`` (``strict``)."""
    if mode == "conlleval":
        return {"start": table(_conlleval_start), "end": table(_conlleval_end)}
    if mode == "lenient":
        return {"start": table(_lenient_start), "end": table(_lenient_end)}
    _, start, inside, end = _STRICT[str(scheme)]
    return {"start": table(_patterns(start)), "inside": table(_patterns(inside)), "end": table(_patterns(end))}


def allowed_prefixes(scheme: str) -> str:
    """The prefixes a strict scheme accepts (seqeval raises on any other)."""
    return _STRICT[scheme][0]


def detect_scheme(prefixes: set[str]) -> str:
    """seqeval 1.2.2's ``auto_detect`` from the references' prefixes: IOB2, IOE2, IOBES or BILOU.

    Examples
    --------
    >>> detect_scheme({"B", "I", "O"}), detect_scheme({"S"}), detect_scheme({"B", "L", "O"})
    ('IOB2', 'IOBES', 'BILOU')
    """
    if prefixes - set("IOBESUL"):
        raise ValueError(f"cannot detect the tagging scheme: unknown prefixes {sorted(prefixes - set('IOBESUL'))}")
    if "B" in prefixes and prefixes <= set("IOB"):
        return "IOB2"
    if "E" in prefixes and prefixes <= set("IOE"):
        return "IOE2"
    if ({"B", "E"} <= prefixes and prefixes <= set("IOBES")) or prefixes == {"S"}:
        return "IOBES"
    if ({"B", "L"} <= prefixes and prefixes <= set("IOBLU")) or prefixes == {"U"}:
        return "BILOU"
    raise ValueError(f"cannot detect the tagging scheme from the references' prefixes {sorted(prefixes)}; pass scheme=")
