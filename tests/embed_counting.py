"""Counting a BERTScore metric's encoder calls (``test_bertscore.py``, ``test_bertscore_pooled.py``): how many
texts each embedding call of the encoder receives."""

from __future__ import annotations

from typing import Any


def counted(metric: Any) -> list[int]:
    """The sizes of ``metric.encoder``'s embedding calls from now on (one entry per call, i.e. per pool
    embedded); the calls themselves run unchanged."""
    sizes: list[int] = []
    embed = metric.encoder.embed

    def counting(ids, batch_size):
        sizes.append(len(ids))
        return embed(ids, batch_size)

    metric.encoder.embed = counting
    return sizes
