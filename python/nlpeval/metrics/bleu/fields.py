"""sacreBLEU-flavor BLEU's settings, signature fields and components, in plain Python.

The one home of what :class:`~nlpeval.metrics.bleu.sacrebleu.BLEU` and ``nlpeval score``'s
NumPy-free path (``nlpeval.cli.fastscore``) both need to say about a corpus score: the smoothing
defaults, when the native formula applies, the signature fields and the component dict. Only the
standard library is imported here (no NumPy, no ``dataclasses``), so the command line's start-up
path can use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

#: Default ``smooth_value`` per smoothing method (``None``: the method takes no value).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}

#: Largest ``max_order`` of the native formula (``_native.bleu_row_scores``).
MAX_NATIVE_ORDER = 7


def native_formula(max_order: Any, smooth: Any, smooth_value: Any) -> bool:
    """Whether the native formula computes with the same arithmetic as the Python one: up to
    :data:`MAX_NATIVE_ORDER` orders (NumPy sums 8 or more values pairwise), a known smoothing, and
    no ``smooth_value`` or a finite int or float that a float64 holds exactly.

    Examples
    --------
    >>> native_formula(4, "exp", None), native_formula(8, "exp", None), native_formula(4, "floor", float("inf"))
    (True, False, False)
    """
    if type(max_order) is not int or not 1 <= max_order <= MAX_NATIVE_ORDER or smooth not in SMOOTH_DEFAULTS:
        return False
    if smooth_value is None:
        return True
    return type(smooth_value) in (int, float) and math.isfinite(smooth_value) and float(smooth_value) == smooth_value


def smooth_field(smooth: str, smooth_value: float | None) -> str:
    """The signature's ``smooth`` value: the method, with its value for methods that take one.

    Examples
    --------
    >>> smooth_field("exp", None), smooth_field("floor", None), smooth_field("add-k", 0.5)
    ('exp', 'floor[0.10]', 'add-k[0.50]')
    """
    default = SMOOTH_DEFAULTS[smooth]
    if default is None:
        return smooth
    return f"{smooth}[{default if smooth_value is None else smooth_value:.2f}]"


class BleuSettings(Protocol):
    """What the signature reads of a BLEU metric (``BLEU`` and the fast path's)."""

    @property
    def lowercase(self) -> bool: ...

    @property
    def effective_order(self) -> bool: ...

    @property
    def smooth(self) -> str: ...

    @property
    def smooth_value(self) -> float | None: ...

    @property
    def flavor(self) -> str: ...


def signature_fields(settings: BleuSettings, nrefs: str, tok: str) -> dict[str, object]:
    """The signature fields of a BLEU score, in sacreBLEU's order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> settings = SimpleNamespace(lowercase=False, effective_order=False, smooth="exp", smooth_value=None,
    ...                            flavor="sacrebleu")
    >>> signature_fields(settings, "1", "13a")
    {'nrefs': '1', 'case': 'mixed', 'eff': False, 'tok': '13a', 'smooth': 'exp', 'flavor': 'sacrebleu'}
    """
    return {
        "nrefs": nrefs,
        "case": "lc" if settings.lowercase else "mixed",
        "eff": settings.effective_order,
        "tok": tok,
        "smooth": smooth_field(settings.smooth, settings.smooth_value),
        "flavor": settings.flavor,
    }


def component_dict(totals: Sequence[Any], precisions: list[float], bp: float, max_order: int) -> dict[str, Any]:
    """The components of a BLEU score from its totals (``bleu_schema`` columns), precisions (0–1)
    and brevity penalty.

    Examples
    --------
    >>> component_dict([4, 5, 0, 3, 1, 4, 3], [0.75, 1 / 3], 0.8, 2)["length_ratio"]
    0.8
    """
    hyp_len, ref_len = int(totals[0]), int(totals[1])
    n = max_order
    return {
        "precisions": precisions,
        "brevity_penalty": bp,
        "length_ratio": hyp_len / ref_len if ref_len else 0.0,
        "hyp_len": hyp_len,
        "ref_len": ref_len,
        "counts": [int(c) for c in totals[3 : 3 + n]],
        "totals": [int(t) for t in totals[3 + n : 3 + 2 * n]],
    }
