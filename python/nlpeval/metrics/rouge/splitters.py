"""Sentence splitters for summary-level ROUGE (``rougeLsum``) on text without newlines."""

from __future__ import annotations

import re
from collections.abc import Callable

#: A sentence splitter: text -> sentences.
Splitter = Callable[[str], list[str]]

_SIMPLE = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？])")


def simple_split(text: str) -> list[str]:
    """Split after ``.``, ``!`` or ``?`` followed by whitespace, and after ``。！？``.

    Existing newlines are kept as boundaries. No model or data is needed.

    Examples
    --------
    >>> simple_split("It rained. We stayed in! Did you?")
    ['It rained.', 'We stayed in!', 'Did you?']
    >>> simple_split("今天下雨。我们在家。")
    ['今天下雨。', '我们在家。']
    """
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(piece for piece in _SIMPLE.split(line) if piece.strip())
    return out


def nltk_split(text: str) -> list[str]:
    """rouge-score's ``split_summaries=True``: ``nltk.sent_tokenize`` (needs NLTK's punkt data)."""
    try:
        import nltk
    except ImportError:  # pragma: no cover - nltk is a test dependency
        raise ValueError("sentence_splitter='nltk' needs the nltk package") from None
    try:
        return list(nltk.sent_tokenize(text))
    except LookupError:
        raise ValueError(
            "sentence_splitter='nltk' needs NLTK's punkt sentence model installed locally "
            "(nlpeval never downloads it); use sentence_splitter='simple' for the built-in splitter"
        ) from None


SPLITTERS: dict[str, Splitter] = {"simple": simple_split, "nltk": nltk_split}


def resolve_splitter(splitter: str | Splitter | None) -> Splitter | None:
    """The splitter function for a name, a callable, or ``None`` (newlines only)."""
    if splitter is None or splitter == "newline":
        return None
    if callable(splitter):
        return splitter
    if splitter in SPLITTERS:
        return SPLITTERS[splitter]
    raise ValueError(f"unknown sentence_splitter {splitter!r}; use 'newline', 'simple', 'nltk' or a callable")


def apply_splitter(texts: list[str], splitter: Splitter) -> list[str]:
    """Each text as its sentences joined by newlines (newlines inside a sentence become spaces)."""
    return ["\n".join(s.replace("\n", " ") for s in splitter(text) if s) for text in texts]
