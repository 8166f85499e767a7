"""Embeddings computed ahead of the calls that use them, pooled over several calls.

Scoring systems one call at a time gives the encoder one system's texts per call: a few batches, each padded
to its longest sentence, and a hypothesis that several systems share is embedded once per system. When the
coming calls are known (the command line and the report read every system first), :class:`LookAhead` embeds the
distinct texts of as many coming calls as fit in a budget of tokens in one pool, sorted by length
(:func:`nlpeval.neural.batching.padded_batches`), so batches hold sentences of nearly equal length and each
text is embedded once. The calls then find their embeddings here. The scores do not change beyond float32
rounding: each text's embedding depends only on its own tokens (the attention mask hides the padding).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: texts -> the token ids of each
Encode = Callable[[list[str]], list[list[int]]]
#: token id sequences -> the embedding of each
Embed = Callable[[list[list[int]]], list[Any]]


@dataclass
class LookAhead:
    """Embeddings of the texts of coming calls, at most ``budget`` tokens of them.

    Examples
    --------
    >>> ahead = LookAhead(budget=5)
    >>> encode = lambda texts: [[1] * len(t) for t in texts]
    >>> embed = lambda ids: [len(seq) for seq in ids]
    >>> ahead.fill([["ab", "c"], ["c", "dd"], ["eee"]], known=lambda t: False, encode=encode, embed=embed)
    3
    >>> ahead.get("dd"), ahead.get("eee")  # the third call did not fit in 5 tokens
    (2, None)
    >>> ahead.fill([["c", "dd"], ["eee"]], known=lambda t: False, encode=encode, embed=embed)  # still ahead
    0
    """

    budget: int
    kept: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)

    def get(self, text: str) -> Any | None:
        """The embedding of ``text`` computed ahead, or None."""
        return self.kept.get(text)

    def fill(
        self, calls: Iterable[Sequence[str]], *, known: Callable[[str], bool], encode: Encode, embed: Embed
    ) -> int:
        """Embed ahead the texts of the coming ``calls`` (each call's texts, in calling order; read lazily, only as
        far as the budget reaches); return how many texts were embedded.

        Nothing is done while the first call's texts are all here or ``known`` (kept elsewhere). Otherwise the
        window is the first call and the following ones as long as their texts' tokens fit in the budget; the
        texts kept here that the window does not need (or that are ``known`` by now) are dropped, and its other
        texts are encoded
        (``encode``: token ids of each text) and embedded in one pool (``embed``: one embedding per id
        sequence).
        """
        coming = iter(calls)
        first = next(coming, None)
        if first is None or all(text in self.kept or known(text) for text in first):
            return 0
        retained: set[str] = set()
        texts: list[str] = []
        ids: list[list[int]] = []
        chosen: set[str] = set()
        used = 0
        for index, call in enumerate(itertools.chain([first], coming)):
            distinct = list(dict.fromkeys(call))
            again = [t for t in distinct if t in self.kept and t not in retained and not known(t)]
            fresh = [t for t in distinct if t not in self.kept and t not in chosen and not known(t)]
            encoded = encode(fresh) if fresh else []
            size = sum(len(seq) for seq in encoded) + sum(self.tokens[t] for t in again)
            if index > 0 and used + size > self.budget:
                break
            used += size
            retained.update(again)
            texts += fresh
            chosen.update(fresh)
            ids += encoded
        for text in [t for t in self.kept if t not in retained]:
            del self.kept[text], self.tokens[text]
        for text, seq, vector in zip(texts, ids, embed(ids) if ids else [], strict=True):
            self.kept[text] = vector
            self.tokens[text] = len(seq)
        return len(texts)
