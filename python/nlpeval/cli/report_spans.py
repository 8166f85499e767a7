"""``nlpeval report --task spans`` and ``--conll FILE...``: sequence labellers compared by span F1.

Input: CoNLL column files read as ``nlpeval spans`` reads them (each file one system: its predicted column, the
gold column the same in every file), or label line files (``-r REF SYS...``: one sentence's space-separated labels
per line). The report model comes from :func:`nlpeval.reports.spans.span_report`; errors name ``file:line``.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from nlpeval.cli.errors import UsageError

#: the registry's span F1 options, as flags of ``nlpeval report`` (also for ``-m span_f1``)
SPAN_OPTIONS = ("span_mode", "span_scheme", "span_average", "span_suffix")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--conll``, the CoNLL reader's options and the span F1 flags, in one group."""
    from nlpeval.cli.metric_options import add_option
    from nlpeval.cli.spans import add_reader_arguments
    from nlpeval.metrics import registry

    group = parser.add_argument_group(
        "sequence labelling (--task spans, -m span_f1): CoNLL column files as 'nlpeval spans' reads them"
    )
    group.add_argument(
        "--conll",
        action="extend",
        nargs="+",
        default=[],
        metavar="FILE",
        help="CoNLL column files, one system each (token ... gold predicted; the gold tags the same in every "
        "file); implies --task spans",
    )
    add_reader_arguments(group, short=False)
    known = registry.options()
    for name in SPAN_OPTIONS:
        add_option(group, known[name])


def overrides(options: argparse.Namespace) -> dict[str, Any]:
    """The span F1 flags given (those that differ from the registry's defaults)."""
    from nlpeval.metrics import registry

    known = registry.options()
    values = {name: getattr(options, name, known[name].default) for name in SPAN_OPTIONS}
    return {name: value for name, value in values.items() if value != known[name].default}


def _label_position(message: str, sentence: list[str]) -> int:
    """The place in ``sentence`` of the label a span F1 message names (``label 3 is ...``, ``label 'E-X' has
    no prefix ...``: its first occurrence), else 0."""
    found = re.match(r"label (\d+) ", message)
    if found:
        return int(found.group(1))
    return next((i for i, label in enumerate(sentence) if message.startswith(f"label {label!r} ")), 0)


def _conll_inputs(options: argparse.Namespace) -> tuple[list[list[str]], dict[str, Any], list[Any]]:
    """Gold labels, each system's file (the first one's words are shown) and the provenance's files."""
    from nlpeval.cli.report import _names, _read
    from nlpeval.cli.spans import read

    if options.ref or options.systems:
        raise UsageError("--conll files hold the gold and the predicted tags: give no -r REF or SYS files with them")
    if options.conll.count("-") > 1:
        raise UsageError("only one input can be stdin ('-')")
    files = {name: read(path, options) for name, path in zip(_names(options.conll), options.conll, strict=True)}
    first = next(iter(files.values()))
    for data in files.values():
        if len(data.references) != len(first.references):
            raise UsageError(f"{data.path} has {len(data.references)} sentences but {first.path} has "
                             f"{len(first.references)}")  # fmt: skip
        for i, (mine, theirs) in enumerate(zip(data.references, first.references, strict=True)):
            if mine != theirs or data.tokens[i] != first.tokens[i]:
                what = "gold tags" if mine != theirs else "words"
                rows = zip(mine, data.tokens[i], theirs, first.tokens[i], strict=False)
                at = next((j for j, (a, b, c, d) in enumerate(rows) if (a, b) != (c, d)), min(len(mine), len(theirs)))
                raise UsageError(
                    f"{data.path}:{data.lines[i] + at}: the {what} differ from {first.path}:{first.lines[i] + at}"
                )
    inputs = [_read(path, "system")[1] for path in options.conll if path != "-"]
    return first.references, files, inputs


