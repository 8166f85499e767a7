"""Token-id input (lists, NumPy arrays, tensors) for metrics used inside training loops.

One place decides what counts as token ids, how references are nested, and how
``pad_id`` / ``eos_id`` trim a sequence, so every metric that accepts ids reads
them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.validation import as_segment_list, check_lengths


def _is_array_like(value: Any) -> bool:
    return hasattr(value, "ndim") and hasattr(value, "shape")


def is_token_id_input(hypotheses: Any) -> bool:
    """True when hypotheses are integer sequences (lists, arrays, tensors) rather than text.

    Examples
    --------
    >>> is_token_id_input([[1, 2, 3]]), is_token_id_input(np.zeros((2, 4), dtype=int)), is_token_id_input(["a b"])
    (True, True, False)
    """
    if isinstance(hypotheses, str):
        return False
    try:
        first = hypotheses[0]
    except (TypeError, IndexError, KeyError):
        return False
    if isinstance(first, str):
        return False
    array = np.asarray(first) if not isinstance(first, list) or first else np.asarray([], dtype=np.int64)
    return (
        array.ndim == 1
        and (np.issubdtype(array.dtype, np.integer) or array.size == 0)
        and (not isinstance(first, list) or all(isinstance(t, (int, np.integer)) for t in first))
    )


def id_sequence(
    item: Any,
    *,
    side: str,
    segment: int,
    reference: int | None = None,
    pad_id: int | None = None,
    eos_id: int | None = None,
) -> list[int]:
    """One id sequence, cut at its first ``eos_id`` and stripped of every ``pad_id``.

    Examples
    --------
    >>> id_sequence([5, 0, 6, 2, 7], side="hypotheses", segment=0, pad_id=0, eos_id=2)
    [5, 6]
    """
    array = np.asarray(item)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise InputError(
            f"expected a 1-D sequence of integer token ids; got shape {array.shape} of {array.dtype}",
            segment=segment,
            side=side,
            reference=reference,
        )
    ids = array.astype(np.int64, copy=False)
    if eos_id is not None:
        stops = np.flatnonzero(ids == eos_id)
        if stops.size:
            ids = ids[: stops[0]]
    if pad_id is not None:
        ids = ids[ids != pad_id]
    return ids.tolist()


def _holds_several(item: Any) -> bool:
    """A segment's references item is a list (or 2-D array) of id sequences, not one sequence."""
    if _is_array_like(item):
        return int(item.ndim) == 2
    return isinstance(item, (list, tuple)) and bool(item) and not isinstance(item[0], (int, np.integer))


def validate_token_ids(
    hypotheses: Any, references: Any, *, pad_id: int | None = None, eos_id: int | None = None
) -> tuple[list[list[int]], list[list[list[int]]]]:
    """Validate token-id input and return hypotheses and per-segment reference lists as ``int`` lists.

    ``hypotheses`` is a sequence (or 2-D array/tensor) of id sequences;
    ``references`` holds one item per hypothesis: an id sequence, or a list (or
    2-D array) of id sequences.

    Examples
    --------
    >>> validate_token_ids(np.array([[4, 5, 0]]), [[[4, 5], [4]]], pad_id=0)
    ([[4, 5]], [[[4, 5], [4]]])
    """
    hyps = as_segment_list(np.asarray(hypotheses) if _is_array_like(hypotheses) else hypotheses, "hypotheses")
    refs = as_segment_list(np.asarray(references) if _is_array_like(references) else references, "references")
    check_lengths(len(hyps), refs)
    trim = {"pad_id": pad_id, "eos_id": eos_id}
    hyp_ids = [id_sequence(h, side="hypotheses", segment=i, **trim) for i, h in enumerate(hyps)]
    ref_ids: list[list[list[int]]] = []
    for index, item in enumerate(refs):
        if _holds_several(item):
            seg = [id_sequence(r, side="references", segment=index, reference=k, **trim) for k, r in enumerate(item)]
            if not seg:
                raise InputError("has no reference", segment=index, side="references")
            ref_ids.append(seg)
        else:
            ref_ids.append([id_sequence(item, side="references", segment=index, **trim)])
    return hyp_ids, ref_ids


