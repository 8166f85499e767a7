"""``nlpeval score --engine dask``: score on a Dask cluster (a LocalCluster, or an existing scheduler).

The inputs and options are those of the single-machine path: line files with ``-r``, or
data files with ``--hyp-col``/``--ref-col``/``--id-col``/``--system-col`` (globs allowed),
cut into line-aligned partitions that the workers read themselves
(:mod:`nlpeval.cli.dask_inputs`). The engine and scheduler are recorded in the JSON
output's ``provenance``, never in a metric's signature.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError


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
    group.add_argument(
        "--partition-lines",
        type=argtypes.count(1),
        default=None,
        metavar="N",
        help="lines per partition of line and JSONL files (default 50000); CSV files are one partition "
        "each, Parquet files one per row group",
    )


def wants_dask(options: argparse.Namespace) -> bool:
    """Whether the options ask for the Dask engine."""
    return options.engine == "dask" or bool(options.scheduler or options.scheduler_file)


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
                dashboard_address="127.0.0.1:0",  # any free port: no warning when 8787 is taken
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
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as exc:  # the same task killed its workers again and again: one line, exit 2
        worker = getattr(exc.last_worker, "address", "an unknown worker")
        raise UsageError(
            f"Dask gave up: the workers running task {exc.task!r} died {exc.allowed_failures + 1} times "
            f"(last {worker}); out of memory, or killed from outside? See the workers' logs"
        ) from None


def score_dask(options: argparse.Namespace, metrics: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Score every input on Dask: (``SystemScores`` list, provenance)."""
    from dataclasses import replace

    import nlpeval.dask
    from nlpeval.cli import dask_inputs
    from nlpeval.cli.datafiles import expand_paths
    from nlpeval.cli.formats import SystemScores
    from nlpeval.dask._ids import IDS_KEY
    from nlpeval.dask._spans import split as split_spans

    if options.segments:
        raise UsageError("--segments is not available with --engine dask (only merged statistics come back)")
    if options.paired_ar:
        raise UsageError(
            "--paired-ar needs every segment's statistics in one process: with --engine dask use "
            "--paired-bs --resampling poisson"
        )
    if (options.bootstrap or options.paired_bs) and options.resampling != "poisson":
        raise UsageError("--engine dask resamples with --resampling poisson (keyed by segment id)")
    if "-" in [*options.systems, *(options.ref or [])]:
        raise UsageError("--engine dask reads files, not stdin ('-')")
    data = options.hyp_col is not None
    if data and _sources(options, metrics):
        raise UsageError("--engine dask reads the sources (--src) beside line files only, not data files")
    from nlpeval.metrics.registry import text_entry

    never = [name for name in metrics if text_entry(name).references == "none"]
    if never and options.ref:
        raise UsageError(f"{never[0]} scores without references: with --engine dask leave out -r")
    if data and options.ref:
        raise UsageError("--engine dask takes the references of data files from a column: use --ref-col, not -r")
    every = options.partition_lines or dask_inputs.DEFAULT_LINES
    if every < 1:
        raise UsageError("--partition-lines must be at least 1")
    paired_n = (options.paired_n or 1000) if options.paired_bs else 0
    # one set of resamples serves both: resample r's weights do not depend on how many are drawn
    keywords: dict[str, Any] = {"n_resamples": max(options.bootstrap, paired_n), "seed": options.seed}
    if getattr(options, "error_spans", False):
        keywords["error_spans"] = True  # xCOMET's spans, merged in segment order
    systems, partials, covered = [], {}, {}
    with _client(options) as (client, provenance):
        if data:
            columns = dask_inputs.DataColumns(options.hyp_col, tuple(options.ref_col), options.id_col,
                                              options.system_col)  # fmt: skip
            keywords |= {"ref": "ref", "loc": "loc", "id": "id" if options.id_col else None,
                         "by": "sys" if options.system_col else None}  # fmt: skip
            paths = expand_paths(options.systems)
            # one input per file, or every file at once when a column names the systems
            groups = [paths] if options.system_col else [[path] for path in paths]
            inputs = [(group[0], functools.partial(dask_inputs.data_input, client, group, columns, every), None)
                      for group in groups]  # fmt: skip
        else:
            src = _sources(options, metrics)
            if src is not None:  # dict rows: the sources travel with their segments
                keywords |= {"hyp": "hyp", "ref": "ref", "src": "src"}
            inputs = [(path, functools.partial(dask_inputs.text_input, client, path, options.ref, every, src), path)
                      for path in options.systems]  # fmt: skip
        check_ids = bool(data and options.id_col)
        for name, build, line_file in inputs:
            try:
                lazy = nlpeval.dask.partials(build(), metrics, **keywords, check_ids=check_ids)
                result = _compute(client, lazy)
            except ValueError as exc:
                raise dask_inputs.locate(exc, line_file or "", options.ref if line_file else [], every,
                                         getattr(options, "src", None)) from None  # fmt: skip
            grouped = result if options.system_col else {name: result}
            for system, by_name in grouped.items():
                if str(system) in partials:
                    raise UsageError(f"system {str(system)!r} appears in more than one file")
                by_name = dict(by_name)
                fingerprint = by_name.pop(IDS_KEY, None)
                if fingerprint is not None:
                    covered[str(system)] = dask_inputs.Covered(fingerprint, build, system if options.system_col
                                                               else None)  # fmt: skip
                by_name, spans = split_spans(by_name)
                scores = {m: _resamples(p, options.bootstrap).score() for m, p in by_name.items()}
                scores |= {m: replace(scores[m], error_spans=run.spans) for m, run in spans.items()}
                systems.append(SystemScores(str(system), scores))
                partials[str(system)] = by_name
        if covered:
            dask_inputs.check_ids(client, covered)
        provenance["workers"] = len(client.scheduler_info().get("workers", {}))
    if data and not options.id_col:
        _same_counts(partials)
    if options.paired_bs:
        paired_tests(systems, list(partials.values()), paired_n, options.seed)
    partials = {s: {m: _resamples(p, options.bootstrap) for m, p in d.items()} for s, d in partials.items()}
    if options.save_partial:
        if not options.id_col:
            # resamples keyed by row numbers of this input would collide with another job's: keep totals only
            from dataclasses import replace

            partials = {s: {m: replace(p, boot=None, seed=None) for m, p in d.items()} for s, d in partials.items()}
        save_partials(options.save_partial, partials)
    return systems, provenance


