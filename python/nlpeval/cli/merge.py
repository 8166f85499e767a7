"""``nlpeval merge``: merge partial results (``.npz``) written by independent jobs, and score them."""

from __future__ import annotations

import argparse
from typing import Any

from nlpeval.cli.errors import UsageError
from nlpeval.cli.formats import FORMATS


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="merge partial results (.npz) and score them",
        description="Merge the partial results written by 'nlpeval score --save-partial' or "
        "nlpeval.distributed.Partial.save (e.g. one per shard or job), in the order given, and print the "
        "scores. Partials of the same metric must have the same configuration and nlpeval version.",
    )
    parser.add_argument("partials", nargs="+", metavar="PART", help="partial files (.npz)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--name", default="merged", help="system name in the table (default: merged)")
    parser.add_argument("--save", metavar="PATH", help="also write the merged partial(s) (.npz; {metric} with several)")
    parser.add_argument("--confidence", type=float, default=0.95, help="level of the Poisson interval, if carried")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


def merge_files(paths: list[str]) -> dict[str, Any]:
    """``{metric name: merged Partial}`` of partial files, merged in the given order."""
    from nlpeval.distributed.errors import IncompatiblePartialsError, PartialFormatError
    from nlpeval.distributed.partial import Partial

    merged: dict[str, Partial] = {}
    for path in paths:
        try:
            partial = Partial.load(path)
        except PartialFormatError as exc:
            raise UsageError(str(exc)) from None
        name = partial.metric.name
        try:
            merged[name] = merged[name].merge(partial) if name in merged else partial
        except IncompatiblePartialsError as exc:
            raise UsageError(f"{path}: {exc}") from None
    return merged


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.engine import save_partials
    from nlpeval.cli.formats import ScoreTable, SystemScores, render
    from nlpeval.cli.io import emit
    from nlpeval.metrics.registry import UnknownMetricError, get

    merged = merge_files(options.partials)
    empty = [name for name, partial in merged.items() if partial.n_segments == 0]
    if empty:
        raise UsageError(f"nothing to score: the {empty[0]} partials hold no segments")
    scores = {name: partial.score(confidence=options.confidence) for name, partial in merged.items()}
    labels, scales = {}, {}
    for name in merged:
        try:
            entry = get(name)
            labels[name], scales[name] = entry.display(name), entry.scale
        except UnknownMetricError:
            labels[name], scales[name] = name, 1.0
    table = ScoreTable(list(merged), labels, scales, [SystemScores(options.name, scores)])
    if options.save:
        save_partials(options.save, {options.name: merged})
    emit(render(table, options.format), options.output)
    return 0
