"""Registry entries of the ROUGE family (``nlpeval score -m rouge1,rouge2,rougeL,rougeLsum``...)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option("stemmer", "--stemmer", "flag", False, "Porter stemming (ROUGE-1.5.5 -m for rouge155)"),
    Option(
        "rouge_flavor",
        "--rouge-flavor",
        "str",
        "default",
        "default (rouge-score's numbers, Unicode-aware tokens), rouge-score, or rouge155 (Perl ROUGE-1.5.5)",
        choices=("default", "rouge-score", "rouge155"),
    ),
    Option(
        "rouge_multi_ref",
        "--rouge-multi-ref",
        "str",
        None,
        "combine references: max F (rouge-score), average (-f A) or best (-f B)",
        choices=("max", "average", "best"),
    ),
    Option("rouge_alpha", "--rouge-alpha", "float", 0.5, "F = PR/((1-a)P + aR) (ROUGE-1.5.5 -p)", minimum=0),
    Option("rouge_aggregate", "--rouge-aggregate", "str", "macro", "corpus average", choices=("macro", "micro")),
    Option("remove_stopwords", "--remove-stopwords", "flag", False, "rouge155: drop its stopwords (-s)"),
    Option("word_limit", "--word-limit", "int", None, "rouge155: first N words (-l)", minimum=0, metavar="N"),
    Option("byte_limit", "--byte-limit", "int", None, "rouge155: first N bytes (-b)", minimum=0, metavar="N"),
    Option(
        "rouge_data_dir",
        "--rouge-data-dir",
        "path",
        None,
        "rouge155: ROUGE-1.5.5's data directory (-e; default $NLPEVAL_ROUGE_DATA)",
        metavar="DIR",
    ),
    Option(
        "sentence_splitter",
        "--sentence-splitter",
        "str",
        "newline",
        "sentences for rougeLsum (one line is one segment, so 'newline' makes Lsum equal L)",
        choices=("newline", "simple", "nltk"),
    ),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """One ROUGE type (the name, e.g. ``rougeL``); the table shows F, ``--segments`` per-segment F."""
    from nlpeval.metrics.rouge import make_rouge

    return make_rouge(
        name,
        flavor=None if options["rouge_flavor"] == "default" else options["rouge_flavor"],
        stemmer=options["stemmer"],
        multi_ref=options["rouge_multi_ref"],
        alpha=options["rouge_alpha"],
        aggregate=options["rouge_aggregate"],
        remove_stopwords=options["remove_stopwords"],
        word_limit=options["word_limit"],
        byte_limit=options["byte_limit"],
        data_dir=options["rouge_data_dir"],
        sentence_splitter=None if options["sentence_splitter"] == "newline" else options["sentence_splitter"],
        segment_columns="f",
    )


_COMMON: dict[str, Any] = {
    "factory": "nlpeval.metrics.entries.rouge:build",
    "family": "rouge",
    "card": "rouge",
    "label": "ROUGE",
    "flavors": ("default", "rouge-score", "rouge155"),
    "options": OPTIONS,
    "option_group": "ROUGE options (rouge1..9, rougeL, rougeLsum, rougeW-1.2, rougeS4, rougeSU4)",
}

ENTRIES = (
    MetricEntry("rouge1..rouge9", pattern=r"rouge[1-9]", **_COMMON),
    MetricEntry("rougeL", **_COMMON),
    MetricEntry("rougeLsum", **_COMMON),
    MetricEntry("rougeW-<weight>", pattern=r"rougeW-\d+(?:\.\d+)?", **_COMMON),
    MetricEntry("rougeS<skip>", pattern=r"rougeS(?:\d+|\*)", **_COMMON),
    MetricEntry("rougeSU<skip>", pattern=r"rougeSU(?:\d+|\*)", **_COMMON),
)
