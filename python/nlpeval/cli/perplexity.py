"""``nlpeval perplexity``: corpus and mean perplexity from log-probabilities, or of texts under a local LM."""

from __future__ import annotations

import argparse
import csv
import io
import math
from typing import Any

from nlpeval._tables import latex_table, markdown_table
from nlpeval.cli import argtypes
from nlpeval.cli.formats import FORMATS, to_json
from nlpeval.cli.main import UsageError

_BASES = {"e": math.e, "2": 2.0, "10": 10.0}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "perplexity",
        help="perplexity from per-token log-probabilities or a local causal language model",
        description="Corpus perplexity exp(total NLL / total tokens), the mean (geometric) per-sequence "
        "perplexity, and optionally each sequence's. Either --logprobs FILE (one sequence of space-separated "
        "log-probabilities per line) or --model DIR --text FILE (a local Hugging Face causal LM; needs "
        "'nlpeval[lm]'; nothing is downloaded).",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--logprobs", metavar="FILE", help="per-token log-probabilities, one sequence per line")
    source.add_argument("--model", metavar="DIR", help="local causal language model directory")
    parser.add_argument("--text", metavar="FILE", help="texts to score with --model, one per line")
    parser.add_argument("--base", choices=tuple(_BASES), default="e", help="logarithm base of --logprobs")
    parser.add_argument("--batch-size", type=argtypes.count(1), default=8, help="windows per forward pass (--model)")
    parser.add_argument("--device", help="torch device for --model, e.g. cpu or cuda")
    parser.add_argument("--max-length", type=argtypes.count(2), help="window length (default: the model's context)")
    parser.add_argument(
        "--stride", type=argtypes.count(1), help="tokens between window starts (default: half the window)"
    )
    parser.add_argument("--segments", action="store_true", help="also report each sequence's perplexity")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    parser.add_argument(
        "--hyp-col",
        metavar="COL",
        help="--logprobs/--text is a JSONL, CSV/TSV or Parquet data file; COL holds each sequence's "
        "log-probabilities (a list, or space-separated numbers) or its text",
    )
    parser.add_argument(
        "--system-col",
        metavar="COL",
        help="system name column of the --logprobs/--text data file (one result per system)",
    )
    parser.set_defaults(run=run)


def _read_logprobs(path: str) -> list[list[float]]:
    from nlpeval.cli.io import read_all

    name = "<stdin>" if path == "-" else path
    sequences = []
    for index, line in enumerate(read_all(path)):
        fields = line.split()
        if not fields:
            raise UsageError(f"{name}:{index + 1}: no log-probabilities (empty line)")
        try:
            sequences.append([float(field) for field in fields])
        except ValueError:
            bad = next(f for f in fields if not _is_float(f))
            raise UsageError(f"{name}:{index + 1}: not a number: {bad!r}") from None
    if not sequences:
        raise UsageError(f"{name} is empty: there is nothing to score")
    return sequences


def _read_data(path: str, column: str | None, kind: str, read_lines: Any) -> tuple[list[Any], list[str] | None]:
    """A data file's column (``--hyp-col``) and each row's ``file:row``, or the line file as before (no rows)."""
    if column is None:
        return read_lines(path), None
    from nlpeval.cli.datafiles import read_column

    values, where = read_column(path, column, kind=kind)
    if not values:
        raise UsageError(f"{'<stdin>' if path == '-' else path} has no rows: there is nothing to score")
    return values, where


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _render(score: Any, fmt: str, segments: bool) -> str:
    ppl, mean = score.score, score.components["mean_perplexity"]
    if fmt == "json":
        payload: dict[str, Any] = {"score": ppl, "mean_perplexity": mean}
        if segments:
            payload["segments"] = score.segments.tolist()
        return to_json({"perplexity": payload})
    comps = score.components
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if segments:
            writer.writerow(["sequence", "perplexity"])
            writer.writerows([i + 1, repr(v)] for i, v in enumerate(score.segments.tolist()))
        else:
            writer.writerow(["perplexity", "mean_perplexity", "tokens", "sequences", "signature"])
            writer.writerow([repr(ppl), repr(mean), comps["tokens"], comps["sequences"], score.signature])
        return buffer.getvalue()
    rows = [
        ("perplexity (corpus)", f"{ppl:.4f}"),
        ("mean perplexity (geometric, per sequence)", f"{mean:.4f}"),
        ("tokens", str(comps["tokens"])),
        ("sequences", str(comps["sequences"])),
    ]
    if fmt == "markdown":
        lines = [*markdown_table(["metric", "value"], rows), "", f"- `{score.signature}`"]
    elif fmt == "latex":
        lines = [*latex_table(["metric", "value"], rows), f"% {score.signature}"]
    else:
        width = max(len(k) for k, _ in rows)
        lines = [f"{k.ljust(width)}  {v}" for k, v in rows] + ["", score.signature]
    if segments and fmt == "text":
        lines += ["", "sequence\tperplexity"]
        lines += [f"{i + 1}\t{v:.6f}" for i, v in enumerate(score.segments.tolist())]
    return "\n".join(lines) + "\n"


