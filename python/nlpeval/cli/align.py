"""``nlpeval align``: word (or character) alignments of a system against references, as jiwer prints them."""

from __future__ import annotations

import argparse
from typing import Any

from nlpeval.cli.main import UsageError

ALIGN_FORMATS = ("text", "json")


def add_normalization_options(group: Any) -> None:
    """The WER/CER normalisation flags: the options of the registry's ``wer`` entry (as ``nlpeval score``'s)."""
    from nlpeval.cli.metric_options import add_option
    from nlpeval.metrics.registry import get

    for option in get("wer").options:
        add_option(group, option)


def normalization_kwargs(options: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of the normalisation flags."""
    return {
        "normalize": options.wer_normalize,
        "lowercase": options.lowercase,
        "remove_punctuation": options.remove_punctuation,
        "nfkc": options.nfkc,
        "whitespace": options.whitespace,
        "split_unspaced": options.split_unspaced,
        **({} if options.wer_max_cells is None else {"max_cells": options.wer_max_cells}),
    }


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "align",
        help="print word or character alignments (WER/CER errors) of a system",
        description="Align each system line with its reference line, word by word (or character by "
        "character with --cer), and print the alignments and a summary exactly as jiwer's "
        "visualize_alignment does. Files hold one segment per line (UTF-8; '-' is stdin); "
        "several -r files are several references (the closest one is used per line).",
    )
    parser.add_argument("system", metavar="SYS", help="system output file")
    parser.add_argument(
        "-r", "--ref", action="append", required=True, metavar="REF", help="reference file (repeat for several)"
    )
    parser.add_argument("--cer", action="store_true", help="align characters instead of words")
    parser.add_argument("--all", action="store_true", help="also show segments without errors")
    parser.add_argument("--line-width", type=int, default=None, metavar="N", help="wrap alignments at N characters")
    parser.add_argument("--no-summary", action="store_true", help="leave out the summary (counts and rates)")
    parser.add_argument(
        "--errors",
        type=int,
        default=0,
        metavar="K",
        help="also list the K most frequent substitutions, insertions and deletions",
    )
    parser.add_argument(
        "--wide-chars", action="store_true", help="pad by display width so CJK text lines up in a terminal"
    )
    parser.add_argument("--format", "-f", choices=ALIGN_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    add_normalization_options(parser.add_argument_group("normalisation"))
    parser.set_defaults(run=run)


def _read_inputs(system: str, refs: list[str]) -> tuple[list[str], list[list[str]]]:
    from nlpeval.cli.io import read_all

    if sum(path == "-" for path in [system, *refs]) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    hyps = read_all(system)
    streams = [read_all(path) for path in refs]
    if not hyps:
        raise UsageError(f"{'<stdin>' if system == '-' else system} is empty: there is nothing to align")
    for path, lines in zip(refs, streams, strict=True):
        if len(lines) != len(hyps):
            shorter = path if len(lines) < len(hyps) else system
            line = min(len(lines), len(hyps)) + 1
            raise UsageError(f"{shorter}:{line}: line missing: {system} has {len(hyps)} lines, {path} has {len(lines)}")
    return hyps, [list(seg) for seg in zip(*streams, strict=True)]


def run(options: argparse.Namespace) -> int:
    import json

    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError
    from nlpeval.metrics.wer import edit_alignment

    if options.line_width is not None and options.line_width < 1:
        raise UsageError("--line-width must be at least 1")
    if options.errors < 0:
        raise UsageError("--errors must not be negative")
    hyps, refs = _read_inputs(options.system, options.ref)
    kwargs = normalization_kwargs(options)
    if options.cer:
        if options.split_unspaced:
            raise UsageError("--split-unspaced is for word alignments; --cer already aligns characters")
        kwargs.pop("split_unspaced")
    elif options.whitespace == "remove":
        raise UsageError("--whitespace remove leaves one word per line; use it with --cer")
    try:
        result = edit_alignment(hyps, refs, unit="char" if options.cer else "word", **kwargs)
    except InputError as exc:
        if exc.segment is None:
            raise
        path = options.ref[exc.reference or 0] if exc.side == "references" else options.system
        raise UsageError(f"{path}:{exc.segment + 1}: {exc.message}") from None
    if options.format == "json":
        payload = result.to_dict()
        if options.errors:
            payload["most_frequent"] = {
                key: [[list(k) if isinstance(k, tuple) else k, n] for k, n in rows]
                for key, rows in result.most_frequent(options.errors).items()
            }
        emit(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", options.output)
        return 0
    text = result.visualize(
        show_measures=not options.no_summary,
        skip_correct=not options.all,
        line_width=options.line_width,
        wide_chars=options.wide_chars,
    )
    if not options.no_summary:
        text += f"signature: {result.signature}\n"
    elif text and not text.endswith("\n"):
        text += "\n"
    if options.errors:
        text += "\n" + result.visualize_error_counts(top_k=options.errors) + "\n"
    emit(text, options.output)
    return 0
