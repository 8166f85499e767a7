"""Registry entry of CIDEr-D / CIDEr (``nlpeval score -m cider``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option("cider_flavor", "--cider-flavor", "str", "cider-d", choices=("cider-d", "cider")),
    Option("cider_tokenize", "--cider-tokenize", "str", "coco", choices=("coco", "none")),
    Option(
        "cider_sigma",
        "--cider-sigma",
        "float",
        6.0,
        "CIDEr-D's length-penalty width (default 6)",
        minimum=0.0,
        metavar="S",
    ),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """CIDEr-D (pycocoevalcap) or CIDEr with the ``cider_*`` options."""
    from nlpeval.metrics.cider import CIDEr

    return CIDEr(flavor=options["cider_flavor"], tokenize=options["cider_tokenize"], sigma=options["cider_sigma"])


ENTRIES = (
    MetricEntry(
        "cider",
        factory="nlpeval.metrics.entries.cider:build",
        family="cider",
        card="cider",
        label="CIDEr",
        scale=1.0,
        decomposes=False,
        flavors=("cider-d", "cider"),
        options=OPTIONS,
        option_group="CIDEr options (idf over the whole corpus's references: the file is scored in one pass)",
    ),
)
