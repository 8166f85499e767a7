"""NLTK-style input of the lexical metrics: strings (split on whitespace) or token lists."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.validation import as_segment_list, check_lengths, check_unicode, unicode_checked, validate_text

#: Turns raw strings into space-separated tokens (a batch at a time).
Pretokenizer = Callable[[list[str]], list[str]]


def _tokens(item: Any, side: str, segment: int, reference: int | None = None) -> list[Any]:
    if isinstance(item, str):
        return item.split()
    if isinstance(item, (list, tuple)) and all(isinstance(tok, str) for tok in item):
        return list(item)
    raise InputError(
        f"is {type(item).__name__}, expected a str or a list of str tokens",
        segment=segment,
        side=side,
        reference=reference,
    )


def is_text(hypotheses: Sequence[Any]) -> bool:
    """Text input (every hypothesis a str, references then checked as text) or NLTK token lists.

    Examples
    --------
    >>> is_text(["a b"]), is_text([["a", "b"]])
    (True, False)
    """
    if _STR_ONLY.issuperset(map(type, hypotheses)):  # a C-level scan for the usual text input
        return True
    return not any(isinstance(h, (list, tuple)) for h in hypotheses)


_STR_ONLY = frozenset({str})


def token_lists(
    hypotheses: Sequence[Any], references: Sequence[Any], *, pretokenize: Pretokenizer | None = None
) -> tuple[list[list[str]], list[list[list[str]]]]:
    """Hypothesis token lists and per-segment lists of reference token lists.

    A hypothesis given as a str takes references as a str or a list of str (each split on
    whitespace, after ``pretokenize`` if given). A hypothesis given as a list of str tokens takes
    references in NLTK's layout: a list of token lists.

    Examples
    --------
    >>> token_lists(["a b", ["c", "d"]], ["a", [["c"], ["d", "e"]]])
    ([['a', 'b'], ['c', 'd']], [[['a']], [['c'], ['d', 'e']]])
    """
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    text = validate_text(hyps, refs) if is_text(hyps) else None
    if text is not None:
        text_hyps, text_refs = text
        check_unicode(text_hyps, text_refs)
        flat = [r for seg in text_refs for r in seg]
        if pretokenize is not None:
            text_hyps, flat = pretokenize(text_hyps), pretokenize(flat)
        split = [r.split() for r in flat]
        grouped, start = [], 0
        for seg in text_refs:
            grouped.append(split[start : start + len(seg)])
            start += len(seg)
        return [h.split() for h in text_hyps], grouped
    if pretokenize is not None:
        raise InputError("this tokenizer takes text; got token lists", side="hypotheses")
    hyp_tokens = [_tokens(h, "hypotheses", i) for i, h in enumerate(hyps)]
    ref_tokens: list[list[list[str]]] = []
    for index, (hyp, item) in enumerate(zip(hyps, refs, strict=True)):
        if isinstance(item, str):
            ref_tokens.append([_tokens(item, "references", index)])
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
        ref_tokens.append([_tokens(r, "references", index, k) for k, r in enumerate(item)])
    return hyp_tokens, ref_tokens


def native_sequences(
    hypotheses: Sequence[Any], references: Sequence[Any]
) -> tuple[list[str], list[str], list[int], list[int] | None, list[int] | None, Any]:
    """The input of a native kernel: ``(hyps, refs, counts, hyp_lens, ref_lens, checked)``.

    Text input (checked as :func:`token_lists` checks it) gives the lines themselves and ``None``
    lengths: the kernel splits them on whitespace as ``str.split()`` does. Token lists are flattened
    into one list of tokens per side with each sequence's length. Call the kernel inside ``checked``:
    a lone surrogate then becomes an ``InputError`` naming the segment (looked for only when the
    kernel could not read the text).

    Examples
    --------
    >>> native_sequences(["a b"], [["a", "b c"]])[:5]
    (['a b'], ['a', 'b c'], [2], None, None)
    >>> native_sequences([["a", "b"]], [[["a"], ["b", "c"]]])[:5]
    (['a', 'b'], ['a', 'b', 'c'], [2], [2], [1, 2])
    """
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    if is_text(hyps):
        text_hyps, text_refs = validate_text(hyps, refs)
        flat = list(chain.from_iterable(text_refs))
        return text_hyps, flat, list(map(len, text_refs)), None, None, unicode_checked(text_hyps, text_refs)
    hyp_tokens, ref_tokens = token_lists(hyps, refs)
    flat_refs = [r for seg in ref_tokens for r in seg]
    return (
        [t for h in hyp_tokens for t in h],
        [t for r in flat_refs for t in r],
        [len(seg) for seg in ref_tokens],
        [len(h) for h in hyp_tokens],
        [len(r) for r in flat_refs],
        unicode_checked([]),
    )


def pair_rows(
    hypotheses: Sequence[Any], references: Sequence[Any], *, max_order: int, pretokenize: Pretokenizer | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The native BLEU statistics of every (hypothesis, reference) pair, and the references per segment.

    Row ``r`` (one per reference, segment by segment) holds ``hyp_len, ref_len, ref_len,
    correct_1..N, total_1..N`` with ``correct_k`` the clipped k-gram overlap of the pair
    (:mod:`nlpeval.metrics.bleu.extract`'s kernel, one reference at a time).

    Examples
    --------
    >>> rows, counts = pair_rows(["a b c"], [["a b", "c"]], max_order=2)
    >>> rows.tolist(), counts.tolist()
    ([[3, 2, 2, 2, 1, 3, 2], [3, 1, 1, 1, 0, 3, 2]], [2])
    """
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    text = validate_text(hyps, refs) if is_text(hyps) else None
    if text is not None:
        text_hyps, text_refs = text
        counts = np.fromiter(map(len, text_refs), dtype=np.int64, count=len(text_refs))
        flat = [r for seg in text_refs for r in seg]
        if pretokenize is not None:
            with unicode_checked(text_hyps, text_refs):
                text_hyps, flat = pretokenize(text_hyps), pretokenize(flat)
        repeated = [h for h, n in zip(text_hyps, counts.tolist(), strict=True) for _ in range(n)]
        with unicode_checked(text_hyps, text_refs):
            return _native.bleu_stats(repeated, flat, "none", max_order), counts
    hyp_tokens, ref_tokens = token_lists(hyps, refs, pretokenize=pretokenize)
    counts = np.fromiter(map(len, ref_tokens), dtype=np.int64, count=len(ref_tokens))
    repeated_tokens = [h for h, seg in zip(hyp_tokens, ref_tokens, strict=True) for _ in seg]
    pairs = [[r] for seg in ref_tokens for r in seg]
    return _native.bleu_stats_tokens(repeated_tokens, pairs, max_order), counts
