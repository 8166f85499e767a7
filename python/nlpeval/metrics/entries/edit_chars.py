"""Registry entries of the character edit distances CharacTER, EED and CharCut (``-m character,eed,charcut``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

EED_OPTIONS = (
    Option(
        "eed_language",
        "--eed-language",
        "str",
        "en",
        "preprocessing: en (split . ! ? , from words) or ja (NFKC) (default en)",
        choices=("en", "ja"),
    ),
    Option("eed_alpha", "--eed-alpha", "float", 2.0, "jump cost (default 2.0)", minimum=0.0, metavar="A"),
    Option("eed_rho", "--eed-rho", "float", 0.3, "coverage cost (default 0.3)", minimum=0.0, metavar="R"),
    Option("eed_deletion", "--eed-deletion", "float", 0.2, "deletion cost (default 0.2)", minimum=0.0, metavar="D"),
    Option(
        "eed_insertion",
        "--eed-insertion",
        "float",
        1.0,
        "insertion and substitution cost (default 1.0)",
        minimum=0.0,
        metavar="I",
    ),
)


CHARCUT_OPTIONS = (
    Option(
        "charcut_match_size",
        "--charcut-match-size",
        "int",
        3,
        "shortest common substring matched, in characters (default 3)",
        minimum=1,
        metavar="N",
    ),
    Option("charcut_alt_norm", "--charcut-alt-norm", "flag", False, "divide by twice the candidate's length"),
)


def build_charcut(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """CharCut with the ``charcut_*`` options."""
    from nlpeval.metrics.charcut import CharCut

    return CharCut(match_size=options["charcut_match_size"], alt_norm=options["charcut_alt_norm"])


def build_character(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """CharacTER (no options)."""
    from nlpeval.metrics.character import CharacTER

    return CharacTER()


def build_eed(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """EED with the ``eed_*`` options."""
    from nlpeval.metrics.eed import EED

    return EED(
        language=options["eed_language"],
        alpha=options["eed_alpha"],
        rho=options["eed_rho"],
        deletion=options["eed_deletion"],
        insertion=options["eed_insertion"],
    )


ENTRIES = (
    MetricEntry(
        "character",
        factory="nlpeval.metrics.entries.edit_chars:build_character",
        family="character",
        card="character",
        label="CharacTER",
        scale=1.0,
        higher_is_better=False,
        flavors=("cer",),
        option_group="CharacTER options (the cer package's; none)",
    ),
    MetricEntry(
        "eed",
        factory="nlpeval.metrics.entries.edit_chars:build_eed",
        family="eed",
        card="eed",
        label="EED",
        scale=1.0,
        higher_is_better=False,
        flavors=("torchmetrics",),
        options=EED_OPTIONS,
        option_group="EED options (torchmetrics' extended_edit_distance)",
    ),
    MetricEntry(
        "charcut",
        factory="nlpeval.metrics.entries.edit_chars:build_charcut",
        family="charcut",
        card="charcut",
        label="CharCut",
        scale=1.0,
        higher_is_better=False,
        flavors=("charcut",),
        options=CHARCUT_OPTIONS,
        option_group="CharCut options (the charcut package's; one reference per segment)",
    ),
)
