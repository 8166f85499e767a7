"""Text normalisation applied before WER/CER tokenisation (each step optional, all recorded in the signature).

The steps run in this order: Whisper's normaliser (``normalize``), Unicode NFKC, lowercasing, punctuation removal,
whitespace handling, splitting of scripts written without spaces. Then jiwer's
default transform tokenises the result (done natively): for words, runs of two or
more whitespace characters become one space, the ends are stripped and the text
is split on single spaces; for characters, the ends are stripped.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

#: ``whitespace`` choices: jiwer's own handling, collapse every whitespace run to one
#: space (a lone tab or no-break space then separates words too), or remove all
#: whitespace (characters only: CER of text whose spaces carry no meaning).
WHITESPACE = ("jiwer", "collapse", "remove")

#: Blocks of scripts written without spaces between words, split into one word per
#: character by ``split_unspaced`` (combining marks stay with their base character).
UNSPACED_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3001, 0x303F),  # CJK symbols and punctuation (not the ideographic space)
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF61, 0xFF9F),  # halfwidth CJK punctuation and Katakana
    (0x20000, 0x323AF),  # CJK extensions B-H, compatibility supplement
)


#: Blocks of combining marks that may follow a character of those scripts.
COMBINING_RANGES = (
    (0x0300, 0x036F),  # combining diacritical marks
    (0x1AB0, 0x1AFF),  # extended
    (0x1DC0, 0x1DFF),  # supplement
    (0x20D0, 0x20FF),  # for symbols
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFE20, 0xFE2F),  # half marks
    (0xE0100, 0xE01EF),  # variation selectors supplement
)


@functools.lru_cache(maxsize=1)
def punctuation_table() -> dict[int, None]:
    """``str.translate`` table deleting every character of a Unicode ``P*`` category.

    The same set as jiwer's ``RemovePunctuation`` (built once, on first use).
    """
    return {cp: None for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)).startswith("P")}


def _char_class(codepoints: list[int]) -> str:
    """A regex character class matching exactly ``codepoints`` (sorted)."""
    parts: list[str] = []
    start = prev = codepoints[0]
    for cp in [*codepoints[1:], -2]:
        if cp == prev + 1:
            prev = cp
            continue
        parts.append(re.escape(chr(start)) if start == prev else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
        start = prev = cp
    return "[" + "".join(parts) + "]"


@functools.lru_cache(maxsize=1)
def unspaced_pattern() -> re.Pattern[str]:
    """One character of an unspaced script with its combining marks."""
    starters, marks = [], []
    for lo, hi in sorted(UNSPACED_RANGES + COMBINING_RANGES):
        for cp in range(lo, hi + 1):
            category = unicodedata.category(chr(cp))
            if category.startswith("M"):
                marks.append(cp)
            elif category not in ("Cn", "Cs", "Co") and (lo, hi) in UNSPACED_RANGES:
                starters.append(cp)
    return re.compile(f"{_char_class(starters)}{_char_class(marks)}*")


@dataclass(frozen=True)
class Normalizer:
    """The configured normalisation steps (see the module docstring for their order).

    Parameters
    ----------
    lowercase : bool
        ``str.lower`` (jiwer's ``ToLowerCase``).
    remove_punctuation : bool
        Delete characters of Unicode category ``P*`` (jiwer's ``RemovePunctuation``).
    nfkc : bool
        Unicode NFKC normalisation (full-width forms, ligatures, compatibility characters).
    whitespace : {"jiwer", "collapse", "remove"}
        ``jiwer`` leaves the text to jiwer's transform; ``collapse`` joins the words of
        ``str.split()`` with single spaces; ``remove`` deletes all whitespace.
    split_unspaced : bool
        Surround each character of Han, Kana, Thai, Lao, Khmer, Myanmar and Tibetan
        text with spaces, so that it counts as one word.
    normalize : {"whisper-en", "whisper-basic"} or None
        OpenAI Whisper's English or basic text normaliser
        (:mod:`nlpeval.metrics.wer.whisper`), before every other step.

    Examples
    --------
    >>> Normalizer(lowercase=True, remove_punctuation=True)("Hello,  World!")
    'hello  world'
    >>> Normalizer(split_unspaced=True)("我们 like 中文")
    ' 我  们  like  中  文 '
    """

    lowercase: bool = False
    remove_punctuation: bool = False
    nfkc: bool = False
    whitespace: str = "jiwer"
    split_unspaced: bool = False
    normalize: str | None = None

    def __post_init__(self) -> None:
        if self.whitespace not in WHITESPACE:
            raise ValueError(f"unknown whitespace handling {self.whitespace!r}; choose one of {', '.join(WHITESPACE)}")
        if self.normalize is not None:
            from nlpeval.metrics.wer.whisper import whisper_normalizer

            whisper_normalizer(self.normalize)  # validates the name

    @property
    def is_identity(self) -> bool:
        """True when no step changes the text."""
        return not (
            self.lowercase
            or self.remove_punctuation
            or self.nfkc
            or self.split_unspaced
            or self.whitespace != "jiwer"
            or self.normalize is not None
        )

    def steps(self) -> list[Callable[[str], str]]:
        """The configured steps, in order."""
        steps: list[Callable[[str], str]] = []
        if self.normalize is not None:
            from nlpeval.metrics.wer.whisper import whisper_normalizer

            steps.append(whisper_normalizer(self.normalize))
        if self.nfkc:
            steps.append(functools.partial(unicodedata.normalize, "NFKC"))
        if self.lowercase:
            steps.append(str.lower)
        if self.remove_punctuation:
            table = punctuation_table()
            steps.append(lambda text: text.translate(table))
        if self.whitespace == "collapse":
            steps.append(lambda text: " ".join(text.split()))
        elif self.whitespace == "remove":
            steps.append(lambda text: "".join(text.split()))
        if self.split_unspaced:
            pattern = unspaced_pattern()
            steps.append(lambda text: pattern.sub(r" \g<0> ", text))
        return steps

    def __call__(self, text: str) -> str:
        for step in self.steps():
            text = step(text)
        return text

    def apply(self, texts: list[str]) -> list[str]:
        """Normalise every text (the identity returns ``texts`` itself)."""
        if self.is_identity:
            return texts
        steps = self.steps()
        out = []
        for text in texts:
            for step in steps:
                text = step(text)
            out.append(text)
        return out

    def signature_fields(self, *, words: bool) -> dict[str, str]:
        """The signature fields of these settings."""
        fields = {
            "case": "lc" if self.lowercase else "mixed",
            "punct": "removed" if self.remove_punctuation else "kept",
            "nfkc": "yes" if self.nfkc else "no",
            "ws": self.whitespace,
        }
        if words:
            fields["unspaced"] = "split" if self.split_unspaced else "kept"
        if self.normalize is not None:
            fields["norm"] = self.normalize
        return fields
