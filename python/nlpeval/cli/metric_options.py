"""The metric options of the registry as ``nlpeval score`` flags, and back to an options mapping."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection
from typing import Any

from nlpeval.metrics.registry import MetricEntry, Option, option_groups


def option_value(option: Option, text: str) -> Any:
    """``text`` as the value of ``option``: :meth:`Option.parse`, then :meth:`Option.check` (choices,
    minimum) and, for numbers, finiteness; a :class:`ValueError` whose message does not repeat the flag.

    Examples
    --------
    >>> from nlpeval.metrics import registry
    >>> option_value(registry.options()["max_order"], "3")
    3
    >>> option_value(registry.options()["max_order"], "four")
    Traceback (most recent call last):
    ...
    ValueError: expected an integer, got 'four'
    """
    import math

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
        raise ValueError(message.removeprefix(f"{option.flag} ")) from None


def _converter(option: Option) -> Callable[[str], Any]:
    """The ``type=`` of a flag: :func:`option_value`, so that every metric option is validated here, where
    its declaration becomes a flag, while the command line is parsed: ``argument --max-order: must be at
    least 1, got 0`` (exit 2)."""

    def convert(text: str) -> Any:
        try:
            return option_value(option, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = option.type
    return convert


def metric_option(text: str) -> tuple[str, Any]:
    """The ``type=`` of ``--metric-option KEY=VALUE`` (``nlpeval report``): ``(option name, value)``.

    ``KEY`` is an option's name (``chrf_word_order``) or its flag without dashes (``chrf-word-order``);
    ``VALUE`` is checked exactly as ``nlpeval score`` checks the flag, ``none`` clears an option whose
    default is none. Anything else is refused while the command line is parsed, naming the option.

    Examples
    --------
    >>> metric_option("chrf_word_order=2"), metric_option("chrf-word-order=2")
    (('chrf_word_order', 2), ('chrf_word_order', 2))
    >>> metric_option("max_order=0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: max_order (--max-order): must be at least 1, got 0
    """
    import difflib

    from nlpeval.metrics import registry

    key, sep, value_text = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"needs KEY=VALUE, got {text!r}")
    known = registry.options()
    name = key.strip().lstrip("-").replace("-", "_")
    option = known.get(name)
    if option is None:
        close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}?" if close else "'nlpeval metrics' lists the options"
        raise argparse.ArgumentTypeError(f"unknown metric option {key.strip()!r} ({hint})")
    value_text = value_text.strip()
    if option.type != "flag" and option.default is None and value_text.lower() == "none":
        return option.name, None
    try:
        return option.name, option_value(option, value_text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{option.name} ({option.flag}): {exc}") from None


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


def add_metric_options(parser: argparse.ArgumentParser, among: Collection[MetricEntry] | None = None) -> None:
    """Every metric option of the registry, one group of flags per family (only the families of the
    entries ``among``, when given: see :func:`nlpeval.cli.main.parse_arguments`)."""
    for title, options in option_groups(among):
        group = parser.add_argument_group(title)
        for option in options:
            add_option(group, option)


def entry_options(entry: MetricEntry, namespace: argparse.Namespace) -> dict[str, Any]:
    """Option name -> value of ``entry``'s options in parsed arguments."""
    return {option.name: getattr(namespace, option.name, option.default) for option in entry.options}
