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
    """``--task qa``. Line files: ``--gold`` one JSON list of answers (or one answer) per line, each SYS file
    one answer per line (an empty line: no answer), ``--na-probs`` one number per line, ``--questions`` one
    text per line. The official files (``--gold`` a ``.json`` dataset): each SYS file and ``--na-probs`` a
    JSON object by question id, the question texts from the dataset. ``--na-probs`` once per SYS file."""
    from nlpeval.cli.io import emit
    from nlpeval.cli.report import _names, baseline_name, command_line
    from nlpeval.core.errors import InputError
    from nlpeval.reports.qa import SystemInputError, qa_report
    from nlpeval.reports.render import render
    from nlpeval.reports.titles import task_title

    if not options.gold or not options.systems:
        raise UsageError("--task qa needs --gold FILE and at least one system file")
    if options.na_probs and len(options.na_probs) != len(options.systems):
        raise UsageError(
            f"--na-probs given {len(options.na_probs)} times for {len(options.systems)} system files "
            "(one per system, in the same order)"
        )
    if options.na_probs and options.squad_version != "2.0":
        raise UsageError("--na-probs needs --squad-version 2.0")
    read = _qa_official if options.gold.endswith(".json") else _qa_lines
    gold, predictions, probs, questions = read(options)
    names = _names(options.systems)
    try:
        model = qa_report(
            gold.values,
            {name: column.values for name, column in zip(names, predictions, strict=True)},
            version=options.squad_version,
            no_answer_probs={name: column.values for name, column in zip(names, probs, strict=False)} or None,
            no_answer_threshold=options.na_threshold,
            questions=questions,
            baseline=baseline_name(options, names),
            seed=options.seed,
            n_bootstrap=options.bootstrap,
            title=task_title(options.title, "QA system comparison"),
            command=command_line(),
            inputs=_inputs(options, names) + [_read(path, "no-answer probabilities") for path in options.na_probs],
        )
    except InputError as exc:
        system = names.index(exc.system) if isinstance(exc, SystemInputError) else 0
        column = (probs if exc.side == "no_answer_probs" and probs else predictions)[system]
        if exc.segment is None:
            column = gold
        raise UsageError(f"{column.at(exc.segment)}: {exc.message}") from None
    emit(render(model, fmt), options.output)
    return 0


def _read(path: str, role: str) -> Any:
    from nlpeval.cli.report import _read as read_input

    return read_input(path, role)[1]


def _qa_lines(options: argparse.Namespace) -> tuple[Any, list[Any], list[Any], list[str] | None]:
    """Line files: gold, each system's answers, each system's no-answer probabilities, question texts."""
    from nlpeval.cli import qa_inputs as q

    if any(path.endswith(".json") for path in [*options.systems, *options.na_probs]):
        raise UsageError("JSON prediction files need the official dataset JSON as --gold (a .json file)")
    gold = q.read_lines(options.gold, q.texts_line)
    predictions = [q.read_lines(path, q.text_line) for path in options.systems]
    probs = [q.read_lines(path, q.number_line) for path in options.na_probs]
    questions = q.read_lines(options.questions, q.text_line) if options.questions else None
    _same_length(gold, predictions + probs + ([questions] if questions else []))
    return gold, predictions, probs, None if questions is None else questions.values


def _qa_official(options: argparse.Namespace) -> tuple[Any, list[Any], list[Any], list[str]]:
    """The official files: the dataset JSON, ``{id: answer}`` per system, ``{id: probability}`` per system;
    every column in the dataset's question order, each value with the file:line of its id."""
    from nlpeval.cli.qa_inputs import Column
    from nlpeval.cli.squad_files import read_by_id, read_dataset

    if options.questions:
        raise UsageError("--questions is for line files; the dataset JSON gives the question texts")
    data = read_dataset(options.gold)
    gold = Column(data.answers, [data.where(qid) for qid in data.ids], data.name)

    def column(path: str, what: str) -> Column:
        values, where = read_by_id(path, data, what)
        return Column(values, where, "<stdin>" if path == "-" else path)

    predictions = [column(path, "answer") for path in options.systems]
    probs = [column(path, "no-answer probability") for path in options.na_probs]
    return gold, predictions, probs, data.questions


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
    from nlpeval.reports.titles import task_title

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
            title=task_title(options.title, "Multiple-choice comparison"),
            command=command_line(),
            inputs=_inputs(options, names),
        )
    except InputError as exc:
        raise UsageError(_mc_where(exc, names, gold, choices, lls, uncond)) from None
    emit(render(model, fmt), options.output)
    return 0


def _mc_where(exc: Any, names: list[str], gold: Any, choices: Any, lls: list[Any], uncond: list[Any]) -> str:
    """The one-line message of an input error of ``--task mc``, at the file:line it names."""
    from nlpeval.cli.qa import gold_beyond_choices
    from nlpeval.reports.qa import SystemInputError

    system = names.index(exc.system) if isinstance(exc, SystemInputError) else 0
    short = gold_beyond_choices(exc, gold, lls[system])
    if short is not None:
        return str(short)
    if exc.side in ("gold", "choices"):
        column = {"gold": gold, "choices": choices}[exc.side] or lls[0]
        return f"{column.at(exc.segment)}: {exc.message}"
    column = (uncond if exc.side == "unconditional" and uncond else lls)[system]
    return f"{column.at(exc.segment)}: {exc.message}"
