"""Registry entry of BLEU (``nlpeval score -m bleu``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.entries._shared import LOWERCASE
from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

TOKENIZERS = ("13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200", "spBLEU-1K")

OPTIONS = (
    Option("tokenize", "--tokenize", "str", None, "tokenizer (default 13a)", choices=TOKENIZERS, short="-tok"),
    LOWERCASE,
    Option(
        "smooth",
        "--smooth",
        "str",
        "exp",
        "sacrebleu: exp (default), floor, add-k, none; nltk: method0 (default) to method7; "
        "hf: add-k (add-one) or none (default)",
        choices=("exp", "floor", "add-k", "none", *(f"method{i}" for i in range(8))),
    ),
    Option("smooth_value", "--smooth-value", "float", None, minimum=0),
    Option("max_order", "--max-order", "int", 4, minimum=1),
    Option("effective_order", "--effective-order", "flag", False),
    Option(
        "bleu_flavor",
        "--bleu-flavor",
        "str",
        "sacrebleu",
        "sacrebleu (default), nltk (NLTK corpus_bleu, whitespace tokens) or hf (HF evaluate / Google NMT)",
        choices=("sacrebleu", "nltk", "hf"),
    ),
    Option(
        "bleu_weights",
        "--bleu-weights",
        "floats",
        None,
        "n-gram weights for --bleu-flavor nltk, e.g. 0.5,0.5",
        metavar="W1,W2,...",
    ),
    Option("auto_reweigh", "--auto-reweigh", "flag", False, "NLTK's auto_reweigh (--bleu-flavor nltk)"),
    Option(
        "spm_model",
        "--spm-model",
        "path",
        None,
        "local SentencePiece model for spm/flores/spBLEU-1K tokenizers",
        metavar="PATH",
    ),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """BLEU in the ``bleu_flavor`` flavor (sacreBLEU unless told; ``nltk`` takes the weights)."""
    from nlpeval.metrics.bleu import make_bleu

    return make_bleu(
        flavor=options["bleu_flavor"],
        tokenize=options["tokenize"] or "13a",
        lowercase=options["lowercase"],
        smooth=options["smooth"],
        smooth_value=options["smooth_value"],
        max_order=options["max_order"],
        effective_order=options["effective_order"],
        weights=options["bleu_weights"],
        auto_reweigh=options["auto_reweigh"],
        spm_model=options["spm_model"],
    )


ENTRIES = (
    MetricEntry(
        "bleu",
        factory="nlpeval.metrics.entries.bleu:build",
        family="bleu",
        card="bleu",
        label="BLEU",
        flavors=("sacrebleu", "nltk", "hf"),
        options=OPTIONS,
        option_group="BLEU options",
    ),
)
