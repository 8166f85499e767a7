"""The data-file options of the commands (``--hyp-col``, ``--ref-col``, ``--id-col``, ``--system-col``).

Kept apart from :mod:`nlpeval.cli.datafiles` (the readers), so that building a command's parser and
checking its options import neither the readers nor their dependencies.
"""

from __future__ import annotations

from typing import Any

from nlpeval.cli.errors import UsageError


def add_data_options(parser: Any, *, systems: bool = True, hyp_help: str = "", ref_help: str = "") -> None:
    """The ``--hyp-col`` / ``--ref-col`` (and, for commands that compare systems, ``--id-col`` / ``--system-col``)
    options of a command."""
    group = parser.add_argument_group(
        "data files (JSONL, CSV/TSV with a header, Parquet) instead of line files; errors name file:row"
    )
    group.add_argument(
        "--hyp-col", metavar="COL", help=hyp_help or "the input files are data files; COL holds the system output"
    )
    group.add_argument(
        "--ref-col",
        action="append",
        default=[],
        metavar="COL",
        help=ref_help or "reference column of the data files: a text or a list of texts (repeat for several)",
    )
    if systems:
        group.add_argument("--id-col", metavar="COL", help="segment id column (aligns the systems by id)")
        group.add_argument("--system-col", metavar="COL", help="system name column (several systems in one file)")


def check_data_options(options: Any, *, systems: bool = True) -> None:
    """Column options need ``--hyp-col`` (which makes the inputs data files)."""
    others = [("--ref-col", options.ref_col)]
    if systems:
        others += [("--id-col", options.id_col), ("--system-col", options.system_col)]
    if options.hyp_col is None:
        given = [name for name, value in others if value]
        if given:
            raise UsageError(f"{given[0]} needs --hyp-col (the column of the system output)")
