"""``nlpeval score --engine dask``: score on a Dask cluster (a LocalCluster, or an existing scheduler).

Inputs are the system files as usual (with ``-r``; each file is one partition), or
JSONL/Parquet globs with named columns (``--hyp-col``, ``--ref-col``, ``--id-col``,
``--system-col``), read with dask's own readers. The engine and scheduler are
recorded in the JSON output's ``provenance``, never in a metric's signature.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import sys
from typing import Any

from nlpeval.cli.errors import UsageError

_TABLE_SUFFIXES = (".jsonl", ".json", ".ndjson", ".parquet", ".pq")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The ``--engine``/``--scheduler`` options and the column options (unless already defined)."""
    group = parser.add_argument_group("distributed scoring (needs the dask extra: pip install nlpeval[dask])")
    group.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local (default) or dask: a LocalCluster on this machine's cores, or --scheduler's cluster",
    )
    group.add_argument("--scheduler", metavar="ADDRESS", help="existing Dask scheduler, e.g. tcp://10.1.2.3:8786")
    group.add_argument("--scheduler-file", metavar="FILE", help="Dask scheduler file (dask-jobqueue, Slurm)")
    group.add_argument(
        "--resampling",
        choices=("multinomial", "poisson"),
        default="multinomial",
        help="bootstrap for --bootstrap/--paired-bs: multinomial (sacreBLEU's, default) or poisson "
        "(keyed by segment id: identical on one machine and on any cluster; required with --engine dask)",
    )
    group.add_argument(
        "--save-partial",
        metavar="PATH",
        help="also write each metric's merged statistics to PATH (.npz; with several metrics PATH must "
        "contain {metric}); merge files later with 'nlpeval merge'",
    )
    known = parser._option_string_actions  # the single-machine data-file readers may define these already
    columns = [
        ("--hyp-col", {"metavar": "NAME", "help": "hypothesis column of JSONL/Parquet input (default hyp)"}),
        ("--ref-col", {"metavar": "NAME", "action": "append", "help": "reference column (repeat for several)"}),
        ("--id-col", {"metavar": "NAME", "help": "segment id column (keys the Poisson bootstrap)"}),
        ("--system-col", {"metavar": "NAME", "help": "column naming the system of each row (one row per system)"}),
    ]
    for flag, kwargs in columns:
        if flag not in known:
            group.add_argument(flag, **kwargs)


def wants_dask(options: argparse.Namespace) -> bool:
    """Whether the options ask for the Dask engine."""
    return options.engine == "dask" or bool(options.scheduler or options.scheduler_file)


def is_table_input(paths: list[str]) -> bool:
    """Whether the inputs are JSONL/Parquet files (named columns) rather than one-segment-per-line text."""
    return all(path.lower().endswith(_TABLE_SUFFIXES) for path in paths)


def _expand(pattern: str) -> list[str]:
    if "://" in pattern:
        return [pattern]
    paths = sorted(glob.glob(pattern))
    if not paths:
        raise UsageError(f"no file matches {pattern}")
    return paths


def _parse_jsonl(lines: list[tuple[str, str]]) -> list[dict]:
    """Rows of one JSONL file (row ``i`` is line ``i + 1``; blank lines only at the end)."""
    while lines and not lines[-1][0].strip():
        lines = lines[:-1]
    rows = []
    for number, (line, path) in enumerate(lines, start=1):
        if not line.strip():
            from nlpeval.distributed.errors import PartitionInputError

            raise PartitionInputError(f"{path}:{number}: empty line")
        try:
            row = json.loads(line)
        except ValueError as exc:
            from nlpeval.distributed.errors import PartitionInputError

            raise PartitionInputError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            from nlpeval.distributed.errors import PartitionInputError

            raise PartitionInputError(f"{path}:{number}: expected a JSON object per line")
        rows.append(row)
    return rows


def read_table(pattern: str) -> tuple[Any, list[str] | None]:
    """A dask collection of the rows of JSONL (a Bag of dicts, one partition per file) or Parquet files,
    and the file of each partition when partitions are files (JSONL)."""
    paths = _expand(pattern)
    if all(p.lower().endswith((".parquet", ".pq")) for p in paths):
        import dask.dataframe as dd

        return dd.read_parquet(paths), None
    import dask.bag as db

    # one partition per file, so a partition's row i is its file's line i + 1
    return db.read_text(paths, blocksize=None, include_path=True).map_partitions(_parse_jsonl), paths


def _locate(error: Exception, files: list[str] | None) -> Exception:
    """``partition P, row R: ...`` as ``file:line: ...`` when partitions are files."""
    import re

    from nlpeval.distributed.errors import PartitionInputError

    if not isinstance(error, PartitionInputError) or files is None:
        return error
    found = re.match(r"partition (\d+), row (\d+)(?: \(row \d+ of the input\))?: (.*)", str(error))
    if found is None or int(found.group(1)) >= len(files):
        return error
    partition, row, message = int(found.group(1)), int(found.group(2)), found.group(3)
    return UsageError(f"{files[partition]}:{row + 1}: {message}")


def _read_lines(path: str) -> list[str]:
    from nlpeval.cli.io import read_all

    return read_all(path)


def _text_input(system: str, refs: list[str]) -> Any:
    """One system file and its reference files as a one-partition bag of (hypothesis, references)."""
    import dask.bag as db
    from dask import delayed

    def rows(hyps: list[str], *ref_files: list[str]) -> list[tuple[str, list[str]]]:
        counts = [len(hyps), *(len(r) for r in ref_files)]
        if len(set(counts)) > 1:
            detail = ", ".join(f"{name} has {n}" for name, n in zip([system, *refs], counts, strict=True))
            raise UsageError(f"segment counts differ: {detail} lines")
        return [(h, list(seg)) for h, seg in zip(hyps, zip(*ref_files, strict=True), strict=True)]

    return db.from_delayed([delayed(rows)(delayed(_read_lines)(system), *[delayed(_read_lines)(r) for r in refs])])


