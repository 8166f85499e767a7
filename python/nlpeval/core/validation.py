"""The one input validator for text metrics.

It runs once, up front, and rejects anything that would otherwise be silently
truncated or mis-scored, naming the offending segment.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, Literal, cast

from nlpeval.core.errors import InputError

if TYPE_CHECKING:
    import numpy as np

#: Either a single reference or a list of references, per segment.
ReferenceItem = str | Sequence[str]


def _ndarray() -> tuple[type, ...]:
    """``(numpy.ndarray,)`` once NumPy is imported, else ``()`` (no value can be an array then):
    validating text does not import NumPy."""
    numpy = sys.modules.get("numpy")
    return () if numpy is None else (numpy.ndarray,)


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def as_segment_list(values: Any, side: str) -> list[Any]:
    """A list of the items of ``values``, rejecting a bare string or a non-sequence.

    Examples
    --------
    >>> as_segment_list(("a", "b"), "hypotheses")
    ['a', 'b']
    >>> as_segment_list("a b", "hypotheses")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: got one str; expected a sequence with one item per segment
    >>> as_segment_list({"a", "b"}, "hypotheses")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: got a set, which has no order; pass a list with one item per segment
    """
    if isinstance(values, (str, bytes)):
        raise InputError(f"got one {type(values).__name__}; expected a sequence with one item per segment", side=side)
    if isinstance(values, (set, frozenset, dict)) or type(values).__name__ in ("KeysView", "ValuesView"):
        kind = "dict" if isinstance(values, dict) else "set"
        raise InputError(f"got a {kind}, which has no order; pass a list with one item per segment", side=side)
    if hasattr(values, "columns") and hasattr(values, "iloc"):  # a pandas DataFrame iterates over its column names
        raise InputError(
            "got a DataFrame, whose items are its column names; pass one column (df['ref']) or, for several "
            "references per segment, df[['ref1', 'ref2']].values.tolist()",
            side=side,
        )
    if isinstance(values, _ndarray()):
        return list(cast(Iterable[Any], values))
    try:
        return list(cast(Iterable[Any], values))
    except TypeError:
        raise InputError(f"got {_type_name(values)}; expected a sequence of segments", side=side) from None


def _all_exact_str(items: Iterable[Any]) -> bool:
    """Whether every item's type is ``str`` itself (a C-level scan, no Python loop per item)."""
    return _STR_ONLY.issuperset(map(type, items))


_STR_ONLY = frozenset({str})
_LIST_ONLY = frozenset({list})


def validate_segments(values: Sequence[str], side: str) -> list[str]:
    """A list of str segments (e.g. the candidates of a pairwise matrix), naming the first bad item.

    Examples
    --------
    >>> validate_segments(("a", "b"), "candidates")
    ['a', 'b']
    >>> validate_segments(["a", 1], "candidates")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: candidates: segment 1: is int, expected str
    """
    items = as_segment_list(values, side)
    if _all_exact_str(items):
        return items
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(f"is {_type_name(item)}, expected str", segment=index, side=side)
    return items


def _looks_like_reference_streams(references: list[Any], n_hyps: int) -> bool:
    """True for sacreBLEU's layout: K reference streams of n segments each."""
    return (
        len(references) != n_hyps
        and len(references) > 0
        and all(
            not isinstance(stream, str) and isinstance(stream, Sequence) and len(stream) == n_hyps
            for stream in references
        )
    )


def check_lengths(n_hyps: int, references: list[Any]) -> None:
    """Reject count mismatches, recognising the transposed (stream) layout."""
    if len(references) == n_hyps:
        return
    if _looks_like_reference_streams(references, n_hyps):
        raise InputError(
            f"references look like {len(references)} reference streams of {n_hyps} segments each "
            "(sacreBLEU's layout); nlpeval expects one item per hypothesis: pass list(zip(*streams))",
            side="references",
        )
    raise InputError(
        f"{n_hyps} hypotheses but {len(references)} references; there must be one reference item "
        "(a str or a list of str) per hypothesis",
        side="references",
    )


def validate_text(hypotheses: Sequence[str], references: Sequence[ReferenceItem]) -> tuple[list[str], list[list[str]]]:
    """Validate text input and normalise references to one list per segment.

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference, or a list of references (the
        count may vary between segments but must be at least one).

    Returns
    -------
    hypotheses : list of str
    references : list of list of str

    Raises
    ------
    InputError
        Naming the offending segment: length mismatch, reference streams where
        per-segment lists were expected, non-str items, a segment without references.

    Examples
    --------
    >>> validate_text(["a", "b"], ["x", ["y", "z"]])
    (['a', 'b'], [['x'], ['y', 'z']])
    >>> validate_text(["a"], [[]])
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: references: segment 0: has no reference
    """
    hyps, refs = validate_text_native(hypotheses, references)
    if refs and isinstance(refs[0], str):  # one reference per segment (all str)
        return hyps, [[item] for item in refs]
    return hyps, cast(list[list[str]], refs)  # per-segment lists (the native check refused anything else)


