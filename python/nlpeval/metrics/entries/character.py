"""Registry entry of CharacTER (``nlpeval score -m character``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """CharacTER (no options)."""
    from nlpeval.metrics.character import CharacTER

    return CharacTER()


ENTRIES = (
    MetricEntry(
        "character",
        factory="nlpeval.metrics.entries.character:build",
        family="character",
        card="character",
        label="CharacTER",
        scale=1.0,
        higher_is_better=False,
        flavors=("cer",),
        option_group="CharacTER options (the cer package's; none)",
    ),
)
