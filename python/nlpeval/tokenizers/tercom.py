"""The Tercom tokenizer as sacreBLEU's TER applies it (``tok:tercom``).

By default it only lowercases and splits on whitespace. ``normalized`` adds
Tercom's Western punctuation splitting (and, with ``asian_support``, splits CJK
characters apart); ``no_punct`` deletes punctuation (with ``asian_support``, CJK
and full-width punctuation too). The rules are Python ``re`` substitutions,
applied in Tercom's order; lowercasing is Python's ``str.lower()``.

The functions here return text ready for a whitespace split, which the native
TER kernel performs with Python's ``str.split()`` rules.

sacreBLEU 2.x tokenizes every *reference* twice (``Metric._cache_references``
pre-processes the lines and ``TER._extract_reference_info`` pre-processes them
again); hypotheses once. Lowercasing and punctuation removal are idempotent, so
this only matters with ``normalized=True``, where a second pass can split more
(``"it's，"`` becomes ``it's ，`` and then ``it 's ，``).
:func:`tercom_reference_tokenizer` reproduces that.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial

#: CJK punctuation (ideographic comma and full stop, brackets, half-width forms, katakana middle dot).
_ASIAN_PUNCT = "[\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb]"
#: Full-width ASCII punctuation: . , ? : ; ! " ( )
_FULL_WIDTH_PUNCT = "[\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09]"

Rule = tuple["re.Pattern[str]", str]


def _rules(*pairs: tuple[str, str]) -> tuple[Rule, ...]:
    return tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)


#: Line joining and XML entities, before the sentence is padded with spaces.
_GENERAL = _rules(
    (r"\n-", ""),  # end-of-line hyphenation
    (r"\n", " "),
    (r"&quot;", '"'),
    (r"&amp;", "&"),
    (r"&lt;", "<"),
    (r"&gt;", ">"),
)

#: Western punctuation, on the sentence padded with one space on each side.
_WESTERN = _rules(
    # ASCII symbols and punctuation except ' - . , and digits/letters
    (r"([{-~\[-` -&(-+:-@/])", r" \1 "),
    # possessive 's
    (r"'s ", r" 's "),
    (r"'s$", r" 's"),
    # period and comma unless preceded by a digit, then unless followed by one
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    # dash after a digit
    (r"([0-9])(-)", r"\1 \2 "),
)

#: CJK characters split apart (applied after the Western rules).
_ASIAN = _rules(
    ("([\u4e00-\u9fff\u3400-\u4dbf])", r" \1 "),  # CJK unified ideographs and extension A
    ("([\u31c0-\u31ef\u2e80-\u2eff])", r" \1 "),  # strokes, radicals supplement
    ("([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])", r" \1 "),  # compatibility blocks and forms
    ("([\u3200-\u3f22])", r" \1 "),  # enclosed letters and months (and on, as Tercom's range)
    # Kana runs "when adjacent to something else". As written (a `^` inside the
    # alternatives, no MULTILINE) these only match a sentence made of kana alone,
    # which never reaches them because the Western step pads every sentence with
    # spaces; they are kept so that the rule list stays Tercom's.
    ("(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])", r"\1 \2 "),
    ("(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])", r"\1 \2 "),
    ("(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])", r"\1 \2 "),
    (f"({_ASIAN_PUNCT})", r" \1 "),
    (f"({_FULL_WIDTH_PUNCT})", r" \1 "),
)

_PUNCT = _rules((r"[\.,\?:;!\"\(\)]", ""))
_ASIAN_PUNCT_RULES = _rules((_ASIAN_PUNCT, ""), (_FULL_WIDTH_PUNCT, ""))


def _apply(rules: tuple[Rule, ...], text: str) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def _tercom(
    text: str,
    *,
    lowercase: bool,
    normalize: tuple[Rule, ...],
    remove: tuple[Rule, ...],
) -> str:
    text = text.rstrip()
    if not text:
        return ""
    if lowercase:
        text = text.lower()
    if normalize:
        text = _apply(_GENERAL, text)
        text = _apply(normalize, f" {text} ")
    return " ".join(_apply(remove, text).split())


def tercom_tokenizer(
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Callable[[str], str]:
    """The Tercom pre-processing of one segment, as sacreBLEU's ``TercomTokenizer``.

    Parameters
    ----------
    normalized : bool
        Split Western punctuation (and CJK characters with ``asian_support``).
    no_punct : bool
        Delete ``. , ? : ; ! " ( )`` (and CJK / full-width punctuation with ``asian_support``).
    asian_support : bool
        Extend ``normalized`` and ``no_punct`` to CJK text; no effect alone.
    case_sensitive : bool
        Keep case (default: lowercase with ``str.lower()``).

    Returns
    -------
    callable
        Maps a segment to text whose whitespace-separated items are the tokens.

    Examples
    --------
    >>> tok = tercom_tokenizer(normalized=True)
    >>> tok("The cat's toy, 3.5 kg (1990-2000).").split()
    ['the', 'cat', "'s", 'toy', ',', '3.5', 'kg', '(', '1990', '-', '2000', ')', '.']
    >>> tercom_tokenizer(no_punct=True, case_sensitive=True)("Hi, there!")
    'Hi there'
    >>> tercom_tokenizer(normalized=True, asian_support=True)("我爱NLP。").split()
    ['我', '爱', 'nlp', '。']
    """
    if not normalized and not no_punct:
        # the common case: only lowercasing (the split happens natively)
        return str.lower if not case_sensitive else _identity
    key = (normalized, no_punct, asian_support, case_sensitive)
    if key not in _CACHED:
        normalize = (*_WESTERN, *(_ASIAN if asian_support else ())) if normalized else ()
        remove = (*_PUNCT, *(_ASIAN_PUNCT_RULES if asian_support else ())) if no_punct else ()
        tokenize = partial(_tercom, lowercase=not case_sensitive, normalize=normalize, remove=remove)
        # Regular expressions are slow: remember recent segments in a bounded cache
        # shared by every TER with these options, as sacreBLEU does (the same
        # references are typically scored against several systems).
        _CACHED[key] = lru_cache(maxsize=2**16)(tokenize)
    return _CACHED[key]


#: one cached tokenizer per option combination that uses regular expressions
_CACHED: dict[tuple[bool, ...], Callable[[str], str]] = {}


def _identity(text: str) -> str:
    return text


def _twice(tokenize: Callable[[str], str], text: str) -> str:
    return tokenize(tokenize(text))


def tercom_reference_tokenizer(
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> Callable[[str], str]:
    """The Tercom pre-processing sacreBLEU applies to references: :func:`tercom_tokenizer` twice.

    Parameters
    ----------
    normalized, no_punct, asian_support, case_sensitive : bool
        As for :func:`tercom_tokenizer`.

    Returns
    -------
    callable
        Maps a reference to text whose whitespace-separated items are the tokens.

    Examples
    --------
    >>> tercom_tokenizer(normalized=True)("It's\\u00a0mine").split()  # no-break space
    ["it's", 'mine']
    >>> tercom_reference_tokenizer(normalized=True)("It's\\u00a0mine").split()
    ['it', "'s", 'mine']
    """
    tokenize = tercom_tokenizer(
        normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
    )
    # only the normalization rules can change an already tokenized text
    return partial(_twice, tokenize) if normalized else tokenize


__all__ = ["tercom_reference_tokenizer", "tercom_tokenizer"]
