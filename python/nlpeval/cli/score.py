"""``nlpeval score``: corpus (and segment) scores of systems against references, streamed in chunks."""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING, Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError
from nlpeval.cli.formats import FORMATS
from nlpeval.cli.io import DEFAULT_CHUNK

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from nlpeval.cli.datafiles import SystemInput
    from nlpeval.metrics.registry import MetricEntry


def add_parser(subparsers: Any, among: Collection[MetricEntry] | None = None) -> None:
    """Add ``score``'s parser: with every metric's flags, or (``among``) only those of the families of these
    entries, the parser :func:`nlpeval.cli.main.parse_arguments` tries first."""
    parser = subparsers.add_parser(
        "score",
        help="score systems against references",
        description="Score one or more system files against one or more reference files "
        "(one segment per line, UTF-8; '-' reads stdin). Several -r files are several references. "
        "With --hyp-col the system files are JSONL, CSV/TSV or Parquet data files.",
    )
    parser.add_argument("systems", nargs="+", metavar="SYS", help="system output file(s)")
    parser.add_argument(
        "-r",
        "--ref",
        action="append",
        default=[],
        metavar="REF",
        help="reference file (repeat for several references); with data files, --ref-col instead",
    )
    parser.add_argument(
        "-m",
        "--metrics",
        default="bleu",
        help="comma-separated metrics, e.g. bleu,chrf,ter (default bleu; 'nlpeval metrics' lists them)",
    )
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--segments", action="store_true", help="also report per-segment scores")
    parser.add_argument(
        "--bootstrap",
        type=argtypes.resamples,
        default=0,
        metavar="N",
        help="add a 95%% bootstrap confidence interval from N resamples",
    )
    parser.add_argument(
        "--seed", type=argtypes.seed, default=12345, help="seed of bootstrap and paired tests (default 12345)"
    )
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument(
        "--paired-bs",
        action="store_true",
        help="paired bootstrap test of every system against the first (the baseline)",
    )
    paired.add_argument(
        "--paired-ar",
        action="store_true",
        help="paired approximate randomization test of every system against the first",
    )
    parser.add_argument(
        "--paired-n",
        type=argtypes.count(2),
        default=0,
        metavar="N",
        help="resamples (bootstrap, default 1000) or trials (randomization, default 10000)",
    )
    parser.add_argument(
        "--chunk-size",
        type=argtypes.count(1),
        default=DEFAULT_CHUNK,
        metavar="LINES",
        help="lines read at a time; memory is bounded by this, not the file size",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    from nlpeval.cli.dataoptions import add_data_options

    add_data_options(parser)
    from nlpeval.cli.metric_options import add_metric_options

    add_metric_options(parser, among)  # the metrics' options, declared in nlpeval.metrics.entries
    from nlpeval.cli.sources import add_arguments

    add_arguments(parser, listed=among is None)  # --src, --cache (neural metrics)
    from nlpeval.cli.engine import add_engine_options

    add_engine_options(parser)
    parser.set_defaults(run=run)


def named_metrics(argv: Sequence[str]) -> list[str]:
    """The metric names ``-m``/``--metrics`` gives in ``argv`` (the last one given; ``bleu`` without one), read
    without parsing: :func:`nlpeval.cli.main.parse_arguments` builds the flags of these metrics first.

    Examples
    --------
    >>> named_metrics(["score", "-m", "bleu, chrf", "-r", "ref.txt", "sys.txt"]), named_metrics(["score", "s"])
    (['bleu', 'chrf'], ['bleu'])
    >>> named_metrics(["score", "--metrics=ter", "-m", "chrf++", "s"])
    ['chrf++']
    """
    from nlpeval.cli.formats import metric_list

    text = "bleu"
    for at, token in enumerate(argv):
        if token in ("-m", "--metrics") and at + 1 < len(argv):
            text = argv[at + 1]
        elif token.startswith("--metrics="):
            text = token.partition("=")[2]
    return list(metric_list(text))


def trial_entries(names: Sequence[str]) -> list[MetricEntry] | None:
    """The registry entries of ``names`` when each is a text metric found without reading every entry module
    (:func:`nlpeval.metrics.registry.find`), else None."""
    from nlpeval.metrics.registry import find

    entries = [find(name) for name in names]
    if not entries or any(entry is None or entry.inputs != "text" for entry in entries):
        return None
    return [entry for entry in entries if entry is not None]


def _progress(total_hint: str) -> Any:
    """A progress bar on a terminal, nothing when stderr is piped or with --quiet."""
    from nlpeval.core.progress import progress_bar

    return progress_bar(desc=total_hint, unit=" lines")


def _locate(error: Exception, system: str, refs: list[str], offset: int) -> UsageError:
    """Turn an InputError about a chunk into ``file:line: message``."""
    from nlpeval.core.errors import InputError

    if not isinstance(error, InputError) or error.segment is None:
        return UsageError(str(error))
    line = offset + error.segment + 1
    path = refs[error.reference or 0] if error.side == "references" else system
    return UsageError(f"{'<stdin>' if path == '-' else path}:{line}: {error.message}")


def _keeps_rows(options: argparse.Namespace) -> bool:
    """Per-segment rows are needed for segment scores, bootstrap intervals and paired tests."""
    return options.segments or options.bootstrap > 0 or options.paired_bs or options.paired_ar


def score_system(
    system: str, refs: list[str], metrics: dict[str, Any], options: argparse.Namespace, neural: Any = None
) -> dict:
    """Stream one system file and its references through every metric; return name -> Accumulator.

    ``neural`` (:class:`~nlpeval.cli.sources.WholeScoring`) scores the metrics that need a model or the sources
    on the whole system once it is read."""
    from nlpeval.cli.io import open_segments
    from nlpeval.core.errors import InputError

    keep_rows = _keeps_rows(options)
    accumulators = {name: metric.accumulator(keep_segments=keep_rows) for name, metric in metrics.items()}
    progress = _progress(system)
    whole_hyps: list[str] = []
    whole_refs: list[list[str]] = []
    with contextlib.ExitStack() as stack:
        sys_file = stack.enter_context(open_segments(system))
        ref_files = [stack.enter_context(open_segments(path)) for path in refs]
        offset = 0
        while True:
            hyps = sys_file.read_chunk(options.chunk_size)
            ref_chunks = [ref_file.read_chunk(options.chunk_size) for ref_file in ref_files]
            if any(len(chunk) != len(hyps) for chunk in ref_chunks):
                counts = [f.count_rest() for f in (sys_file, *ref_files)]
                names = [f.name for f in (sys_file, *ref_files)]
                detail = ", ".join(f"{name} has {count}" for name, count in zip(names, counts, strict=True))
                raise UsageError(f"segment counts differ: {detail} lines")
            if not hyps:
                break
            references = [list(seg) for seg in zip(*ref_chunks, strict=True)] or [[] for _ in hyps]
            if neural is not None:
                whole_hyps.extend(hyps)
                whole_refs.extend(references)
            for accumulator in accumulators.values():
                try:
                    accumulator.update(hyps, references)
                except InputError as exc:
                    raise _locate(exc, system, refs, offset) from None
            offset += len(hyps)
            progress.update(len(hyps))
    progress.close()
    if offset == 0:
        raise UsageError(f"{sys_file.name} is empty: there is nothing to score")
    if neural is not None:
        keep = _keeps_rows(options)
        locate = lambda exc: _locate(exc, system, refs, 0)  # noqa: E731
        accumulators.update(neural.score(sys_file.name, whole_hyps, whole_refs, keep, locate))
    return accumulators


def score_system_input(
    system: SystemInput, refs: list[str], metrics: dict[str, Any], options: argparse.Namespace, neural: Any = None
) -> dict:
    """Like :func:`score_system` for a system read from data files (``--hyp-col``); return name -> Accumulator."""
    from nlpeval.cli.io import read_all
    from nlpeval.core.errors import InputError

    references = system.references
    if refs:
        columns = [read_all(path) for path in refs]
        counts = {len(column) for column in columns}
        if counts != {len(system.hypotheses)}:
            detail = ", ".join(f"{path} has {len(c)}" for path, c in zip(refs, columns, strict=True))
            raise UsageError(f"segment counts differ: {system.name} has {len(system.hypotheses)} rows, {detail} lines")
        own = system.references or [[] for _ in system.hypotheses]
        references = [[*mine, *seg] for mine, seg in zip(own, zip(*columns, strict=True), strict=True)]
    keep_rows = _keeps_rows(options)
    accumulators = {name: metric.accumulator(keep_segments=keep_rows) for name, metric in metrics.items()}
    for start in range(0, len(system.hypotheses), options.chunk_size):
        stop = start + options.chunk_size
        for accumulator in accumulators.values():
            try:
                accumulator.update(system.hypotheses[start:stop], references[start:stop])
            except InputError as exc:
                if exc.segment is None:
                    raise
                index = start + exc.segment
                own_count = len(system.references[index]) if system.references else 0
                if exc.side == "references" and refs and (exc.reference or 0) >= own_count:
                    path = refs[(exc.reference or 0) - own_count]
                    raise UsageError(f"{'<stdin>' if path == '-' else path}:{index + 1}: {exc.message}") from None
                raise UsageError(f"{system.where[index]}: {exc.message}") from None
    if neural is not None:

        def locate(exc: Exception) -> UsageError:
            segment = getattr(exc, "segment", None)
            return UsageError(f"{system.where[segment]}: {exc}" if segment is not None else str(exc))

        accumulators.update(neural.score(system.name, system.hypotheses, references, keep_rows, locate))
    return accumulators


def finish(accumulators: dict[str, Any], options: argparse.Namespace, ids: list[str] | None = None) -> dict:
    """Scores (name -> Score) of one system's accumulators (``ids`` key the Poisson bootstrap)."""
    results = {}
    for name, accumulator in accumulators.items():
        if options.bootstrap > 0 or options.segments:
            results[name] = accumulator.metric.score_from_stats(
                accumulator.stats(),
                segments=options.segments,
                n_bootstrap=options.bootstrap,
                seed=options.seed,
                resampling=options.resampling,
                ids=ids if options.resampling == "poisson" else None,
            )
        elif options.paired_bs or options.paired_ar:  # rows kept for the test: no per-segment values unasked
            results[name] = accumulator.metric.score_from_stats(accumulator.stats())
        else:
            results[name] = accumulator.compute()
    return results


def paired_p_values(
    baseline: dict[str, Any], system: dict[str, Any], options: argparse.Namespace, ids: list[str] | None = None
) -> dict:
    """The paired test (:class:`~nlpeval.significance.paired.PairedTestResult`) per metric of ``system``
    against ``baseline`` (``--paired-bs`` / ``--paired-ar``)."""
    from nlpeval.significance.paired import approximate_randomization, paired_bootstrap

    p_values = {}
    for name, accumulator in system.items():
        metric = accumulator.metric
        base_stats, sys_stats = baseline[name].stats(), accumulator.stats()
        if options.paired_bs and options.resampling == "poisson":
            from nlpeval.significance.poisson import paired_poisson

            result = paired_poisson(
                metric, base_stats, sys_stats, ids=ids, n_resamples=options.paired_n or 1000, seed=options.seed
            )
        elif options.paired_bs:
            result = paired_bootstrap(
                metric, base_stats, sys_stats, n_resamples=options.paired_n or 1000, seed=options.seed
            )
        else:
            result = approximate_randomization(
                metric, base_stats, sys_stats, n_trials=options.paired_n or 10000, seed=options.seed
            )
        p_values[name] = result
    return p_values


def paired_info(options: argparse.Namespace) -> Any:
    """What the paired tests ran (for the output), or None without ``--paired-bs``/``--paired-ar``."""
    from nlpeval.cli.formats import PairedInfo

    if options.paired_bs:
        test = "paired bootstrap" + (" (keyed Poisson)" if options.resampling == "poisson" else "")
        return PairedInfo(test, options.paired_n or 1000, options.seed)
    if options.paired_ar:
        return PairedInfo("approximate randomization", options.paired_n or 10000, options.seed)
    return None


def mark_paired_signatures(systems: list[Any], options: argparse.Namespace) -> None:
    """Record the paired test in every score's signature: ``pt:bs|pn:1000|rs:SEED`` (``pt:ar`` for
    approximate randomization); the keyed Poisson bootstrap keeps its own ``ci:poisson|bs:N|rs:SEED``."""
    from dataclasses import replace

    from nlpeval.core.signature import Signature

    info = paired_info(options)
    for system in systems:
        for name, score in system.scores.items():
            signature = Signature(tuple(tuple(part.split(":", 1)) for part in score.signature.split("|")))
            marked = signature.with_fields(pt="bs" if options.paired_bs else "ar", pn=info.n, rs=options.seed)
            system.scores[name] = replace(score, signature=str(marked))


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.formats import ScoreTable, SystemScores, metric_list, render
    from nlpeval.cli.io import emit
    from nlpeval.cli.metric_options import entry_options
    from nlpeval.metrics.registry import text_entry

    if options.chunk_size < 1:
        raise UsageError("--chunk-size must be at least 1")
    if sum(path == "-" for path in [*options.systems, *(options.ref or [])]) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    from nlpeval.cli.dataoptions import check_data_options

    check_data_options(options)
    names = metric_list(options.metrics)
    if not names:
        raise UsageError("no metric given to -m")
    entries = {name: text_entry(name) for name in names}
    from nlpeval.cli import engine

    whole = [name for name, entry in entries.items() if not entry.decomposes]
    if whole and (options.save_partial or engine.wants_dask(options)):
        raise UsageError(
            f"{whole[0]} does not decompose into mergeable statistics: it cannot be scored in pieces "
            "(--engine dask, --save-partial); score it on one machine"
        )
    from nlpeval.cli.fastscore import fast_metrics

    # corpus BLEU/chrF of line files: native totals and no NumPy (see cli/fastscore.py)
    metrics = fast_metrics(names, options)
    if metrics is None:
        metrics = {name: entry.build(name, entry_options(entry, options)) for name, entry in entries.items()}
    if (options.paired_bs or options.paired_ar) and len(options.systems) < 2 and options.system_col is None:
        raise UsageError("paired tests need at least two systems; the first is the baseline")
    from nlpeval.cli import sources

    sources.check(options, entries)
    reference_free = all(sources.reference_free(name) for name in names)
    if not options.ref and not options.ref_col and not reference_free:
        raise UsageError("no references: give -r/--ref REF (line files) or --ref-col COL (data files)")
    streamed, modelled = sources.split(metrics, entries)
    sources.check_spans(options, metrics)
    scoring = sources.WholeScoring(modelled, entries, options) if modelled else None
    provenance = None
    if engine.wants_dask(options):
        systems, provenance = engine.score_dask(options, metrics)
    else:
        keys: list[Any] = [None] * len(options.systems)
        if options.hyp_col is not None:
            from nlpeval.cli.datafiles import read_systems

            inputs = read_systems(
                options.systems,
                hyp_col=options.hyp_col,
                ref_cols=options.ref_col,
                id_col=options.id_col,
                system_col=options.system_col,
            )
            labels = [system.name for system in inputs]
            keys = [system.ids for system in inputs]
            accumulated = [score_system_input(system, options.ref, streamed, options, scoring) for system in inputs]
        else:
            labels = list(options.systems)
            if scoring is not None:
                scoring.look_ahead(options.systems, options.ref or [])
            accumulated = [score_system(path, options.ref, streamed, options, scoring) for path in options.systems]
        if (options.paired_bs or options.paired_ar) and len(accumulated) < 2:
            raise UsageError("paired tests need at least two systems; the first is the baseline")
        systems = [
            SystemScores(label, finish(acc, options, ids))
            for label, acc, ids in zip(labels, accumulated, keys, strict=True)
        ]
        if scoring is not None:
            scoring.attach(systems)
        if options.paired_bs or options.paired_ar:
            for system, acc in zip(systems[1:], accumulated[1:], strict=True):
                system.tests = paired_p_values(accumulated[0], acc, options, keys[0])
                system.p_values = {name: test.p_value for name, test in system.tests.items()}
            if options.paired_bs and options.resampling == "poisson":
                engine.mark_paired(systems, options.paired_n or 1000, options.seed)
            else:
                mark_paired_signatures(systems, options)
        if options.save_partial:
            engine.save_partials(options.save_partial, engine.local_partials(accumulated, labels))
    table = ScoreTable(
        metrics=names,
        labels={name: entry.display(name) for name, entry in entries.items()},
        scales={name: entry.scale for name, entry in entries.items()},
        systems=systems,
        paired=paired_info(options),
    )
    text = render(table, options.format, segments=options.segments)
    emit(engine.with_provenance(text, options.format, provenance), options.output)
    return 0
