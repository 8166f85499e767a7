"""``nlpeval classify``: a classification report (confusion matrix, per-class table, warnings) from label files."""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.formats import FORMATS
from nlpeval.cli.main import UsageError


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "classify",
        help="evaluate a classifier: confusion matrix, precision/recall/F1, AP, ROC AUC",
        description="Compare predicted labels with gold labels (one label per line, UTF-8; surrounding "
        "whitespace is ignored). With --scores (one number per line for two classes, or one row of class "
        "probabilities per line, columns in --labels order or sorted label order) also average precision, "
        "11-point interpolated AP and ROC AUC.",
    )
    parser.add_argument("--gold", metavar="FILE", help="gold labels, one per line (or --ref-col of a data file)")
    parser.add_argument(
        "--pred", required=True, metavar="FILE", help="predicted labels, one per line (a data file with --hyp-col)"
    )
    parser.add_argument("--scores", metavar="FILE", help="scores or class probabilities, one row per line")
    parser.add_argument("--labels", metavar="L1,L2,...", help="classes in display (and score column) order")
    parser.add_argument("--pos-label", metavar="LABEL", help="positive class for one score per line")
    parser.add_argument(
        "--zero-division",
        default="nan",
        choices=("nan", "0", "1", "warn"),
        help="value of undefined 0/0 ratios (default nan, shown as n/a)",
    )
    parser.add_argument("--digits", type=argtypes.count(0), default=4, help="decimals in text-like formats")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--plot", metavar="DIR", help="also draw the confusion matrix (and PR and ROC curves) into DIR")
    parser.add_argument("--plot-format", choices=("png", "svg", "pdf"), default="png", help="image format of --plot")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically)")
    from nlpeval.cli.datafiles import add_data_options

    add_data_options(
        parser,
        systems=False,
        hyp_help="--pred is a JSONL/CSV/TSV/Parquet data file; COL holds the predicted label",
        ref_help="COL of the --pred data file holds the gold label (instead of --gold)",
    )
    parser.add_argument(
        "--score-col", metavar="COL", help="column of the --pred data file with scores or probabilities"
    )
    parser.add_argument(
        "--system-col", metavar="COL", help="system name column of the --pred data file (one report per system)"
    )
    parser.set_defaults(run=run)


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _labels(path: str) -> list[str]:
    from nlpeval.cli.io import read_all

    lines = read_all(path)
    labels = [line.strip() for line in lines]
    for index, label in enumerate(labels):
        if not label:
            raise UsageError(f"{'<stdin>' if path == '-' else path}:{index + 1}: empty label")
    return labels


def _scores(path: str) -> list[list[float]]:
    from nlpeval.cli.io import read_all

    rows: list[list[float]] = []
    width = None
    for index, line in enumerate(read_all(path)):
        where = f"{'<stdin>' if path == '-' else path}:{index + 1}"
        fields = line.replace(",", " ").replace(";", " ").split()
        if not fields:
            raise UsageError(f"{where}: no score")
        try:
            row = [float(field) for field in fields]
        except ValueError:
            bad = next(f for f in fields if not _is_float(f))
            raise UsageError(f"{where}: not a number: {bad!r}") from None
        if not all(math.isfinite(v) for v in row):
            raise UsageError(f"{where}: scores must be finite")
        if width is not None and len(row) != width:
            raise UsageError(f"{where}: {len(row)} scores where earlier lines have {width}")
        width = len(row)
        rows.append(row)
    return rows


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _zero_division(text: str) -> Any:
    return {"nan": math.nan, "0": 0.0, "1": 1.0, "warn": "warn"}[text]


def run(options: argparse.Namespace) -> int:

    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError

    paths = [options.gold, options.pred] + ([options.scores] if options.scores else [])
    if sum(path == "-" for path in paths) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    where: dict[str, list[str]] = {}
    if options.system_col is not None:
        return _run_systems(options)
    if options.plot:
        _require_matplotlib()  # before anything is printed: a report then exit 2 would look like success
    if options.hyp_col is not None:
        gold, pred, scores_from_data, where = _from_data_file(options)
    else:
        from nlpeval.cli.datafiles import check_data_options

        check_data_options(options, systems=False)
        if options.score_col:
            raise UsageError("--score-col needs --hyp-col (the column of the predicted label)")
        if not options.gold:
            raise UsageError("no gold labels: give --gold FILE, or --hyp-col and --ref-col with a data file")
        gold = _labels(options.gold)
        pred = _labels(options.pred)
        scores_from_data = None
    if not gold:
        raise UsageError(f"{_name(options.gold)} is empty: there is nothing to score")
    if len(gold) != len(pred):
        raise UsageError(
            f"line counts differ: {_name(options.gold)} has {len(gold)}, {_name(options.pred)} has {len(pred)} lines"
        )
    scores = None if scores_from_data is None else _score_array(scores_from_data)
    if options.scores:
        rows = _scores(options.scores)
        if len(rows) != len(gold):
            raise UsageError(
                f"line counts differ: {_name(options.gold)} has {len(gold)}, "
                f"{_name(options.scores)} has {len(rows)} lines"
            )
        scores = _score_array(rows)
    try:
        rep = _report(gold, pred, scores, options)
    except InputError as exc:
        if exc.segment is None:
            raise
        if where:
            raise UsageError(f"{where[exc.side or 'y_pred'][exc.segment]}: {exc.message}") from None
        path = {"y_true": options.gold, "y_pred": options.pred, "y_score": options.scores}.get(exc.side or "")
        raise UsageError(f"{_name(path or '')}:{exc.segment + 1}: {exc.message}") from None
    emit(rep.render(options.format, digits=options.digits), options.output)
    if options.plot:
        _plots(rep, gold, scores, options)
    return 0


