"""Registry entry of span F1 for sequence labelling (``nlpeval score -m span_f1``).

On the command line each line is one sentence's labels separated by spaces (``B-PER I-PER O``); the
system file and the reference file have one line per sentence (an empty line is an empty sentence).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

MODES = ("lenient", "strict", "conlleval")
SCHEMES = ("IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU")

OPTIONS = (
    Option(
        "span_mode",
        "--span-mode",
        "str",
        "lenient",
        "lenient (seqeval's default, the default), strict (seqeval mode='strict', needs --span-scheme) "
        "or conlleval (conlleval.pl)",
        choices=MODES,
    ),
    Option("span_scheme", "--span-scheme", "str", None, "tagging scheme of --span-mode strict", choices=SCHEMES),
    Option(
        "span_average",
        "--span-average",
        "str",
        "micro",
        "which F1 is the score: micro (default), macro or weighted",
        choices=("micro", "macro", "weighted"),
    ),
    Option("span_suffix", "--span-suffix", "flag", False, "labels are TYPE-B, not B-TYPE (seqeval's suffix=True)"),
)


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """Span F1 on space-separated label lines with the ``span_*`` options."""
    from nlpeval.metrics.span_f1 import SpanF1

    return SpanF1(
        mode=options["span_mode"],
        scheme=options["span_scheme"],
        average=options["span_average"],
        suffix=options["span_suffix"],
        lines=True,
    )


ENTRIES = (
    MetricEntry(
        "span_f1",
        factory="nlpeval.metrics.entries.span_f1:build",
        family="span_f1",
        card="span-f1",
        label="span F1",
        # the statistics' columns are the entity types of the whole corpus
        decomposes=False,
        flavors=MODES,
        options=OPTIONS,
        option_group="Span F1 options (one space-separated label sequence per line)",
    ),
)
