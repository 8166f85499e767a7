"""From input (text or token ids) to ROUGE co-occurrence counts of every hypothesis/reference pair."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.token_ids import validate_token_ids
from nlpeval.core.validation import unicode_checked, validate_text
from nlpeval.metrics.rouge.splitters import Splitter, apply_splitter

_T = TypeVar("_T")


#: Default bound on a pair's super-linear work (see :func:`guarded`): 10^9 cells, about
#: 31,600 tokens a side for ROUGE-L/Lsum/W (a few seconds at most), about 2,000 a side for
#: skip-bigrams without a gap limit (each counts as 256 cells: it is a hash-table entry).
MAX_CELLS = 1_000_000_000

_TOO_LARGE = "rouge-pair-too-large "


def guarded(call: Callable[[], _T]) -> _T:
    """Run a native ROUGE call; a pair refused by ``max_cells`` becomes an :class:`InputError`.

    Examples
    --------
    >>> from nlpeval import _native
    >>> try:
    ...     guarded(lambda: _native.rouge_stats_text(["a b c"], ["a b d e"], "unicode", False, [("l", 0)], False, 11))
    ... except InputError as exc:
    ...     print(str(exc)[:68])
    hypotheses: segment 0: reference 0: 12 cells of LCS work (hypothesis
    """
    try:
        return call()
    except ValueError as exc:
        message = str(exc)
        if not message.startswith(_TOO_LARGE):
            raise
        segment, reference, cells, limit = (int(v) for v in message[len(_TOO_LARGE) :].split())
        raise InputError(
            f"reference {reference}: {cells:,} cells of LCS work (hypothesis tokens x reference tokens; "
            f"skip-bigrams without a gap limit: their count x 256), more than max_cells={limit:,} "
            "(time grows in proportion); pass a larger max_cells, or None for no bound",
            segment=segment,
            side="hypotheses",
        ) from None


def text_pairs(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    kernels: list[tuple[str, float]],
    *,
    tokenizer: str,
    stemmer: bool,
    splitter: Splitter | None,
    max_cells: int | None = MAX_CELLS,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(n_pairs, n_kernels, 3)`` and the number of references per segment."""
    split_lines = any(code in ("lsum", "wperl") for code, _ in kernels)
    if splitter is None and type(hypotheses) is list and type(references) is list:
        # Fast path: the native call reads lists of str (a str or a list of str per segment)
        # itself and refuses anything else with TypeError (a lone surrogate: UnicodeEncodeError);
        # such input then goes through the validator below, which names the segment.
        try:
            return guarded(
                lambda: _native.rouge_stats_text(
                    hypotheses, references, tokenizer, stemmer, kernels, split_lines, max_cells
                )
            )
        except (TypeError, UnicodeError):
            pass
    hyps, refs = validate_text(hypotheses, references)
    if splitter is not None:
        hyps = apply_splitter(hyps, splitter)
        refs = [apply_splitter(seg, splitter) for seg in refs]
    with unicode_checked(hyps, refs):
        return guarded(
            lambda: _native.rouge_stats_text(hyps, refs, tokenizer, stemmer, kernels, split_lines, max_cells)
        )


def id_pairs(
    hypotheses: Any,
    references: Any,
    kernels: list[tuple[str, float]],
    *,
    pad_id: int | None = None,
    eos_id: int | None = None,
    max_cells: int | None = MAX_CELLS,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of token-id input: each id sequence is one sentence."""
    hyp_ids, ref_ids = validate_token_ids(hypotheses, references, pad_id=pad_id, eos_id=eos_id)
    pairs = guarded(
        lambda: _native.rouge_stats_ids(
            [[h] for h in hyp_ids], hyp_ids, [[[r] for r in seg] for seg in ref_ids], ref_ids, kernels, max_cells
        )
    )
    return pairs, np.fromiter((len(r) for r in ref_ids), dtype=np.int64, count=len(ref_ids))
