"""BERTScore's tokenisation, owned by nlpeval so that it does not drift with transformers.

bert-score 0.3.13 (``utils.sent_encode``) strips each sentence, encodes an empty one as the special
tokens alone, asks RoBERTa and GPT-2 tokenizers for ``add_prefix_space=True`` and truncates at the
tokenizer's ``model_max_length``. Under transformers 5 the empty string crashes and ``add_prefix_space``
is silently ignored; here the space is prepended to the text (which gives the ids transformers 4.x gave
with the flag), the special tokens are placed by nlpeval, and the segments cut by truncation are
reported by a :class:`TruncationWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: tokenizer classes that bert-score 0.3.13 encodes with ``add_prefix_space=True`` (transformers 4.x, slow)
PREFIX_SPACE_CLASSES = frozenset({"RobertaTokenizer", "GPT2Tokenizer"})

#: ``model_max_length`` values above this are transformers' "no limit" sentinel
_NO_LIMIT = 10**6


class TruncationWarning(UserWarning):
    """Some segments were longer than the model accepts and were cut (the warning names them)."""

    one_line = True  # the command line shows it as one line, "nlpeval score: warning: ..."


@dataclass(frozen=True)
class OwnedTokenizer:
    """A Hugging Face tokenizer with nlpeval's fixed rules around it.

    Attributes
    ----------
    tokenizer : transformers tokenizer
        Used for the sub-word split of the (stripped, possibly space-prefixed) text only.
    prefix, suffix : tuple of int
        Special token ids placed before and after the text (``[CLS]``/``[SEP]``, ``<s>``/``</s>``).
    prefix_space : bool
        Prepend a space (RoBERTa/GPT-2 byte-level BPE).
    max_length : int
        Longest sequence, special tokens included.
    """

    tokenizer: Any
    prefix: tuple[int, ...]
    suffix: tuple[int, ...]
    prefix_space: bool
    max_length: int

    @classmethod
    def of(cls, tokenizer: Any, *, max_positions: int | None = None) -> OwnedTokenizer:
        """Wrap ``tokenizer``; ``max_positions`` bounds a tokenizer without a ``model_max_length``."""
        probe = "a"
        plain = list(tokenizer.encode(probe, add_special_tokens=False))
        full = list(tokenizer.encode(probe, add_special_tokens=True))
        start = next((i for i in range(len(full) - len(plain) + 1) if full[i : i + len(plain)] == plain), None)
        if not plain or start is None:
            raise ValueError(f"cannot place the special tokens of {type(tokenizer).__name__}")
        max_length = int(tokenizer.model_max_length)
        if max_length > _NO_LIMIT:  # the sentinel (bert_score#205 overflows on it)
            if max_positions is None:
                raise ValueError(f"{type(tokenizer).__name__} has no model_max_length; set it in tokenizer_config.json")
            max_length = max_positions
        name = type(tokenizer).__name__.removesuffix("Fast")
        return cls(
            tokenizer,
            tuple(full[:start]),
            tuple(full[start + len(plain) :]),
            name in PREFIX_SPACE_CLASSES,
            max_length,
        )

    @property
    def special_ids(self) -> frozenset[int]:
        """Ids of the special tokens placed around every sentence."""
        return frozenset(self.prefix + self.suffix)

    def encode(self, sentences: Sequence[str]) -> tuple[list[list[int]], list[int]]:
        """Token ids of each sentence (special tokens included) and the positions of those cut."""
        room = self.max_length - len(self.prefix) - len(self.suffix)
        texts = [s.strip() for s in sentences]
        nonempty = [i for i, t in enumerate(texts) if t]
        prefix, suffix = list(self.prefix), list(self.suffix)
        out: list[list[int]] = [prefix + suffix for _ in texts]
        cut: list[int] = []
        if nonempty:
            batch = [(" " + texts[i]) if self.prefix_space else texts[i] for i in nonempty]
            encoded = self.tokenizer(batch, add_special_tokens=False, verbose=False)["input_ids"]
            for i, ids in zip(nonempty, encoded, strict=True):
                if len(ids) > room:
                    cut.append(i)
                    ids = ids[:room]
                out[i] = prefix + list(ids) + suffix
        return out, cut

    def encode_plain(self, sentences: Sequence[str]) -> tuple[list[list[int]], list[int]]:
        """Token ids as torchmetrics' ``bert_score`` gets them: the tokenizer called on the text as it is (no
        strip, no added prefix space), special tokens included, cut to ``max_length`` keeping the last one
        (its ``truncation=True``); and the positions of those cut."""
        if not sentences:
            return [], []
        encoded = self.tokenizer(list(sentences), add_special_tokens=True, verbose=False)["input_ids"]
        out: list[list[int]] = []
        cut: list[int] = []
        for i, ids in enumerate(encoded):
            ids = list(ids)
            if len(ids) > self.max_length:
                cut.append(i)
                ids = [*ids[: self.max_length - 1], ids[-1]]
            out.append(ids)
        return out, cut


def warn_truncated(cut: dict[str, list[int]], max_length: int, metric: str) -> None:
    """One :class:`TruncationWarning` naming the segments cut on each side (0-based)."""
    parts = []
    for side, positions in cut.items():
        if positions:
            shown = ", ".join(str(p) for p in positions[:20]) + (", ..." if len(positions) > 20 else "")
            parts.append(f"{side} {shown} ({len(positions)})")
    if parts:
        warnings.warn(
            f"{metric}: segments longer than {max_length} tokens were cut to that length: " + "; ".join(parts),
            TruncationWarning,
            stacklevel=3,
        )
