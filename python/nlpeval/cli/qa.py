"""``nlpeval squad``, ``nlpeval exact-match``, ``nlpeval mc`` and ``nlpeval pass-at-k``: QA and LLM-eval answer
metrics on line files, the official SQuAD JSON files, or JSONL/CSV/TSV/Parquet columns.

Bad input ends in one line naming ``file:line`` (or ``file:row``) and exit code 2.
"""

from __future__ import annotations

import argparse
import csv
import io
from typing import Any

from nlpeval.cli import argtypes
from nlpeval.cli.errors import UsageError
from nlpeval.cli.formats import FORMATS, to_json


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--segments", action="store_true", help="also report each question's value")
    parser.add_argument(
        "--n-bootstrap", type=argtypes.resamples, default=0, metavar="N", help="bootstrap resamples for a 95%% CI"
    )
    parser.add_argument("--seed", type=argtypes.seed, default=12345, help="seed of the bootstrap")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")


def _files(parser: argparse.ArgumentParser, *inputs: tuple[str, str], required: int = 2) -> None:
    """Input file flags ``(flag, help)``; the first ``required`` of them must be given."""
    for position, (flag, text) in enumerate(inputs):
        parser.add_argument(flag, required=position < required, metavar="FILE", help=text)


def _columns(parser: argparse.ArgumentParser, *columns: tuple[str, str]) -> None:
    """Column flags ``(flag, what)`` of the data-file inputs."""
    for flag, text in columns:
        parser.add_argument(flag, metavar="COL", help=f"data files: {text}")


def add_parser(subparsers: Any) -> None:
    """The four commands (once: ``main`` calls this for each of the names it maps to this module)."""
    if "squad" in subparsers.choices:
        return
    squad = subparsers.add_parser(
        "squad",
        help="SQuAD v1.1/v2.0 (and MLQA) exact match and F1",
        description="SQuAD exact match and F1 as the official scripts compute them. Inputs: the official files "
        "(--gold dev-v2.0.json with its 'data' list, --pred a JSON object of answers by id, --na-probs a JSON "
        "object of no-answer probabilities by id); line files (--pred: one answer per line; --gold: one JSON "
        "list of answers per line, or one plain answer; an empty line is an unanswerable question); or data "
        "files with --pred-col/--gold-col (and --id-col to match rows by id).",
    )
    _files(
        squad, ("--pred", "predictions"), ("--gold", "gold answers"), ("--na-probs", "no-answer probabilities (v2.0)")
    )
    squad.add_argument("--version", choices=("1.1", "2.0"), default="1.1", help="official script to follow")
    squad.add_argument("--na-threshold", type=float, default=1.0, help="no-answer threshold (v2.0)")
    squad.add_argument("--lang", help="MLQA normalisation for this language (en es hi vi de ar zh)")
    squad.add_argument("--target", choices=("f1", "exact_match"), default="f1", help="value used for CIs")
    _columns(
        squad,
        ("--pred-col", "prediction column"),
        ("--gold-col", "gold answers column (text or list)"),
        ("--id-col", "question id column (match rows by id)"),
        ("--na-col", "no-answer probability column of --pred"),
    )
    _common(squad)
    squad.set_defaults(run=run_squad)

    em = subparsers.add_parser(
        "exact-match",
        help="exact match as lm-evaluation-harness computes it",
        description="Share of predictions equal to the gold answer after lm-eval's options. Line files: one "
        "prediction per line; --gold one answer per line (or a JSON list of answers). Data files: --pred-col "
        "and --gold-col.",
    )
    _files(em, ("--pred", "predictions"), ("--gold", "gold answers"))
    em.add_argument("--regex", action="append", default=[], metavar="RE", help="regexes_to_ignore (repeat)")
    em.add_argument("--ignore-case", action="store_true", help="lowercase both sides")
    em.add_argument("--ignore-punctuation", action="store_true", help="delete string.punctuation")
    em.add_argument("--ignore-numbers", action="store_true", help="delete digits")
    _columns(em, ("--pred-col", "prediction column"), ("--gold-col", "gold column (text or list)"))
    _common(em)
    em.set_defaults(run=run_exact_match)

    mc = subparsers.add_parser(
        "mc",
        help="multiple choice from log-likelihoods (lm-eval acc, acc_norm, acc_bytes, acc_mutual_info, Brier)",
        description="lm-eval's multiple-choice metrics. Line files: --ll one question per line (its choices' "
        "log-likelihoods, space- or comma-separated, or a JSON list); --gold one index (or JSON list) per line; "
        "--choices one JSON list of choice texts per line; --unconditional like --ll. Data files: the -col options.",
    )
    _files(
        mc,
        ("--ll", "per-choice log-likelihoods"),
        ("--gold", "gold choice indices (default: the --ll file, with --gold-col)"),
        ("--choices", "choice texts (for acc_norm, acc_bytes)"),
        ("--unconditional", "unconditional log-likelihoods (acc_mutual_info)"),
        required=1,
    )
    mc.add_argument(
        "--target",
        choices=("acc", "acc_norm", "acc_bytes", "acc_mutual_info", "brier_score"),
        default="acc",
        help="value used for CIs",
    )
    mc.add_argument("--allow-ragged", action="store_true", help="accept differing choice counts (no Brier)")
    _columns(
        mc,
        ("--ll-col", "log-likelihoods column"),
        ("--gold-col", "gold index column"),
        ("--choices-col", "choice texts column"),
        ("--unconditional-col", "unconditional log-likelihoods column"),
    )
    _common(mc)
    mc.set_defaults(run=run_mc)

    pk = subparsers.add_parser(
        "pass-at-k",
        help="unbiased pass@k from per-problem pass counts (no code is run)",
        description="pass@k of Chen et al. (2021). --correct: one pass count per line (or --correct-col); "
        "--n: samples per problem, one number for all or a file/column with one per problem.",
    )
    _files(pk, ("--correct", "passing samples per problem"), required=1)
    pk.add_argument("--n", metavar="N|FILE", help="samples per problem: a number or a file")
    pk.add_argument("-k", type=argtypes.count(1), action="append", required=True, help="k (repeat for several)")
    _columns(pk, ("--correct-col", "pass-count column"), ("--n-col", "sample-count column (of --correct)"))
    _common(pk)
    pk.set_defaults(run=run_pass_at_k)