@dataclass(frozen=True)
class FlatIds:
    """Id sequences as one contiguous int64 buffer: sequence ``i`` is the ``i``-th run of ``lens``.

    ``counts`` (references only) gives each segment's number of sequences.

    Examples
    --------
    >>> FlatIds(np.array([4, 5, 6]), np.array([2, 1])).to_lists()
    [[4, 5], [6]]
    """

    ids: np.ndarray
    lens: np.ndarray
    counts: np.ndarray | None = None

    def to_lists(self) -> list[list[int]]:
        """The sequences as lists of ``int``."""
        flat = self.ids.tolist()
        ends = np.cumsum(self.lens).tolist()
        return [flat[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]

    def grouped(self) -> list[list[list[int]]]:
        """The sequences as per-segment lists (by ``counts``)."""
        seqs = self.to_lists()
        assert self.counts is not None
        ends = np.cumsum(self.counts).tolist()
        return [seqs[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _as_numpy(value: Any) -> np.ndarray:
    """A NumPy view of an array or tensor (a tensor is detached and brought to the CPU first)."""
    if not isinstance(value, np.ndarray) and all(hasattr(value, a) for a in ("detach", "cpu", "numpy")):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def _int_matrix(value: Any, ndim: int) -> np.ndarray | None:
    """``value`` as a C-contiguous int64 array of ``ndim`` dimensions, or None."""
    array = _as_numpy(value)
    if array.ndim != ndim or array.dtype.kind not in "iu":  # np.issubdtype(dtype, np.integer), faster
        return None
    return np.ascontiguousarray(array, dtype=np.int64)


def _filled(n: int, value: int) -> np.ndarray:
    """``np.full(n, value, dtype=np.int64)`` without its Python-level overhead (small batches)."""
    out = np.empty(n, dtype=np.int64)
    out.fill(value)
    return out


def _int_rows(items: list[Any]) -> list[np.ndarray] | None:
    """Items that are all 1-D integer NumPy arrays, or None."""
    if not all(isinstance(r, np.ndarray) and r.ndim == 1 and r.dtype.kind in "iu" for r in items):
        return None
    return items


def _concat(rows: list[np.ndarray]) -> FlatIds:
    lens = np.fromiter((r.shape[0] for r in rows), dtype=np.int64, count=len(rows))
    ids = np.concatenate(rows).astype(np.int64, copy=False) if rows else np.empty(0, dtype=np.int64)
    return FlatIds(ids, lens)


def _flat_hypotheses(hypotheses: Any) -> FlatIds | None:
    if _is_array_like(hypotheses):
        matrix = _int_matrix(hypotheses, 2)
        if matrix is None:
            return None
        return FlatIds(matrix.reshape(-1), _filled(matrix.shape[0], matrix.shape[1]))
    items = list(hypotheses) if isinstance(hypotheses, tuple) else hypotheses
    if not isinstance(items, list):
        return None
    native = _native.flatten_id_lists(items)
    if native is not None:
        return FlatIds(*native)
    rows = _int_rows(items)
    return None if rows is None else _concat(rows)


def _flat_references(references: Any) -> FlatIds | None:
    if _is_array_like(references):
        array = _as_numpy(references)
        matrix = _int_matrix(array, array.ndim) if array.ndim in (2, 3) else None
        if matrix is None or (matrix.ndim == 3 and matrix.shape[1] == 0):
            return None
        n, width = matrix.shape[0], matrix.shape[-1]
        per_segment = 1 if matrix.ndim == 2 else matrix.shape[1]
        return FlatIds(matrix.reshape(-1), _filled(n * per_segment, width), _filled(n, per_segment))
    items = list(references) if isinstance(references, tuple) else references
    if not isinstance(items, list):
        return None
    native = _native.flatten_reference_lists(items)
    if native is not None:
        return FlatIds(*native)
    rows: list[np.ndarray] = []
    counts: list[int] = []
    for item in items:
        several = _int_matrix(item, 2) if isinstance(item, np.ndarray) and item.ndim == 2 else None
        if several is not None and several.shape[0]:
            rows.extend(several)
            counts.append(several.shape[0])
        elif isinstance(item, np.ndarray) and _int_rows([item]) is not None:
            rows.append(item)
            counts.append(1)
        elif isinstance(item, list) and item and _int_rows(item) is not None:
            rows.extend(item)
            counts.append(len(item))
        else:
            return None
    flat = _concat(rows)
    return FlatIds(flat.ids, flat.lens, np.asarray(counts, dtype=np.int64))


def flat_token_ids(
    hypotheses: Any, references: Any, *, pad_id: int | None = None, eos_id: int | None = None
) -> tuple[FlatIds, FlatIds]:
    """Validated token ids as flat buffers: hypotheses, and references with per-segment ``counts``.

    The same input and errors as :func:`validate_token_ids`, without per-row
    Python work where the layout allows: a padded 2-D array or CPU tensor (3-D
    for several references per segment) is checked once and used as one buffer;
    lists of ``int`` lists are read natively in one pass; lists of 1-D integer
    arrays are concatenated. Every sequence is cut at its first ``eos_id`` and
    stripped of ``pad_id`` natively. Any other layout (or bad input) goes through
    :func:`validate_token_ids`, which names the offending segment.

    Examples
    --------
    >>> hyps, refs = flat_token_ids(np.array([[4, 5, 2, 0], [6, 0, 0, 0]]), [[4, 5], [[6], [6, 7]]], eos_id=2, pad_id=0)
    >>> hyps.ids.tolist(), hyps.lens.tolist(), refs.lens.tolist(), refs.counts.tolist()
    ([4, 5, 6], [2, 1], [2, 1, 2], [1, 2])
    """
    hyps = _flat_hypotheses(hypotheses)
    refs = _flat_references(references) if hyps is not None else None
    if hyps is None or refs is None or refs.counts is None or len(refs.counts) != len(hyps.lens):
        hyp_ids, ref_ids = validate_token_ids(hypotheses, references, pad_id=pad_id, eos_id=eos_id)
        flat_hyps = _native.flatten_id_lists(hyp_ids)
        flat_refs = _native.flatten_reference_lists([[*seg] for seg in ref_ids])
        # validated ids always flatten (None is the kernels' answer to input they cannot take)
        assert flat_hyps is not None and flat_refs is not None
        hyps, refs = FlatIds(*flat_hyps), FlatIds(*flat_refs)
        return hyps, refs
    if pad_id is not None or eos_id is not None:
        hyps = FlatIds(*_native.trim_ids(hyps.ids, hyps.lens, pad_id, eos_id))
        refs = FlatIds(*_native.trim_ids(refs.ids, refs.lens, pad_id, eos_id), refs.counts)
    return hyps, refs
