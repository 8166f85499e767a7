"""Registry entries of chrF and chrF++ (``nlpeval score -m chrf,chrf++``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.entries._shared import LOWERCASE
from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option(
        "chrf_char_order", "--chrf-char-order", "int", 6, "character n-gram order (default 6)", minimum=0, metavar="N"
    ),
    Option(
        "chrf_word_order",
        "--chrf-word-order",
        "int",
        None,
        "word n-gram order (default 0 for chrf, 2 for chrf++)",
        minimum=0,
        metavar="N",
    ),
    Option("chrf_beta", "--chrf-beta", "number", 2, "recall weight (default 2)", minimum=0, metavar="BETA"),
    Option("chrf_whitespace", "--chrf-whitespace", "flag", False, "keep whitespace in character n-grams"),
    Option("chrf_eps_smoothing", "--chrf-eps-smoothing", "flag", False, "chrF++.py epsilon smoothing"),
    LOWERCASE,
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """chrF (``chrf``) or chrF++ (``chrf++``: word order 2 unless ``chrf_word_order`` says otherwise)."""
    from nlpeval.metrics.chrf import CHRF

    word_order = options["chrf_word_order"]
    return CHRF(
        char_order=options["chrf_char_order"],
        word_order=(2 if name == "chrf++" else 0) if word_order is None else word_order,
        beta=options["chrf_beta"],
        lowercase=options["lowercase"],
        whitespace=options["chrf_whitespace"],
        eps_smoothing=options["chrf_eps_smoothing"],
    )


_COMMON: dict[str, Any] = {
    "factory": "nlpeval.metrics.entries.chrf:build",
    "family": "chrf",
    "card": "chrf",
    "flavors": ("sacrebleu",),
    "options": OPTIONS,
    "option_group": "chrF options (--lowercase applies too)",
}

ENTRIES = (
    MetricEntry("chrf", label="chrF", **_COMMON),
    MetricEntry("chrf++", label="chrF++", **_COMMON),
)
