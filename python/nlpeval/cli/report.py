"""``nlpeval report``: the system-comparison report (HTML, Markdown, text, JSON or LaTeX)."""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError

FORMATS = ("html", "markdown", "text", "json", "latex")


#: ``-m`` when not given
METRICS = "bleu,chrf,ter"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare systems: leaderboard with significance, buckets, n-grams, examples (one HTML page)",
        description="Compare system outputs on the same test set (one segment per line, UTF-8). The format "
        "follows the -o suffix (.html, .md, .txt, .json, .tex) unless --format is given.",
    )
    parser.add_argument("systems", nargs="*", metavar="SYS", help="system output files (the first is the baseline)")
    parser.add_argument("-r", "--ref", action="append", metavar="REF", help="reference (repeatable)")
    parser.add_argument(
        "--task",
        choices=("generation", "classify", "ir", "qa", "mc", "spans"),
        default="generation",
        help="kind of report (spans: sequence labelling by span F1)",
    )
    parser.add_argument("--qrels", metavar="FILE", help="--task ir: TREC qrels (the SYS files are TREC runs)")
    parser.add_argument(
        "--gold",
        metavar="FILE",
        help="--task classify: gold labels, one per line; --task qa: gold answers (a JSON list per line); --task mc: "
        "gold choice indices",
    )
    parser.add_argument("--squad-version", choices=("1.1", "2.0"), default="1.1", help="--task qa: SQuAD script")
    parser.add_argument(
        "--na-probs",
        action="append",
        default=[],
        metavar="FILE",
        help="--task qa (2.0): per SYS file (same order), its no-answer probabilities: one per line, or the official "
        "script's JSON {id: probability} with JSON files (adds best_exact/best_f1 and thresholds)",
    )
    parser.add_argument(
        "--na-threshold", type=float, default=1.0, metavar="T", help="--task qa: no-answer threshold (default 1.0)"
    )
    parser.add_argument(
        "--questions",
        metavar="FILE",
        help="--task qa: question texts, one per line, shown with the examples (the dataset's own with JSON files)",
    )
    parser.add_argument(
        "--choices", metavar="FILE", help="--task mc: choice texts, a JSON list per line (acc_norm, acc_bytes)"
    )
    parser.add_argument(
        "--unconditional",
        action="append",
        default=[],
        metavar="FILE",
        help="--task mc: per SYS file (same order), its choices' log-likelihoods after an empty context, one "
        "question per line (acc_mutual_info)",
    )
    parser.add_argument("--pred", action="append", default=[], metavar="FILE", help="--task classify: predictions")
    parser.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="FILE",
        help="--task classify: per --pred, class scores (one number per line for two classes, or one row per line "
        "with a column per class in sorted label order)",
    )
    parser.add_argument("--src", metavar="SRC", help="source file (copied/untranslated checks, examples)")
    parser.add_argument("-m", "--metrics", default=METRICS, help="metrics of 'nlpeval score -m'")
    parser.add_argument("--baseline", metavar="SYS", help="baseline system (file or name; default the first)")
    parser.add_argument("--labels", metavar="FILE", help="one label per segment (e.g. domain): per-label buckets")
    parser.add_argument("--buckets", choices=("fixed", "quantile"), default="fixed", help="add quantile buckets")
    parser.add_argument(
        "--quantiles",
        default=None,
        metavar="N",
        help="--buckets quantile: N equal-frequency buckets per feature (default 4; fewer when values tie)",
    )
    parser.add_argument("--freq-corpus", metavar="FILE", help="word frequencies from FILE (default: the reference)")
    parser.add_argument(
        "--human",
        metavar="FILE",
        help="human scores (CSV/TSV as 'nlpeval meta --human': system, item, score; or system, score): adds "
        "'Agreement with humans' (SPA, acc_eq, Pearson, PERM-BOTH clusters per metric); higher must be better",
    )
    parser.add_argument("--seed", type=argtypes.seed, default=12345, help="seed of every resampling (default 12345)")
    parser.add_argument(
        "--bootstrap", type=argtypes.resamples, default=1000, metavar="N", help="bootstrap resamples (default 1000)"
    )
    parser.add_argument(
        "--randomization",
        type=argtypes.count(0),
        default=1000,
        metavar="N",
        help="approximate randomization trials (default 1000)",
    )
    parser.add_argument(
        "--max-examples", type=argtypes.count(0), default=None, metavar="N", help="at most N segments of examples"
    )
    parser.add_argument(
        "--top-ngrams", type=argtypes.count(1), default=50, metavar="K", help="salient n-grams per direction"
    )
    parser.add_argument("--preset", choices=("compare-mt",), default=None, help="only compare-mt's default analyses")
    from nlpeval.metrics.entries.bleu import TOKENIZERS  # the registry's choices, as 'nlpeval score' checks them

    parser.add_argument(
        "--tokenize", "-tok", default=None, choices=TOKENIZERS, help="BLEU tokenizer (as 'nlpeval score')"
    )
    parser.add_argument("--lowercase", "-lc", action="store_true", help="case-insensitive metrics")
    from nlpeval.cli.metric_options import metric_option

    parser.add_argument(
        "--metric-option",
        action="append",
        default=[],
        type=metric_option,
        metavar="KEY=VALUE",
        help="any metric option of 'nlpeval score' by name, e.g. chrf_word_order=2 (checked as the flag is)",
    )
    parser.add_argument("--figures", metavar="DIR", help="also draw paper figures (PDF/PNG) into DIR (plot extra)")
    from nlpeval.reports.titles import DEFAULT_TITLE

    parser.add_argument("--title", default=DEFAULT_TITLE, help="report title (each --task has its own default)")
    parser.add_argument("--format", "-f", choices=FORMATS, default=None, help="output format (default from -o)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically)")
    from nlpeval.cli.dataoptions import add_data_options

    add_data_options(parser)
    from nlpeval.cli.sources import add_report_arguments

    add_report_arguments(parser)  # --comet-model, --bertscore-model, --metricx-model... as 'nlpeval score'
    from nlpeval.cli.report_spans import add_arguments as add_span_arguments

    add_span_arguments(parser)  # --conll, the CoNLL reader's options, --span-mode...
    parser.set_defaults(run=run)


