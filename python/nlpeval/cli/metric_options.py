"""The metric options of the registry as ``nlpeval score`` flags, and back to an options mapping."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from nlpeval.metrics.registry import MetricEntry, Option, option_groups


def _converter(option: Option) -> Callable[[str], Any]:
    """The ``type=`` of a flag: :meth:`Option.parse`, then :meth:`Option.check` (choices, minimum) and, for
    numbers, finiteness, so that every metric option is validated here, where its declaration becomes a
    flag, while the command line is parsed: ``argument --max-order: must be at least 1, got 0`` (exit 2)."""
    import math

    def convert(text: str) -> Any:
        try:
            value = option.parse(text)
            if option.type in ("float", "number") and not math.isfinite(value):
                raise ValueError(f"expected a finite number, got {text!r}")
            if option.type == "floats" and not all(math.isfinite(v) for v in value):
                raise ValueError(f"expected finite numbers, got {text!r}")
            return option.check(value)
        except ValueError as exc:
            message = str(exc)
            if option.type in ("int", "float", "number") and message.startswith(("invalid literal", "could not")):
                kind = "an integer" if option.type == "int" else "a number"
                message = f"expected {kind}, got {text!r}"
            raise argparse.ArgumentTypeError(message.removeprefix(f"{option.flag} ")) from None

    convert.__name__ = option.type
    return convert


def add_option(group: Any, option: Option) -> None:
    """Add one registry option to an argument group (or parser)."""
    flags = [option.flag] if option.short is None else [option.flag, option.short]
    keywords: dict[str, Any] = {"dest": option.name, "help": option.help or None}
    if option.type == "flag":
        group.add_argument(*flags, action="store_true", **keywords)
        return
    keywords["default"] = option.default
    if option.metavar is not None:
        keywords["metavar"] = option.metavar
    if option.choices is not None:
        keywords["choices"] = option.choices
    if option.type not in ("str", "path"):
        keywords["type"] = _converter(option)
    group.add_argument(*flags, **keywords)


def add_metric_options(parser: argparse.ArgumentParser) -> None:
    """Every metric option of the registry, one group of flags per family."""
    for title, options in option_groups():
        group = parser.add_argument_group(title)
        for option in options:
            add_option(group, option)


def entry_options(entry: MetricEntry, namespace: argparse.Namespace) -> dict[str, Any]:
    """Option name -> value of ``entry``'s options in parsed arguments."""
    return {option.name: getattr(namespace, option.name, option.default) for option in entry.options}
