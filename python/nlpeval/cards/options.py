"""Options of a card read from the code: keyword parameters of the API and flags of the CLI.

A card only *describes* options; their names and defaults come from the functions'
signatures and the ``nlpeval`` argument parser, so the card cannot drift from the code.
"""

from __future__ import annotations

import argparse
import inspect
import math
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import import_module
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


@lru_cache(maxsize=1)
def _command_parsers() -> dict[str, argparse.ArgumentParser]:
    from nlpeval.cli.main import build_parser

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise RuntimeError("the nlpeval parser has no sub-commands")  # pragma: no cover


def command_flags(command: str) -> dict[str, tuple[str, str]]:
    """Long flag -> (default, help) of an ``nlpeval`` sub-command.

    Examples
    --------
    >>> command_flags("score")["--max-order"][0], command_flags("score")["--tokenize"][0]
    ('4', '13a')
    """
    parsers = _command_parsers()
    if command not in parsers:
        raise KeyError(f"nlpeval has no command {command!r}")
    flags = {}
    for action in parsers[command]._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or isinstance(action, argparse._HelpAction):
            continue
        help_text = " ".join((action.help or "").replace("%%", "%").split())
        if isinstance(action, argparse._StoreTrueAction):
            shown = "off"
        elif action.default is not None:
            shown = str(action.default)
        else:  # None stands for a default the command chooses; its help says which
            stated = re.search(r"\(default:? ([^)]+)\)", help_text)
            shown = stated.group(1) if stated else "none"
        flags[longs[0]] = (shown, help_text)
    return flags


def metric_flag_groups(command: str = "score") -> dict[str, list[str]]:
    """Title -> long flags of the metric option groups of a command (groups whose title names a metric)."""
    parser = _command_parsers()[command]
    groups = {}
    for group in parser._action_groups:
        if group.title and "options" in group.title and group.title not in ("options", "optional arguments"):
            groups[group.title] = [s for a in group._group_actions for s in a.option_strings if s.startswith("--")]
    return groups
