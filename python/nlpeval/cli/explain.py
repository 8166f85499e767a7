"""``nlpeval explain METRIC``: the metric's card (definition, bounds, flavors, options, pitfalls, example)."""

from __future__ import annotations

import argparse
from typing import Any

CARD_FORMATS = ("text", "markdown", "json")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="explain a metric: definition, bounds, flavors, options, pitfalls, worked example",
        description="Show the card of a metric family. Aliases resolve to their family "
        "(chrf++ -> chrF, rougeL -> ROUGE, cer -> WER/CER/MER/WIL/WIP).",
    )
    parser.add_argument("metric", metavar="METRIC", help="metric name, e.g. bleu, chrf++, rougeLsum, wer, f1")
    parser.add_argument("--format", "-f", choices=CARD_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the card to FILE (atomically)")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    from nlpeval.cards import explain
    from nlpeval.cli.io import emit

    card = explain(options.metric)
    text = {"text": card.to_text, "markdown": card.to_markdown, "json": card.to_json}[options.format]()
    emit(text, options.output)
    return 0
