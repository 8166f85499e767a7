"""Answer normalisation of the official SQuAD scripts and of the MLQA evaluation script.

SQuAD (v1.1 and v2.0, identical): lowercase, delete the 32 ASCII characters of
``string.punctuation``, replace the words ``a``/``an``/``the`` by a space (regex
``\\b(a|an|the)\\b``, Unicode word boundaries), then collapse whitespace.

MLQA (``mlqa_evaluation_v1.py``, per language): lowercase, delete every Unicode
punctuation character (categories ``P*``) and ``string.punctuation``, remove the
language's articles, then split on whitespace (``en es hi vi de ar``) or, for
``zh``, split CJK ideographs (U+4E00–U+9FA5) into single-character tokens.
"""

from __future__ import annotations

import functools
import re
import string
import sys
import unicodedata
from collections.abc import Callable

from nlpeval.core.errors import InputError

_SQUAD_PUNCT = str.maketrans("", "", string.punctuation)
_SQUAD_PUNCT_BYTES = string.punctuation.encode("ascii")
_SQUAD_ARTICLES = re.compile(r"\b(a|an|the)\b")

#: MLQA's article patterns per language (``None``: the language has none)
_MLQA_ARTICLES: dict[str, str | None] = {
    "en": r"\b(a|an|the)\b",
    "es": r"\b(un|una|unos|unas|el|la|los|las)\b",
    "hi": None,
    "vi": r"\b(của|là|cái|chiếc|những)\b",
    "de": r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b",
    "ar": r"(?:^|\s)ال",
    "zh": None,
}
MLQA_LANGUAGES = tuple(_MLQA_ARTICLES)
_CJK = re.compile(r"[\u4e00-\u9fa5]")


def squad_normalize(text: str) -> str:
    """The official SQuAD ``normalize_answer``.

    Examples
    --------
    >>> squad_normalize("  The Eiffel-Tower, (Paris)! ")
    'eiffeltower paris'
    """
    return " ".join(_SQUAD_ARTICLES.sub(" ", text.lower().translate(_SQUAD_PUNCT)).split())


#: joins a batch for one pass of the SQuAD normalisation: not a word character (so ``\b`` sees a boundary
#: as at a string's end), not whitespace, not cased nor case-ignorable (``str.lower``'s final-sigma rule
#: stops at it), not punctuation, and never produced by ``str.lower``
_JOIN = "\x00"


def squad_tokens_batch(texts: list[str]) -> list[list[str]]:
    """``squad_normalize(t).split()`` for every text, normalised in one pass over the joined batch.

    Examples
    --------
    >>> squad_tokens_batch(["The Cat!", "", "ΟΔΟΣ a"])
    [['cat'], [], ['οδος']]
    """
    if any(_JOIN in t for t in texts):
        return [squad_normalize(t).split() for t in texts]
    # string.punctuation is ASCII and no UTF-8 multi-byte sequence holds an ASCII byte: deleting the bytes
    # deletes the characters (bytes.translate is a plain C loop; str.translate of non-ASCII text is not)
    lowered = _JOIN.join(texts).lower().encode("utf-8", "surrogatepass")
    stripped = lowered.translate(None, _SQUAD_PUNCT_BYTES).decode("utf-8", "surrogatepass")
    joined = _SQUAD_ARTICLES.sub(" ", stripped)
    return [piece.split() for piece in joined.split(_JOIN)]


def squad_tokens_joined(texts: list[str]) -> list[str] | None:
    """Every text's tokens in one list, texts separated by a ``"\\x00"`` token (no list per text); None if
    a text holds that character (then use :func:`squad_tokens_batch`).

    Examples
    --------
    >>> [t.replace(chr(0), "|") for t in squad_tokens_joined(["The Cat!", "", "a b c"])]
    ['cat', '|', '|', 'b', 'c']
    """
    if any(_JOIN in t for t in texts):
        return None
    lowered = _JOIN.join(texts).lower().encode("utf-8", "surrogatepass")
    stripped = lowered.translate(None, _SQUAD_PUNCT_BYTES).decode("utf-8", "surrogatepass")
    return _SQUAD_ARTICLES.sub(" ", stripped).replace(_JOIN, " \x00 ").split()


@functools.cache
def _mlqa_punct_table() -> dict[int, None]:
    # every code point below sys.maxunicode whose category starts with P, plus string.punctuation
    table = {i: None for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")}
    table.update((ord(c), None) for c in string.punctuation)
    return table


def _mixed_segmentation(text: str) -> list[str]:
    """MLQA's ``zh`` tokens: each CJK ideograph alone, whitespace-split runs between them
    (punctuation is already gone when this runs)."""
    tokens: list[str] = []
    start = 0
    for match in _CJK.finditer(text):
        tokens.extend(text[start : match.start()].split())
        tokens.append(match.group())
        start = match.end()
    tokens.extend(text[start:].split())
    return tokens


def mlqa_normalizer(lang: str) -> Callable[[str], str]:
    """MLQA's ``normalize_answer(s, lang)`` as a one-argument function.

    Examples
    --------
    >>> mlqa_normalizer("de")("Der Hund, das Haus!")
    'hund haus'
    >>> mlqa_normalizer("zh")("北京 大学。")
    '北 京 大 学'
    """
    if lang not in _MLQA_ARTICLES:
        raise InputError(f"unknown MLQA language {lang!r}; expected one of {', '.join(MLQA_LANGUAGES)}")
    table = _mlqa_punct_table()
    pattern = _MLQA_ARTICLES[lang]
    articles = re.compile(pattern) if pattern is not None else None
    segment = _mixed_segmentation if lang == "zh" else str.split

    def normalize(text: str) -> str:
        text = text.lower().translate(table)
        if articles is not None:
            text = articles.sub(" ", text)
        return " ".join(t for t in segment(text) if t.strip() != "")

    return normalize


__all__ = ["MLQA_LANGUAGES", "mlqa_normalizer", "squad_normalize", "squad_tokens_batch", "squad_tokens_joined"]
