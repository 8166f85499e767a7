"""Registry entries of NLTK's GLEU, NIST and RIBES (``nlpeval score -m gleu,nist,ribes``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

GLEU_OPTIONS = (
    Option("gleu_flavor", "--gleu-flavor", "str", "nltk", choices=("nltk", "hf")),
    Option("gleu_min_len", "--gleu-min-len", "int", 1, "shortest n-gram (default 1)", minimum=1, metavar="N"),
    Option("gleu_max_len", "--gleu-max-len", "int", 4, "longest n-gram (default 4)", minimum=1, metavar="N"),
)
NIST_OPTIONS = (
    Option("nist_n", "--nist-n", "int", 5, "largest n-gram order (default 5)", minimum=1, metavar="N"),
    Option(
        "nist_flavor",
        "--nist-flavor",
        "str",
        "nltk",
        "nltk (NLTK's corpus_nist, default) or mteval (mteval-v13a.pl: its tokenization and length penalty)",
        choices=("nltk", "mteval"),
    ),
    Option("nist_preserve_case", "--nist-preserve-case", "flag", False, "mteval flavor: keep case (mteval -c)"),
    Option(
        "nist_international",
        "--nist-international",
        "flag",
        False,
        "mteval flavor: its --international-tokenization (Unicode punctuation and symbols)",
    ),
    Option(
        "nist_split_non_ascii",
        "--nist-split-non-ascii",
        "flag",
        False,
        "mteval flavor with --nist-international: its -e (every non-ASCII character a word)",
    ),
)
RIBES_OPTIONS = (
    Option(
        "ribes_alpha", "--ribes-alpha", "float", 0.25, "exponent of the unigram precision", minimum=0.0, metavar="A"
    ),
    Option("ribes_beta", "--ribes-beta", "float", 0.10, "exponent of the brevity penalty", minimum=0.0, metavar="B"),
)


def build_gleu(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """GLEU with the ``gleu_*`` options."""
    from nlpeval.metrics.nltk_lexical import GLEU

    return GLEU(flavor=options["gleu_flavor"], min_len=options["gleu_min_len"], max_len=options["gleu_max_len"])


def build_nist(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """NIST with ``nist_n`` (and ``nist_flavor``; mteval's ``nist_preserve_case``, ``nist_international``,
    ``nist_split_non_ascii``)."""
    if options.get("nist_flavor") == "mteval":
        from nlpeval.metrics.nist_mteval import MtevalNIST

        return MtevalNIST(
            n=options["nist_n"],
            preserve_case=options.get("nist_preserve_case", False),
            international=options.get("nist_international", False),
            split_non_ascii=options.get("nist_split_non_ascii", False),
        )
    for key, flag in (
        ("nist_preserve_case", "--nist-preserve-case"),
        ("nist_international", "--nist-international"),
        ("nist_split_non_ascii", "--nist-split-non-ascii"),
    ):
        if options.get(key):
            raise ValueError(f"{flag} is an option of mteval-v13a: use it with --nist-flavor mteval")
    from nlpeval.metrics.nltk_lexical import NIST

    return NIST(n=options["nist_n"])


def build_ribes(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """RIBES with the ``ribes_*`` options."""
    from nlpeval.metrics.nltk_lexical import RIBES

    return RIBES(alpha=options["ribes_alpha"], beta=options["ribes_beta"])


ENTRIES = (
    MetricEntry(
        "gleu",
        factory="nlpeval.metrics.entries.nltk_lexical:build_gleu",
        family="gleu",
        card="gleu",
        label="GLEU",
        flavors=("nltk", "hf"),
        options=GLEU_OPTIONS,
        option_group="GLEU options (NLTK's corpus_gleu; hf: evaluate's google_bleu)",
    ),
    MetricEntry(
        "nist",
        factory="nlpeval.metrics.entries.nltk_lexical:build_nist",
        family="nist",
        card="nist",
        label="NIST",
        scale=1.0,
        decomposes=False,
        flavors=("nltk", "mteval"),
        options=NIST_OPTIONS,
        option_group="NIST options (NLTK's corpus_nist or mteval-v13a; weights over the whole corpus: two passes)",
    ),
    MetricEntry(
        "ribes",
        factory="nlpeval.metrics.entries.nltk_lexical:build_ribes",
        family="ribes",
        card="ribes",
        label="RIBES",
        flavors=("nltk",),
        options=RIBES_OPTIONS,
        option_group="RIBES options (NLTK's corpus_ribes)",
    ),
)
