"""Registry entry of TER (``nlpeval score -m ter``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option("ter_normalized", "--ter-normalized", "flag", False, "split punctuation, decode XML entities"),
    Option("ter_no_punct", "--ter-no-punct", "flag", False, "remove punctuation"),
    Option(
        "ter_asian_support", "--ter-asian-support", "flag", False, "extend --ter-normalized/--ter-no-punct to CJK text"
    ),
    Option("ter_case_sensitive", "--ter-case-sensitive", "flag", False, "do not lowercase"),
    Option(
        "ter_max_cells",
        "--ter-max-cells",
        "int",
        None,
        "refuse a pair whose word counts multiply to more than N (default 10 billion; bounds the shift search)",
        minimum=1,
        metavar="N",
    ),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """TER (sacreBLEU's flavor) with the ``ter_*`` options."""
    from nlpeval.metrics.ter import TER

    max_cells = options["ter_max_cells"]
    return TER(
        normalized=options["ter_normalized"],
        no_punct=options["ter_no_punct"],
        asian_support=options["ter_asian_support"],
        case_sensitive=options["ter_case_sensitive"],
        **({} if max_cells is None else {"max_cells": max_cells}),
    )


ENTRIES = (
    MetricEntry(
        "ter",
        factory="nlpeval.metrics.entries.ter:build",
        family="ter",
        card="ter",
        label="TER",
        higher_is_better=False,
        flavors=("sacrebleu",),
        options=OPTIONS,
        option_group="TER options (the Tercom tokenizer; TER lowercases unless --ter-case-sensitive)",
    ),
)
