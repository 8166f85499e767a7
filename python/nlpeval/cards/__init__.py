"""Metric cards: what each metric family measures and how nlpeval computes it (``nlpeval explain``).

The cards are TOML files in ``nlpeval/cards/data`` (one per metric family); their options
and defaults are read from the code when a card is loaded.
"""

from __future__ import annotations

from nlpeval.cards.card import ANCHOR_PREFIX, Card, Flavor, Option, Reference
from nlpeval.cards.catalog import UnknownMetricError, all_cards, card_id, explain

__all__ = [
    "ANCHOR_PREFIX",
    "Card",
    "Flavor",
    "Option",
    "Reference",
    "UnknownMetricError",
    "all_cards",
    "card_id",
    "explain",
]
