"""Registry entries of the edit rates WER, CER, MER, WIL and WIP (``nlpeval score -m wer,cer``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.entries._shared import LOWERCASE
from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option(
        "wer_normalize",
        "--wer-normalize",
        "str",
        None,
        "OpenAI Whisper's text normaliser first: whisper-en (EnglishTextNormalizer) or whisper-basic",
        choices=("whisper-en", "whisper-basic"),
    ),
    LOWERCASE,
    Option(
        "remove_punctuation", "--remove-punctuation", "flag", False, "delete Unicode punctuation (categories P*) first"
    ),
    Option("nfkc", "--nfkc", "flag", False, "apply Unicode NFKC normalisation first"),
    Option(
        "whitespace",
        "--whitespace",
        "str",
        "jiwer",
        "jiwer (default): jiwer's handling; collapse: any whitespace separates words; remove: ignore whitespace "
        "(CER only)",
        choices=("jiwer", "collapse", "remove"),
    ),
    Option(
        "split_unspaced",
        "--split-unspaced",
        "flag",
        False,
        "WER: each Han/Kana/Thai/Lao/Khmer/Myanmar/Tibetan character is a word",
    ),
    Option(
        "wer_max_cells",
        "--wer-max-cells",
        "int",
        None,
        "refuse a pair whose token counts multiply to more than N (default 10 billion; bounds the alignment time)",
        minimum=1,
        metavar="N",
    ),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """WER, CER, MER, WIL or WIP (jiwer's flavor) with the normalisation options."""
    from nlpeval.metrics.wer import make_edit_metric

    if name == "cer" and options["split_unspaced"]:
        raise ValueError("--split-unspaced is an option of the word metrics; cer already scores characters")
    max_cells = options["wer_max_cells"]
    return make_edit_metric(
        name,
        normalize=options["wer_normalize"],
        lowercase=options["lowercase"],
        remove_punctuation=options["remove_punctuation"],
        nfkc=options["nfkc"],
        whitespace=options["whitespace"],
        **({} if name == "cer" else {"split_unspaced": options["split_unspaced"]}),
        **({} if max_cells is None else {"max_cells": max_cells}),
    )


_COMMON: dict[str, Any] = {
    "factory": "nlpeval.metrics.entries.wer:build",
    "family": "wer",
    "card": "wer",
    "flavors": ("jiwer",),
    "options": OPTIONS,
    "option_group": "WER/CER/MER/WIL/WIP options (--lowercase applies too)",
}

ENTRIES = (
    MetricEntry("wer", label="WER", higher_is_better=False, **_COMMON),
    MetricEntry("cer", label="CER", higher_is_better=False, **_COMMON),
    MetricEntry("mer", label="MER", higher_is_better=False, **_COMMON),
    MetricEntry("wil", label="WIL", higher_is_better=False, **_COMMON),
    MetricEntry("wip", label="WIP", **_COMMON),
)
