"""Validation and integer encoding of classification targets (the scikit-learn conventions).

A target is either a 1-d array of class labels (numbers, strings or booleans) or a
2-d 0/1 indicator matrix (multi-label). Labels are encoded once into integer codes
``0..k-1`` in sorted label order, so every count afterwards is a ``bincount``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError

#: integer spans up to this size are encoded with bincount (O(n)) instead of sorting
_DENSE_SPAN = 1 << 22


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask.reshape(mask.shape[0], -1).any(axis=1))[0])


def as_array(y: Any, side: str) -> np.ndarray:
    """``y`` as a NumPy array, rejecting a bare string, ragged nesting and NaN/inf.

    Examples
    --------
    >>> as_array([1, 0, 1], "y_true").tolist()
    [1, 0, 1]
    >>> as_array([1.0, float("nan")], "y_pred")
    Traceback (most recent call last):
    ...
    nlpeval.core.errors.InputError: y_pred: segment 1: is NaN; expected a class label
    """
    if isinstance(y, (str, bytes)):
        raise InputError(f"got one {type(y).__name__}; expected one label per sample", side=side)
    if hasattr(y, "detach") and hasattr(y, "cpu"):  # torch tensors
        y = y.detach().cpu().numpy()
    try:
        arr = np.asarray(y)
    except ValueError as exc:  # ragged nested sequences
        raise InputError(f"cannot be read as an array of labels ({exc})", side=side) from None
    if arr.ndim == 0:
        raise InputError(f"got a scalar ({arr!r}); expected one label per sample", side=side)
    if arr.ndim > 2:
        raise InputError(f"has {arr.ndim} dimensions; expected 1 (labels) or 2 (indicators)", side=side)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            index = _first_bad(bad)
            value = arr.reshape(arr.shape[0], -1)[index]
            what = "NaN" if np.isnan(value).any() else "infinite"
            raise InputError(f"is {what}; expected a class label", segment=index, side=side)
    elif arr.dtype.kind == "O":
        arr = _object_labels(arr, side)
    elif arr.dtype.kind not in "biuUS":
        raise InputError(f"has unsupported dtype {arr.dtype}", side=side)
    return arr


def _object_labels(arr: np.ndarray, side: str) -> np.ndarray:
    """Object arrays: all str (-> a str array) or all numbers (-> a numeric array)."""
    flat = arr.ravel()
    is_str = np.fromiter((isinstance(v, str) for v in flat), dtype=bool, count=flat.size)
    if is_str.all():
        return arr.astype(str)
    if is_str.any():
        raise InputError(
            "mixes string and number labels; use one kind", segment=int(np.flatnonzero(~is_str)[0]), side=side
        )
    out = np.asarray(flat.tolist())
    if out.dtype.kind not in "biuf":  # error path only: find the offending item
        for index, value in enumerate(flat):
            if value is None or not isinstance(value, (int, float, np.number, bool, np.bool_)):
                raise InputError(f"is {type(value).__name__}; expected a class label", segment=index, side=side)
    return as_array(out.reshape(arr.shape), side)


def _is_integral(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "biu" or (arr.dtype.kind == "f" and bool(np.all(arr == np.floor(arr))))


def target_type(arr: np.ndarray, side: str) -> str:
    """``"labels"`` (1-d class labels) or ``"multilabel-indicator"``; ValueError otherwise.

    Whether 1-d labels are binary or multi-class depends on the union of both
    sides' labels (scikit-learn promotes binary + multi-class to multi-class), so
    the caller decides that from the encoded labels without sorting each side.
    """
    if arr.ndim == 2 and arr.shape[1] > 1:
        if arr.dtype.kind in "biuf" and arr.size and bool(np.all((arr == 0) | (arr == 1))):
            return "multilabel-indicator"
        raise ValueError(f"{side}: multiclass-multioutput targets are not supported (2-d but not 0/1 indicators)")
    flat = arr.reshape(-1)
    if arr.dtype.kind == "f" and not _is_integral(flat):
        raise ValueError(
            f"{side}: continuous values are not class labels (e.g. {flat[flat != np.floor(flat)][0]!r}); "
            "use the regression metrics or threshold the scores"
        )
    return "labels"


@dataclass(frozen=True)
class Targets:
    """A validated pair of targets.

    Attributes
    ----------
    kind : {"binary", "multiclass", "multilabel-indicator"}
    labels : numpy.ndarray
        Sorted union of the labels present (column indices for indicators).
    y_true, y_pred : numpy.ndarray
        Integer codes into ``labels`` (1-d), or the 0/1 indicator matrices.
    """

    kind: str
    labels: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray

    @property
    def n_samples(self) -> int:
        return int(self.y_true.shape[0])


def _squeeze(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(-1) if arr.ndim == 2 and arr.shape[1] == 1 else arr


def check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Sample weights as a 1-d float (or integer) array of length ``n``, or None."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if weights.ndim == 0:
        weights = np.full(n, weights.item())
    if weights.ndim != 1 or weights.shape[0] != n:
        raise ValueError(f"sample_weight has shape {weights.shape}; expected ({n},)")
    if weights.dtype.kind not in "biuf":
        raise ValueError(f"sample_weight has unsupported dtype {weights.dtype}")
    if weights.dtype.kind == "f" and not np.all(np.isfinite(weights)):
        raise InputError("is not finite", segment=_first_bad(~np.isfinite(weights)), side="sample_weight")
    if weights.dtype.kind == "b":
        weights = weights.astype(np.int64)
    return weights


def check_lengths(y_true: np.ndarray, y_pred: np.ndarray) -> None:
    if y_true.shape[0] != y_pred.shape[0]:
        raise InputError(
            f"{y_true.shape[0]} true labels but {y_pred.shape[0]} predictions; there must be one per sample",
            side="y_pred",
        )


def _dense_int_encode(arrays: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Encode integer arrays via bincount over their span, or None if the span is too wide."""
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    span = hi - lo + 1
    if span > max(_DENSE_SPAN, 4 * sum(a.size for a in arrays)):
        return None
    shifted = [a if lo == 0 else a - lo for a in arrays]
    present = np.zeros(span, dtype=bool)
    for a in shifted:
        present |= np.bincount(a.reshape(-1), minlength=span) > 0
    uniques = np.flatnonzero(present)
    if uniques.size == span:
        codes = [s.astype(np.intp, copy=False) for s in shifted]
    else:
        lookup = np.cumsum(present) - 1
        codes = [lookup[s] for s in shifted]
    dtype = np.result_type(*arrays)
    return (uniques + lo).astype(dtype), codes


