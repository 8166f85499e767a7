"""Turning BLEU input (text, token lists or token ids) into n-gram statistics rows.

Shared by every BLEU flavor: the row layout is
``hyp_len, ref_len_closest, ref_len_shortest, correct_1..N, total_1..N, nrefs_min, nrefs_max``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.stats import StatsSchema
from nlpeval.core.token_ids import flat_token_ids
from nlpeval.core.validation import (
    as_segment_list,
    check_lengths,
    map_references,
    reference_counts,
    unicode_checked,
    validate_text,
    validate_text_native,
)
from nlpeval.tokenizers import TokenizerSpec


@functools.lru_cache(maxsize=32)
def bleu_schema(max_order: int) -> StatsSchema:
    """The statistics fields of BLEU with n-grams up to ``max_order``."""
    correct = [f"correct_{n}" for n in range(1, max_order + 1)]
    total = [f"total_{n}" for n in range(1, max_order + 1)]
    return StatsSchema.of(
        "hyp_len", "ref_len_closest", "ref_len_shortest", *correct, *total, nrefs_min="min", nrefs_max="max"
    )


def _with_ref_counts(native_rows: np.ndarray, counts: np.ndarray | int) -> np.ndarray:
    n, width = native_rows.shape
    rows = np.empty((n, width + 2), dtype=np.int64)
    rows[:, :width] = native_rows
    rows[:, width] = counts
    rows[:, width + 1] = counts
    return rows


def text_rows(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    tokenizer: TokenizerSpec,
    lowercase: bool,
    max_order: int,
) -> np.ndarray:
    """Statistics rows of text input, tokenized as sacreBLEU does (lowercase, rstrip, tokenize)."""
    # one str per segment stays a flat list (no list per segment): the kernel takes either layout
    hyps, refs = validate_text_native(hypotheses, references)
    single = bool(refs) and isinstance(refs[0], str)
    if lowercase:
        hyps = [h.lower() for h in hyps]
        refs = map_references(refs, str.lower)
    if tokenizer.python is not None:
        pre = tokenizer.python
        hyps = [pre(h.rstrip()) for h in hyps]
        refs = map_references(refs, lambda ref: pre(ref.rstrip()))
    with unicode_checked(hyps, refs):
        rows = _native.bleu_stats(hyps, refs, tokenizer.native, max_order)
    return _with_ref_counts(rows, 1 if single else reference_counts(cast("list[list[str]]", refs)))


#: Turns raw strings into space-separated tokens (a batch at a time).
Pretokenizer = Callable[[list[str]], list[str]]


def _token_list(
    item: Any, side: str, segment: int, reference: int | None = None, pretokenize: Pretokenizer | None = None
) -> list[str]:
    if isinstance(item, str):
        return (pretokenize([item])[0] if pretokenize is not None else item).split()
    if isinstance(item, (list, tuple)) and all(isinstance(tok, str) for tok in item):
        return list(item)
    raise InputError(
        f"is {type(item).__name__}, expected a str or a list of str tokens",
        segment=segment,
        side=side,
        reference=reference,
    )


def _as_text(hyps: list[Any], refs: list[Any]) -> tuple[list[str], list[list[str]]] | None:
    """The validated text of all-string input, or None when some item is a token list (or invalid:
    the token-list path then names the problem)."""
    try:
        return validate_text(hyps, refs)
    except InputError:
        return None


def token_rows(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    max_order: int,
    pretokenize: Pretokenizer | None = None,
) -> np.ndarray:
    """Statistics rows of NLTK-style input: strings (split on whitespace) or token lists.

    A hypothesis given as a str takes references as a str or a list of str (each
    split on whitespace). A hypothesis given as a list of str tokens takes
    references in NLTK's layout: a list of token lists. (A flat list of str next
    to a token-list hypothesis is ambiguous and rejected.) ``pretokenize``, if
    given, maps every str to space-separated tokens first (batched).
    """
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    text = _as_text(hyps, refs)
    if text is not None:
        text_hyps, text_refs = text
        if pretokenize is not None:
            text_hyps = pretokenize(text_hyps)
            flat = pretokenize([r for seg in text_refs for r in seg])
            starts = np.cumsum([0, *(len(seg) for seg in text_refs)])
            text_refs = [flat[a:b] for a, b in itertools.pairwise(starts)]
        # the native "none" tokenizer is exactly str.split()
        rows = _native.bleu_stats(text_hyps, text_refs, "none", max_order)
        return _with_ref_counts(rows, reference_counts(text_refs))
    hyp_tokens = [_token_list(h, "hypotheses", i, None, pretokenize) for i, h in enumerate(hyps)]
    ref_tokens: list[list[list[str]]] = []
    for index, (hyp, item) in enumerate(zip(hyps, refs, strict=True)):
        if isinstance(item, str):
            ref_tokens.append([_token_list(item, "references", index, None, pretokenize)])
            continue
        if not isinstance(item, (list, tuple)) or not item:
            raise InputError("expected a reference or a non-empty list of references", segment=index, side="references")
        if not isinstance(hyp, str) and any(isinstance(r, str) for r in item):
            raise InputError(
                "the hypothesis is a token list, so the references must be a list of token lists "
                "(NLTK's layout); got a list of str",
                segment=index,
                side="references",
            )
        ref_tokens.append([_token_list(r, "references", index, k, pretokenize) for k, r in enumerate(item)])
    rows = _native.bleu_stats_tokens(hyp_tokens, ref_tokens, max_order)
    return _with_ref_counts(rows, reference_counts(ref_tokens))


def id_rows(
    hypotheses: Any,
    references: Any,
    *,
    max_order: int,
    pad_id: int | None = None,
    eos_id: int | None = None,
) -> np.ndarray:
    """Statistics rows of integer token ids.

    ``references`` holds one item per hypothesis: an id sequence, or a list (or
    2-D array) of id sequences. Each sequence is cut at its first ``eos_id`` and
    stripped of every ``pad_id``.
    """
    hyps, refs = flat_token_ids(hypotheses, references, pad_id=pad_id, eos_id=eos_id)
    assert refs.counts is not None  # references always carry their per-segment counts
    rows = _native.bleu_stats_flat(hyps.ids, hyps.lens, refs.ids, refs.lens, refs.counts, max_order)
    return _with_ref_counts(rows, refs.counts)