def _names(paths: list[str]) -> list[str]:
    """Display names: basenames, the paths when basenames collide, numbered when paths do."""
    names = [os.path.basename(p) or p for p in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def _format(options: argparse.Namespace) -> str:
    if options.format:
        return options.format
    if options.output:
        from nlpeval.reports.render import SUFFIXES

        suffix = os.path.splitext(options.output)[1].lower()
        if suffix in SUFFIXES:
            return SUFFIXES[suffix]
        raise UsageError(f"cannot tell the format from {options.output!r}; give --format")
    return "text"


def _read(path: str, role: str) -> tuple[list[str], Any]:
    from nlpeval.cli.io import read_all
    from nlpeval.reports.model import InputFile

    lines = read_all(path)
    digest = hashlib.sha256()
    if path != "-":
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    else:
        digest.update("\n".join(lines).encode("utf-8"))
    name = "<stdin>" if path == "-" else path
    return lines, InputFile(role, os.path.basename(name), name, len(lines), digest.hexdigest())


def _file_info(path: str, role: str) -> Any:
    """:func:`_read`'s :class:`~nlpeval.reports.model.InputFile` (lines as ``read_all`` counts them, the bytes'
    SHA-256) from one pass over a file's bytes, without decoding its lines."""
    from nlpeval.reports.model import InputFile

    if path == "-":
        return _read(path, role)[1]
    digest = hashlib.sha256()
    newlines, last = 0, b"\n"
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            newlines += block.count(b"\n")
            last = block[-1:]
    lines = newlines + (last != b"\n")
    return InputFile(role, os.path.basename(path), path, lines, digest.hexdigest())


def _sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_data(
    options: argparse.Namespace,
) -> tuple[dict[str, list[str]], dict[str, list[str]], list[list[str]] | None, list[Any]]:
    """Systems from data files (``--hyp-col``): hypotheses and ``file:row`` per system, the references of
    ``--ref-col`` (the same for every system) and the files for the provenance."""
    from nlpeval.cli.datafiles import read_systems
    from nlpeval.reports.model import InputFile

    read = read_systems(
        options.systems,
        hyp_col=options.hyp_col,
        ref_cols=options.ref_col,
        id_col=options.id_col,
        system_col=options.system_col,
    )
    first = read[0]
    references = None
    if options.ref_col:
        references = first.references
        for system in read[1:]:
            for index, (mine, theirs) in enumerate(zip(system.references, references, strict=True)):
                if mine != theirs:
                    raise UsageError(f"{system.where[index]}: the references differ from those at {first.where[index]}")
    systems = {system.name: system.hypotheses for system in read}
    where = {system.name: system.where for system in read}
    inputs = []
    for path in options.systems:
        name = "<stdin>" if path == "-" else path
        rows = sum(1 for system in read for row in system.where if row.rpartition(":")[0] == name)
        if path == "-":
            digest = hashlib.sha256("\n".join(h for system in read for h in system.hypotheses).encode()).hexdigest()
        else:
            digest = _sha256_file(path)
        inputs.append(InputFile("data", os.path.basename(name), name, rows, digest))
    return systems, where, references, inputs


def _step_reporter(bar: Any) -> Callable[[str], None]:
    """The report builder's ``progress`` callback: one bar step per analysis, named after it."""

    def advance(step: str) -> None:
        if hasattr(bar, "set_postfix_str"):  # a tqdm bar; with progress off it is a no-op stand-in
            bar.set_postfix_str(step)
        bar.update(1)

    return advance


def run(options: argparse.Namespace) -> int:
    # the report allocates hundreds of thousands of small records and makes no reference cycles: the
    # cyclic collector would only walk them (and every imported module) again and again, so it pauses
    # while the report is built and written (reference counting still frees everything)
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(options)
    finally:
        if collecting:
            gc.enable()


def _run(options: argparse.Namespace) -> int:
    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError
    from nlpeval.core.progress import progress_bar
    from nlpeval.reports.build import report
    from nlpeval.reports.render import render

    fmt = _format(options)
    if options.human and options.task != "generation":
        raise UsageError(f"--human applies to generation reports, not --task {options.task}")
    if options.task == "spans" or options.conll:
        from nlpeval.cli import report_spans

        return report_spans.run(options, fmt)
    if options.task == "classify":
        return _classify(options, fmt)
    if options.task == "ir":
        return _ir(options, fmt)
    if options.task in ("qa", "mc"):
        from nlpeval.cli import report_qa

        return (report_qa.run_qa if options.task == "qa" else report_qa.run_mc)(options, fmt)
    from nlpeval.cli.dataoptions import check_data_options

    check_data_options(options)
    if options.hyp_col is not None:
        if not options.systems:
            raise UsageError("give at least one data file")
        if not options.ref and not options.ref_col:
            raise UsageError("no references: give -r/--ref REF (line files) or --ref-col COL (data files)")
    elif not options.ref or not options.systems:
        raise UsageError("give at least one -r REF and one system file")
    options.ref = options.ref or []
    if sum(path == "-" for path in [*options.systems, *options.ref]) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    metrics = tuple(m.strip() for m in options.metrics.split(",") if m.strip())
    if not metrics and options.preset is None:
        raise UsageError("no metric given to -m")
    from nlpeval.cli.sources import report_overrides

    overrides: dict[str, Any] = report_overrides(options)
    from nlpeval.cli.report_spans import overrides as span_overrides

    overrides.update(span_overrides(options))  # --span-mode... given
    overrides.update(options.metric_option)  # (name, value) pairs, checked while parsing
    if options.tokenize is not None:
        overrides["tokenize"] = options.tokenize
    if options.lowercase:
        overrides["lowercase"] = True

    references, inputs = [], []
    for path in options.ref:
        lines, info = _read(path, "reference")
        references.append(lines)
        inputs.append(info)
    systems: dict[str, list[str]] = {}
    where: dict[str, list[str]] = {}  # data files: file:row of each system's segments
    data_references: list[list[str]] | None = None
    if options.hyp_col is not None:
        systems, where, data_references, data_inputs = _read_data(options)
        names = list(systems)
        inputs.extend(data_inputs)
        counted = [(i.path, i.lines) for i in inputs if i.role == "reference"]
        counted.append((", ".join(options.systems), len(next(iter(systems.values())))))
    else:
        names = _names(options.systems)
        for name, path in zip(names, options.systems, strict=True):
            lines, info = _read(path, "system")
            if not lines:
                raise UsageError(f"{info.path} is empty: there is nothing to report on")
            systems[name] = lines
            inputs.append(info)
        counted = [(i.path, i.lines) for i in inputs]
    if len({n for _, n in counted}) != 1:
        detail = ", ".join(f"{p} has {n}" for p, n in counted)
        raise UsageError(f"segment counts differ: {detail} lines")
    n_segments = counted[0][1]
    quantiles = _quantiles(options.quantiles, options.buckets, n_segments)
    sources = labels = freq_corpus = None
    if options.src:
        sources, info = _read(options.src, "source")
        inputs.append(info)
        if len(sources) != n_segments:
            raise UsageError(f"{info.path} has {len(sources)} lines, the references {n_segments}")
    if options.labels:
        labels, info = _read(options.labels, "labels")
        inputs.append(info)
        if len(labels) != n_segments:
            raise UsageError(f"{info.path} has {len(labels)} lines, the references {n_segments}")
        labels = [label.strip() for label in labels]
    if options.freq_corpus:
        freq_corpus, info = _read(options.freq_corpus, "freq-corpus")
        inputs.append(info)
    human = _human_file(options.human, systems, n_segments) if options.human else None
    baseline = None
    if options.baseline is not None:
        by_path = dict(zip(options.systems, names, strict=True)) if not where else {}
        baseline = by_path.get(options.baseline, options.baseline)
        if baseline not in systems:
            raise UsageError(f"--baseline {options.baseline!r} is not one of the systems: {', '.join(names)}")
    per_segment = [list(group) for group in zip(*references, strict=True)]
    if data_references is not None:
        per_segment = [
            [*mine, *theirs] for mine, theirs in zip(per_segment or [[]] * n_segments, data_references, strict=True)
        ]
    command = None
    if os.path.basename(sys.argv[0]) in ("nlpeval", "__main__.py"):
        command = shlex.join(["nlpeval", *sys.argv[1:]])
    with progress_bar(total=8, desc="report", unit=" steps") as bar:
        try:
            model = report(
                systems,
                per_segment,
                sources=sources,
                metrics=metrics,
                baseline=baseline,
                labels=labels,
                seed=options.seed,
                n_bootstrap=options.bootstrap,
                n_randomization=options.randomization,
                preset=options.preset,
                buckets=options.buckets,
                quantiles=quantiles,
                freq_corpus=freq_corpus,
                max_examples=options.max_examples,
                top_k=options.top_ngrams,
                metric_options=overrides,
                title=options.title,
                command=command,
                inputs=inputs,
                progress=_step_reporter(bar),
                human=human,
            )
        except InputError as exc:
            if exc.segment is None:
                raise UsageError(exc.message) from None
            if where:
                system = exc.message.split("'")[1] if exc.message.startswith("system '") else names[0]
                rows = where.get(system, where[names[0]])
                raise UsageError(f"{rows[exc.segment]}: {exc.message}") from None
            if exc.side == "references":
                path = options.ref[exc.reference or 0]
            else:
                system = exc.message.split("'")[1] if exc.message.startswith("system '") else names[0]
                path = dict(zip(names, options.systems, strict=True)).get(system, options.systems[0])
            raise UsageError(f"{path}:{exc.segment + 1}: {exc.message}") from None
    emit(render(model, fmt), options.output)
    _figures(model, options)
    return 0


def _human_file(path: str, systems: Mapping[str, Any], n_segments: int) -> Any:
    """``--human``: segment-level (system, item, score; items in order of first appearance are the segments)
    or system-level (system, score) human scores, as ``HumanScores``; errors name the file and line."""
    from nlpeval.cli.correlate import ITEM_NAMES, SCORE_NAMES, SYSTEM_NAMES, _number
    from nlpeval.cli.meta import _human
    from nlpeval.cli.tabular import read_delimited
    from nlpeval.core.errors import InputError
    from nlpeval.reports.analyses.human_agreement import human_scores

    table = read_delimited(path, header_names=[SYSTEM_NAMES], delimiter=None)
    if table.header is None:
        raise UsageError(f"{table.name}:1: expected a CSV/TSV header naming system, item (seg_id) and score columns")
    first_line: dict[str, int] = {}
    scores: dict[str, Any] = {}
    if any(name in ITEM_NAMES for name in table.header):
        segment = _human(path, None)
        if len(segment.items) != n_segments:
            raise UsageError(
                f"{segment.name}: {len(segment.items)} items but the systems have {n_segments} segments "
                "(one item per segment, in order of first appearance)"
            )
        position = {item: j for j, item in enumerate(segment.items)}
        for (system, item), value in segment.values.items():
            first_line.setdefault(system, segment.lines[(system, item)])
            scores.setdefault(system, [None] * n_segments)[position[item]] = value
    else:
        system_col = next(i for i, c in enumerate(table.header) if c in SYSTEM_NAMES)
        others = [i for i in range(len(table.header)) if i != system_col]
        named = [i for i in others if table.header[i] in SCORE_NAMES | {"mqm", "da", "human", "gold", "z", "raw"}]
        if len(named) != 1 and len(others) != 1:
            raise UsageError(f"{table.name}:1: which column holds the human scores? name it 'score'")
        score_col = named[0] if len(named) == 1 else others[0]
        for row in table.rows:
            where = table.where(row.line)
            if len(row.cells) <= max(system_col, score_col):
                raise UsageError(f"{where}: {len(row.cells)} fields, the header has {len(table.header)}")
            system = row.cells[system_col]
            if system in first_line:
                raise UsageError(f"{where}: second row for system {system!r} (first on line {first_line[system]})")
            first_line[system] = row.line
            scores[system] = _number(row.cells[score_col], where, allow_missing=False)
    if not scores:
        raise UsageError(f"{table.name}: no human scores")
    # a human file names systems as `nlpeval meta` does: the report's name, or the file name without extension
    from nlpeval.cli.meta import system_name

    stems = {system_name(name): name for name in systems}
    renamed: dict[str, Any] = {}
    for system, line in first_line.items():
        name = system if system in systems else stems.get(system)
        if name is None:
            raise UsageError(
                f"{table.name}:{line}: system {system!r} has human scores but is not among the report's systems "
                f"({', '.join(systems)})"
            )
        renamed[name] = scores[system]
    try:
        return human_scores(renamed, n_segments, source=table.name)
    except InputError as exc:
        raise UsageError(f"{table.name}: {exc.message}") from None


def _quantiles(text: str | None, buckets: str, n_segments: int) -> int:
    """The ``--quantiles`` count (default 4), checked: an integer from 2 to the number of segments."""
    if text is None:
        if buckets == "quantile" and n_segments < 4:
            raise UsageError(f"--quantiles: the default 4 is more than the {n_segments} segments; give --quantiles N")
        return 4
    if buckets != "quantile":
        raise UsageError("--quantiles needs --buckets quantile")
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"--quantiles: expected an integer from 2 to {n_segments}, got {text!r}") from None
    if not 2 <= value <= n_segments:
        raise UsageError(f"--quantiles: expected an integer from 2 to {n_segments} (the segments), got {value}")
    return value


