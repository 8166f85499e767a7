"""``nlpeval metrics``: every metric, flavor and option, with the card that explains it."""

from __future__ import annotations

import argparse
from typing import Any

from nlpeval.cli.explain import CARD_FORMATS


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="list every metric, flavor and option",
        description="List every metric family with its names for 'nlpeval score -m', its API, flavors and "
        "options with their defaults. 'nlpeval explain NAME' shows one family's card.",
    )
    parser.add_argument("--format", "-f", choices=CARD_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the list to FILE (atomically)")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    from nlpeval.cards.listing import render_listing
    from nlpeval.cli.io import emit

    emit(render_listing(options.format), options.output)
    return 0
