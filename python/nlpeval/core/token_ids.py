"""Token-id input (lists, NumPy arrays, tensors) for metrics used inside training loops.

One place decides what counts as token ids, how references are nested, and how
``pad_id`` / ``eos_id`` trim a sequence, so every metric that accepts ids reads
them the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
