"""From input (text or token ids) to ROUGE co-occurrence counts of every hypothesis/reference pair."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval import _native
from nlpeval.core.token_ids import validate_token_ids
from nlpeval.core.validation import unicode_checked, validate_text
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
    split_lines = any(code in ("lsum", "wperl") for code, _ in kernels)
    if splitter is None and type(hypotheses) is list and type(references) is list:
        # Fast path: the native call reads lists of str (a str or a list of str per segment)
        # itself and refuses anything else with TypeError (a lone surrogate: UnicodeEncodeError);
        # such input then goes through the validator below, which names the segment.
        try:
            return _native.rouge_stats_text(hypotheses, references, tokenizer, stemmer, kernels, split_lines)
        except (TypeError, UnicodeError):
            pass
    hyps, refs = validate_text(hypotheses, references)
    if splitter is not None:
        hyps = apply_splitter(hyps, splitter)
        refs = [apply_splitter(seg, splitter) for seg in refs]
    with unicode_checked(hyps, refs):
        return _native.rouge_stats_text(hyps, refs, tokenizer, stemmer, kernels, split_lines)


def id_pairs(
    hypotheses: Any,
    references: Any,
    kernels: list[tuple[str, float]],
    *,
    pad_id: int | None = None,
    eos_id: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of token-id input: each id sequence is one sentence."""
    hyp_ids, ref_ids = validate_token_ids(hypotheses, references, pad_id=pad_id, eos_id=eos_id)
    pairs = _native.rouge_stats_ids(
        [[h] for h in hyp_ids], hyp_ids, [[[r] for r in seg] for seg in ref_ids], ref_ids, kernels
    )
    return pairs, np.fromiter((len(r) for r in ref_ids), dtype=np.int64, count=len(ref_ids))
