"""The :class:`Card` of one metric family and its text, Markdown and JSON renderings."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field
from typing import Any

#: prefix of every card's anchor, so that reports can link ``#nlpeval-card-bleu``
ANCHOR_PREFIX = "nlpeval-card-"


@dataclass(frozen=True)
class Option:
    """One option of a metric family: where it is accepted, its default (read from the code) and its meaning."""

    name: str
    default: str
    description: str
    where: str


@dataclass(frozen=True)
class Flavor:
    """One flavor of a metric family and the reference tool whose numbers it reproduces."""

    name: str
    equals: str
    notes: str = ""


@dataclass(frozen=True)
class Reference:
    """A publication the card cites."""

    authors: str
    year: int
    title: str
    venue: str = ""

    def __str__(self) -> str:
        venue = f" {self.venue}." if self.venue else ""
        return f"{self.authors} ({self.year}). {self.title}.{venue}"


@dataclass(frozen=True)
class Card:
    """What a metric family measures, its flavors and options, and how to use it well.

    Cards are data files in the package (``nlpeval/cards/*.toml``); get one with :func:`nlpeval.explain`.

    Examples
    --------
    >>> import nlpeval
    >>> card = nlpeval.explain("chrf++")
    >>> card.id, card.anchor
    ('chrf', 'nlpeval-card-chrf')
    >>> card.to_dict()["title"]
    'chrF and chrF++'
    """

    id: str
    title: str
    summary: str
    names: tuple[str, ...]
    patterns: tuple[str, ...]
    api: tuple[str, ...]
    definition: str
    formula: str
    bounds: str
    encodes: str
    weaknesses: tuple[str, ...]
    pitfalls: tuple[str, ...]
    related: tuple[str, ...]
    flavors: tuple[Flavor, ...]
    options: tuple[Option, ...]
    example_code: str
    example_output: str
    example_notes: str
    references: tuple[Reference, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def anchor(self) -> str:
        """Stable HTML anchor of the card (``nlpeval-card-<id>``)."""
        return ANCHOR_PREFIX + self.id

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON-ready data."""
        return {
            "id": self.id,
            "anchor": self.anchor,
            "title": self.title,
            "summary": self.summary,
            "names": list(self.names),
            "patterns": list(self.patterns),
            "api": list(self.api),
            "definition": self.definition,
            "formula": self.formula,
            "bounds": self.bounds,
            "encodes": self.encodes,
            "weaknesses": list(self.weaknesses),
            "pitfalls": list(self.pitfalls),
            "related": list(self.related),
            "flavors": [vars(f) | {} for f in self.flavors],
            "options": [vars(o) | {} for o in self.options],
            "example": {"code": self.example_code, "output": self.example_output, "notes": self.example_notes},
            "references": [vars(r) | {"citation": str(r)} for r in self.references],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_text(self, width: int = 100) -> str:
        """A plain-text rendering for the terminal (``nlpeval explain NAME``)."""
        out: list[str] = [
            f"{self.title} [{self.id}]",
            "=" * len(f"{self.title} [{self.id}]"),
            _fill(self.summary, width),
        ]
        out += ["", _fill(f"Names: {', '.join(self.names + self.patterns)}", width)]
        out += _text_section("Definition", _fill(self.definition, width))
        out += _text_section("Formula", textwrap.indent(self.formula.strip(), "    "))
        out += _text_section("Bounds", _fill(self.bounds, width))
        out += _text_section("What it encodes", _fill(self.encodes, width))
        out += _text_section("Weaknesses", _bullets(self.weaknesses, width))
        out += _text_section("Reproducibility pitfalls", _bullets(self.pitfalls, width))
        flavors = [f"{f.name}: equals {f.equals}" + (f" ({f.notes})" if f.notes else "") for f in self.flavors]
        out += _text_section("Flavors", _bullets(flavors, width))
        options = [f"{o.name} (default {o.default}; {o.where}): {o.description}" for o in self.options]
        out += _text_section("Options", _bullets(options, width))
        example = textwrap.indent(self.example_code.strip(), "    ")
        printed = textwrap.indent(self.example_output.rstrip(), "    ")
        out += _text_section("Worked example", f"{example}\n\nprints\n\n{printed}")
        if self.example_notes:
            out += ["", _fill(self.example_notes, width)]
        out += _text_section("Related", ", ".join(self.related))
        out += _text_section("References", _bullets([str(r) for r in self.references], width))
        return "\n".join(out).rstrip() + "\n"

    def to_markdown(self) -> str:
        """A Markdown rendering with a stable anchor, for documentation and reports."""
        out = [f'<a id="{self.anchor}"></a>', f"## {self.title}", "", self.summary.strip(), ""]
        out += [f"**Names:** {', '.join(f'`{n}`' for n in self.names + self.patterns)}", ""]
        out += [f"**API:** {', '.join(f'`{a}`' for a in self.api)}", ""]
        for title, body in (
            ("Definition", self.definition),
            ("Formula", f"```\n{self.formula.strip()}\n```"),
            ("Bounds", self.bounds),
            ("What it encodes", self.encodes),
            ("Weaknesses", _md_bullets(self.weaknesses)),
            ("Reproducibility pitfalls", _md_bullets(self.pitfalls)),
        ):
            out += [f"### {title}", "", body.strip(), ""]
        out += ["### Flavors", "", "| flavor | equals | notes |", "| --- | --- | --- |"]
        out += [f"| `{f.name}` | {_cell(f.equals)} | {_cell(f.notes)} |" for f in self.flavors]
        out += ["", "### Options", "", "| option | default | where | meaning |", "| --- | --- | --- | --- |"]
        out += [
            f"| `{o.name}` | `{_cell(o.default)}` | {_cell(o.where)} | {_cell(o.description)} |" for o in self.options
        ]
        out += ["", "### Worked example", "", "```python", self.example_code.strip(), "```", "", "prints", ""]
        out += ["```", self.example_output.rstrip(), "```", ""]
        if self.example_notes:
            out += [self.example_notes.strip(), ""]
        related = ", ".join(f"[{r}](#{ANCHOR_PREFIX}{r})" for r in self.related)
        out += ["### Related", "", related, "", "### References", "", _md_bullets([str(r) for r in self.references])]
        return "\n".join(out).rstrip() + "\n"


def _fill(text: str, width: int) -> str:
    paragraphs = [p for p in text.strip().split("\n\n") if p.strip()]
    return "\n\n".join(textwrap.fill(" ".join(p.split()), width) for p in paragraphs)


def _text_section(title: str, body: str) -> list[str]:
    return ["", title, "-" * len(title), body]


def _bullets(items: tuple[str, ...] | list[str], width: int) -> str:
    return "\n".join(
        textwrap.fill(" ".join(item.split()), width, initial_indent="- ", subsequent_indent="  ") for item in items
    )


def _md_bullets(items: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"- {' '.join(item.split())}" for item in items)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
