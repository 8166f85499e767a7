"""Build report metrics from ``nlpeval score -m`` names, with ``score``'s defaults and option overrides."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from nlpeval.core.metric import CorpusMetric

#: metrics where a lower value is better
LOWER_IS_BETTER = frozenset({"ter", "wer", "cer", "mer", "wil"})


@lru_cache(maxsize=1)
def _score_parser() -> argparse.ArgumentParser:
    from nlpeval.cli import score

    parser = argparse.ArgumentParser(prog="nlpeval")
    score.add_parser(parser.add_subparsers(dest="command"))
    return parser


def default_options(**overrides: Any) -> argparse.Namespace:
    """The options of ``nlpeval score`` at their defaults, with ``overrides`` (e.g. ``tokenize="intl"``)."""
    options = _score_parser().parse_args(["score", "-r", "-", "-"])
    for key, value in overrides.items():
        if not hasattr(options, key):
            raise ValueError(f"unknown metric option {key!r}")
        setattr(options, key, value)
    return options


def build_metrics(
    names: tuple[str, ...], options: argparse.Namespace | Mapping[str, Any] | None = None
) -> dict[str, tuple[CorpusMetric, str, float]]:
    """``name -> (metric, label, scale)`` for ``-m`` names (any metric of ``nlpeval score``).

    Examples
    --------
    >>> metric, label, scale = build_metrics(("chrf",))["chrf"]
    >>> label, scale
    ('chrF', 100.0)
    """
    from nlpeval.cli.errors import UsageError
    from nlpeval.cli.registry import resolve

    if options is None:
        namespace = default_options()
    elif isinstance(options, argparse.Namespace):
        namespace = options
    else:
        namespace = default_options(**dict(options))
    built = {}
    for name in names:
        try:
            entry = resolve(name)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        label = entry.label if name == entry.label.lower() else name
        built[name] = (entry.build(name, namespace), label, entry.scale)
    return built
