"""Options of a card read from the code: keyword parameters of the API and flags of the CLI.

A card only *describes* options; their names and defaults come from the functions'
signatures and the metric registry's option declarations (``nlpeval score``'s flags), so the card
cannot drift from the code. The flags of the other commands come from files the command line
writes (:data:`COMMAND_FLAGS_FOLDER`) and a test keeps equal to the parsers.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterable
from functools import cache
from importlib import import_module, resources
from typing import Any

#: options shared by every corpus metric, described once here
COMMON = {
    "segments": "also return per-segment scores (Score.segments)",
    "n_bootstrap": "bootstrap resamples for a 95% confidence interval (0: none)",
    "seed": "seed of the bootstrap (None: a fresh, irreproducible seed)",
    "confidence": "confidence level of the bootstrap interval",
}


def resolve_api(path: str) -> Any:
    """The object named by a dotted public path such as ``nlpeval.bleu`` or ``nlpeval.classification.f1_score``.

    Examples
    --------
    >>> resolve_api("nlpeval.regression.r2_score").__name__
    'r2_score'
    """
    parts = path.split(".")
    obj: Any = import_module(parts[0])
    for depth, name in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            obj = import_module(".".join(parts[:depth]))
    return obj


def keyword_options(function: Callable[..., Any]) -> dict[str, str]:
    """Option name -> default (as shown to users) of a callable's parameters that have a default or are keyword-only.

    Examples
    --------
    >>> import nlpeval
    >>> keyword_options(nlpeval.ter)["normalized"]
    'False'
    """
    options = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.KEYWORD_ONLY or parameter.default is not parameter.empty:
            options[parameter.name] = show_default(parameter.default, parameter.empty)
    return options


def show_default(value: Any, empty: Any = inspect.Parameter.empty) -> str:
    """A default as users write it (``math.e`` for e, ``required`` for none)."""
    if value is empty:
        return "required"
    if isinstance(value, float) and value == math.e:
        return "math.e"
    return repr(value)


def api_options(paths: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Option name -> (default, first callable accepting it) over several callables, in signature order."""
    options: dict[str, tuple[str, str]] = {}
    for path in paths:
        for name, default in keyword_options(resolve_api(path)).items():
            options.setdefault(name, (default, path))
    return options


#: folder of the flags of the commands other than ``score``, one ``<command>.json`` each (written by
#: ``python -m nlpeval.cli.cardflags`` from the argument parsers; ``tests/test_registry.py`` checks them)
COMMAND_FLAGS_FOLDER = "cli"


@cache
def _stored_flags(command: str) -> dict[str, tuple[str, str]]:
    """Long flag -> (default, help) of a command other than ``score``, as the command line wrote them.

    The library does not import the command line: ``nlpeval.cli.cardflags`` writes the flags the
    cards name into the cards' data folder, one file per command.
    """
    path = resources.files("nlpeval.cards") / "data" / COMMAND_FLAGS_FOLDER / f"{command}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyError(
            f"nlpeval has no command {command!r}, or its flags are not written for the cards yet: "
            "run python -m nlpeval.cli.cardflags"
        ) from None
    return {flag: (default, help_text) for flag, (default, help_text) in json.loads(text).items()}


def command_flags(command: str) -> dict[str, tuple[str, str]]:
    """Long flag -> (default, help) of an ``nlpeval`` sub-command.

    ``score``'s metric flags are the registry's options (:mod:`nlpeval.metrics.registry`);
    other commands' flags come from the files in :data:`COMMAND_FLAGS_FOLDER`.

    Examples
    --------
    >>> command_flags("score")["--max-order"][0], command_flags("score")["--tokenize"][0]
    ('4', '13a')
    """
    if command == "score":
        from nlpeval.metrics import registry

        return {o.flag: (o.shown_default, " ".join(o.help.split())) for o in registry.options().values()}
    return dict(_stored_flags(command))


def metric_flag_groups(command: str = "score") -> dict[str, list[str]]:
    """Title -> long flags of the metric option groups of ``nlpeval score`` (one per family of the registry)."""
    if command != "score":
        raise KeyError(f"only 'nlpeval score' has metric option groups, not {command!r}")
    from nlpeval.metrics import registry

    return {title: [o.flag for o in options] for title, options in registry.option_groups()}
