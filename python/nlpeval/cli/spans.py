"""``nlpeval spans``: span F1 of CoNLL column files (token ... gold-tag predicted-tag), as conlleval.pl reads them.

``nlpeval spans FILE`` prints conlleval.pl's report of the file; ``--span-mode lenient|strict`` gives
seqeval's ``classification_report`` instead. Options follow conlleval.pl's (``-d`` delimiter, ``-r``
raw tags, ``--outside`` for its ``-o``, since ``-o`` is the output file here).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError

if TYPE_CHECKING:
    from nlpeval.core.score import Score
    from nlpeval.metrics.span_f1.conll import ConllFile

MODES = ("conlleval", "lenient", "strict")
SCHEMES = ("IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU")


def _column(text: str) -> int:
    """A 1-based column number; negative counts from the end (-1 is the last)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a column number (1 is the first, -1 the last)") from None
    if value == 0:
        raise argparse.ArgumentTypeError("columns count from 1 (or from -1 at the end); 0 is no column")
    return value


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "spans",
        help="span F1 of CoNLL column files (conlleval.pl, seqeval)",
        description="Span (chunk) F1 of CoNLL column files: one token per line, gold and predicted tags in two "
        "columns (by default the last two, as conlleval.pl reads them), a blank line between sentences. "
        "Prints conlleval.pl's report (default) or seqeval's classification report (--span-mode lenient|strict).",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="CoNLL column file(s); '-' is stdin")
    add_reader_arguments(parser)
    parser.add_argument("--span-mode", choices=MODES, default="conlleval", help="conlleval (default), lenient, strict")
    parser.add_argument("--span-scheme", choices=SCHEMES, default=None, help="scheme of strict mode (else detected)")
    parser.add_argument("--digits", type=argtypes.count(0), default=2, help="decimals of seqeval's report (2)")
    parser.add_argument(
        "--bootstrap", type=argtypes.resamples, default=0, metavar="N", help="95%% bootstrap CI over sentences"
    )
    parser.add_argument("--seed", type=argtypes.seed, default=12345, help="seed of the bootstrap (12345)")
    parser.add_argument("--format", "-f", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.set_defaults(run=run)


def add_reader_arguments(parser: Any, *, short: bool = True) -> None:
    """The options that say how a CoNLL column file is read (``short``: with conlleval.pl's ``-d`` and ``-r``;
    ``nlpeval report --conll`` has long names only, its ``-r`` is the reference)."""
    parser.add_argument("--gold-column", type=_column, default=-2, metavar="N", help="column of the gold tag (-2)")
    parser.add_argument("--pred-column", type=_column, default=-1, metavar="N", help="column of the prediction (-1)")
    parser.add_argument(
        *(["-d"] if short else []),
        "--delimiter",
        default=None,
        metavar="REGEX",
        help="column delimiter, a regular expression as conlleval.pl's -d (default: runs of whitespace; "
        "conlleval.pl's own default is one space, -d ' ')",
    )
    raw = "-r files" if short else "--raw files"
    parser.add_argument(
        *(["-r"] if short else []), "--raw", action="store_true", help="tags without B-/I- prefixes (conlleval.pl -r)"
    )
    parser.add_argument("--outside", default="O", metavar="TAG", help=f"outside tag of {raw} (conlleval.pl -o)")
    parser.add_argument("--skip-docstart", action="store_true", help="-DOCSTART- lines are sentence breaks, not tokens")


def read(path: str, options: argparse.Namespace) -> ConllFile:
    """The file (``-`` is stdin) read with the command line's column options."""
    from nlpeval.cli.io import read_all
    from nlpeval.metrics.span_f1.conll import parse_conll

    def index(column: int) -> int:
        return column - 1 if column > 0 else column

    return parse_conll(
        read_all(path),
        name="<stdin>" if path == "-" else path,
        gold_column=index(options.gold_column),
        pred_column=index(options.pred_column),
        delimiter=options.delimiter,
        raw=options.raw,
        outside=options.outside,
        skip_docstart=options.skip_docstart,
    )


def score_file(data: ConllFile, options: argparse.Namespace) -> Score:
    """Span F1 of one file under the command line's mode."""
    from nlpeval.metrics.span_f1 import span_f1

    return span_f1(
        data.predictions,
        data.references,
        mode=options.span_mode,
        scheme=options.span_scheme,
        n_bootstrap=options.bootstrap,
        seed=options.seed,
    )


def _text(score: Score, options: argparse.Namespace) -> str:
    from nlpeval.metrics.span_f1.report import conlleval_report, seqeval_report

    conlleval = options.span_mode == "conlleval"
    text = conlleval_report(score) if conlleval else seqeval_report(score, digits=options.digits)
    if score.ci is not None:
        ci = score.ci
        text += (
            f"F1 {100 * score.score:.2f}, {100 * ci.level:g}% bootstrap CI over sentences "
            f"[{100 * ci.low:.2f}, {100 * ci.high:.2f}] ({ci.n_resamples} resamples, seed {ci.seed})\n"
        )
    return text


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.formats import to_json
    from nlpeval.cli.io import emit

    if options.span_scheme and options.span_mode != "strict":
        raise UsageError("--span-scheme applies to --span-mode strict only")
    if options.files.count("-") > 1:
        raise UsageError("only one input can be stdin ('-')")
    results = []
    for path in options.files:
        data = read(path, options)
        results.append((data, score_file(data, options)))
    if options.format == "json":
        payload = [{"file": data.path, "sentences": len(data.references), **score.to_dict()} for data, score in results]
        text = to_json(payload[0] if len(payload) == 1 else payload)
    else:
        parts = [_text(score, options) for _, score in results]
        if len(results) > 1:
            parts = [f"==> {data.path} <==\n{part}" for (data, _), part in zip(results, parts, strict=True)]
        text = "\n".join(parts)
    emit(text, options.output)
    return 0