def run(options: argparse.Namespace, fmt: str) -> int:
    """``--task spans`` / ``--conll``: the span F1 report of CoNLL files or label line files."""
    from nlpeval.cli.io import emit
    from nlpeval.cli.report import METRICS, command_line
    from nlpeval.core.errors import InputError
    from nlpeval.metrics.span_f1 import SpanF1
    from nlpeval.reports.metrics import build_metrics
    from nlpeval.reports.render import render
    from nlpeval.reports.spans import TITLE, span_report
    from nlpeval.reports.titles import task_title

    if options.task not in ("generation", "spans"):
        raise UsageError(f"--conll gives a span F1 report, not --task {options.task}")
    asked = {m.strip() for m in options.metrics.split(",") if m.strip()}
    if options.metrics != METRICS and asked != {"span_f1"}:  # -m left at its default, or span_f1
        raise UsageError(f"--task spans reports span F1 only (-m span_f1), not -m {options.metrics}")
    values = {**overrides(options), **dict(options.metric_option)}
    try:
        metric = build_metrics(("span_f1",), values)["span_f1"][0]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    assert isinstance(metric, SpanF1)  # the registry's span_f1
    conll = _conll_inputs(options) if options.conll else None
    gold: list[list[str]] | list[str]
    if conll is not None:
        gold, files, inputs = conll
        systems = {name: data.predictions for name, data in files.items()}
        tokens: list[list[str]] | None = next(iter(files.values())).tokens
        paths = options.conll
    else:
        gold, systems, inputs = _line_inputs(options)
        tokens, paths = None, options.systems
    names = list(systems)
    try:
        model = span_report(
            gold,
            systems,
            metric=metric,
            tokens=tokens,
            baseline=_baseline(options, names, paths),
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            n_randomization=options.randomization,
            max_examples=options.max_examples,
            title=task_title(options.title, TITLE),
            command=command_line(),
            inputs=inputs,
        )
    except InputError as exc:
        raise UsageError(_where(exc, options, names, None if conll is None else list(conll[1].values()))) from None
    emit(render(model, fmt), options.output)
    return 0


def _line_inputs(options: argparse.Namespace) -> tuple[list[str], dict[str, list[str]], list[Any]]:
    """Label line files: the gold lines (``-r``), each system's lines and the provenance's files."""
    from nlpeval.cli.report import _names, _read

    if not options.ref or len(options.ref) != 1 or not options.systems:
        raise UsageError("--task spans needs --conll FILE..., or one -r REF and SYS files (label lines)")
    if sum(path == "-" for path in [*options.systems, *options.ref]) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    gold, reference = _read(options.ref[0], "reference")
    systems, inputs = {}, [reference]
    for name, path in zip(_names(options.systems), options.systems, strict=True):
        lines, info = _read(path, "system")
        if len(lines) != len(gold):
            raise UsageError(f"{info.path} has {len(lines)} lines but {reference.path} has {len(gold)}")
        systems[name] = lines
        inputs.append(info)
    return gold, systems, inputs


def _baseline(options: argparse.Namespace, names: list[str], paths: list[str]) -> str | None:
    """``--baseline`` as a system name or one of its files (None when not given)."""
    if not options.baseline:
        return None
    matches = [n for n, p in zip(names, paths, strict=True) if options.baseline in (n, p)]
    if not matches:
        raise UsageError(f"--baseline {options.baseline!r} is none of the systems: {', '.join(names)}")
    return matches[0]


def _where(exc: Any, options: argparse.Namespace, names: list[str], files: list[Any] | None) -> str:
    """``file:line: message`` of a span F1 input error (``system 'X': ...`` names the system)."""
    if exc.segment is None:
        return str(exc.message)
    found = re.match(r"system '(.*?)': ", exc.message)
    index = names.index(found.group(1)) if found and found.group(1) in names else 0
    if files is not None:  # a CoNLL file: the line of the label (its sentence's first line plus its place)
        data = files[index]
        sentence = (data.references if exc.side == "references" else data.predictions)[exc.segment]
        line = data.lines[exc.segment] + _label_position(exc.message[found.end() if found else 0 :], sentence)
        return f"{data.path}:{line}: {exc.message}"
    path = options.ref[0] if exc.side == "references" else options.systems[index]
    return f"{path}:{exc.segment + 1}: {exc.message}"
