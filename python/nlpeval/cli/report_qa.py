"""``nlpeval report --task qa`` and ``--task mc``: line files read as ``nlpeval squad`` and ``nlpeval mc``
read them (``file:line`` errors, exit 2), the report model from :mod:`nlpeval.reports.qa`."""

from __future__ import annotations

import argparse
from typing import Any

from nlpeval.cli.errors import UsageError


def _inputs(options: argparse.Namespace, names: list[str]) -> list[Any]:
    from nlpeval.cli.report import _read

    files = [_read(options.gold, "reference")[1]]
    if getattr(options, "choices", None):
        files.append(_read(options.choices, "reference")[1])
    return files + [_read(path, "system")[1] for path in options.systems]


def _same_length(gold: Any, columns: list[Any]) -> None:
    for column in columns:
        if len(column.values) != len(gold.values):
            raise UsageError(f"{column.name} has {len(column.values)} lines but {gold.name} has {len(gold.values)}")


def run_qa(options: argparse.Namespace, fmt: str) -> int:
    """``--task qa``: ``--gold`` one JSON list of answers (or one answer) per line, each SYS file one answer
    per line (an empty line: no answer); ``--squad-version``."""
    from nlpeval.cli import qa_inputs as q
    from nlpeval.cli.io import emit
    from nlpeval.cli.report import _names, baseline_name, command_line
    from nlpeval.core.errors import InputError
    from nlpeval.reports.qa import qa_report
    from nlpeval.reports.render import render

    if not options.gold or not options.systems:
        raise UsageError("--task qa needs --gold FILE and at least one system file")
    gold = q.read_lines(options.gold, q.texts_line)
    predictions = [q.read_lines(path, q.text_line) for path in options.systems]
    _same_length(gold, predictions)
    names = _names(options.systems)
    try:
        model = qa_report(
            gold.values,
            {name: column.values for name, column in zip(names, predictions, strict=True)},
            version=options.squad_version,
            baseline=baseline_name(options, names),
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            title=options.title if options.title != "System comparison" else "QA system comparison",
            command=command_line(),
            inputs=_inputs(options, names),
        )
    except InputError as exc:
        column = predictions[0] if exc.segment is not None else gold
        raise UsageError(f"{column.at(exc.segment)}: {exc.message}") from None
    emit(render(model, fmt), options.output)
    return 0


def run_mc(options: argparse.Namespace, fmt: str) -> int:
    """``--task mc``: ``--gold`` one choice index (or JSON list) per line, each SYS file one question's
    choice log-likelihoods per line; ``--choices`` one JSON list of choice texts per line (adds acc_norm and
    acc_bytes); ``--unconditional`` once per SYS file, in the same order (adds acc_mutual_info)."""
    from nlpeval.cli import qa_inputs as q
    from nlpeval.cli.io import emit
    from nlpeval.cli.report import _names, baseline_name, command_line
    from nlpeval.core.errors import InputError
    from nlpeval.reports.qa import mc_report
    from nlpeval.reports.render import render

    if not options.gold or not options.systems:
        raise UsageError("--task mc needs --gold FILE and at least one system file")
    gold = q.read_lines(options.gold, q.gold_line)
    lls = [q.read_lines(path, q.numbers_line) for path in options.systems]
    choices = q.read_lines(options.choices, q.choices_line) if options.choices else None
    if options.unconditional and len(options.unconditional) != len(options.systems):
        raise UsageError(
            f"--unconditional given {len(options.unconditional)} times for {len(options.systems)} system files "
            "(one per system, in the same order)"
        )
    uncond = [q.read_lines(path, q.numbers_line) for path in options.unconditional]
    _same_length(gold, lls + uncond + ([choices] if choices else []))
    names = _names(options.systems)
    try:
        model = mc_report(
            gold.values,
            {name: column.values for name, column in zip(names, lls, strict=True)},
            choices=None if choices is None else choices.values,
            unconditional={name: column.values for name, column in zip(names, uncond, strict=False)} or None,
            baseline=baseline_name(options, names),
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            title=options.title if options.title != "System comparison" else "Multiple-choice comparison",
            command=command_line(),
            inputs=_inputs(options, names),
        )
    except InputError as exc:
        raise UsageError(_mc_where(exc, names, gold, choices, lls, uncond)) from None
    emit(render(model, fmt), options.output)
    return 0


def _mc_where(exc: Any, names: list[str], gold: Any, choices: Any, lls: list[Any], uncond: list[Any]) -> str:
    """The one-line message of an input error of ``--task mc``, at the file:line it names."""
    from nlpeval.reports.qa import SystemInputError

    if exc.side in ("gold", "choices"):
        column = {"gold": gold, "choices": choices}[exc.side] or lls[0]
        return f"{column.at(exc.segment)}: {exc.message}"
    system = names.index(exc.system) if isinstance(exc, SystemInputError) else 0
    column = (uncond if exc.side == "unconditional" and uncond else lls)[system]
    return f"{column.at(exc.segment)}: {exc.message}"
