"""Registry entry of SARI (``nlpeval score -m sari``; needs the sources)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option(
        "sari_flavor",
        "--sari-flavor",
        "str",
        "hf",
        "hf: HF evaluate's sari (mean of sentence SARI); easse: EASSE's corpus_sari (default hf)",
        choices=("hf", "easse"),
    ),
    Option(
        "sari_tokenize",
        "--sari-tokenize",
        "str",
        "13a",
        "13a: sacreBLEU's 13a tokenizer, as both tools; none: the text as given (default 13a)",
        choices=("13a", "none"),
    ),
    Option("sari_cased", "--sari-cased", "flag", False, "keep case (both tools lowercase)"),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """SARI with the ``sari_*`` options."""
    from nlpeval.metrics.sari import SARI

    return SARI(flavor=options["sari_flavor"], tokenize=options["sari_tokenize"], lowercase=not options["sari_cased"])


ENTRIES = (
    MetricEntry(
        "sari",
        factory="nlpeval.metrics.entries.sari:build",
        family="sari",
        card="sari",
        label="SARI",
        needs_sources=True,
        flavors=("hf", "easse"),
        options=OPTIONS,
        option_group="SARI options (text simplification: needs the sources)",
    ),
)
