"""From input (text or token ids) to ROUGE co-occurrence counts of every hypothesis/reference pair."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.validation import as_segment_list, check_lengths, validate_text
from nlpeval.metrics.rouge.splitters import Splitter, apply_splitter


def text_pairs(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    kernels: list[tuple[str, float]],
    *,
    tokenizer: str,
    stemmer: bool,
    splitter: Splitter | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(n_pairs, n_kernels, 3)`` and the number of references per segment."""
    hyps, refs = validate_text(hypotheses, references)
    if splitter is not None:
        hyps = apply_splitter(hyps, splitter)
        refs = [apply_splitter(seg, splitter) for seg in refs]
    split_lines = any(code in ("lsum", "wperl") for code, _ in kernels)
    pairs = _native.rouge_stats_text(hyps, refs, tokenizer, stemmer, kernels, split_lines)
    return pairs, np.fromiter((len(r) for r in refs), dtype=np.int64, count=len(refs))


def _ids(
    item: Any, side: str, segment: int, reference: int | None, pad_id: int | None, eos_id: int | None
) -> list[int]:
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


def _is_id_list(item: Any) -> bool:
    """True for one id sequence (as opposed to a list of them)."""
    if isinstance(item, np.ndarray):
        return item.ndim == 1
    if hasattr(item, "ndim") and hasattr(item, "shape"):
        return int(item.ndim) == 1
    return not (isinstance(item, (list, tuple)) and item and not isinstance(item[0], (int, np.integer)))


def id_pairs(
    hypotheses: Any,
    references: Any,
    kernels: list[tuple[str, float]],
    *,
    pad_id: int | None = None,
    eos_id: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of token-id input: each id sequence is one sentence."""
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    hyp_ids = [_ids(h, "hypotheses", i, None, pad_id, eos_id) for i, h in enumerate(hyps)]
    ref_ids: list[list[list[int]]] = []
    for index, item in enumerate(refs):
        if _is_id_list(item):
            ref_ids.append([_ids(item, "references", index, None, pad_id, eos_id)])
        else:
            seg = [_ids(r, "references", index, k, pad_id, eos_id) for k, r in enumerate(item)]
            if not seg:
                raise InputError("has no reference", segment=index, side="references")
            ref_ids.append(seg)
    pairs = _native.rouge_stats_ids(
        [[h] for h in hyp_ids], hyp_ids, [[[r] for r in seg] for seg in ref_ids], ref_ids, kernels
    )
    return pairs, np.fromiter((len(r) for r in ref_ids), dtype=np.int64, count=len(ref_ids))