def _systems(path: str, column: str, system_col: str, kind: str) -> list[tuple[str, list[Any], list[str]]]:
    """Each system's values of ``column`` and their ``file:row``, systems in order of first appearance."""
    from nlpeval.cli.datafiles import label_value, numbers_value, read_data_file, split_by_system, text_value

    data = read_data_file(path)
    data.require(column, system_col)
    if not data.records:
        raise UsageError(f"{data.name} has no rows: there is nothing to score")
    reader = {"text": text_value, "label": label_value, "numbers": numbers_value}[kind]
    return [
        (name, [reader(part, r, column) for r in part.records], [part.where(r) for r in part.records])
        for name, part in split_by_system(data, system_col)
    ]


def _run_systems(options: argparse.Namespace) -> int:
    """``--system-col``: one perplexity per system of the long data file, in order of first appearance."""
    from nlpeval.cli.io import emit
    from nlpeval.cli.systems_output import render_systems
    from nlpeval.core.errors import InputError

    if options.hyp_col is None:
        raise UsageError("--system-col needs --hyp-col (the column of the log-probabilities or texts)")
    if options.logprobs and options.text:
        raise UsageError("--text goes with --model, not --logprobs")
    if options.model and not options.text:
        raise UsageError("--model needs --text FILE")
    source = options.logprobs or options.text
    blocks = []
    for name, values, where in _systems(
        source, options.hyp_col, options.system_col, "numbers" if options.logprobs else "text"
    ):
        try:
            score = _score(options, values)
        except InputError as exc:
            if exc.segment is None:
                raise
            raise UsageError(f"{where[exc.segment]}: {exc.message}") from None
        blocks.append((name, _render(score, options.format, options.segments)))
    emit(render_systems(blocks, options.format), options.output)
    return 0


def _score(options: argparse.Namespace, values: Any) -> Any:
    """Perplexity of ``values``: log-probability sequences (``--logprobs``) or texts scored by ``--model``."""
    if options.logprobs:
        from nlpeval.lm.logprobs import perplexity

        return perplexity(values, base=_BASES[options.base], segments=options.segments)
    from nlpeval.lm.causal import model_perplexity

    return model_perplexity(
        options.model,
        values,
        batch_size=options.batch_size,
        device=options.device,
        max_length=options.max_length,
        stride=options.stride,
        segments=options.segments,
    )


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.io import emit, read_all
    from nlpeval.core.errors import InputError

    if options.system_col is not None:
        return _run_systems(options)
    where: list[str] | None = None
    try:
        if options.logprobs:
            if options.text:
                raise UsageError("--text goes with --model, not --logprobs")
            source = options.logprobs
            sequences, where = _read_data(source, options.hyp_col, "numbers", _read_logprobs)
            score = _score(options, sequences)
        else:
            if not options.text:
                raise UsageError("--model needs --text FILE")
            source = options.text
            texts, where = _read_data(source, options.hyp_col, "text", read_all)
            if not texts:
                raise UsageError(f"{source} is empty: there is nothing to score")
            score = _score(options, texts)
    except InputError as exc:
        if exc.segment is None:
            raise
        if where is not None:
            raise UsageError(f"{where[exc.segment]}: {exc.message}") from None
        raise UsageError(f"{'<stdin>' if source == '-' else source}:{exc.segment + 1}: {exc.message}") from None
    emit(_render(score, options.format, options.segments), options.output)
    return 0
