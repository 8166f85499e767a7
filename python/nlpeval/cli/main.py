"""Entry point of the ``nlpeval`` command: sub-commands, exit codes, error reporting.

Exit codes: 0 success, 2 bad input or usage (one line on stderr, no traceback),
1 internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Collection, Iterator, Sequence
from importlib import import_module
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from nlpeval.cli.errors import UsageError
from nlpeval.core.progress import progress_enabled

if TYPE_CHECKING:
    from nlpeval.metrics.registry import MetricEntry

#: sub-command -> module with ``add_parser(subparsers)`` and ``run(args) -> int``.
#: Command modules import their heavy dependencies inside ``run`` so start-up stays fast, and
#: ``main`` imports only the module of the command it runs (all of them for ``--help`` and errors).
COMMANDS = {
    "score": "nlpeval.cli.score",
    "demo": "nlpeval.cli.demo",
    "classify": "nlpeval.cli.classify",
    "perplexity": "nlpeval.cli.perplexity",
    "align": "nlpeval.cli.align",
    "agree": "nlpeval.cli.agree",
    "correlate": "nlpeval.cli.correlate",
    "meta": "nlpeval.cli.meta",
    "explain": "nlpeval.cli.explain",
    "metrics": "nlpeval.cli.metrics",
    "report": "nlpeval.cli.report",
    "merge": "nlpeval.cli.merge",
    "ir": "nlpeval.cli.ir",
    "squad": "nlpeval.cli.qa",
    "exact-match": "nlpeval.cli.qa",
    "mc": "nlpeval.cli.qa",
    "pass-at-k": "nlpeval.cli.qa",
    "power": "nlpeval.cli.power",
    "spans": "nlpeval.cli.spans",
}


class OneLineErrors(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line naming the flag, then where to read more.

    ``nlpeval score: error: argument --format/-f: invalid choice: 'yaml' (choose from ...); see nlpeval score
    --help`` instead of the whole usage first; a mistyped command gets "did you mean". Exit code 2. The
    sub-commands' parsers are of this class too (argparse makes them with the parent's class).

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
    ...     build_parser(["score"]).parse_args(["score", "--format", "yaml", "sys.txt"])
    >>> print(err.getvalue().strip())  # doctest: +ELLIPSIS
    nlpeval score: error: argument --format/-f: invalid choice: 'yaml' (choose from ...); see nlpeval score --help
    """

    #: a parser of :func:`parse_arguments`' first try: a usage error raises :class:`TrialParseError` (nothing printed)
    trial = False

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra and self.trial:
            raise TrialParseError(f"unrecognized arguments: {' '.join(extra)}")
        if extra:  # named by the command's parser, not the top level's
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            self.exit(2, f"{prog}: error: unrecognized arguments: {' '.join(extra)}; see {prog} --help\n")
        return parsed

    def error(self, message: str) -> NoReturn:
        if self.trial:
            raise TrialParseError(message)
        import difflib
        import re

        wrong = re.match(r"argument COMMAND: invalid choice: '([^']*)'", message)
        if wrong:
            close = difflib.get_close_matches(wrong.group(1), list(COMMANDS), n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'? " if close else ""
            message = f"unknown command '{wrong.group(1)}'; {hint}commands: {', '.join(COMMANDS)}"
        self.exit(2, f"{self.prog}: error: {message}; see {self.prog} --help\n")


class TrialParseError(Exception):
    """A trial parser (:attr:`OneLineErrors.trial`) could not parse the command line: the full parser will."""


def build_parser(
    commands: Collection[str] | None = None, among: Collection[MetricEntry] | None = None
) -> argparse.ArgumentParser:
    """The argument parser with every sub-command, or only those in ``commands``.

    ``among``: ``score``'s parser gets the flags of these entries' families only, and the parsers are trial
    parsers (a usage error raises :class:`TrialParseError`); see :func:`parse_arguments`.

    Examples
    --------
    >>> build_parser(["score"]).parse_args(["score", "-r", "ref.txt", "sys.txt"]).metrics
    'bleu'
    """
    from nlpeval._version import __version__

    parser = OneLineErrors(
        prog="nlpeval",
        description="Evaluate NLP systems with metrics that match the reference tools exactly.",
    )
    parser.add_argument("--version", action="version", version=f"nlpeval {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in COMMANDS.items():
        if commands is None or name in commands:
            add_parser = import_module(module).add_parser
            add_parser(subparsers) if among is None or name != "score" else add_parser(subparsers, among)
    parser.trial = among is not None
    for command in subparsers.choices.values():  # every command: no progress bar with --quiet
        command.trial = parser.trial
        # (``nlpeval ir -q QRELS`` keeps trec_eval's habit of -q for the qrels: only --quiet there)
        flags = ["--quiet"] if "-q" in command._option_string_actions else ["-q", "--quiet"]
        command.add_argument(*flags, action="store_true", help="no progress bar (none is drawn when piped)")
        command.add_argument("--force", action="store_true", help="with -o: replace an output file that is read-only")
        command.add_argument(
            "--max-line-bytes",
            type=import_module("nlpeval.cli.argtypes").count(1),  # imported only when a command is built
            default=64 * 2**20,
            metavar="N",
            help="refuse input lines longer than N bytes (default 64 MiB; bounds memory on input without newlines)",
        )
    return parser


def _named_files(args: argparse.Namespace) -> list[str]:
    """Every option value that names an existing file (the command's inputs), except the output itself."""
    values: list[object] = []
    for key, value in vars(args).items():
        if key != "output":
            values.extend(value if isinstance(value, (list, tuple)) else [value])
    return [v for v in values if isinstance(v, str) and v != "-" and os.path.isfile(v)]


def _check_output(args: argparse.Namespace) -> None:
    """Refuse a bad ``-o`` before any work: an input, a read-only file (without ``--force``), a closed folder."""
    output = getattr(args, "output", None)
    if output:
        from nlpeval.core.files import check_output

        check_output(output, inputs=_named_files(args), force=getattr(args, "force", False))


def _needed_commands(argv: Sequence[str]) -> list[str] | None:
    """The sub-commands whose parsers ``argv`` needs: its own, none for ``--version``, all otherwise.

    The command line has no top-level option that takes a value, so a command can only be the first
    argument; anything else (``--help``, a typo, no command) gets the full parser and its messages.
    """
    if argv and argv[0] in COMMANDS:
        return [argv[0]]
    if argv and argv[0] == "--version":
        return []
    return None


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """The parsed command line ``argv`` (without the program name).

    Every metric family's flags of ``nlpeval score`` come from its registry entry module; building them all
    reads every entry module, a tenth of a whole ``nlpeval score -m bleu,chrf`` process. So ``score`` is
    parsed first by a trial parser with the flags of the metrics ``-m`` names only (default bleu), each found
    in the entry module named like it (:func:`nlpeval.metrics.registry.find`). It is used only when every
    option of ``argv`` is one of its flags exactly (no abbreviation, no ``--help``), it parses ``argv``
    without an error and its ``-m`` names those metrics; otherwise the parser with every flag parses ``argv``:
    ``--help``, every error message and the flags of metrics not selected (accepted and checked, e.g.
    ``--rouge-alpha -0.5`` with ``-m bleu``) are as they are with every flag, since a flag the trial parser has
    is the same declaration there.

    Examples
    --------
    >>> parse_arguments(["score", "-m", "chrf", "--chrf-word-order", "2", "sys.txt"]).chrf_word_order
    2
    >>> parse_arguments(["score", "-m", "bleu", "--bertscore-num-layers", "2", "sys.txt"]).bertscore_num_layers
    2
    """
    commands = _needed_commands(argv)
    if commands == ["score"]:
        from nlpeval.cli.score import named_metrics, trial_entries

        names = named_metrics(argv)
        among = trial_entries(names)
        if among is not None:
            trial = build_parser(commands, among)
            if _knows_every_option(trial, argv):
                with contextlib.suppress(TrialParseError):
                    args = trial.parse_args(argv)
                    if named_metrics(["-m", args.metrics]) == names:
                        return args
    return build_parser(commands).parse_args(argv)


def _knows_every_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> bool:
    """Whether every argument of ``argv`` after the command that starts with ``-`` (``-`` alone is stdin) is a
    flag of the command's parser exactly (``--flag=value`` too), not ``--help`` and not ``--``."""
    (command,) = (action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    known = command.choices[argv[0]]._option_string_actions
    for token in argv[1:]:
        if token.startswith("-") and token != "-":
            flag = token.partition("=")[0] if token.startswith("--") else token
            if flag not in known or flag in ("-h", "--help", "--"):
                return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    # numpy's OpenBLAS starts a thread per core when imported; no command uses BLAS threads (the kernels
    # have their own), so a fresh process skips that start-up cost unless the user set the variable
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_arguments(argv)
    from nlpeval.cli import written

    outer = written.QUIET, written.COMMAND  # a command may run another (demo --report runs report)
    written.QUIET, written.COMMAND = bool(args.quiet) or written.QUIET, args.command
    try:
        from nlpeval.cli import io

        io.set_max_line_bytes(args.max_line_bytes)
        io.forget_read_once()  # stdin and FIFOs are shared within one command, not across calls of main()
        _check_output(args)
        with progress_enabled(False) if args.quiet else contextlib.nullcontext(), _one_line_warnings(args.command):
            return int(args.run(args) or 0)
    except MemoryError as exc:  # a size the options or the input ask for that this machine cannot hold
        print(f"nlpeval {args.command}: error: out of memory: {exc or 'the computation is too large'}", file=sys.stderr)
        return 2
    except (UsageError, ValueError, OSError, ImportError) as exc:
        if _sigint_received or _caused_by_interrupt(exc):  # NumPy turns Ctrl-C in its import into ImportError
            print(f"nlpeval {args.command}: interrupted", file=sys.stderr)
            return INTERRUPTED
        # InputError is a ValueError; every expected failure ends here as one line.
        message = str(exc) or type(exc).__name__
        print(f"nlpeval {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"nlpeval {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
    finally:
        written.QUIET, written.COMMAND = outer


#: the C module under :mod:`signal`, with the same handlers and functions: :mod:`signal` builds its enums when
#: imported, about 2 % of the instructions of a whole ``nlpeval score -m bleu,chrf`` process
_signal = import_module("_signal")

#: exit code after Ctrl-C (128 + SIGINT), as shells report it
INTERRUPTED = 130


#: set by the process's SIGINT handler (:func:`run`): an error raised while Ctrl-C unwinds is the interrupt
_sigint_received = False


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _sigint_received
    _sigint_received = True
    _signal.default_int_handler(signum, frame)  # raises KeyboardInterrupt


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a ``KeyboardInterrupt`` stands in the causes or contexts of ``exc``."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


@contextlib.contextmanager
def _one_line_warnings(command: str) -> Iterator[None]:
    """nlpeval's own advice warnings (e.g. METEOR on text that is not English) as one line on stderr,
    ``nlpeval score: warning: ...``, instead of Python's two lines with a file name; others as usual."""
    import warnings

    shown = warnings.showwarning

    def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None):
        if getattr(category, "one_line", False):  # e.g. MeteorLanguageWarning (no import: start-up stays fast)
            print(f"nlpeval {command}: warning: {message}", file=sys.stderr, flush=True)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def run() -> NoReturn:
    """Run the command line as a whole process (``python -m nlpeval``) and exit with its code.

    After ``nlpeval score`` and ``nlpeval report``, the interpreter's teardown (a final garbage
    collection, then every module's) costs a few milliseconds that nothing needs: once the output is
    flushed and the ``atexit`` callbacks have run (as at any exit), the process ends with
    :func:`os._exit`. With other Python threads alive, after other commands, or when a flush fails
    (the interpreter then reports it as usual), it exits the usual way.
    """
    argv = sys.argv[1:]
    if argv[:1] == ["report"]:
        # the report pauses the cyclic collector while it runs (cli/report.py:run) and the process ends right
        # after it: back on, the collector would make one pass over all the report imported and kept just before
        # the exit (about 3 % of a compare-mt preset process), so it stays off (the interpreter's exit collects
        # as usual when the process does not end with os._exit)
        import gc

        gc.disable()
    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:  # not ignored (a background job)
        _signal.signal(_signal.SIGINT, _on_sigint)
    try:
        code = main(argv)
    except KeyboardInterrupt:  # before the command started (parsing, imports)
        print("nlpeval: interrupted", file=sys.stderr)
        code = INTERRUPTED
    if code == INTERRUPTED:
        # a worker thread may still be inside a native kernel: tearing the interpreter down under it
        # aborts the process ("FATAL: exception not rethrown"), so end now (outputs were never replaced)
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
    if not argv or argv[0] not in ("score", "report"):
        sys.exit(code)
    import atexit
    import threading

    try:
        sys.stdout.flush()
        sys.stderr.flush()
        if threading.active_count() > 1:
            sys.exit(code)
        atexit._run_exitfuncs()  # the callbacks the exit would run, in its order (each runs once)
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # e.g. a closed pipe
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
