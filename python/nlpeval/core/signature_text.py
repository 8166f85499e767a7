"""Signature fields as text, without the :class:`~nlpeval.core.signature.Signature` class.

One home for how a signature renders (``key:value`` pairs, booleans as yes/no, fields that are
``None`` left out, the nlpeval version last). :class:`~nlpeval.core.signature.Signature` builds
its items here, and so does ``nlpeval score``'s NumPy-free path, which cannot afford to import
``dataclasses``: this module imports only the package's version.
"""

from __future__ import annotations

from collections.abc import Iterable


def render(value: object) -> str:
    """A field value as a signature shows it: booleans as ``yes``/``no``, anything else as ``str``.

    Examples
    --------
    >>> render(True), render(False), render(6), render("13a")
    ('yes', 'no', '6', '13a')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def field_pairs(fields: Iterable[tuple[str, object]]) -> list[tuple[str, str]]:
    """The ``(key, text)`` pairs of a signature: ``None`` fields left out, the version appended.

    Examples
    --------
    >>> field_pairs([("nrefs", "1"), ("eff", False), ("beta", None)])[:2]
    [('nrefs', '1'), ('eff', 'no')]
    >>> field_pairs([])[-1][0]
    'version'
    """
    from nlpeval._version import __version__

    pairs = [(key, render(value)) for key, value in fields if value is not None]
    pairs.append(("version", f"nlpeval-{__version__}"))
    return pairs


def signature_text(**fields: object) -> str:
    """``str(Signature.build(**fields))``, without building the class.

    Examples
    --------
    >>> signature_text(nrefs="1", case="mixed", eff=False).startswith("nrefs:1|case:mixed|eff:no|version:")
    True
    """
    return "|".join(f"{key}:{value}" for key, value in field_pairs(fields.items()))


def nrefs_field(min_refs: int, max_refs: int) -> str:
    """sacreBLEU's ``nrefs`` value: the count, or ``var`` when it varies.

    Examples
    --------
    >>> nrefs_field(2, 2), nrefs_field(1, 3)
    ('2', 'var')
    """
    return str(min_refs) if min_refs == max_refs else "var"