def _sources(options: argparse.Namespace, metrics: dict[str, Any]) -> str | None:
    """The ``--src`` file when a metric reads the sources (COMET, MetricX), else None."""
    from nlpeval.neural.worker import reads_sources

    src = getattr(options, "src", None)
    if src and any(reads_sources(metric) for metric in metrics.values()):
        if src == "-":
            raise UsageError("--engine dask reads files, not stdin ('-')")
        return str(src)
    return None


def _same_counts(partials: dict[str, dict[str, Any]]) -> None:
    """Data-file systems without ids must have as many rows as the first (the single-machine rule)."""
    counts = {name: next(iter(by_name.values())).n_segments for name, by_name in partials.items()}
    (first, n_first), *others = counts.items()
    for name, n in others:
        if n != n_first:
            raise UsageError(
                f"segment counts differ: {first} has {n_first}, {name} has {n} rows (give --id-col to align rows by id)"
            )


def _resamples(partial: Any, n: int) -> Any:
    """``partial`` carrying its first ``n`` resamples (none for 0)."""
    from dataclasses import replace

    if partial.boot is None or partial.boot.shape[0] == n:
        return partial
    if n == 0:
        return replace(partial, boot=None, seed=None)
    return replace(partial, boot=partial.boot[:n])


def paired_tests(systems: list[Any], partials: list[dict[str, Any]], n_resamples: int, seed: int) -> None:
    """Keyed Poisson paired bootstrap of every system against the first (``--paired-bs`` on Dask):
    set each system's ``p_values``, and mark each score's signature as the single-machine path does."""
    from nlpeval.significance.poisson import paired_poisson_from_totals

    if len(systems) < 2:
        raise UsageError("paired tests need at least two systems; the first is the baseline")
    baseline = partials[0]
    counts = {name: by_name[next(iter(by_name))].n_segments for name, by_name in zip(
        [s.name for s in systems], partials, strict=True)}  # fmt: skip
    if len(set(counts.values())) > 1:
        detail = ", ".join(f"{name} has {n}" for name, n in counts.items())
        raise UsageError(f"segment counts differ: {detail} segments (a paired test needs the same segments)")
    for system, by_name in zip(systems[1:], partials[1:], strict=True):
        for name, partial in by_name.items():
            base, other = _resamples(baseline[name], n_resamples), _resamples(partial, n_resamples)
            result = paired_poisson_from_totals(
                partial.metric, (base.totals, base.boot), (other.totals, other.boot), seed=seed
            )
            system.p_values[name] = result.p_value
            system.tests[name] = result
    mark_paired(systems, n_resamples, seed)


def mark_paired(systems: list[Any], n_resamples: int, seed: int) -> None:
    """Record a keyed Poisson paired test in every score's signature (``ci:poisson|bs:N|rs:SEED``, as
    sacreBLEU records its paired bootstrap), unless the score already carries its own interval's fields."""
    from dataclasses import replace

    from nlpeval.core.signature import Signature

    for system in systems:
        for name, score in system.scores.items():
            if score.ci is None:
                signature = Signature(tuple(tuple(part.split(":", 1)) for part in score.signature.split("|")))
                marked = signature.with_fields(ci="poisson", bs=n_resamples, rs=seed)
                system.scores[name] = replace(score, signature=str(marked))


def save_partials(pattern: str, partials: dict[str, dict[str, Any]]) -> None:
    """Write ``{system: {metric: Partial}}`` to ``pattern`` (``{metric}``/``{system}`` placeholders)."""
    from nlpeval.cli.written import announce

    n_metrics = len(next(iter(partials.values())))
    if n_metrics > 1 and "{metric}" not in pattern:
        raise UsageError("--save-partial needs {metric} in the path when several metrics are scored")
    if len(partials) > 1 and "{system}" not in pattern:
        raise UsageError("--save-partial needs {system} in the path when several systems are scored")
    for system, by_name in partials.items():
        for metric, partial in by_name.items():
            safe = os.path.basename(system).replace(os.sep, "_")
            path = pattern.replace("{metric}", metric).replace("{system}", safe)
            partial.save(path)
            announce(path)


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
    import json

    from nlpeval.cli.formats import to_json

    payload = json.loads(text)
    payload["provenance"] = provenance
    return to_json(payload)