def _score_array(rows: Any) -> Any:
    """Score rows as a float array; a single column (scores of the positive class) becomes a vector."""
    import numpy as np

    scores = np.array(rows, dtype=np.float64)
    return scores[:, 0] if scores.shape[1] == 1 else scores


def _report(gold: list[str], pred: list[str], scores: Any, options: argparse.Namespace) -> Any:
    """The classification report with the command's --labels, --pos-label and --zero-division."""
    from nlpeval.classification.report import report

    labels = [label.strip() for label in options.labels.split(",")] if options.labels else None
    return report(
        gold,
        pred,
        y_score=scores,
        labels=labels,
        pos_label=options.pos_label,
        zero_division=_zero_division(options.zero_division),
    )


def _run_systems(options: argparse.Namespace) -> int:
    """``--system-col``: one report per system of the long ``--pred`` data file, in order of first appearance."""
    from nlpeval.cli.datafiles import read_data_file, split_by_system
    from nlpeval.cli.io import emit
    from nlpeval.cli.systems_output import render_systems
    from nlpeval.core.errors import InputError

    if options.hyp_col is None:
        raise UsageError("--system-col needs --hyp-col (the column of the predicted label)")
    if options.gold or options.scores:
        raise UsageError("with --system-col give gold labels with --ref-col and scores with --score-col")
    if options.plot:
        raise UsageError("--plot draws one system: leave out --system-col, or filter the file to one system")
    data = read_data_file(options.pred)
    data.require(options.hyp_col, *options.ref_col, options.score_col, options.system_col)
    if not data.records:
        raise UsageError(f"{data.name} has no rows: there is nothing to score")
    blocks = []
    for name, part in split_by_system(data, options.system_col):
        gold, pred, scores, where = _from_data_file(options, part)
        try:
            rep = _report(gold, pred, None if scores is None else _score_array(scores), options)
        except InputError as exc:
            if exc.segment is None:
                raise
            raise UsageError(f"{where[exc.side or 'y_pred'][exc.segment]}: {exc.message}") from None
        blocks.append((name, rep.render(options.format, digits=options.digits)))
    emit(render_systems(blocks, options.format), options.output)
    return 0


def _from_data_file(
    options: argparse.Namespace, data: Any = None
) -> tuple[list[str], list[str], Any, dict[str, list[str]]]:
    """Gold labels, predictions, scores (or None) and each row's ``file:row``, from the ``--pred`` data file
    (or ``data``, one system's rows of it)."""
    from nlpeval.cli.datafiles import label_value, numbers_value, read_data_file

    if len(options.ref_col) > 1:
        raise UsageError("classify takes one --ref-col (the gold label)")
    if options.ref_col and options.gold:
        raise UsageError("give gold labels with --gold or --ref-col, not both")
    if data is None:
        data = read_data_file(options.pred)
    data.require(options.hyp_col, *options.ref_col, options.score_col)
    if not data.records:
        raise UsageError(f"{data.name} has no rows: there is nothing to score")
    rows = [data.where(record) for record in data.records]
    pred = [label_value(data, record, options.hyp_col) for record in data.records]
    if options.ref_col:
        gold = [label_value(data, record, options.ref_col[0]) for record in data.records]
    elif options.gold:
        gold = _labels(options.gold)
    else:
        raise UsageError("no gold labels: give --ref-col COL (or --gold FILE)")
    scores = None
    if options.score_col:
        scores = [numbers_value(data, record, options.score_col) for record in data.records]
        widths = {len(row) for row in scores}
        if len(widths) > 1:
            first = len(scores[0])
            index = next(i for i, row in enumerate(scores) if len(row) != first)
            raise UsageError(f"{rows[index]}: {len(scores[index])} scores where earlier rows have {first}")
    if options.scores:
        raise UsageError("give scores with --scores or --score-col, not both")
    gold_rows = rows if options.ref_col else [f"{_name(options.gold)}:{i + 1}" for i in range(len(gold))]
    where = {"y_pred": rows, "y_score": rows, "y_true": gold_rows}
    return gold, pred, scores, where


def _require_matplotlib() -> None:
    """A usage error naming the extra when ``--plot`` cannot draw (matplotlib is the ``plot`` extra)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError("--plot needs matplotlib: pip install 'nlpeval[plot]'")


def _plots(rep: Any, gold: list[str], scores: Any, options: argparse.Namespace) -> None:
    from nlpeval.classification.plots import plot_confusion_matrix, plot_precision_recall, plot_roc

    os.makedirs(options.plot, exist_ok=True)
    ext = options.plot_format
    written = [os.path.join(options.plot, f"confusion_matrix.{ext}")]
    plot_confusion_matrix(rep.confusion, path=written[0])
    if scores is not None:
        labels = rep.confusion.labels
        written.append(os.path.join(options.plot, f"precision_recall.{ext}"))
        plot_precision_recall(gold, scores, labels=labels, pos_label=options.pos_label, path=written[-1])
        written.append(os.path.join(options.plot, f"roc.{ext}"))
        plot_roc(gold, scores, labels=labels, pos_label=options.pos_label, path=written[-1])
    from nlpeval.cli.written import announce

    for path in written:
        announce(path)
