"""Length-sorted, padded encoder batches shared by the neural metrics (COMET, BERTScore).

The sequences are taken longest first and cut into batches of ``batch_size``, each padded to its own longest
sequence, so that sequences of similar length share a batch and few positions are padding. The attention mask
marks every position inside a sequence (a pad id inside a sequence still counts as a token).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from nlpeval.neural.deps import require


def longest_first(lengths: Sequence[int]) -> list[int]:
    """Positions of ``lengths`` from the longest to the shortest (ties keep their order).

    Examples
    --------
    >>> longest_first([3, 5, 3, 7])
    [3, 1, 0, 2]
    """
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])


def padded_positions(lengths: Sequence[int], batch_size: int) -> int:
    """Token positions (padding included) that :func:`padded_batches` gives the encoder for ``lengths``.

    Examples
    --------
    >>> padded_positions([3, 5, 3, 7], 2)  # batches [7, 5] and [3, 3]
    20
    """
    ordered = sorted(lengths, reverse=True)
    return sum(len(ordered[i : i + batch_size]) * ordered[i] for i in range(0, len(ordered), batch_size))


def padded_batches(ids: Sequence[Sequence[int]], batch_size: int, pad: int) -> Iterator[tuple[list[int], Any, Any]]:
    """``(positions, tokens, mask)`` of each batch: the positions in ``ids`` of its sequences, their ids padded
    with ``pad`` to the batch's longest (``(rows, width)`` int64) and the attention mask (1 inside a sequence).

    Examples
    --------
    >>> [(rows, tokens.tolist(), mask.tolist()) for rows, tokens, mask in padded_batches([[5], [6, 7]], 2, 0)]
    [([1, 0], [[6, 7], [5, 0]], [[1, 1], [1, 0]])]
    """
    torch = require("torch", "a neural metric")
    order = longest_first([len(seq) for seq in ids])
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        width = len(ids[chunk[0]])
        rows = [[*ids[i], *([pad] * (width - len(ids[i])))] for i in chunk]
        tokens = torch.tensor(rows, dtype=torch.long).reshape(len(chunk), width)
        lengths = torch.tensor([len(ids[i]) for i in chunk], dtype=torch.long)
        mask = (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)).long()
        yield chunk, tokens, mask
