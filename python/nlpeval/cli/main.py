"""Entry point of the ``nlpeval`` command: sub-commands, exit codes, error reporting.

Exit codes: 0 success, 2 bad input or usage (one line on stderr, no traceback),
1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from nlpeval.cli.errors import UsageError

#: sub-command -> module with ``add_parser(subparsers)`` and ``run(args) -> int``.
#: Command modules import their heavy dependencies inside ``run`` so start-up stays fast.
COMMANDS = {
    "score": "nlpeval.cli.score",
    "demo": "nlpeval.cli.demo",
    "classify": "nlpeval.cli.classify",
    "perplexity": "nlpeval.cli.perplexity",
    "align": "nlpeval.cli.align",
    "agree": "nlpeval.cli.agree",
    "correlate": "nlpeval.cli.correlate",
    "merge": "nlpeval.cli.merge",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    from nlpeval._version import __version__

    parser = argparse.ArgumentParser(
        prog="nlpeval",
        description="Evaluate NLP systems with metrics that match the reference tools exactly.",
    )
    parser.add_argument("--version", action="version", version=f"nlpeval {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS.values():
        import_module(module).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (UsageError, ValueError, OSError, ImportError) as exc:
        # InputError is a ValueError; every expected failure ends here as one line.
        message = str(exc) or type(exc).__name__
        print(f"nlpeval {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