def validate_text_native(
    hypotheses: Sequence[str], references: Sequence[ReferenceItem]
) -> tuple[list[str], list[str] | list[list[str]]]:
    """:func:`validate_text` for the native kernels, which take either reference layout.

    References with one ``str`` per segment come back as that list itself (no list
    per segment is built); otherwise as :func:`validate_text` normalises them.

    Examples
    --------
    >>> validate_text_native(["a", "b"], ("x", "y"))
    (['a', 'b'], ['x', 'y'])
    >>> validate_text_native(["a", "b"], ["x", ["y", "z"]])
    (['a', 'b'], [['x'], ['y', 'z']])
    """
    hyps = validate_segments(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    if _all_exact_str(refs):  # one reference per segment: nothing else to check
        return hyps, refs
    return hyps, _reference_lists(refs)


def map_references(
    references: list[str] | list[list[str]], transform: Callable[[str], str]
) -> list[str] | list[list[str]]:
    """``transform`` of every reference, in the layout :func:`validate_text_native` returned them.

    Examples
    --------
    >>> map_references(["A", "B"], str.lower)
    ['a', 'b']
    >>> map_references([["A"], ["B", "C"]], str.lower)
    [['a'], ['b', 'c']]
    """
    if references and isinstance(references[0], str):  # one reference per segment (all str)
        return [transform(ref) for ref in references]
    return [[transform(ref) for ref in segment] for segment in references]


def _reference_lists(refs: list[Any]) -> list[list[str]]:
    """One list of str per segment, naming the first bad item."""
    if _LIST_ONLY.issuperset(map(type, refs)) and all(refs) and _all_exact_str(chain.from_iterable(refs)):
        return list(map(list, refs))  # lists of str only (the usual layout): C-level scans, the same copies
    normalised: list[list[str]] = []
    for index, item in enumerate(refs):
        if isinstance(item, str):
            normalised.append([item])
            continue
        if item is None or not isinstance(item, (Sequence, *_ndarray())):
            raise InputError(
                f"is {_type_name(item)}, expected a str or a list of str", segment=index, side="references"
            )
        seg_refs = list(cast(Iterable[Any], item))
        if not seg_refs:
            raise InputError("has no reference", segment=index, side="references")
        for position, ref in enumerate(seg_refs):
            if not isinstance(ref, str):
                raise InputError(
                    f"is {_type_name(ref)}, expected str",
                    segment=index,
                    side="references",
                    reference=position,
                )
        normalised.append(seg_refs)
    return normalised


def reference_counts(references: list[list[Any]]) -> np.ndarray:
    """Number of references of each segment."""
    import numpy as np

    return np.fromiter(map(len, references), dtype=np.int64, count=len(references))


def check_unicode(
    hypotheses: Sequence[str],
    references: Sequence[str | Sequence[str]] | None = None,
    *,
    side: str = "hypotheses",
) -> None:
    """Raise :class:`InputError` for the first text with a lone surrogate (not valid Unicode).

    The reference tools would count surrogate code units as characters; the
    native kernels take only valid Unicode, so such input is rejected, naming
    the segment. ``references`` (one list per segment) are checked too.

    Examples
    --------
    >>> check_unicode(["ok", "bad \\udc80"])
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: segment 1: is not valid Unicode text (lone surrogate at character 4)
    """
    for index, text in enumerate(hypotheses):
        items: list[tuple[str, int | None, str]] = [(side, None, text)]
        if references is not None:
            segment = references[index]
            if isinstance(segment, str):  # one reference per segment (validate_text_native)
                segment = (segment,)
            items += [("references", position, ref) for position, ref in enumerate(segment)]
        for where, position, item in items:
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputError(
                    f"is not valid Unicode text (lone surrogate at character {exc.start})",
                    segment=index,
                    side=where,
                    reference=position,
                ) from None


def unicode_checked(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]] | None = None, *, side: str = "hypotheses"
) -> _UnicodeChecked:
    """Around a native call: a ``UnicodeEncodeError`` becomes an :class:`InputError` naming the segment.

    The check runs only when the call failed, so valid input pays nothing (a plain class, not a
    generator context manager: it is entered on every call of a training loop).

    Examples
    --------
    >>> with unicode_checked(["a \\ud800"]):
    ...     "a \\ud800".encode("utf-8")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: hypotheses: segment 0: is not valid Unicode text (lone surrogate at character 2)
    """
    return _UnicodeChecked(hypotheses, references, side)


class _UnicodeChecked:
    __slots__ = ("hypotheses", "references", "side")

    def __init__(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]] | None, side: str) -> None:
        self.hypotheses, self.references, self.side = hypotheses, references, side

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> Literal[False]:
        if kind is not None and issubclass(kind, UnicodeEncodeError):
            check_unicode(self.hypotheses, self.references, side=self.side)
        return False


#: the largest n-gram order a metric accepts: statistics grow with it (two columns per order and segment), and
#: no published configuration goes past 10, so a larger value is a typo that would exhaust memory
MAX_NGRAM_ORDER = 100


def check_order(name: str, value: object, *, minimum: int = 1) -> int:
    """``value`` as an n-gram order from ``minimum`` to :data:`MAX_NGRAM_ORDER`, or a ``ValueError`` naming ``name``.

    Examples
    --------
    >>> check_order("max_order", 4)
    4
    >>> check_order("max_order", 10_000_000)
    Traceback (most recent call last):
    ...
    ValueError: max_order must be an int from 1 to 100; got 10000000
    """
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_NGRAM_ORDER:
        raise ValueError(f"{name} must be an int from {minimum} to {MAX_NGRAM_ORDER}; got {value!r}")
    return value
