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
    from nlpeval.cli.datafiles import SystemInput

TOKENIZER_CHOICES = ("13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200")


def _int_or_float(text: str) -> float:
    """An option value that stays an int when written as one (``2``, not ``2.0``, in signatures)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def add_parser(subparsers: Any) -> None:
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
    parser.add_argument("-m", "--metrics", default="bleu", help="comma-separated metrics, e.g. bleu,chrf,ter")
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
    bleu = parser.add_argument_group("BLEU options")
    bleu.add_argument("--tokenize", "-tok", choices=TOKENIZER_CHOICES, default=None, help="tokenizer (default 13a)")
    bleu.add_argument("--lowercase", "-lc", action="store_true", help="case-insensitive scoring")
    bleu.add_argument(
        "--smooth",
        default="exp",
        choices=("exp", "floor", "add-k", "none", *(f"method{i}" for i in range(8))),
        help="sacrebleu: exp (default), floor, add-k, none; nltk: method0 (default) to method7; "
        "hf: add-k (add-one) or none (default)",
    )
    bleu.add_argument("--smooth-value", type=float, default=None)
    bleu.add_argument("--max-order", type=int, default=4)
    bleu.add_argument("--effective-order", action="store_true")
    bleu.add_argument(
        "--bleu-flavor",
        default="sacrebleu",
        choices=("sacrebleu", "nltk", "hf"),
        help="sacrebleu (default), nltk (NLTK corpus_bleu, whitespace tokens) or hf (HF evaluate / Google NMT)",
    )
    bleu.add_argument(
        "--bleu-weights",
        type=_weights,
        default=None,
        metavar="W1,W2,...",
        help="n-gram weights for --bleu-flavor nltk, e.g. 0.5,0.5",
    )
    bleu.add_argument("--auto-reweigh", action="store_true", help="NLTK's auto_reweigh (--bleu-flavor nltk)")
    bleu.add_argument("--spm-model", metavar="PATH", help="local SentencePiece model for spm/flores tokenizers")
    rouge = parser.add_argument_group("ROUGE options (rouge1..9, rougeL, rougeLsum, rougeW-1.2, rougeS4, rougeSU4)")
    rouge.add_argument("--stemmer", action="store_true", help="Porter stemming (ROUGE-1.5.5 -m for rouge155)")
    rouge.add_argument(
        "--rouge-flavor",
        default="default",
        choices=("default", "rouge-score", "rouge155"),
        help="default (rouge-score's numbers, Unicode-aware tokens), rouge-score, or rouge155 (Perl ROUGE-1.5.5)",
    )
    rouge.add_argument(
        "--rouge-multi-ref",
        default=None,
        choices=("max", "average", "best"),
        help="combine references: max F (rouge-score), average (-f A) or best (-f B)",
    )
    rouge.add_argument("--rouge-alpha", type=float, default=0.5, help="F = PR/((1-a)P + aR) (ROUGE-1.5.5 -p)")
    rouge.add_argument("--rouge-aggregate", default="macro", choices=("macro", "micro"), help="corpus average")
    rouge.add_argument("--remove-stopwords", action="store_true", help="rouge155: drop its stopwords (-s)")
    rouge.add_argument("--word-limit", type=int, default=None, metavar="N", help="rouge155: first N words (-l)")
    rouge.add_argument("--byte-limit", type=int, default=None, metavar="N", help="rouge155: first N bytes (-b)")
    rouge.add_argument(
        "--rouge-data-dir",
        default=None,
        metavar="DIR",
        help="rouge155: ROUGE-1.5.5's data directory (-e; default $NLPEVAL_ROUGE_DATA)",
    )
    rouge.add_argument(
        "--sentence-splitter",
        default="newline",
        choices=("newline", "simple", "nltk"),
        help="sentences for rougeLsum (one line is one segment, so 'newline' makes Lsum equal L)",
    )
    from nlpeval.cli.align import add_normalization_options

    add_normalization_options(
        parser.add_argument_group("WER/CER/MER/WIL/WIP options (--lowercase applies too)"), lowercase=False
    )
    chrf = parser.add_argument_group("chrF options (--lowercase applies too)")
    chrf.add_argument("--chrf-char-order", type=int, default=6, metavar="N", help="character n-gram order (default 6)")
    chrf.add_argument(
        "--chrf-word-order",
        type=int,
        default=None,
        metavar="N",
        help="word n-gram order (default 0 for chrf, 2 for chrf++)",
    )
    chrf.add_argument("--chrf-beta", type=_int_or_float, default=2, metavar="BETA", help="recall weight (default 2)")
    chrf.add_argument("--chrf-whitespace", action="store_true", help="keep whitespace in character n-grams")
    chrf.add_argument("--chrf-eps-smoothing", action="store_true", help="chrF++.py epsilon smoothing")
    ter = parser.add_argument_group("TER options (the Tercom tokenizer; TER lowercases unless --ter-case-sensitive)")
    ter.add_argument("--ter-normalized", action="store_true", help="split punctuation, decode XML entities")
    ter.add_argument("--ter-no-punct", action="store_true", help="remove punctuation")
    ter.add_argument(
        "--ter-asian-support", action="store_true", help="extend --ter-normalized/--ter-no-punct to CJK text"
    )
    ter.add_argument("--ter-case-sensitive", action="store_true", help="do not lowercase")
    ter.add_argument(
        "--ter-max-cells",
        type=int,
        metavar="N",
        help="refuse a pair whose word counts multiply to more than N (default 10 billion; bounds the shift search)",
    )
    meteor = parser.add_argument_group("METEOR options (--lowercase is METEOR 1.5's -lower)")
    meteor.add_argument("--meteor-flavor", default="meteor1.5", choices=("meteor1.5", "nltk"))
    meteor.add_argument(
        "--meteor-modules",
        metavar="MODS",
        help="meteor1.5 matchers in order, e.g. exact,stem (default exact,stem,synonym,paraphrase)",
    )
    meteor.add_argument("--meteor-norm", action="store_true", help="meteor1.5: tokenize and lowercase (-norm)")
    meteor.add_argument("--meteor-no-punct", action="store_true", help="meteor1.5: drop punctuation (-noPunct)")
    meteor.add_argument(
        "--meteor-task", default="default", choices=("default", "rank", "adq", "hter", "li", "tune"), help="(-t)"
    )
    meteor.add_argument("--meteor-params", metavar="'A B G D'", help="alpha beta gamma delta (-p; nltk: A B G)")
    meteor.add_argument("--meteor-weights", metavar="'W1 W2 ..'", help="module weights, one per module (-w)")
    meteor.add_argument("--meteor-beam", type=int, default=40, metavar="N", help="alignment beam size (-x)")
    meteor.add_argument(
        "--meteor-max-candidates",
        type=int,
        metavar="N",
        help="meteor1.5: refuse a pair with more candidate matches than N (default 100 million; bounds the search)",
    )
    meteor.add_argument("--wordnet", metavar="PATH", help="WordNet 3.0 dict folder or wordnet.zip")
    meteor.add_argument("--meteor-paraphrases", metavar="PATH", help="METEOR 1.5 paraphrase table (paraphrase-en.gz)")
    from nlpeval.cli.engine import add_engine_options

    add_engine_options(parser)
    parser.set_defaults(run=run)


def _weights(text: str) -> tuple[float, ...]:
    """``--bleu-weights``: comma-separated numbers."""
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, e.g. 0.5,0.5; got {text!r}") from None


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


def score_system(system: str, refs: list[str], metrics: dict[str, Any], options: argparse.Namespace) -> dict:
    """Stream one system file and its references through every metric; return name -> Accumulator."""
    from nlpeval.cli.io import open_segments
    from nlpeval.core.errors import InputError

    keep_rows = _keeps_rows(options)
    accumulators = {name: metric.accumulator(keep_segments=keep_rows) for name, metric in metrics.items()}
    progress = _progress(system)
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
            references = [list(seg) for seg in zip(*ref_chunks, strict=True)]
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
    return accumulators


def score_system_input(
    system: SystemInput, refs: list[str], metrics: dict[str, Any], options: argparse.Namespace
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
                own = len(system.references[index]) if system.references else 0
                if exc.side == "references" and refs and (exc.reference or 0) >= own:
                    path = refs[(exc.reference or 0) - own]
                    raise UsageError(f"{'<stdin>' if path == '-' else path}:{index + 1}: {exc.message}") from None
                raise UsageError(f"{system.where[index]}: {exc.message}") from None
    return accumulators


def finish(accumulators: dict[str, Any], options: argparse.Namespace, ids: list[str] | None = None) -> dict:
    """Scores (name -> Score) of one system's accumulators (``ids`` key the Poisson bootstrap)."""
    results = {}
    for name, accumulator in accumulators.items():
        if options.bootstrap > 0 or options.segments or getattr(accumulator, "keep_segments", False):
            # rows kept for a paired test give per-segment values only with --segments
            results[name] = accumulator.metric.score_from_stats(
                accumulator.stats(),
                segments=options.segments,
                n_bootstrap=options.bootstrap,
                seed=options.seed,
                resampling=options.resampling,
                ids=ids if options.resampling == "poisson" else None,
            )
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
    from nlpeval.cli.registry import resolve

    if options.chunk_size < 1:
        raise UsageError("--chunk-size must be at least 1")
    if sum(path == "-" for path in [*options.systems, *(options.ref or [])]) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    from nlpeval.cli.dataoptions import check_data_options

    check_data_options(options)
    names = metric_list(options.metrics)
    if not names:
        raise UsageError("no metric given to -m")
    entries = {name: resolve(name) for name in names}
    from nlpeval.cli.fastscore import fast_metrics

    # corpus BLEU/chrF of line files: native totals and no NumPy (see cli/fastscore.py)
    metrics = fast_metrics(names, options)
    if metrics is None:
        metrics = {name: entry.build(name, options) for name, entry in entries.items()}
    if (options.paired_bs or options.paired_ar) and len(options.systems) < 2 and options.system_col is None:
        raise UsageError("paired tests need at least two systems; the first is the baseline")
    from nlpeval.cli import engine

    if not options.ref and not options.ref_col:
        raise UsageError("no references: give -r/--ref REF (line files) or --ref-col COL (data files)")
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
            accumulated = [score_system_input(system, options.ref, metrics, options) for system in inputs]
        else:
            labels = list(options.systems)
            accumulated = [score_system(path, options.ref, metrics, options) for path in options.systems]
        if (options.paired_bs or options.paired_ar) and len(accumulated) < 2:
            raise UsageError("paired tests need at least two systems; the first is the baseline")
        systems = [
            SystemScores(label, finish(acc, options, ids))
            for label, acc, ids in zip(labels, accumulated, keys, strict=True)
        ]
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
        labels={name: entry.label if name == entry.label.lower() else name for name, entry in entries.items()},
        scales={name: entry.scale for name, entry in entries.items()},
        systems=systems,
        paired=paired_info(options),
    )
    text = render(table, options.format, segments=options.segments)
    emit(engine.with_provenance(text, options.format, provenance), options.output)
    return 0
