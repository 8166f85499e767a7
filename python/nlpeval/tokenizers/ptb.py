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

import functools
import re
from collections.abc import Iterable

from nlpeval.tokenizers.ptb_rules import Rule, caseless, rules

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


@functools.cache
def _candidates(ch: str) -> tuple[Rule, ...]:
    """The rules whose matches can start with ``ch``, in priority order."""
    return tuple(rule for rule in rules() if rule.first is not None and rule.first.match(ch))


def _disabled(text: str) -> set[Rule]:
    """The rules that cannot match anywhere in ``text`` (none of the characters they need occurs)."""
    return {rule for rule in _needing() if not any(c in text for c in rule.needs)}  # type: ignore[union-attr]


@functools.cache
def _needing() -> tuple[Rule, ...]:
    return tuple(rule for rule in rules() if rule.needs is not None)


def _lex(text: str, pos: int, stop: int, tokens: list[str], disabled: set[Rule] | None = None) -> int:
    """Lex ``text`` from ``pos`` until a token ends at or after ``stop``; returns the position reached.

    ``text`` may run past ``stop``: what follows is the trailing context the rules may look at."""
    if disabled is None:
        disabled = _disabled(text)
    while pos < stop:
        best = None
        best_len = 0
        for rule in _candidates(text[pos]):
            if rule in disabled:
                continue
            match = rule.regex.match(text, pos)
            if match is not None:
                length = match.end() - pos
                if length > best_len:
                    best, best_len = (rule, match), length
        if best is None:
            raise AssertionError(f"no PTB rule matches at {pos} in {text!r}")
        rule, match = best
        token, consumed = _act(rule.action, match.group(1))
        if token is not None:
            tokens.append(token)
        pos += consumed
    return pos


def ptb_tokens(text: str, following: str | None = None) -> list[str]:
    """Tokens of ``text`` as CoreNLP 3.4.1's PTBTokenizer (default options) makes them; ``"\\n"`` marks a line break.

    ``following`` is the text of the next line when ``text`` is not the end of the input (the rules
    look past a line end: ``fig.`` before a line starting with a digit keeps its period).

    Examples
    --------
    >>> ptb_tokens('He said "don\\'t" (twice).')
    ['He', 'said', '``', 'do', "n't", "''", '-LRB-', 'twice', '-RRB-', '.']
    >>> ptb_tokens("I cannot go, etc.")
    ['I', 'can', 'not', 'go', ',', 'etc.', '.']
    """
    tokens: list[str] = []
    context = text if following is None else f"{text}\n{following[:_CONTEXT]}"
    _lex(context, 0, len(text), tokens)
    return tokens


#: Characters of the next line the rules can look at (an acronym's context is a space and a short word).
_CONTEXT = 64
_CHUNKS = re.compile(r"[^ ]+")
_SIMPLE = re.compile(r"[A-Za-z]+(?: +[A-Za-z]+)* *(?:\. *)?")
_SPECIAL = frozenset(["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"])
_ABBREV3 = re.compile(caseless(r"(?:figs|fig|ca|prop|nos|no|art|bldg|pp|op)\."))


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
        if len(last) == 2 or _ABBREV3.fullmatch(last) or any(_whole(rule, last) for rule in _abbreviation_rules()):
            return None  # "a.", "etc.", "Mr.", "fig.": the period may stay in the token
        words[-1] = last[:-1]
    line = " ".join(words).lower()
    if _SPECIAL.intersection(line.split()):
        return None
    return line


def _whole(rule: Rule, text: str) -> bool:
    match = rule.regex.match(text)
    return match is not None and match.group(1) == text


@functools.cache
def _abbreviation_rules() -> tuple[Rule, ...]:
    names = ("abbrev1", "abbrev2")
    return tuple(rule for rule in rules() if rule.name in names)


def _plain_chunk(chunk: str) -> list[str] | None:
    """The tokens of a space-delimited chunk of letters (BMP, ``str.isalpha``) with at most a
    trailing ``,``, ``;``, ``:`` or run of ``?``/``!``, or None for any other chunk."""
    tail = chunk[-1]
    if tail in ",;:":
        core, rest = chunk[:-1], [tail]
    elif tail in "?!":
        core = chunk.rstrip("?!")
        rest = [chunk[len(core) :]]
    else:
        core, rest = chunk, []
    if not core.isalpha() or not (core.isascii() or max(core) < "\U00010000") or core.lower() in _SPECIAL:
        return None
    return [core, *rest]


def _caption_tokens(caption: str, following: str | None) -> list[str]:
    """The PTB tokens of one caption (lowercased later): ASCII words separated by spaces directly,
    everything else by the lexer, which sees the rest of the caption (and line) as context."""
    text = caption if following is None else f"{caption}\n{following[:_CONTEXT]}"
    if "<" in caption:  # an SGML tag may hold spaces and plain words
        tokens: list[str] = []
        _lex(text, 0, len(caption), tokens)
        return tokens
    tokens = []
    pos = 0
    disabled = None
    for chunk in _CHUNKS.finditer(caption):
        start, end = chunk.span()
        if end <= pos:
            continue
        if start >= pos:
            plain = _plain_chunk(chunk.group())
            if plain is not None:
                tokens.extend(plain)
                pos = end
                continue
        if disabled is None:
            disabled = _disabled(text)
        pos = _lex(text, max(start, pos), end, tokens, disabled)
    return tokens


def coco_line(caption: str, following: str | None = None) -> str:
    """One caption as pycocoevalcap's ``PTBTokenizer`` returns it: lowercased PTB tokens without
    punctuation, joined by spaces.

    ``following`` is the next caption of the batch (None for the last one): pycocoevalcap
    tokenizes a batch as one text, one caption per line, and a few rules look past a line end.

    Examples
    --------
    >>> coco_line("A man (wearing a hat) rides a horse, doesn't he?")
    'a man -lrb- wearing a hat -rrb- rides a horse does n't he'
    """
    caption = caption.replace("\n", " ")
    simple = _simple_caption(caption)
    if simple is not None:
        return simple
    tokens = [tok.lower() for tok in _caption_tokens(caption, following) if tok != "\n"]
    line = " ".join(tokens).rstrip()
    return " ".join(word for word in line.split(" ") if word not in COCO_PUNCTUATION)


def coco_tokenize(captions: Iterable[str]) -> list[str]:
    """:func:`coco_line` of every caption (repeated captions are tokenized once).

    Examples
    --------
    >>> coco_tokenize(["A dog.", "Two cats on a sofa ..."])
    ['a dog', 'two cats on a sofa']
    """
    items = list(captions)
    cache: dict[str, str] = {}
    out = []
    last = len(items) - 1
    for index, caption in enumerate(items):
        line = cache.get(caption)
        if line is None:
            following = items[index + 1].replace("\n", " ") if index < last else None
            line = coco_line(caption, following)
            if _context_free(caption):
                cache[caption] = line
        out.append(line)
    return out


def _context_free(caption: str) -> bool:
    """Whether no rule can look past the end of ``caption`` (its tokenization then depends on it alone)."""
    tail = caption.rstrip(" ")
    return not tail or tail[-1].isalpha() and tail[-1].isascii()


__all__ = ["COCO_PUNCTUATION", "coco_line", "coco_tokenize", "ptb_tokens"]