# ----------------------------------------------------------------------------- output


def _render(name: str, scores: list[Any], fmt: str, segments: bool) -> str:
    from nlpeval._tables import latex_table, markdown_table

    if fmt == "json":
        return to_json({name: [s.to_dict() for s in scores]} if len(scores) > 1 else {name: scores[0].to_dict()})
    rows: list[tuple[str, str]] = []
    for s in scores:
        rows.append((s.signature.split("|version")[0] if len(scores) > 1 else "score", f"{s.score:.6f}"))
        rows += [(k, _show(v)) for k, v in s.components.items()]
        if s.ci is not None:
            rows.append(("95% CI", f"[{s.ci.low:.6f}, {s.ci.high:.6f}]"))
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if segments:
            writer.writerow(
                ["question", *(f"value_{i}" for i in range(len(scores)))] if len(scores) > 1 else ["question", "value"]
            )
            for i, values in enumerate(zip(*(s.segments.tolist() for s in scores), strict=True)):
                writer.writerow([i + 1, *map(repr, values)])
        else:
            writer.writerow(["name", "value"])
            writer.writerows(rows)
            writer.writerow(["signature", scores[0].signature])
        return buffer.getvalue()
    if fmt == "markdown":
        lines = [*markdown_table(["metric", "value"], rows), "", *(f"- `{s.signature}`" for s in scores)]
    elif fmt == "latex":
        lines = [*latex_table(["metric", "value"], rows), *(f"% {s.signature}" for s in scores)]
    else:
        width = max(len(k) for k, _ in rows)
        lines = [f"{k.ljust(width)}  {v}" for k, v in rows] + ["", *(s.signature for s in scores)]
    if segments and fmt == "text":
        lines += ["", "question\tvalue"]
        for i, values in enumerate(zip(*(s.segments.tolist() for s in scores), strict=True)):
            lines.append("\t".join([str(i + 1), *(f"{v:.6f}" for v in values)]))
    return "\n".join(lines) + "\n"


def _show(value: Any) -> str:
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def _located(exc: Any, sides: dict[str, Any]) -> UsageError:
    """An :class:`InputError` as one line naming the file and line of the offending question."""
    column = sides.get(exc.side) or next(iter(sides.values()))
    return UsageError(f"{column.at(exc.segment)}: {exc.message}")


def _emit(name: str, scores: list[Any], options: argparse.Namespace) -> int:
    from nlpeval.cli.io import emit

    emit(_render(name, scores, options.format, options.segments), options.output)
    return 0


