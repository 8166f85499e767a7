"""METEOR 1.5's ``-norm`` tokenization for English (``edu.cmu.meteor.util.Normalizer``).

A Moses-style tokenizer with METEOR's additions (quote and dash normalisation,
``U.S.`` -> ``US``, dashes between words split), implemented natively with
Java's regular-expression semantics (see ``src/meteor/normalize.rs``). METEOR
lowercases after normalizing; Python's ``str.lower`` equals Java's
``toLowerCase`` there.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources

from nlpeval import _native

#: Java's ``StringTokenizer`` delimiters, mapped to spaces.
_TO_SPACE = str.maketrans({"\t": " ", "\n": " ", "\r": " ", "\f": " "})


def java_tokens(text: str) -> list[str]:
    """Tokens as Java's ``StringTokenizer`` splits them (on space, tab, CR, LF and FF).

    Examples
    --------
    >>> java_tokens(" a\\tb\\u00a0c  d ")
    ['a', 'b\\xa0c', 'd']
    """
    return [token for token in text.translate(_TO_SPACE).split(" ") if token]


@functools.cache
def nonbreaking_prefixes() -> dict[str, int]:
    """English nonbreaking prefixes: prefix -> 1 (always) or 2 (before numbers only).

    Examples
    --------
    >>> nonbreaking_prefixes()["Mr"], nonbreaking_prefixes()["No"]
    (1, 2)
    """
    text = resources.files(__package__).joinpath("data/english.nonbreaking-prefixes").read_text("utf-8")
    prefixes: dict[str, int] = {}
    for line in text.splitlines():
        tokens = java_tokens(line)
        if not tokens or tokens[0].startswith("#"):
            continue
        prefixes[tokens[0]] = 2 if len(tokens) > 1 and tokens[1] == "#NUMERIC_ONLY#" else 1
    return prefixes


def normalize_lines(lines: Sequence[str], *, keep_punctuation: bool = True) -> list[str]:
    """METEOR 1.5's English normalization of each line (before lowercasing).

    Parameters
    ----------
    lines : sequence of str
        Raw text.
    keep_punctuation : bool
        ``False`` drops punctuation (METEOR's ``-noPunct``).

    Examples
    --------
    >>> normalize_lines(["The U.S.-based firm's \\u201cnew\\u201d plan, e.g. Mr. Smith's -- isn't it?"])
    ['The US based firm \\'s " new " plan , eg Mr. Smith \\'s - isn \\'t it ?']
    >>> normalize_lines(["No. 5, it's 3,000!"], keep_punctuation=False)
    ['No 5 it s 3 000']
    """
    return _native.meteor_normalize(list(lines), keep_punctuation, nonbreaking_prefixes())
