"""The Porter stemmer of ROUGE-1.5.5.pl (Martin Porter's Perl release 1, with Chin-Yew Lin's
change to step 4), and the script's ``MorphStem``: the WordNet exception list first."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

_C = "[^aeiou][^aeiouy]*"  # consonant sequence
_V = "[aeiouy][aeiou]*"  # vowel sequence
_v = "[aeiouy]"

_MGR0 = re.compile(f"^({_C})?{_V}{_C}")  # [C]VC... is m>0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")  # [C]VC[V] is m=1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")  # [C]VCVC... is m>1
_HAS_V = re.compile(f"^({_C})?{_v}")  # vowel in stem
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")

_STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "bli": "ble",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
    "logi": "log",
}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}

_RE_STEP2 = re.compile("(" + "|".join(_STEP2) + ")$")
_RE_STEP3 = re.compile("(" + "|".join(_STEP3) + ")$")
_RE_STEP4 = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")


@lru_cache(maxsize=1 << 16)
def perl_porter_stem(word: str) -> str:
    """``stem($w)`` of ROUGE-1.5.5.pl, regex for regex (``$``` is the text before the match).

    Examples
    --------
    >>> [perl_porter_stem(w) for w in ("caresses", "ponies", "agreed", "hopping", "replacement", "yelling")]
    ['caress', 'poni', 'agre', 'hop', 'replac', 'yell']
    """
    w = word
    if len(w) < 3:
        return w
    first = w[0]
    if first == "y":
        w = "Y" + w[1:]
    # step 1a
    m = re.search(r"(ss|i)es$", w)
    if m:
        w = w[: m.start()] + m.group(1)
    else:
        m = re.search(r"([^s])s$", w)
        if m:
            w = w[: m.start()] + m.group(1)
    # step 1b
    m = re.search(r"eed$", w)
    if m:
        if _MGR0.search(w[: m.start()]):
            w = w[:-1]
    else:
        m = re.search(r"(ed|ing)$", w)
        if m:
            stem = w[: m.start()]
            if _HAS_V.search(stem):
                w = stem
                if re.search(r"(at|bl|iz)$", w):
                    w += "e"
                elif re.search(r"([^aeiouylsz])\1$", w):
                    w = w[:-1]
                elif _CVC.search(w):
                    w += "e"
    # step 1c
    m = re.search(r"y$", w)
    if m and _HAS_V.search(w[: m.start()]):
        w = w[: m.start()] + "i"
    # step 2
    m = _RE_STEP2.search(w)
    if m and _MGR0.search(w[: m.start()]):
        w = w[: m.start()] + _STEP2[m.group(1)]
    # step 3
    m = _RE_STEP3.search(w)
    if m and _MGR0.search(w[: m.start()]):
        w = w[: m.start()] + _STEP3[m.group(1)]
    # step 4 (CYL 02/14/2004: -ement words do not try -ment and -ent)
    m = _RE_STEP4.search(w)
    if m and _MGR1.search(w[: m.start()]):
        w = w[: m.start()]
    m = re.search(r"ment$", w)
    if m and _MGR1.search(w[: m.start()]):
        w = w[: m.start()]
    m = re.search(r"ent$", w)
    if m:
        if _MGR1.search(w[: m.start()]):
            w = w[: m.start()]
    else:
        m = re.search(r"(s|t)(ion)$", w)
        if m:
            stem = w[: m.start()] + m.group(1)
            if _MGR1.search(stem):
                w = stem
    # step 5
    m = re.search(r"e$", w)
    if m:
        stem = w[: m.start()]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if re.search(r"ll$", w) and _MGR1.search(w):
        w = w[:-1]
    if first == "y":
        w = w[:1].lower() + w[1:]
    return w


def morph_stem(token: str, exceptions: Mapping[str, str]) -> str:
    """``MorphStem``: the WordNet exception entry if there is one, else the Porter stem."""
    found = exceptions.get(token)
    return found if found is not None else perl_porter_stem(token)