def encode_labels(*arrays: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Sorted union of the labels of ``arrays`` and each array's integer codes into it.

    Examples
    --------
    >>> labels, (a, b) = encode_labels(np.array(["b", "a"]), np.array(["c", "a"]))
    >>> labels.tolist(), a.tolist(), b.tolist()
    (['a', 'b', 'c'], [1, 0], [2, 0])
    """
    arrays = tuple(np.asarray(a) for a in arrays)
    kinds = {a.dtype.kind for a in arrays if a.size}
    if kinds & set("US") and kinds - set("US"):
        raise ValueError("mix of string and number labels: y_true and y_pred must use the same kind of labels")
    sized = [a for a in arrays if a.size]
    if sized and kinds <= set("biu"):
        as_int = [a.astype(np.int64) if a.dtype.kind == "b" else a for a in arrays]
        dense = _dense_int_encode([a for a in as_int if a.size])
        if dense is not None:
            uniques, codes = dense
            it = iter(codes)
            return uniques.astype(np.result_type(*sized)), [
                next(it) if a.size else np.empty(0, dtype=np.intp) for a in as_int
            ]
    if kinds == {"f"} or (kinds <= set("biuf") and "f" in kinds):
        floats = [a.astype(np.float64) for a in arrays]
        ints = [f.astype(np.int64) for f in floats]
        dense = _dense_int_encode([i for i in ints if i.size]) if sized else None
        if dense is not None:
            uniques, codes = dense
            it = iter(codes)
            dtype = np.result_type(*arrays)
            return uniques.astype(dtype), [next(it) if a.size else np.empty(0, dtype=np.intp) for a in ints]
    joined = np.concatenate([a.reshape(-1) for a in arrays])
    uniques, inverse = np.unique(joined, return_inverse=True)
    codes = []
    start = 0
    for a in arrays:
        codes.append(inverse[start : start + a.size].reshape(a.shape).astype(np.intp, copy=False))
        start += a.size
    return uniques, codes


def check_targets(y_true: Any, y_pred: Any) -> Targets:
    """Validate a pair of targets and encode them (scikit-learn's ``_check_targets``).

    Raises
    ------
    InputError
        Length mismatch, NaN, mixed label kinds (naming the sample).
    ValueError
        Continuous values, a mix of multi-label and multi-class targets.

    Examples
    --------
    >>> t = check_targets(["cat", "dog", "cat"], ["dog", "dog", "cat"])
    >>> t.kind, t.labels.tolist(), t.y_true.tolist(), t.y_pred.tolist()
    ('binary', ['cat', 'dog'], [0, 1, 0], [1, 1, 0])
    """
    true = _squeeze(as_array(y_true, "y_true"))
    pred = _squeeze(as_array(y_pred, "y_pred"))
    check_lengths(true, pred)
    if true.shape[0] == 0:
        raise ValueError("empty input: y_true and y_pred need at least one sample")
    kinds = {target_type(true, "y_true"), target_type(pred, "y_pred")}
    if len(kinds) > 1:
        raise ValueError("cannot mix multilabel-indicator and class-label targets")
    if kinds.pop() == "multilabel-indicator":
        if true.ndim != 2 or pred.ndim != 2 or true.shape[1] != pred.shape[1]:
            raise ValueError(f"indicator matrices of different shapes: {true.shape} and {pred.shape}")
        return Targets("multilabel-indicator", np.arange(true.shape[1]), true.astype(np.int8), pred.astype(np.int8))
    labels, (t_codes, p_codes) = encode_labels(true, pred)
    return Targets("binary" if labels.size <= 2 else "multiclass", labels, t_codes, p_codes)


def positions(labels: Any, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of the user's ``labels``: its index in ``present`` and whether it is there.

    Examples
    --------
    >>> idx, found = positions([3, 1, 7], np.array([1, 2, 3]))
    >>> idx.tolist(), found.tolist()
    ([2, 0, 0], [True, True, False])
    """
    wanted = np.asarray(labels)
    if wanted.ndim != 1:
        wanted = wanted.reshape(-1)
    if present.size == 0:
        return np.zeros(wanted.size, dtype=np.intp), np.zeros(wanted.size, dtype=bool)
    if (wanted.dtype.kind in "US") != (present.dtype.kind in "US"):
        return np.zeros(wanted.size, dtype=np.intp), np.zeros(wanted.size, dtype=bool)
    idx = np.searchsorted(present, wanted)
    idx = np.minimum(idx, present.size - 1)
    found = present[idx] == wanted
    return np.where(found, idx, 0).astype(np.intp), np.asarray(found, dtype=bool)


def check_unique_labels(labels: Any) -> np.ndarray:
    """A user's ``labels=`` as a 1-d array without duplicates."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype.kind == "O":
        arr = _object_labels(arr, "labels")
    if len(np.unique(arr)) != arr.size:
        raise ValueError(f"labels contains duplicates: {arr.tolist()}")
    return arr
