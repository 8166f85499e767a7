"""``nlpeval power``: power, minimum detectable effect or needed test-set size of a paired test, by simulation."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from nlpeval.cli.errors import UsageError
from nlpeval.cli.tabular import TABLE_FORMATS

if TYPE_CHECKING:
    from nlpeval.significance.power.analysis import Model

#: library parameter -> the flag that sets it (for one-line errors naming the flag)
FLAGS = {
    "model": "--model",
    "n": "--n",
    "delta": "--delta",
    "p_zero": "--p-zero",
    "b_zero": "--b-zero",
    "table": "--table",
    "baseline_accuracy": "--baseline-accuracy",
    "agreement": "--agreement",
    "metric": "-m",
    "baseline": "--pilot",
    "system": "--pilot",
    "test": "--test",
    "alpha": "--alpha",
    "n_trials": "--trials",
    "n_randomizations": "--randomizations",
    "seed": "--seed",
    "notebook": "--notebook",
    "target_power": "--target-power",
    "n_max": "--n-max",
    "rel_tol": "--rel-tol",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "power",
        help="power, minimum detectable effect or needed test-set size of a paired test (simulation)",
        description="Estimate by simulation how likely a paired test is to detect a true difference, with Type-M "
        "and Type-S errors. Models: laplace (Card et al. 2020's model of BLEU differences), mcnemar (accuracy), "
        "or --pilot BASE SYS -r REF -m METRIC (test sets drawn from two systems' pilot outputs). Without --delta "
        "the minimum detectable effect at --target-power is searched; without --n, the needed test-set size. "
        "See 'nlpeval explain power'.",
    )
    parser.add_argument("--model", choices=("laplace", "mcnemar", "pilot"), default=None, help="default laplace")
    parser.add_argument("--n", type=float, default=None, help="segments (items) per test set")
    parser.add_argument("--delta", type=float, default=None, help="true effect, system minus baseline")
    laplace = parser.add_argument_group("laplace model (BLEU)")
    laplace.add_argument("--p-zero", type=float, default=None, help="probability that a segment changes nothing")
    laplace.add_argument("--b-zero", type=float, default=None, help="scale of segment effects times n (WMT: 25.8)")
    mcnemar = parser.add_argument_group("mcnemar model (accuracy)")
    mcnemar.add_argument("--baseline-accuracy", type=float, default=None, help="accuracy of the baseline")
    mcnemar.add_argument("--agreement", type=float, default=None, help="share of items both get right or both wrong")
    mcnemar.add_argument(
        "--table",
        default=None,
        metavar="P00,P01,P10,P11",
        help="joint probabilities: both wrong, only system right, only baseline right, both right",
    )
    pilot = parser.add_argument_group("pilot data")
    pilot.add_argument("--pilot", nargs=2, metavar=("BASE", "SYS"), default=None, help="two system files")
    pilot.add_argument("-r", "--ref", action="append", default=[], metavar="REF", help="reference file (repeatable)")
    pilot.add_argument("-m", "--metric", default="bleu", help="corpus metric of the pilot (default bleu)")
    run_group = parser.add_argument_group("simulation")
    run_group.add_argument("--test", default=None, help="randomization (default), bootstrap, or mcnemar")
    run_group.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    run_group.add_argument("--trials", type=float, default=500, help="simulated test sets (500)")
    run_group.add_argument("--randomizations", type=float, default=1000, help="randomizations per test (1000)")
    run_group.add_argument("--seed", type=int, default=12345, help="seed of every draw (12345)")
    run_group.add_argument(
        "--notebook", action="store_true", help="Card et al.'s notebooks' draws and decision rules (legacy NumPy RNG)"
    )
    run_group.add_argument(
        "--solve",
        choices=("power", "mde", "n"),
        default=None,
        help="what to compute (default: power; mde without --delta; n without --n; a pilot's n only when asked)",
    )
    run_group.add_argument("--target-power", type=float, default=0.8, help="power to reach when searching (0.8)")
    run_group.add_argument("--n-max", type=float, default=1_000_000, help="largest test set tried when searching n")
    run_group.add_argument("--rel-tol", type=float, default=0.02, help="relative precision of a search (0.02)")
    parser.add_argument("--format", "-f", choices=TABLE_FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically)")
    from nlpeval.cli.metric_options import add_metric_options

    add_metric_options(parser)  # the pilot metric's options, as nlpeval score takes them
    parser.set_defaults(run=run)


def _table(text: str | None) -> list[list[float]] | None:
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--table: expected four comma-separated probabilities; got {text!r}") from None
    if len(values) != 4:
        raise UsageError(f"--table: expected four comma-separated probabilities; got {len(values)}")
    return [values[:2], values[2:]]


def _count(value: float | None, flag: str) -> int | None:
    """A whole-number option given as a float (``--n 2e3``), refused when not whole; None when not given."""
    return None if value is None else _whole(value, flag)


def _whole(value: float, flag: str) -> int:
    """A whole-number option with a default (never None), refused when not whole."""
    if not math.isfinite(value) or not float(value).is_integer():
        raise UsageError(f"{flag}: must be a positive integer; got {value!r}")
    return int(value)


def _solve(model: str, options: argparse.Namespace, n: int | None) -> str:
    """What to compute when ``--solve`` is not given: the quantity left out."""
    if model == "pilot":
        return "power"
    if options.delta is None and options.table is None:
        return "mde"
    return "n" if n is None else "power"


def _pilot_stats(options: argparse.Namespace) -> tuple[Any, Any, Any]:
    """Segment statistics of the two pilot systems, read and scored as ``nlpeval score`` does."""
    from nlpeval.cli.formats import metric_list
    from nlpeval.cli.main import build_parser
    from nlpeval.cli.metric_options import entry_options
    from nlpeval.cli.score import score_system
    from nlpeval.metrics.registry import get

    names = metric_list(options.metric)
    if len(names) != 1:
        raise UsageError(f"-m: give one metric for a pilot; got {options.metric!r}")
    if not options.ref:
        raise UsageError("--pilot needs references: -r REF")
    base_path, sys_path = options.pilot
    score_options = build_parser(["score"]).parse_args(["score", "-m", names[0], "-r", *options.ref[:1], sys_path])
    score_options.ref = options.ref
    score_options.segments = True
    try:
        entry = get(names[0])
        metric = entry.build(names[0], entry_options(entry, options))  # as nlpeval score -m NAME builds it
    except ValueError as exc:
        raise UsageError(f"-m: {exc}") from None
    stats = []
    for path in (base_path, sys_path):
        accumulators = score_system(path, options.ref, {names[0]: metric}, score_options)
        stats.append(accumulators[names[0]].stats())
    if len(stats[0]) != len(stats[1]):
        raise UsageError(
            f"--pilot: {base_path} has {len(stats[0])} lines but {sys_path} has {len(stats[1])}: "
            "the pilot systems must translate the same segments"
        )
    return metric, stats[0], stats[1]


def run(options: argparse.Namespace) -> int:
    from nlpeval.cli.io import emit
    from nlpeval.significance.power import PowerSettingError, minimum_detectable_effect, power, required_sample_size

    model: Model = options.model or ("pilot" if options.pilot else "laplace")
    if options.pilot and model != "pilot":
        raise UsageError(f"--pilot: only with --model pilot; got --model {model}")
    if model == "pilot" and not options.pilot:
        raise UsageError("--model pilot: give --pilot BASE SYS -r REF -m METRIC")
    common = {
        "test": options.test,
        "alpha": options.alpha,
        "n_trials": _count(options.trials, "--trials"),
        "n_randomizations": _count(options.randomizations, "--randomizations"),
        "seed": options.seed,
        "notebook": options.notebook,
    }
    n = _count(options.n, "--n")
    parameters: dict[str, Any] = {}
    if model == "laplace":
        parameters = {"p_zero": options.p_zero, "b_zero": options.b_zero}
    elif model == "mcnemar":
        parameters = {
            "table": _table(options.table),
            "baseline_accuracy": options.baseline_accuracy,
            "agreement": options.agreement,
        }
    else:
        metric, baseline, system = _pilot_stats(options)
        parameters = {"metric": metric, "baseline": baseline, "system": system}
        if options.delta is not None:
            raise UsageError("--delta: a pilot's effect is its own difference; leave --delta out")
    parameters = {name: value for name, value in parameters.items() if value is not None}
    search = {"target_power": options.target_power, "rel_tol": options.rel_tol}
    try:
        solve = options.solve or _solve(model, options, n)
        if solve == "mde":
            if n is None and model != "pilot":
                raise UsageError("--n: the minimum detectable effect needs a test-set size")
            outcome: Any = minimum_detectable_effect(model, n=n, **parameters, **search, **common)
        elif solve == "n":
            n_max = _whole(options.n_max, "--n-max")
            outcome = required_sample_size(model, delta=options.delta, n_max=n_max, **parameters, **search, **common)
        else:
            outcome = power(model, n=n, delta=options.delta, **parameters, **common)
    except PowerSettingError as exc:
        raise UsageError(f"{FLAGS.get(exc.parameter, exc.parameter)}: {exc.message}") from None
    emit(_render(outcome, options.format), options.output)
    return 0


def _render(outcome: Any, fmt: str) -> str:
    from nlpeval.cli.tabular import json_safe, render_table
    from nlpeval.significance.power import PowerResult

    if fmt == "json":
        return json.dumps(json_safe(_finite(outcome.to_dict())), ensure_ascii=False, indent=2) + "\n"
    result = outcome if isinstance(outcome, PowerResult) else outcome.result
    header = ["quantity", "value"]
    rows: list[list[Any]] = []
    if not isinstance(outcome, PowerResult):
        label = "minimum detectable effect" if outcome.kind == "mde" else "needed test-set size"
        value = outcome.value if outcome.reachable else math.inf
        rows.append(
            [
                f"{label} (power >= {outcome.target_power:g})",
                int(value) if outcome.kind == "n" and outcome.reachable else value,
            ]
        )
    if result is not None:
        rows += [
            ["power", result.power],
            ["power standard error", result.power_standard_error],
            ["type-M error", result.type_m],
            ["type-S error", result.type_s],
            ["mean observed difference", result.mean_observed_difference],
            ["true effect", result.delta],
            ["segments per test set", result.n],
            ["significant test sets", result.n_significant],
        ]
    if fmt == "csv":
        return render_table(header, rows, "csv")
    text = render_table(header, rows, "text")
    if not isinstance(outcome, PowerResult):
        text += "searched: " + ", ".join(f"{x:g} -> {p:.3f}" for x, p in outcome.points) + "\n"
        if not outcome.reachable:
            text += "note: no value in the search range reaches the target power\n"
    text += f"signature: {outcome.signature}\n"
    return text


def _finite(value: Any) -> Any:
    """``inf`` as None in JSON, as NaN already is."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
