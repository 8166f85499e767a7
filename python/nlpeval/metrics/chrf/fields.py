"""sacreBLEU-flavor chrF's option checks, signature fields and components, in plain Python.

The one home of what :class:`~nlpeval.metrics.chrf.sacrebleu.CHRF` and ``nlpeval score``'s
NumPy-free path (``nlpeval.cli.fastscore``) both need to say about a corpus score: which options
are valid, when the native formula applies, the signature fields and the component dict. Only the
standard library is imported here (no NumPy, no ``dataclasses``), so the command line's start-up
path can use it.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Protocol

#: chrF's default beta (recall weighted twice as much as precision).
DEFAULT_BETA = 2


def check_options(char_order: Any, word_order: Any, beta: Any) -> None:
    """Reject option values sacreBLEU could not score (``ValueError``).

    Examples
    --------
    >>> check_options(6, 2, 2)
    >>> check_options(0, 0, 2)
    Traceback (most recent call last):
    ...
    ValueError: chrF needs at least one n-gram order: char_order + word_order must be >= 1
    """
    for name, value in (("char_order", char_order), ("word_order", word_order)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"{name} must be a non-negative int; got {value!r}")
    if char_order + word_order < 1:
        raise ValueError("chrF needs at least one n-gram order: char_order + word_order must be >= 1")
    if char_order + word_order > 255:
        raise ValueError(f"char_order + word_order must be at most 255; got {char_order + word_order}")
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not _finite(beta) or beta < 0:
        raise ValueError(f"beta must be a non-negative number; got {beta!r}")


def _finite(value: numbers.Real) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def native_factor(factor: Any) -> bool:
    """Whether the native formula computes with ``factor`` (beta squared) as the Python one does: a
    finite Python float, or an int that a float64 holds exactly (also ``1 + factor``); a NumPy scalar
    would change the types of the arithmetic.

    Examples
    --------
    >>> native_factor(4), native_factor(2.25), native_factor(float("nan")), native_factor(2**60)
    (True, True, False, False)
    """
    if type(factor) is float:
        return math.isfinite(factor)
    return type(factor) is int and abs(factor) < 2**53


class ChrfSettings(Protocol):
    """What the signature and components read of a chrF metric (``CHRF`` and the fast path's)."""

    @property
    def lowercase(self) -> bool: ...

    @property
    def eps_smoothing(self) -> bool: ...

    @property
    def char_order(self) -> int: ...

    @property
    def word_order(self) -> int: ...

    @property
    def whitespace(self) -> bool: ...

    @property
    def beta(self) -> float: ...

    @property
    def flavor(self) -> str: ...


def signature_fields(settings: ChrfSettings, nrefs: str) -> dict[str, object]:
    """The signature fields of a chrF score, in sacreBLEU's order (``beta`` only when not 2).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> settings = SimpleNamespace(lowercase=False, eps_smoothing=False, char_order=6, word_order=2,
    ...                            whitespace=False, beta=2, flavor="sacrebleu")
    >>> signature_fields(settings, "1")["nw"]
    2
    """
    return {
        "nrefs": nrefs,
        "case": "lc" if settings.lowercase else "mixed",
        "eff": not settings.eps_smoothing,
        "nc": settings.char_order,
        "nw": settings.word_order,
        "space": settings.whitespace,
        "beta": None if settings.beta == DEFAULT_BETA else settings.beta,
        "flavor": settings.flavor,
    }


def component_dict(
    settings: ChrfSettings, precision: float, recall: float, precisions: list[float], recalls: list[float]
) -> dict[str, Any]:
    """The components of a chrF score from the averaged and the per-order precision and recall.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> settings = SimpleNamespace(char_order=1, word_order=1, beta=2)
    >>> component_dict(settings, 0.5, 0.25, [0.5, 1.0], [0.25, 0.5])["word_recalls"]
    [0.5]
    """
    c = settings.char_order
    return {
        "precision": precision,
        "recall": recall,
        "char_precisions": precisions[:c],
        "char_recalls": recalls[:c],
        "word_precisions": precisions[c:],
        "word_recalls": recalls[c:],
        "beta": settings.beta,
        "char_order": settings.char_order,
        "word_order": settings.word_order,
    }
