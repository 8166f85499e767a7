"""The COCO caption tokenizer, natively: Stanford PTBTokenizer as pycocoevalcap runs it, without Java.

pycocoevalcap's ``PTBTokenizer`` writes every caption (its ``\\n`` replaced by a space) to a file,
runs Stanford CoreNLP 3.4.1's ``edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase``
on it in Java, and removes the punctuation tokens ``'' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! , : - --
... ;`` from each output line. :func:`coco_tokenize` does the same in Python: a longest-match lexer
over the CoreNLP rules (:mod:`nlpeval.tokenizers.ptb_rules`) with their normalisations (quotes to
`````/``''``, brackets to ``-LRB-``-style names, ``&amp;`` to ``&``, dashes to ``--``, ellipses to
``...``, fractions and currency symbols rewritten, ``cannot``/``gonna``-style words split, ``n't``
and ``'s``-style clitics split, untokenizable characters deleted), Java's English lowercasing, then
pycocoevalcap's filter. Because the filter runs *after* lowercasing, the bracket names survive as
``-lrb-``/``-rrb-`` (pycocoevalcap's list has them in upper case).

Known, documented differences from the Java tool:

* Character classes come from Python's Unicode database (``str.isalpha`` for JFlex's
  ``[:letter:]``, ``str.isdecimal`` for ``[:digit:]``), the lexer's from the Java of 2014: letters
  added to Unicode since then are letters here and deleted there. Characters outside the Basic
  Multilingual Plane (emoji, ...) are deleted by both.
* A caption holding a line break other than ``\\n`` (``\\r``, ``\\v``, ``\\f``, U+0085, U+2028,
  U+2029) becomes two output lines in Java, and pycocoevalcap then pairs every later caption with
  the wrong image. Here each caption stays one caption (its parts joined).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nlpeval.tokenizers.ptb_rules import Rule, rules

#: pycocoevalcap's ``PUNCTUATIONS`` (compared after lowercasing, as there).
COCO_PUNCTUATION = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)

_AMP = re.compile("&amp;", re.IGNORECASE)
_SINGLE = re.compile("&apos;|'")
_DOUBLE = re.compile('"|&quot;')
_LEFT_SINGLE = re.compile("[\u0091\u2018\u201b\u2039]")
_RIGHT_SINGLE = re.compile("[\u0092\u2019\u203a]")
_LEFT_DOUBLE = re.compile("[\u0093\u201c\u00ab]")
_RIGHT_DOUBLE = re.compile("[\u0094\u201d\u00bb]")
_FRACTIONS = str.maketrans({"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"})
_CURRENCY = str.maketrans({"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$", "\u20ac": "$"})
_BRACKETS = {"lcb": "-LCB-", "rcb": "-RCB-", "lsb": "-LSB-", "rsb": "-RSB-", "lrb": "-LRB-", "rrb": "-RRB-"}
_TRAILING_SPACE = " \t\n\u000b\u000c\r\u0085"


def _latex_quotes(token: str, left: bool) -> str:
    token = _SINGLE.sub("`" if left else "'", token)
    token = _DOUBLE.sub("``" if left else "''", token)
    token = _LEFT_SINGLE.sub("`", token)
    token = _RIGHT_SINGLE.sub("'", token)
    token = _LEFT_DOUBLE.sub("``", token)
    return _RIGHT_DOUBLE.sub("''", token)


def _no_soft_hyphens(token: str) -> str:
    if "\u00ad" not in token:
        return token
    return token.replace("\u00ad", "") or "-"


def _parens(token: str) -> str:
    return token.replace("(", "-LRB-").replace(")", "-RRB-")


def _act(action: str, text: str) -> tuple[str | None, int]:
    """The token an action makes of the matched ``text`` and how many characters it consumes."""
    size = len(text)
    if action == "plain":
        return text, size
    if action == "word" or action == "softhyphen":
        return _no_soft_hyphens(text), size
    if action == "skip" or action == "delete":
        return None, size
    if action == "newline":
        return "\n", size
    if action == "quote_right":
        return _latex_quotes(text, False), size
    if action == "quote_left":
        return _latex_quotes(text, True), size
    if action == "pushback3":
        return text[:-3], size - 3
    if action == "pushback2":
        return text[:-2], size - 2
    if action == "nbsp":
        return text.replace(" ", "\u00a0"), size
    if action == "mdash":
        return "--", size
    if action == "amp":
        return _AMP.sub("&", text), size
    if action == "fraction":
        return text.translate(_FRACTIONS), size
    if action == "currency":
        return text.translate(_CURRENCY), size
    if action == "acronym":
        text = text.rstrip(_TRAILING_SPACE)
        if len(text) == 2:  # "I." etc.: the letter now, the period next
            return text[:1], 1
        return text, len(text) - 1  # the acronym with its period, and the period again
    if action == "abbrev1_end":
        return text, size - 1  # the abbreviation with its period, and the period again
    if action == "phone":
        return _parens(text.replace(" ", "\u00a0")), size
    if action == "lt":
        return "<", size
    if action == "gt":
        return ">", size
    if action == "parens":
        return _parens(text), size
    if action in _BRACKETS:
        return _BRACKETS[action], size
    if action == "hyphens":
        return ("--" if 3 <= size <= 4 else text), size
    if action == "ellipsis":
        return "...", size
    raise AssertionError(f"unknown lexer action {action!r}")


def _active(text: str) -> tuple[Rule, ...]:
    """The rules that can match somewhere in ``text`` (a rule with ``needs`` needs one of its characters)."""
    return tuple(rule for rule in rules() if rule.needs is None or any(ch in text for ch in rule.needs))


def ptb_tokens(text: str) -> list[str]:
    """Tokens of ``text`` as CoreNLP 3.4.1's PTBTokenizer (default options) makes them; ``"\\n"`` marks a line break.

    Examples
    --------
    >>> ptb_tokens('He said "don\\'t" (twice).')
    ['He', 'said', '``', 'do', "n't", "''", '-LRB-', 'twice', '-RRB-', '.']
    >>> ptb_tokens("I cannot go, etc.")
    ['I', 'can', 'not', 'go', ',', 'etc.', '.']
    """
    active = _active(text)
    tokens: list[str] = []
    pos, end = 0, len(text)
    while pos < end:
        best = None
        best_len = 0
        for rule in active:
            match = rule.regex.match(text, pos)
            if match is not None:
                length = match.end() - pos
                if length > best_len:
                    best, best_len = (rule, match), length
        if best is None:  # only "\n" matches no rule but "newline", which always matches it
            raise AssertionError(f"no PTB rule matches at {pos} in {text!r}")
        rule, match = best
        token, consumed = _act(rule.action, match.group(1))
        if token is not None:
            tokens.append(token)
        pos += consumed
    return tokens


_SIMPLE = re.compile(r"[A-Za-z]+(?: +[A-Za-z]+)* *(?:\. *)?")
_SPECIAL = frozenset(["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"])


def _simple_caption(caption: str) -> str | None:
    """The COCO tokenization of a caption of ASCII words and spaces with at most a final period
    (most captions), or None when the general lexer must decide."""
    if _SIMPLE.fullmatch(caption) is None:
        return None
    words = caption.split()
    if not words:
        return ""
    last = words[-1]
    if last == ".":
        words.pop()
    elif last.endswith("."):
        if len(last) == 2 or any(_whole(rule, last) for rule in _abbreviation_rules()):
            return None  # "a.", "etc.", "Mr.": the period stays in the token
        words[-1] = last[:-1]
    line = " ".join(words).lower()
    if _SPECIAL.intersection(line.split()):
        return None
    return line


def _whole(rule: Rule, text: str) -> bool:
    match = rule.regex.match(text)
    return match is not None and match.group(1) == text


def _abbreviation_rules() -> tuple[Rule, ...]:
    names = ("abbrev1", "abbrev2")
    return tuple(rule for rule in rules() if rule.name in names)


def coco_line(caption: str) -> str:
    """One caption as pycocoevalcap's ``PTBTokenizer`` returns it: lowercased PTB tokens without
    punctuation, joined by spaces.

    Examples
    --------
    >>> coco_line("A man (wearing a hat) rides a horse, doesn't he?")
    'a man -lrb- wearing a hat -rrb- rides a horse does n't he'
    """
    simple = _simple_caption(caption)
    if simple is not None:
        return simple
    caption = caption.replace("\n", " ")
    tokens = [tok.lower() for tok in ptb_tokens(caption) if tok != "\n"]
    line = " ".join(tokens).rstrip()
    return " ".join(word for word in line.split(" ") if word not in COCO_PUNCTUATION)


def coco_tokenize(captions: Iterable[str]) -> list[str]:
    """:func:`coco_line` of every caption (repeated captions are tokenized once).

    Examples
    --------
    >>> coco_tokenize(["A dog.", "Two cats on a sofa ..."])
    ['a dog', 'two cats on a sofa']
    """
    cache: dict[str, str] = {}
    out = []
    for caption in captions:
        line = cache.get(caption)
        if line is None:
            line = cache[caption] = coco_line(caption)
        out.append(line)
    return out


__all__ = ["COCO_PUNCTUATION", "coco_line", "coco_tokenize", "ptb_tokens"]
