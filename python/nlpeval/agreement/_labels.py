"""Turn annotation arrays (numbers or labels, with missing values) into integer codes."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError

#: integer-valued data whose range is at most this is coded by counting, not sorting
_COUNTING_RANGE = 1 << 20


@dataclass(frozen=True)
class Coded:
    """Annotations as integer codes.

    Attributes
    ----------
    codes : numpy.ndarray
        ``int64`` array of the input's shape: the index of each value in
        ``values``, ``-1`` where the value is missing.
    values : numpy.ndarray
        The distinct non-missing values, sorted (float64 when ``numeric``).
    numeric : bool
        Whether every value is a real number.
    """

    codes: np.ndarray
    values: np.ndarray
    numeric: bool

    @property
    def missing(self) -> np.ndarray:
        return self.codes < 0


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and value != value)


def _position(index: int, shape: tuple[int, ...]) -> str:
    return ", ".join(f"{i}" for i in np.unravel_index(index, shape)) if len(shape) > 1 else str(index)


def as_array(data: Any, *, ndim: int, what: str) -> np.ndarray:
    """``data`` as a NumPy array of ``ndim`` dimensions (object dtype unless numeric).

    Strings and ``None`` stay as Python objects so that missing values are not
    turned into the string ``"nan"``.
    """
    if isinstance(data, (str, bytes)):
        raise InputError(f"got one {type(data).__name__}; expected an array of annotations", side=what)
    try:
        array = np.asarray(data)
        if array.dtype.kind not in "biuf":
            array = np.asarray(data, dtype=object)
    except ValueError:
        raise InputError("rows have different lengths; use NaN or None for missing values", side=what) from None
    if array.dtype.kind == "c":
        raise InputError("complex values are not annotations", side=what)
    if array.ndim != ndim:
        shape = "a 1-D sequence" if ndim == 1 else "a 2-D array"
        raise InputError(f"expected {shape}; got an array of shape {array.shape}", side=what)
    return array


def _numeric_codes(array: np.ndarray, what: str) -> Coded:
    flat = np.asarray(array, dtype=np.float64).ravel()
    given = ~np.isnan(flat)
    present = flat[given]
    codes = np.full(flat.shape, -1, dtype=np.int64)
    if present.size == 0:
        return Coded(codes.reshape(array.shape), np.empty(0, dtype=np.float64), True)
    low, high = present.min(), present.max()
    if np.isinf(low) or np.isinf(high):
        bad = int(np.flatnonzero(np.isinf(flat))[0])
        raise InputError(f"value at ({_position(bad, array.shape)}) is infinite", side=what)
    shifted = present - low
    counted = None
    if high - low <= _COUNTING_RANGE:
        as_int = shifted.astype(np.int64)
        if np.array_equal(as_int, shifted):  # integer-valued: count, do not sort
            counted = as_int
    if counted is not None:
        used = np.bincount(counted) > 0
        remap = np.cumsum(used) - 1
        values = np.flatnonzero(used).astype(np.float64) + low
        codes[given] = remap[counted]
    else:
        values, inverse = np.unique(present, return_inverse=True)
        codes[given] = inverse
    # -0.0 and 0.0 are one value, as in NumPy comparisons
    return Coded(codes.reshape(array.shape), values + 0.0, True)


def encode(data: Any, *, ndim: int, what: str, allow_missing: bool = True) -> Coded:
    """Integer codes of annotation data.

    Parameters
    ----------
    data : array_like
        Numbers (NaN is missing) or labels such as strings (``None`` or NaN is missing).
    ndim : int
        Required number of dimensions.
    what : str
        Name of the input, used in errors.
    allow_missing : bool
        If false, a missing value is an :class:`~nlpeval.InputError`.

    Examples
    --------
    >>> c = encode([["b", "a"], [None, "b"]], ndim=2, what="ratings")
    >>> c.codes.tolist(), c.values.tolist(), c.numeric
    ([[1, 0], [-1, 1]], ['a', 'b'], False)
    >>> encode([3, 1, float("nan"), 3], ndim=1, what="a").codes.tolist()
    [1, 0, -1, 1]
    """
    array = as_array(data, ndim=ndim, what=what)
    if array.dtype.kind in "biuf":
        coded = _numeric_codes(array, what)
    else:
        flat = array.ravel()
        missing = np.fromiter((_is_missing(v) for v in flat), dtype=bool, count=flat.size)
        present = flat[~missing]
        numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in present)
        if numeric:
            as_float = np.full(flat.shape, np.nan)
            as_float[~missing] = np.asarray(present, dtype=np.float64)
            coded = _numeric_codes(as_float.reshape(array.shape), what)
        else:
            kinds = {type(v) for v in present}
            if len(kinds) > 1 and not all(issubclass(k, str) for k in kinds):
                first = type(present[0])
                index = next(i for i, v in enumerate(flat) if not missing[i] and type(v) is not first)
                raise InputError(
                    f"labels mix types ({first.__name__} and {type(flat[index]).__name__} "
                    f"at ({_position(index, array.shape)})); use one type for all labels",
                    side=what,
                )
            try:
                values, inverse = np.unique(present, return_inverse=True)
            except TypeError:
                raise InputError("labels cannot be ordered; use str or numbers", side=what) from None
            codes = np.full(flat.shape, -1, dtype=np.int64)
            codes[~missing] = inverse
            coded = Coded(codes.reshape(array.shape), values, False)
    if not allow_missing and coded.missing.any():
        index = int(np.flatnonzero(coded.missing.ravel())[0])
        raise InputError(
            f"value at ({_position(index, array.shape)}) is missing", side=what, segment=index if ndim == 1 else None
        )
    return coded


def encode_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes of two raters' labels over one shared, sorted label set.

    Returns ``(codes_a, codes_b, values)``; missing values are an error naming the item.

    Examples
    --------
    >>> ca, cb, values = encode_pair(["x", "y", "x"], ["y", "y", "z"])
    >>> ca.tolist(), cb.tolist(), values.tolist()
    ([0, 1, 0], [1, 1, 2], ['x', 'y', 'z'])
    """
    first = as_array(a, ndim=1, what="a")
    second = as_array(b, ndim=1, what="b")
    if len(first) != len(second):
        raise InputError(
            f"{len(first)} labels from rater a but {len(second)} from rater b; one label per item is needed", side="b"
        )
    both = np.concatenate([first.astype(object), second.astype(object)]) if first.dtype != second.dtype else None
    coded = encode(both if both is not None else np.concatenate([first, second]), ndim=1, what="labels")
    if coded.missing.any():
        index = int(np.flatnonzero(coded.missing)[0])
        side, item = ("a", index) if index < len(first) else ("b", index - len(first))
        raise InputError("label is missing (Cohen's kappa needs a label from both raters)", segment=item, side=side)
    n = len(first)
    return coded.codes[:n], coded.codes[n:], coded.values
