"""Every metric, flavor and option nlpeval has (``nlpeval metrics``), read from the metric registry and the cards."""

from __future__ import annotations

import json
from typing import Any

from nlpeval._tables import markdown_table
from nlpeval.cards.card import Card
from nlpeval.cards.catalog import all_cards


def metric_listing() -> list[dict[str, Any]]:
    """One entry per metric family: card id, ``-m`` names of ``nlpeval score`` (and of ``nlpeval ir`` for the
    retrieval measures, whose registry entries have ``inputs="retrieval"``), API, flavors and options.

    Examples
    --------
    >>> bleu = metric_listing()[0]
    >>> bleu["id"], bleu["score_names"], bleu["flavors"]
    ('bleu', ['bleu'], ['sacrebleu', 'nltk', 'hf'])
    """
    from nlpeval.metrics import registry

    entries = []
    for card in all_cards().values():
        mine = [entry for entry in registry.entries() if entry.card == card.id]
        names = [entry.name for entry in mine if entry.inputs == "text"]
        entries.append(
            {
                "id": card.id,
                "title": card.title,
                "summary": " ".join(card.summary.split()),
                "score_names": names,
                "ir_names": [entry.name for entry in mine if entry.inputs == "retrieval"],
                "names": [*card.names, *card.patterns],
                "api": list(card.api),
                "flavors": [flavor.name for flavor in card.flavors],
                "options": {o.name: o.default for o in card.options if not o.where.startswith("nlpeval ")},
                "cli_options": _cli_options(card),
            }
        )
    return entries


def _cli_options(card: Card) -> dict[str, dict[str, str]]:
    """Command -> flag -> default of the CLI options on a card."""
    commands: dict[str, dict[str, str]] = {}
    for option in card.options:
        if option.where.startswith("nlpeval "):
            commands.setdefault(option.where.split()[1], {})[option.name] = option.default
    return commands


def _flag_default(flag: str, default: str) -> str:
    """``--flag=default``, the default quoted when it has spaces or commas (``--x="0 for chrf, 2 for chrf++"``)."""
    return f'{flag}="{default}"' if any(c in default for c in " ,;") else f"{flag}={default}"


def render_listing(fmt: str = "text") -> str:
    """The listing as ``text``, ``markdown`` or ``json``."""
    entries = metric_listing()
    if fmt == "json":
        return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        header = ["card", "nlpeval score -m", "API", "flavors", "options (default)"]
        rows = [
            [
                f"[{e['title']}](#nlpeval-card-{e['id']})",  # markdown_table escapes the cells
                ", ".join(f"`{n}`" for n in e["score_names"])
                or (f"- (`nlpeval ir -m` {', '.join(f'`{n}`' for n in e['ir_names'])})" if e["ir_names"] else "-"),
                ", ".join(f"`{a}`" for a in e["api"]),
                ", ".join(e["flavors"]),
                ", ".join(f"`{k}={v}`" for k, v in e["options"].items())
                + "".join(
                    f"; `nlpeval {c}` " + ", ".join(f"`{_flag_default(k, v)}`" for k, v in flags.items())
                    for c, flags in e["cli_options"].items()
                ),
            ]
            for e in entries
        ]
        return "\n".join(markdown_table(header, rows)) + "\n"
    if fmt != "text":
        raise ValueError(f"unknown format {fmt!r}; choose text, markdown or json")
    out = []
    for e in entries:
        out.append(f"{e['id']}: {e['title']} — {e['summary']}")
        if e["score_names"]:
            out.append(f"  nlpeval score -m: {', '.join(e['score_names'])}")
        if e["ir_names"]:
            out.append(f"  nlpeval ir -m: {', '.join(e['ir_names'])}")
        out.append(f"  API: {', '.join(e['api'])}")
        out.append(f"  flavors: {', '.join(e['flavors'])}")
        out.append(f"  options: {', '.join(f'{k}={v}' for k, v in e['options'].items())}")
        for command, flags in e["cli_options"].items():
            out.append(f"  nlpeval {command}: {', '.join(_flag_default(k, v) for k, v in flags.items())}")
        out.append("")
    out.append("nlpeval explain NAME shows a card (any name above, e.g. chrf++, rougeLsum, cer, f1).")
    return "\n".join(out) + "\n"