def _figures(model: Any, options: argparse.Namespace) -> None:
    if options.figures:
        try:
            from nlpeval.reports.figures import write_figures
        except ImportError as exc:  # pragma: no cover - matplotlib is the optional "plot" extra
            raise UsageError(f"--figures needs matplotlib (pip install nlpeval[plot]): {exc}") from None
        from nlpeval.cli.written import announce

        for path in write_figures(model, options.figures):
            announce(path)


def baseline_name(options: argparse.Namespace, names: list[str], what: str = "systems") -> str | None:
    """The name of ``--baseline`` (given as a name or a path of the SYS files), or None when not given."""
    if not options.baseline:
        return None
    matches = [n for n, p in zip(names, options.systems, strict=True) if options.baseline in (n, p)]
    if not matches:
        raise UsageError(f"--baseline {options.baseline!r} is none of the {what}")
    return matches[0]


def command_line() -> str | None:
    """The command as typed, for the provenance (None when nlpeval is not the running program)."""
    if os.path.basename(sys.argv[0]) in ("nlpeval", "__main__.py"):
        return shlex.join(["nlpeval", *sys.argv[1:]])
    return None


def _ir(options: argparse.Namespace, fmt: str) -> int:
    """``--task ir``: runs (the SYS files) against ``--qrels``; ``-m`` takes retrieval measures."""
    from nlpeval.cli import io
    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError
    from nlpeval.ir.native import read_qrels, read_run
    from nlpeval.ir.report import ir_report
    from nlpeval.reports.render import render
    from nlpeval.reports.titles import task_title

    if not options.qrels or not options.systems:
        raise UsageError("--task ir needs --qrels FILE and at least one run file")
    bounded: dict[str, Any] = {"max_line_bytes": io.max_line_bytes, "read_lines": io.read_all}  # '-': stdin
    qrels = read_qrels(options.qrels, **bounded)  # read natively: no dict of the run files is built
    runs, inputs = {}, [_file_info(options.qrels, "qrels")]
    for name, path in zip(_names(options.systems), options.systems, strict=True):
        runs[name] = read_run(path, **bounded)
        inputs.append(_file_info(path, "system"))
    measures = options.metrics if options.metrics != "bleu,chrf,ter" else "map,ndcg@10,P@10,recall@100,recip_rank"
    baseline = baseline_name(options, list(runs), "runs")
    command = command_line()
    try:
        model = ir_report(
            qrels,
            runs,
            measures,
            baseline=baseline,
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            title=task_title(options.title, "Run comparison"),
            command=command,
            inputs=inputs,
        )
    except InputError as exc:
        raise UsageError(exc.message) from None
    emit(render(model, fmt), options.output)
    return 0