@contextlib.contextmanager
def _client(options: argparse.Namespace) -> Any:
    try:
        import dask
        import distributed
    except ImportError:
        raise UsageError("--engine dask needs the dask extra: pip install 'nlpeval[dask]'") from None
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if options.scheduler:
        with distributed.Client(options.scheduler, timeout="20s") as client:
            yield client, {"engine": "dask", "scheduler": options.scheduler}
    elif options.scheduler_file:
        with distributed.Client(scheduler_file=options.scheduler_file, timeout="20s") as client:
            yield client, {"engine": "dask", "scheduler_file": options.scheduler_file}
    elif dask.config.get("scheduler-address", None):
        with distributed.Client() as client:
            yield client, {"engine": "dask", "scheduler": dask.config.get("scheduler-address")}
    else:
        workers = os.cpu_count() or 1
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=50,
                env={"RAYON_NUM_THREADS": "1"},  # one core per worker: no oversubscription by the Rust kernels
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client, {"engine": "dask", "cluster": f"LocalCluster({workers} workers x 1 thread)"}


def _compute(client: Any, lazy: Any) -> Any:
    future = client.compute(lazy)
    if sys.stderr.isatty():
        from distributed import progress

        # dask's text progress bar writes to stdout: keep it on the terminal's stderr, away from the result
        with contextlib.redirect_stdout(sys.stderr):
            progress(future, multi=False)
        print(file=sys.stderr)
    return future.result()


def score_dask(options: argparse.Namespace, metrics: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Score every input on Dask: (``SystemScores`` list, provenance)."""
    import nlpeval.dask
    from nlpeval.cli.formats import SystemScores

    if options.segments:
        raise UsageError("--segments is not available with --engine dask (only merged statistics come back)")
    if options.paired_bs or options.paired_ar:
        raise UsageError("paired tests with --engine dask: use nlpeval.dask.paired (Python API)")
    if options.bootstrap and options.resampling != "poisson":
        raise UsageError("--engine dask resamples with --resampling poisson (keyed by segment id)")
    if "-" in [*options.systems, *(options.ref or [])]:
        raise UsageError("--engine dask reads files, not stdin ('-')")
    table = is_table_input(options.systems)
    if table and options.ref:
        raise UsageError("JSONL/Parquet input carries its references: use --ref-col, not -r")
    if not table and not options.ref:
        raise UsageError("-r/--ref is required for text input (or give JSONL/Parquet files with --ref-col)")
    keywords = {"n_resamples": options.bootstrap, "seed": options.seed}
    systems, partials = [], {}
    with _client(options) as (client, provenance):
        if table:
            refs = options.ref_col or ["ref"]
            keywords |= {
                "hyp": options.hyp_col or "hyp",
                "ref": refs[0] if len(refs) == 1 else refs,
                "id": options.id_col,
                "by": options.system_col,
            }
            inputs = [(pattern, *read_table(pattern)) for pattern in options.systems]
        else:
            inputs = [(path, _text_input(path, options.ref), [path]) for path in options.systems]
        for name, data, files in inputs:
            try:
                result = _compute(client, nlpeval.dask.partials(data, metrics, **keywords))
            except ValueError as exc:
                raise _locate(exc, files) from None
            grouped = result if options.system_col else {name: result}
            for system, by_name in grouped.items():
                systems.append(SystemScores(str(system), {m: p.score() for m, p in by_name.items()}))
                partials[str(system)] = by_name
        provenance["workers"] = len(client.scheduler_info().get("workers", {}))
    if options.save_partial:
        if not options.id_col:
            # resamples keyed by row numbers of this input would collide with another job's: keep totals only
            from dataclasses import replace

            partials = {s: {m: replace(p, boot=None, seed=None) for m, p in d.items()} for s, d in partials.items()}
        save_partials(options.save_partial, partials)
    return systems, provenance


def save_partials(pattern: str, partials: dict[str, dict[str, Any]]) -> None:
    """Write ``{system: {metric: Partial}}`` to ``pattern`` (``{metric}``/``{system}`` placeholders)."""
    n_metrics = len(next(iter(partials.values())))
    if n_metrics > 1 and "{metric}" not in pattern:
        raise UsageError("--save-partial needs {metric} in the path when several metrics are scored")
    if len(partials) > 1 and "{system}" not in pattern:
        raise UsageError("--save-partial needs {system} in the path when several systems are scored")
    for system, by_name in partials.items():
        for metric, partial in by_name.items():
            safe = os.path.basename(system).replace(os.sep, "_")
            partial.save(pattern.replace("{metric}", metric).replace("{system}", safe))


def local_partials(accumulated: list[dict[str, Any]], names: list[str]) -> dict[str, dict[str, Any]]:
    """``{system: {metric: Partial}}`` of the single-machine accumulators."""
    from nlpeval.distributed.partial import Partial

    out = {}
    for system, accumulators in zip(names, accumulated, strict=True):
        out[system] = {
            name: Partial(acc.metric, acc._totals, acc.n_segments)  # the accumulator's merged totals
            for name, acc in accumulators.items()
        }
    return out


def with_provenance(text: str, fmt: str, provenance: dict[str, Any] | None) -> str:
    """Add ``provenance`` (engine, scheduler, workers) to JSON output; other formats are unchanged."""
    if not provenance or fmt != "json":
        return text
    from nlpeval.cli.formats import to_json

    payload = json.loads(text)
    payload["provenance"] = provenance
    return to_json(payload)