def _same_length(*columns: Any) -> None:
    first = columns[0]
    for other in columns[1:]:
        if other is not None and len(other.values) != len(first.values):
            raise UsageError(f"{first.name} has {len(first.values)} entries but {other.name} has {len(other.values)}")


# ----------------------------------------------------------------------------- squad


def run_squad(options: argparse.Namespace) -> int:
    import nlpeval
    from nlpeval.cli import qa_inputs as q
    from nlpeval.core.errors import InputError

    if options.version == "1.1" and (options.na_probs or options.na_col):
        raise UsageError("--na-probs/--na-col need --version 2.0")
    column_mode = options.pred_col is not None or options.gold_col is not None
    if column_mode and (options.pred_col is None or options.gold_col is None):
        raise UsageError("data files need both --pred-col and --gold-col")
    probs: Any = None
    if column_mode:
        preds = q.read_data_column(options.pred, options.pred_col, q.text_cell)
        golds = q.read_data_column(options.gold, options.gold_col, q.texts_cell)
        if options.na_col:
            probs = q.read_data_column(options.pred, options.na_col, q.number_cell)
        if options.id_col:
            pred_ids = q.read_data_column(options.pred, options.id_col, _id_cell)
            gold_ids = q.read_data_column(options.gold, options.id_col, _id_cell)
            _unique(pred_ids)
            _unique(gold_ids)
            return _squad_columns(
                options,
                (preds, dict(zip(pred_ids.values, preds.values, strict=True))),
                (golds, dict(zip(gold_ids.values, golds.values, strict=True))),
                None if probs is None else (probs, dict(zip(pred_ids.values, probs.values, strict=True))),
            )
    elif options.gold.endswith(".json") and options.pred.endswith(".json"):
        answers, gold_name = q.squad_dataset(options.gold)
        predictions, pred_name = q.json_mapping(options.pred, "answers")
        bad = next((k for k, v in predictions.items() if not isinstance(v, str)), None)
        if bad is not None:
            raise UsageError(f"{pred_name}: the prediction for {bad!r} is not text")
        na = None
        if options.na_probs:
            na, _ = q.json_mapping(options.na_probs, "no-answer probabilities")
        try:
            score = nlpeval.squad(predictions, answers, no_answer_probs=na, **_squad_options(options))
        except InputError as exc:
            source = {"answers": gold_name, "no_answer_probs": options.na_probs}.get(exc.side or "", pred_name)
            raise UsageError(f"{source}: {exc.message}") from None
        return _emit("squad", [score], options)
    else:
        preds = q.read_lines(options.pred, q.text_line)
        golds = q.read_lines(options.gold, q.texts_line)
        if options.na_probs:
            probs = q.read_lines(options.na_probs, q.number_line)
    _same_length(preds, golds, probs)
    return _squad_columns(
        options, (preds, preds.values), (golds, golds.values), None if probs is None else (probs, probs.values)
    )


def _squad_columns(options: argparse.Namespace, preds: Any, golds: Any, probs: Any) -> int:
    """``nlpeval.squad`` on read columns, each ``(column, values)``; an input error names the column's file:line."""
    import nlpeval
    from nlpeval.core.errors import InputError

    sides = {"predictions": preds[0], "answers": golds[0], "no_answer_probs": (probs or preds)[0]}
    try:
        score = nlpeval.squad(
            preds[1], golds[1], no_answer_probs=None if probs is None else probs[1], **_squad_options(options)
        )
    except InputError as exc:
        raise _located(exc, sides) from None
    return _emit("squad", [score], options)


def _squad_options(options: argparse.Namespace) -> dict[str, Any]:
    return {
        "version": options.version,
        "no_answer_threshold": options.na_threshold,
        "target": options.target,
        "lang": options.lang,
        "segments": options.segments,
        "n_bootstrap": options.n_bootstrap,
        "seed": options.seed,
    }


