"""Build report metrics from ``nlpeval score -m`` names, with the registry's defaults and option overrides."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from nlpeval.core.metric import CorpusMetric


def default_options(**overrides: Any) -> argparse.Namespace:
    """Every metric option of the registry at its default, with ``overrides`` (e.g. ``tokenize="intl"``).

    Examples
    --------
    >>> options = default_options(tokenize="intl")
    >>> options.tokenize, options.chrf_char_order
    ('intl', 6)
    """
    from nlpeval.metrics import registry

    registry.check_options(overrides)
    return argparse.Namespace(**(registry.option_defaults() | overrides))


def higher_is_better(name: str) -> bool:
    """Whether a higher score of the ``-m`` name ``name`` is better (the registry's direction).

    Examples
    --------
    >>> higher_is_better("bleu"), higher_is_better("ter")
    (True, False)
    """
    from nlpeval.metrics import registry

    return registry.get(name).higher_is_better


def build_metrics(
    names: tuple[str, ...], options: argparse.Namespace | Mapping[str, Any] | None = None
) -> dict[str, tuple[CorpusMetric, str, float]]:
    """``name -> (metric, label, scale)`` for ``-m`` names (any metric of ``nlpeval score``).

    ``options`` maps option names of the registry to values (an ``argparse.Namespace`` of
    them too); options of other metrics are ignored, names of no metric option refused.

    Examples
    --------
    >>> metric, label, scale = build_metrics(("chrf",))["chrf"]
    >>> label, scale
    ('chrF', 100.0)
    """
    from nlpeval.metrics import registry

    if options is None:
        values: dict[str, Any] = {}
    elif isinstance(options, argparse.Namespace):
        values = vars(options)
    else:
        values = dict(options)
        registry.check_options(values)
    built = {}
    for name in names:
        entry = registry.text_entry(name)
        built[name] = (entry.build(name, values), entry.display(name), entry.scale)
    return built
