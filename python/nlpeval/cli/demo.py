"""``nlpeval demo``: score the bundled sample systems with every text metric and print a table."""

from __future__ import annotations

import argparse
import os
from importlib import resources
from typing import Any

from nlpeval.cli.formats import FORMATS

#: metrics the demo shows (each must be known to ``nlpeval score -m``)
DEMO_METRICS = ("bleu", "chrf", "chrf++", "ter", "rouge1", "rouge2", "rougeL", "wer", "cer")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="score bundled sample data (no network, no downloads)",
        description="Score two sample English systems against a reference, all bundled with nlpeval.",
    )
    parser.add_argument("--format", "-f", choices=FORMATS, default="text")
    parser.add_argument("--report", metavar="FILE", help="write the comparison report of the two systems to FILE")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.main import main as cli_main

    folder = resources.files("nlpeval") / "data" / "demo"
    with resources.as_file(folder) as path:
        print(f"nlpeval demo: two sample systems scored against one reference (20 segments, in {path})\n")
        previous = os.getcwd()
        os.chdir(path)
        try:
            if getattr(options, "report", None):
                target = os.path.join(previous, options.report)
                return cli_main(["report", "-r", "ref.en", "-o", target, "system-a.en", "system-b.en"])
            return cli_main(
                [
                    "score",
                    "-r",
                    "ref.en",
                    "-m",
                    ",".join(DEMO_METRICS),
                    "--format",
                    options.format,
                    "system-a.en",
                    "system-b.en",
                ]
            )
        finally:
            os.chdir(previous)
