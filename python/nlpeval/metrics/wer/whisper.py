"""OpenAI Whisper's text normalisers (openai-whisper 20250625), for WER/CER: ``whisper-basic``, ``whisper-en``.

``whisper-basic`` is Whisper's ``BasicTextNormalizer()``: lowercase, drop ``[...]``/``<...>`` and
``(...)`` spans, replace every mark, symbol and punctuation character (Unicode categories M*, S*, P*
after NFKC) by a space, collapse whitespace runs. ``whisper-en`` is ``EnglishTextNormalizer()``:
the same span removal, fillers (hmm, uh, um...) removed, contractions and titles expanded, diacritics
dropped, spelled-out numbers and currencies written with digits ("ten thousand dollars" -> "$10000"),
British spellings made American (the spelling map ships with nlpeval, MIT licence, see
``data/README.md``), leftover symbols removed. Neither strips the ends: WER's tokenisation does.

Written from the reference's behaviour and checked against transformers' copy of it
(``transformers.models.whisper.english_normalizer``, identical in behaviour to openai-whisper 20250625;
the ``whisper-normalizer`` package 0.1.15 is not: it adds kinda/sorta/dunno/cause).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from fractions import Fraction
from importlib import resources

NORMALIZERS = ("whisper-basic", "whisper-en")

#: Letters NFKD does not decompose, and what Whisper writes for them.
EXTRA_LETTERS = {
    "œ": "oe",
    "Œ": "OE",
    "ø": "o",
    "Ø": "O",
    "æ": "ae",
    "Æ": "AE",
    "ß": "ss",
    "ẞ": "SS",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "þ": "th",
    "Þ": "th",
    "ł": "l",
    "Ł": "L",
}

_SPANS = (re.compile(r"[<\[][^>\]]*[>\]]"), re.compile(r"\(([^)]+?)\)"))
_WHITESPACE = re.compile(r"\s+")


def _drop_spans(text: str) -> str:
    for pattern in _SPANS:
        text = pattern.sub("", text)
    return text


def _symbols_to_spaces(text: str) -> str:
    """NFKC, then every character of category M*, S* or P* becomes a space."""
    return "".join(" " if unicodedata.category(c)[0] in "MSP" else c for c in unicodedata.normalize("NFKC", text))


def _strip_diacritics(text: str, keep: str = "") -> str:
    """NFKD; nonspacing marks dropped, the extra letters spelled out, other M*/S*/P* become spaces."""
    out = []
    for c in unicodedata.normalize("NFKD", text):
        if c in keep:
            out.append(c)
        elif c in EXTRA_LETTERS:
            out.append(EXTRA_LETTERS[c])
        else:
            category = unicodedata.category(c)
            out.append("" if category == "Mn" else " " if category[0] in "MSP" else c)
    return "".join(out)


def whisper_basic(text: str) -> str:
    """Whisper's ``BasicTextNormalizer()`` (no diacritic removal, no letter splitting).

    Examples
    --------
    >>> whisper_basic("Hello, [noise] World! (laughs) Café")
    'hello world café'
    """
    text = _drop_spans(text.lower())
    return _WHITESPACE.sub(" ", _symbols_to_spaces(text).lower())


# --- spelled-out numbers -------------------------------------------------------------------------------

_ONES = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_BIG = [
    "hundred",
    "thousand",
    "million",
    "billion",
    "trillion",
    "quadrillion",
    "quintillion",
    "sextillion",
    "septillion",
    "octillion",
    "nonillion",
    "decillion",
]
_NUMERIC = re.compile(r"^\d+(\.\d+)?$")


class _Words:
    """Whisper's number vocabulary: names -> values (and suffixes)."""

    def __init__(self) -> None:
        self.zeros = {"o", "oh", "zero"}
        self.ones = {name: i for i, name in enumerate(_ONES, start=1)}
        plural = {("sixes" if name == "six" else name + "s"): (v, "s") for name, v in self.ones.items()}
        ordinal: dict[str, tuple[int, str]] = {
            "zeroth": (0, "th"),
            "first": (1, "st"),
            "second": (2, "nd"),
            "third": (3, "rd"),
            "fifth": (5, "th"),
            "twelfth": (12, "th"),
        }
        for name, v in self.ones.items():
            if v > 3 and v not in (5, 12):
                ordinal[name + ("h" if name.endswith("t") else "th")] = (v, "th")
        self.ones_suffixed = {**plural, **ordinal}
        self.tens = {name: 20 + 10 * i for i, name in enumerate(_TENS)}
        self.tens_suffixed = {
            **{name.replace("y", "ies"): (v, "s") for name, v in self.tens.items()},
            **{name.replace("y", "ieth"): (v, "th") for name, v in self.tens.items()},
        }
        self.multipliers = {name: 100 if i == 0 else 1000**i for i, name in enumerate(_BIG)}
        self.multipliers_suffixed = {
            **{name + "s": (v, "s") for name, v in self.multipliers.items()},
            **{name + "th": (v, "th") for name, v in self.multipliers.items()},
        }
        self.decimals = {*self.ones, *self.tens, *self.zeros}
        self.before = {"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
        self.after = {
            "pound": "£",
            "pounds": "£",
            "euro": "€",
            "euros": "€",
            "dollar": "$",
            "dollars": "$",
            "cent": "¢",
            "cents": "¢",
        }
        self.signs = set(self.before.values()) | set(self.after.values())
        self.suffixers: dict[str, str | dict[str, str]] = {"per": {"cent": "%"}, "percent": "%"}
        self.specials = {"and", "double", "triple", "point"}
        self.all = {
            *self.zeros,
            *self.ones,
            *self.ones_suffixed,
            *self.tens,
            *self.tens_suffixed,
            *self.multipliers,
            *self.multipliers_suffixed,
            *self.before,
            *self.after,
            *self.suffixers,
            *self.specials,
        }


def _fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except ValueError:
        return None


def _append(value: int | str, ones: int, after_tens: bool) -> str:
    """A digit appended to a number kept as text (replacing the tens' 0 after a tens word)."""
    text = str(value)
    return text[:-1] + str(ones) if after_tens and ones < 10 else text + str(ones)


def _add_ones(value: int, ones: int) -> int | str:
    """``value`` then ``ones`` (1-19): added when the place is free, else written after it."""
    free = value % 10 == 0 if ones < 10 else value % 100 == 0
    return value + ones if free else str(value) + str(ones)


class _Numbers:
    """Whisper's ``EnglishNumberNormalizer``: spelled-out numbers -> digits, currencies, percents."""

    def __init__(self) -> None:
        self.w = _Words()

    def words(self, tokens: list[str]) -> Iterator[str]:
        w = self.w
        prefix: str | None = None
        value: int | str | None = None
        skip = False

        def emit(result: int | str) -> str:
            nonlocal prefix, value
            text = str(result) if prefix is None else prefix + str(result)
            prefix = value = None
            return text

        for i, current in enumerate(tokens):
            if skip:
                skip = False
                continue
            prev = tokens[i - 1] if i else None
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            next_numeric = nxt is not None and _NUMERIC.match(nxt) is not None
            signed = current[0] in w.signs
            bare = current[1:] if signed else current
            if _NUMERIC.match(bare):
                number = Fraction(bare)
                if value is not None:
                    if isinstance(value, str) and value.endswith("."):
                        value = value + current  # decimals, IP addresses
                        continue
                    yield emit(value)
                if signed:
                    prefix = current[0]
                value = number.numerator if number.denominator == 1 else bare
            elif current not in w.all:
                if value is not None:
                    yield emit(value)
                yield emit(current)
            elif current in w.zeros:
                value = str(value or "") + "0"
            elif current in w.ones:
                ones = w.ones[current]
                if value is None:
                    value = ones
                elif isinstance(value, str) or prev in w.ones:
                    value = _append(value, ones, prev in w.tens)
                else:
                    value = _add_ones(value, ones)
            elif current in w.ones_suffixed:
                ones, suffix = w.ones_suffixed[current]
                if value is None:
                    yield emit(str(ones) + suffix)
                elif isinstance(value, str) or prev in w.ones:
                    yield emit(_append(value, ones, prev in w.tens) + suffix)
                else:
                    yield emit(str(_add_ones(value, ones)) + suffix)
                value = None
            elif current in w.tens:
                tens = w.tens[current]
                if value is None:
                    value = tens
                elif isinstance(value, str) or value % 100:
                    value = str(value) + str(tens)
                else:
                    value += tens
            elif current in w.tens_suffixed:
                tens, suffix = w.tens_suffixed[current]
                if value is None:
                    yield emit(str(tens) + suffix)
                elif isinstance(value, str) or value % 100:
                    yield emit(str(value) + str(tens) + suffix)
                else:
                    yield emit(str(value + tens) + suffix)
            elif current in w.multipliers:
                multiplier = w.multipliers[current]
                if value is None:
                    value = multiplier
                elif isinstance(value, str) or value == 0:
                    f = _fraction(str(value)) if isinstance(value, str) else Fraction(value)
                    if f is not None and (f * multiplier).denominator == 1:
                        value = (f * multiplier).numerator
                    else:
                        yield emit(value)
                        value = multiplier
                else:
                    value = value // 1000 * 1000 + value % 1000 * multiplier
            elif current in w.multipliers_suffixed:
                multiplier, suffix = w.multipliers_suffixed[current]
                if value is None:
                    yield emit(str(multiplier) + suffix)
                elif isinstance(value, str):
                    f = _fraction(value)
                    if f is not None and (f * multiplier).denominator == 1:
                        yield emit(str((f * multiplier).numerator) + suffix)
                    else:
                        yield emit(value)
                        yield emit(str(multiplier) + suffix)
                else:
                    yield emit(str(value // 1000 * 1000 + value % 1000 * multiplier) + suffix)
                value = None
            elif current in w.before:
                if value is not None:
                    yield emit(value)
                if nxt in w.all or next_numeric:
                    prefix = w.before[current]
                else:
                    yield emit(current)
            elif current in w.after:
                if value is not None:
                    prefix = w.after[current]
                    yield emit(value)
                else:
                    yield emit(current)
            elif current in w.suffixers:
                if value is None:
                    yield emit(current)
                    continue
                suffixer = w.suffixers[current]
                if isinstance(suffixer, str):
                    yield emit(str(value) + suffixer)
                elif nxt in suffixer:
                    yield emit(str(value) + suffixer[str(nxt)])
                    skip = True
                else:
                    yield emit(value)
                    yield emit(current)
            elif nxt not in w.all and not next_numeric:  # "and", "double", "triple", "point" before a non-number
                if value is not None:
                    yield emit(value)
                yield emit(current)
            elif current == "and":
                if prev not in w.multipliers:  # "and" after hundred, thousand... is dropped
                    if value is not None:
                        yield emit(value)
                    yield emit(current)
            elif current in ("double", "triple"):
                if nxt in w.ones or nxt in w.zeros:
                    value = str(value or "") + str(w.ones.get(str(nxt), 0)) * (2 if current == "double" else 3)
                    skip = True
                else:
                    if value is not None:
                        yield emit(value)
                    yield emit(current)
            elif nxt in w.decimals or next_numeric:  # "point"
                value = str(value or "") + "."
        if value is not None:
            yield emit(value)

    def preprocess(self, text: str) -> str:
        parts = []
        pieces = re.split(r"\band\s+a\s+half\b", text)
        for i, piece in enumerate(pieces):
            if not piece.strip():
                continue
            parts.append(piece)
            if i < len(pieces) - 1:
                last = piece.rsplit(maxsplit=2)[-1]
                parts.append("point five" if last in self.w.decimals or last in self.w.multipliers else "and a half")
        text = " ".join(parts)
        text = re.sub(r"([a-z])([0-9])", r"\1 \2", text)
        text = re.sub(r"([0-9])([a-z])", r"\1 \2", text)
        return re.sub(r"([0-9])\s+(st|nd|rd|th|s)\b", r"\1\2", text)

    @staticmethod
    def postprocess(text: str) -> str:
        def cents(m: re.Match[str]) -> str:
            try:
                return f"{m.group(1)}{m.group(2)}.{int(m.group(3)):02d}"
            except ValueError:
                return m.string

        def only_cents(m: re.Match[str]) -> str:
            try:
                return f"¢{int(m.group(1))}"
            except ValueError:
                return m.string

        text = re.sub(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b", cents, text)
        text = re.sub(r"[€£$]0.([0-9]{1,2})\b", only_cents, text)
        return re.sub(r"\b1(s?)\b", r"one\1", text)

    def __call__(self, text: str) -> str:
        text = self.preprocess(text)
        return self.postprocess(" ".join(self.words(text.split())))


# --- the English normaliser ----------------------------------------------------------------------------

_FILLERS = re.compile(r"\b(hmm|mm|mhm|mmm|uh|um)\b")
_REPLACEMENTS = {
    r"\bwon't\b": "will not",
    r"\bcan't\b": "can not",
    r"\blet's\b": "let us",
    r"\bain't\b": "aint",
    r"\by'all\b": "you all",
    r"\bwanna\b": "want to",
    r"\bgotta\b": "got to",
    r"\bgonna\b": "going to",
    r"\bi'ma\b": "i am going to",
    r"\bimma\b": "i am going to",
    r"\bwoulda\b": "would have",
    r"\bcoulda\b": "could have",
    r"\bshoulda\b": "should have",
    r"\bma'am\b": "madam",
    r"\bmr\b": "mister ",
    r"\bmrs\b": "missus ",
    r"\bst\b": "saint ",
    r"\bdr\b": "doctor ",
    r"\bprof\b": "professor ",
    r"\bcapt\b": "captain ",
    r"\bgov\b": "governor ",
    r"\bald\b": "alderman ",
    r"\bgen\b": "general ",
    r"\bsen\b": "senator ",
    r"\brep\b": "representative ",
    r"\bpres\b": "president ",
    r"\brev\b": "reverend ",
    r"\bhon\b": "honorable ",
    r"\basst\b": "assistant ",
    r"\bassoc\b": "associate ",
    r"\blt\b": "lieutenant ",
    r"\bcol\b": "colonel ",
    r"\bjr\b": "junior ",
    r"\bsr\b": "senior ",
    r"\besq\b": "esquire ",
    r"'d been\b": " had been",
    r"'s been\b": " has been",
    r"'d gone\b": " had gone",
    r"'s gone\b": " has gone",
    r"'d done\b": " had done",
    r"'s got\b": " has got",
    r"n't\b": " not",
    r"'re\b": " are",
    r"'s\b": " is",
    r"'d\b": " would",
    r"'ll\b": " will",
    r"'t\b": " not",
    r"'ve\b": " have",
    r"'m\b": " am",
}


@functools.lru_cache(maxsize=1)
def spelling_map() -> dict[str, str]:
    """Whisper's British -> American spelling map (shipped with nlpeval; MIT, OpenAI)."""
    text = resources.files("nlpeval.metrics.wer").joinpath("data/whisper_english.json").read_text(encoding="utf-8")
    mapping: dict[str, str] = json.loads(text)
    return mapping


@functools.lru_cache(maxsize=1)
def _english() -> tuple[_Numbers, list[tuple[re.Pattern[str], str]]]:
    return _Numbers(), [(re.compile(pattern), replacement) for pattern, replacement in _REPLACEMENTS.items()]


def whisper_english(text: str) -> str:
    """Whisper's ``EnglishTextNormalizer()``.

    Examples
    --------
    >>> whisper_english("Mr. Smith paid twenty five dollars and fifty cents, didn't he? Colour!")
    'mister smith paid $25.50 did not he color'
    """
    numbers, replacements = _english()
    mapping = spelling_map()
    text = _drop_spans(text.lower())
    text = _FILLERS.sub("", text)
    text = re.sub(r"\s+'", "'", text)
    for pattern, replacement in replacements:
        text = pattern.sub(replacement, text)
    text = re.sub(r"(\d),(\d)", r"\1\2", text)
    text = re.sub(r"\.([^0-9]|$)", r" \1", text)
    text = _strip_diacritics(text, keep=".%$¢€£")
    text = numbers(text)
    text = " ".join(mapping.get(word, word) for word in text.split())
    text = re.sub(r"[.$¢€£]([^0-9])", r" \1", text)
    text = re.sub(r"([^0-9])%", r"\1 ", text)
    return _WHITESPACE.sub(" ", text)


def whisper_normalizer(name: str) -> Callable[[str], str]:
    """The normaliser called ``name`` (``whisper-basic`` or ``whisper-en``)."""
    if name == "whisper-basic":
        return whisper_basic
    if name == "whisper-en":
        return whisper_english
    raise ValueError(f"unknown normalize {name!r}; choose one of {', '.join(NORMALIZERS)}")