def _classify(options: argparse.Namespace, fmt: str) -> int:
    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError
    from nlpeval.reports.build import classification_report
    from nlpeval.reports.render import render
    from nlpeval.reports.titles import task_title

    if not options.gold or not options.pred:
        raise UsageError("--task classify needs --gold FILE and at least one --pred FILE")
    if options.scores and len(options.scores) != len(options.pred):
        raise UsageError("give one --scores file per --pred file")
    gold, info = _read(options.gold, "gold")
    inputs = [info]
    gold = [x.strip() for x in gold]
    for i, label in enumerate(gold):
        if not label:
            raise UsageError(f"{info.path}:{i + 1}: empty label")
    predictions = {}
    names = _names(options.pred)
    for name, path in zip(names, options.pred, strict=True):
        lines, info = _read(path, "system")
        if len(lines) != len(gold):
            raise UsageError(f"{info.path} has {len(lines)} lines, {options.gold} {len(gold)}")
        predictions[name] = [x.strip() for x in lines]
        inputs.append(info)
    scores = None
    if options.scores:
        scores = {}
        for name, path in zip(names, options.scores, strict=True):
            lines, info = _read(path, "scores")
            if len(lines) != len(gold):
                raise UsageError(f"{info.path} has {len(lines)} lines, {options.gold} {len(gold)}")
            rows = []
            for i, line in enumerate(lines):
                try:
                    rows.append([float(x) for x in line.replace(",", " ").split()])
                except ValueError:
                    raise UsageError(f"{info.path}:{i + 1}: not a number") from None
                if len(rows[-1]) != len(rows[0]) or not rows[-1]:
                    raise UsageError(f"{info.path}:{i + 1}: expected {len(rows[0]) or 1} numbers")
            scores[name] = [r[0] for r in rows] if len(rows[0]) == 1 else rows
            inputs.append(info)
    command = None
    if os.path.basename(sys.argv[0]) in ("nlpeval", "__main__.py"):
        command = shlex.join(["nlpeval", *sys.argv[1:]])
    try:
        model = classification_report(
            gold,
            predictions,
            scores_by_system=scores,
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            title=task_title(options.title, "Classifier comparison"),
            command=command,
            inputs=inputs,
        )
    except InputError as exc:
        raise UsageError(exc.message) from None
    emit(render(model, fmt), options.output)
    _figures(model, options)
    return 0
