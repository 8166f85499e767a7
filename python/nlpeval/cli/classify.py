"""``nlpeval classify``: a classification report (confusion matrix, per-class table, warnings) from label files."""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

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
    parser.add_argument("--gold", required=True, metavar="FILE", help="gold labels, one per line")
    parser.add_argument("--pred", required=True, metavar="FILE", help="predicted labels, one per line")
    parser.add_argument("--scores", metavar="FILE", help="scores or class probabilities, one row per line")
    parser.add_argument("--labels", metavar="L1,L2,...", help="classes in display (and score column) order")
    parser.add_argument("--pos-label", metavar="LABEL", help="positive class for one score per line")
    parser.add_argument(
        "--zero-division",
        default="nan",
        choices=("nan", "0", "1", "warn"),
        help="value of undefined 0/0 ratios (default nan, shown as n/a)",
    )
    parser.add_argument("--digits", type=int, default=4, help="decimals in text-like formats")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("--plot", metavar="DIR", help="also draw the confusion matrix (and PR and ROC curves) into DIR")
    parser.add_argument("--plot-format", choices=("png", "svg", "pdf"), default="png", help="image format of --plot")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically)")
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
    import numpy as np

    from nlpeval.classification.report import report
    from nlpeval.cli.io import emit
    from nlpeval.core.errors import InputError

    paths = [options.gold, options.pred] + ([options.scores] if options.scores else [])
    if sum(path == "-" for path in paths) > 1:
        raise UsageError("stdin ('-') can be used for only one file")
    gold = _labels(options.gold)
    pred = _labels(options.pred)
    if not gold:
        raise UsageError(f"{_name(options.gold)} is empty: there is nothing to score")
    if len(gold) != len(pred):
        raise UsageError(
            f"line counts differ: {_name(options.gold)} has {len(gold)}, {_name(options.pred)} has {len(pred)} lines"
        )
    scores = None
    if options.scores:
        rows = _scores(options.scores)
        if len(rows) != len(gold):
            raise UsageError(
                f"line counts differ: {_name(options.gold)} has {len(gold)}, "
                f"{_name(options.scores)} has {len(rows)} lines"
            )
        scores = np.array(rows, dtype=np.float64)
        if scores.shape[1] == 1:
            scores = scores[:, 0]
    labels = [label.strip() for label in options.labels.split(",")] if options.labels else None
    try:
        rep = report(
            gold,
            pred,
            y_score=scores,
            labels=labels,
            pos_label=options.pos_label,
            zero_division=_zero_division(options.zero_division),
        )
    except InputError as exc:
        if exc.segment is None:
            raise
        path = {"y_true": options.gold, "y_pred": options.pred, "y_score": options.scores}.get(exc.side or "")
        raise UsageError(f"{_name(path or '')}:{exc.segment + 1}: {exc.message}") from None
    emit(rep.render(options.format, digits=options.digits), options.output)
    if options.plot:
        _plots(rep, gold, scores, options)
    return 0


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
    for path in written:
        print(f"nlpeval classify: wrote {path}", file=sys.stderr)
