"""Load the metric cards (``*.toml`` in this package) and find the card of a metric name."""

from __future__ import annotations

import difflib
import re
import sys
from functools import lru_cache
from importlib import resources
from typing import Any

from nlpeval.cards.card import Card, Flavor, Option, Reference
from nlpeval.cards.options import COMMON, api_options, command_flags
from nlpeval.metrics.registry import UnknownMetricError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


#: folders of cards read after the package's own ``data`` folder (cards of metrics registered from
#: outside the package, e.g. in tests; call ``reload()`` after changing it)
EXTRA_FOLDERS: list[Any] = []


def reload() -> None:
    """Forget the loaded cards, so that the next call reads the card folders again."""
    all_cards.cache_clear()
    _index.cache_clear()


def _options(data: dict[str, Any], card_id: str) -> tuple[Option, ...]:
    described: dict[str, str] = data.get("options", {}).get("describe", {})
    in_code = api_options(data.get("options", {}).get("from", []))
    stale = sorted(set(described) - set(in_code))
    if stale:
        raise ValueError(f"card {card_id!r} describes options the code does not have: {', '.join(stale)}")
    options = []
    for name, (default, where) in in_code.items():
        text = described.get(name, COMMON.get(name))
        if text is None:
            raise ValueError(f"card {card_id!r}: option {name!r} of {where} is not described")
        options.append(Option(name, default, text, where))
    for command, flags in data.get("cli", {}).items():
        known = command_flags(command)
        for flag in flags:
            if flag not in known:
                raise ValueError(f"card {card_id!r}: nlpeval {command} has no option {flag}")
            default, help_text = known[flag]
            if not help_text:  # an undocumented flag shares its meaning with the API option of the same name
                help_text = described.get(flag.lstrip("-").replace("-", "_"), "")
            options.append(Option(flag, default, help_text, f"nlpeval {command}"))
    return tuple(options)


def parse_card(text: str) -> Card:
    """A :class:`Card` from the text of a card file (TOML)."""
    data = tomllib.loads(text)
    example = data["example"]
    return Card(
        id=data["id"],
        title=data["title"],
        summary=data["summary"],
        names=tuple(data["names"]),
        patterns=tuple(data.get("patterns", ())),
        api=tuple(data.get("api", ())),
        definition=data["definition"],
        formula=data["formula"],
        bounds=data["bounds"],
        encodes=data["encodes"],
        weaknesses=tuple(data["weaknesses"]),
        pitfalls=tuple(data["pitfalls"]),
        related=tuple(data["related"]),
        flavors=tuple(Flavor(**f) for f in data["flavors"]),
        options=_options(data, data["id"]),
        example_code=example["code"],
        example_output=example["output"],
        example_notes=example.get("notes", ""),
        references=tuple(Reference(**r) for r in data["references"]),
        extra={"option_sources": list(data.get("options", {}).get("from", [])), "order": data.get("order", 1000)},
    )


@lru_cache(maxsize=1)
def all_cards() -> dict[str, Card]:
    """Every card, by id, in the cards' ``order`` (text generation first, then classification, then human judgements).

    Examples
    --------
    >>> "bleu" in all_cards() and "rouge" in all_cards()
    True
    """
    cards: dict[str, Card] = {}
    for folder in [resources.files("nlpeval.cards") / "data", *EXTRA_FOLDERS]:
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml"):
                card = parse_card(entry.read_text(encoding="utf-8"))
                if card.id in cards:
                    raise ValueError(f"two cards have the id {card.id!r}")
                cards[card.id] = card
    return dict(sorted(cards.items(), key=lambda item: (item[1].extra["order"], item[0])))


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, str], list[tuple[re.Pattern[str], str]]]:
    names: dict[str, str] = {}
    patterns = []
    for card in all_cards().values():
        for name in (card.id, *card.names):
            other = names.setdefault(_key(name), card.id)
            if other != card.id:
                raise ValueError(f"the name {name!r} is on two cards: {other} and {card.id}")
        patterns += [(re.compile(p, re.IGNORECASE), card.id) for p in card.patterns]
    return names, patterns


def card_id(name: str) -> str:
    """The id of the card that explains a metric name, flavor name or alias (for links from reports).

    Case, ``_`` and ``-`` do not matter. Combine with :attr:`Card.anchor` or
    ``nlpeval.cards.card.ANCHOR_PREFIX`` to link to the card.

    Raises
    ------
    UnknownMetricError
        When no card covers the name; the message suggests the closest names.

    Examples
    --------
    >>> card_id("rougeLsum"), card_id("chrF++"), card_id("wer"), card_id("f1_score")
    ('rouge', 'chrf', 'wer', 'prf')
    """
    names, patterns = _index()
    key = _key(name)
    if key in names:
        return names[key]
    for pattern, identifier in patterns:
        if pattern.fullmatch(name.strip()):
            return identifier
    close = difflib.get_close_matches(key, list(names), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise UnknownMetricError(f"unknown metric {name!r}{hint} (nlpeval metrics lists every name)")


def explain(metric: str) -> Card:
    """The card of a metric: definition, bounds, weaknesses, flavors, options, pitfalls and a worked example.

    Parameters
    ----------
    metric : str
        A metric name as the CLI or the API spells it (``"bleu"``, ``"chrf++"``,
        ``"rougeL"``, ``"wer"``, ``"f1"``…); aliases resolve to their family's card.

    Returns
    -------
    Card
        With ``to_text()``, ``to_markdown()`` and ``to_dict()``.

    Examples
    --------
    >>> import nlpeval
    >>> card = nlpeval.explain("rougeL")
    >>> card.title
    'ROUGE'
    >>> [f.name for f in card.flavors]
    ['default', 'rouge-score', 'rouge155']
    """
    return all_cards()[card_id(metric)]
