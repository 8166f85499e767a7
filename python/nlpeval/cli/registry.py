"""Metric names accepted by ``nlpeval score -m`` and how each is built from the options."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple

from nlpeval.cli.errors import UsageError

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric


class MetricEntry(NamedTuple):
    """A CLI metric: its column label, display scale and factory.

    ``factory`` is ``"module:function"``; the function takes the metric name as
    typed and the parsed options and returns a configured :class:`CorpusMetric`.
    (A named tuple, not a dataclass: ``nlpeval score`` imports no ``dataclasses``.)
    """

    label: str
    factory: str
    scale: float = 100.0

    def build(self, name: str, options: argparse.Namespace) -> CorpusMetric:
        module, function = self.factory.split(":")
        make: Callable[[str, argparse.Namespace], CorpusMetric] = getattr(import_module(module), function)
        return make(name, options)


#: exact names
METRICS: dict[str, MetricEntry] = {
    "bleu": MetricEntry("BLEU", "nlpeval.cli.factories:bleu"),
    "wer": MetricEntry("WER", "nlpeval.cli.factories:edit_rate"),
    "cer": MetricEntry("CER", "nlpeval.cli.factories:edit_rate"),
    "mer": MetricEntry("MER", "nlpeval.cli.factories:edit_rate"),
    "wil": MetricEntry("WIL", "nlpeval.cli.factories:edit_rate"),
    "wip": MetricEntry("WIP", "nlpeval.cli.factories:edit_rate"),
    "chrf": MetricEntry("chrF", "nlpeval.cli.factories:chrf"),
    "chrf++": MetricEntry("chrF++", "nlpeval.cli.factories:chrf"),
    "ter": MetricEntry("TER", "nlpeval.cli.factories:ter"),
    "meteor": MetricEntry("METEOR", "nlpeval.cli.factories:meteor"),
}

#: name patterns (full match), for families such as ``rouge3`` or ``rougeW-1.2``
PATTERNS: list[tuple[str, MetricEntry]] = [
    # rouge1..rouge9, rougeL, rougeLsum, rougeW-1.2, rougeS4, rougeSU4, rougeS*, rougeSU* (F on the table)
    (
        r"rouge[1-9]|rougeL|rougeLsum|rougeW-\d+(?:\.\d+)?|rougeSU?(?:\d+|\*)",
        MetricEntry("ROUGE", "nlpeval.cli.factories:rouge"),
    ),
]


def resolve(name: str) -> MetricEntry:
    """The entry for a ``-m`` name, or a usage error listing the known names."""
    if name in METRICS:
        return METRICS[name]
    for pattern, entry in PATTERNS:
        if re.fullmatch(pattern, name):
            return entry
    known = ", ".join([*METRICS, *(p for p, _ in PATTERNS)])
    raise UsageError(f"unknown metric {name!r}; known: {known}")