def _id_cell(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise UsageError(f"{where}: the id is not text or an integer")
    return str(value)


def _unique(ids: Any) -> None:
    seen: dict[str, str] = {}
    for value, where in zip(ids.values, ids.where, strict=True):
        if value in seen:
            raise UsageError(f"{where}: duplicate question id {value!r} (first at {seen[value]})")
        seen[value] = where


# ----------------------------------------------------------------------------- exact match


def run_exact_match(options: argparse.Namespace) -> int:
    import nlpeval
    from nlpeval.cli import qa_inputs as q
    from nlpeval.core.errors import InputError

    preds = q.read(options.pred, options.pred_col, q.text_line, q.text_cell)
    golds = q.read(options.gold, options.gold_col, lambda line, at: q.texts_line(line, at) or [""], q.texts_cell)
    _same_length(preds, golds)
    try:
        score = nlpeval.exact_match(
            preds.values,
            golds.values,
            regexes_to_ignore=options.regex,
            ignore_case=options.ignore_case,
            ignore_punctuation=options.ignore_punctuation,
            ignore_numbers=options.ignore_numbers,
            segments=options.segments,
            n_bootstrap=options.n_bootstrap,
            seed=options.seed,
        )
    except InputError as exc:
        raise _located(exc, {"predictions": preds, "references": golds}) from None
    return _emit("exact_match", [score], options)


# ----------------------------------------------------------------------------- multiple choice


def run_mc(options: argparse.Namespace) -> int:
    import nlpeval
    from nlpeval.cli import qa_inputs as q
    from nlpeval.core.errors import InputError

    lls = q.read(options.ll, options.ll_col, q.numbers_line, q.numbers_cell)
    gold_path = options.gold or (options.ll if options.gold_col else None)
    if gold_path is None:
        raise UsageError("give --gold FILE (or --gold-col with a data file)")
    gold = q.read(gold_path, options.gold_col, q.gold_line, q.gold_cell)
    choices = _optional(options.choices, options.choices_col, options.ll, q.choices_line, q.choices_cell)
    uncond = _optional(options.unconditional, options.unconditional_col, options.ll, q.numbers_line, q.numbers_cell)
    _same_length(lls, gold, choices, uncond)
    sides = {"loglikelihoods": lls, "gold": gold, "choices": choices or lls, "unconditional": uncond or lls}
    try:
        score = nlpeval.multiple_choice(
            lls.values,
            gold.values,
            choices=None if choices is None else choices.values,
            unconditional=None if uncond is None else uncond.values,
            target=options.target,
            allow_ragged=options.allow_ragged,
            segments=options.segments,
            n_bootstrap=options.n_bootstrap,
            seed=options.seed,
        )
    except InputError as exc:
        raise gold_beyond_choices(exc, gold, lls) or _located(exc, sides) from None
    return _emit("multiple_choice", [score], options)


def gold_beyond_choices(exc: Exception, gold: Any, lls: Any) -> UsageError | None:
    """A gold index beyond a question's log-likelihoods as an error at the log-likelihood file's line (the
    list that is short), naming the gold's line; ``None`` for any other error."""
    from nlpeval.lm.choice import GoldIndexError

    error = getattr(exc, "error", exc)  # a report's SystemInputError keeps the system's own error
    if not isinstance(error, GoldIndexError):
        return None
    return UsageError(
        f"{lls.at(error.segment)}: {error.choices} choices, but the gold answer at {gold.at(error.segment)} "
        f"is choice index {error.index}"
    )


def _optional(path: str | None, column: str | None, default: str, line: Any, cell: Any) -> Any:
    from nlpeval.cli import qa_inputs as q

    if path is None and column is None:
        return None
    return q.read(path or default, column, line, cell)


# ----------------------------------------------------------------------------- pass@k


def run_pass_at_k(options: argparse.Namespace) -> int:
    import nlpeval
    from nlpeval.cli import qa_inputs as q
    from nlpeval.core.errors import InputError

    if (options.n is None) == (options.n_col is None):
        raise UsageError("give the samples per problem: --n N|FILE, or --n-col COL with a data file")
    correct = q.read(options.correct, options.correct_col, q.integer_line, q.integer_cell)
    if options.n_col:
        samples = q.read_data_column(options.correct, options.n_col, q.integer_cell)
        n: Any = samples.values
    else:
        try:
            n = int(options.n)
            samples = correct
        except ValueError:
            samples = q.read_lines(options.n, q.integer_line)
            n = samples.values
            _same_length(correct, samples)
    scores = []
    for k in options.k:
        try:
            scores.append(
                nlpeval.pass_at_k(
                    n, correct.values, k, segments=options.segments, n_bootstrap=options.n_bootstrap, seed=options.seed
                )
            )
        except InputError as exc:
            raise _located(exc, {"n_correct": correct, "n_samples": samples}) from None
    return _emit("pass_at_k", scores, options)
