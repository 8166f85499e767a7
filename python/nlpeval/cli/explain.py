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
    parser.add_argument(
        "metric", metavar="METRIC", nargs="?", help="metric name, e.g. bleu, chrf++, rougeLsum, wer, f1"
    )
    parser.add_argument("--all", action="store_true", help="every card (e.g. a Markdown page that reports link to)")
    parser.add_argument("--format", "-f", choices=CARD_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the card to FILE (atomically)")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    import json

    from nlpeval.cards import all_cards, explain
    from nlpeval.cli.errors import UsageError
    from nlpeval.cli.io import emit

    if options.all == (options.metric is not None):
        raise UsageError("give one METRIC or --all")
    cards = list(all_cards().values()) if options.all else [explain(options.metric)]
    if options.format == "json":
        data = [card.to_dict() for card in cards]
        text = json.dumps(data if options.all else data[0], indent=2, ensure_ascii=False) + "\n"
    elif options.format == "markdown":
        text = "\n".join(card.to_markdown() for card in cards)
    else:
        text = "\n\n".join(card.to_text() for card in cards)
    emit(text, options.output)
    return 0
