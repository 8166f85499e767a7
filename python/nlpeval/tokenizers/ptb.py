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
import unicodedata
from collections.abc import Iterable
from typing import Any

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
_CURRENCY = str.maketrans(
    {"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$", "\u20ac": "$"}
)
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


def _disabled(text: str) -> frozenset[Rule]:
    """The rules that cannot match anywhere in ``text`` (what they need does not occur)."""
    key = (frozenset(text).intersection(_trigger_chars()), *(bool(p.search(text)) for p in _trigger_patterns()))
    found = _DISABLED.get(key)
    if found is None:
        found = _DISABLED[key] = frozenset(rule for rule, needs in _needing() if not needs.search(text))
    return found


_DISABLED: dict[tuple[object, ...], frozenset[Rule]] = {}


@functools.cache
def _needing() -> tuple[tuple[Rule, re.Pattern[str]], ...]:
    """The rules that need something in the text, each with that pattern."""
    return tuple((rule, rule.needs) for rule in rules() if rule.needs is not None)


@functools.cache
def _trigger_chars() -> frozenset[str]:
    chars: set[str] = set()
    for _rule, needs in _needing():
        body = needs.pattern
        if body.startswith("[") and body.endswith("]"):
            chars.update(re.sub(r"\\(.)", r"\1", body[1:-1]))
    return frozenset(chars)


@functools.cache
def _trigger_patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(
        needs for _rule, needs in _needing() if not (needs.pattern.startswith("[") and needs.pattern.endswith("]"))
    )


def _lex(text: str, pos: int, stop: int, tokens: list[str], disabled: frozenset[Rule] | None = None) -> int:
    """Lex ``text`` from ``pos`` until a token ends at or after ``stop``; returns the position reached.

    ``text`` may run past ``stop``: what follows is the trailing context the rules may look at."""
    if disabled is None:
        disabled = _disabled(text)
    quick = _quick_words(disabled)
    while pos < stop:
        if quick:
            run = _LETTER_RUN.match(text, pos)
            if run is not None:
                word = run.group()
                after = run.end()
                if (
                    (after == len(text) or text[after] in _SAFE_AFTER)
                    and word.isalpha()
                    and (word.isascii() or (max(word) < "\U00010000" and _DOTTED_I.isdisjoint(word)))
                    and word.lower() not in _SPECIAL
                    and (after == len(text) or text[after] != ":" or word.lower() not in ("http", "https"))
                ):
                    tokens.append(word)
                    pos = after
                    continue
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


#: A run of letters the lexer's WORD takes whole when one of these follows it (or nothing does),
#: unless an e-mail address or a URL may start there (see :func:`_quick_words`).
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_SAFE_AFTER = frozenset(' \t\n,;:"()[]{}\u201c\u201d\u201e\u00ab\u00bb')


def _quick_words(disabled: frozenset[Rule]) -> bool:
    """Whether letter runs may skip the rules (no e-mail address or likely URL in the text)."""
    return all(rule in disabled for rule in _url_rules())


@functools.cache
def _url_rules() -> tuple[Rule, ...]:
    return tuple(rule for rule in rules() if rule.name in ("email", "likelyurl"))


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
_SIMPLE = re.compile(r"[A-Za-z]+(?: +[A-Za-z]+)* *(?:\. *)?")
_SPECIAL = frozenset(["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"])
#: the letters a caseless rule's ``i`` also matches (``caseless``): words with them go to the rules
_DOTTED_I = frozenset("\u0130\u0131")
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


def _caption_tokens(caption: str, following: str | None) -> list[str]:
    """The PTB tokens of one caption, lexed whole (the rules see the next line as context)."""
    text = caption if following is None else f"{caption}\n{following[:_CONTEXT]}"
    tokens: list[str] = []
    _lex(text, 0, len(caption), tokens)
    return tokens


@functools.cache
def _not_plain() -> re.Pattern[str]:
    """A space-delimited chunk that is not all (BMP) letters, or is a word the lexer splits
    (``cannot``, ``gonna``, ...): the lexer must read it."""
    numeric = "".join(
        re.escape(chr(code))
        for code in range(0x80, 0x10000)
        if not 0xD800 <= code < 0xE000 and chr(code).isalnum() and not chr(code).isalpha() and not chr(code).isdecimal()
    )
    odd = f"[^\\w ]|[\\d_{numeric}]|[\U00010000-\U0010ffff]"
    special = "|".join(sorted(_SPECIAL))
    return re.compile(f"(?<![^ ])(?:[^ ]*(?:{odd})[^ ]*|(?i:{special})(?![^ ]))")


#: Where a token may run across a space (fractions, phone numbers, spaced ellipses, SGML tags):
#: then the whole caption goes through the lexer in one pass.
_CROSSING = re.compile(r"\d [\d(]|\) ?\d|\. \.|<|\+ ?\d")


_SPACE_RUN = re.compile("[ \t\u00a0\u2000-\u200a\u3000]*")


def _space_run_end(text: str, pos: int) -> int:
    """Where the run of lexer spaces starting at ``pos`` ends (``pos`` when none starts there)."""
    run = _SPACE_RUN.match(text, pos)
    return pos if run is None else run.end()


def _java_lower(token: str) -> str:
    """``token.toLowerCase(Locale.ENGLISH)``: Python's ``lower`` but for Java's word-bounded final sigma."""
    lowered = token.lower()
    if "\u03a3" not in token or len(lowered) != len(token):
        return lowered
    chars = list(lowered)
    for index, ch in enumerate(token):
        if ch == "\u03a3":
            before = any(_cased(c) for c in _word_part(reversed(token[: index + 1])))
            after = any(_cased(c) for c in _word_part(token[index:]))
            chars[index] = "\u03c2" if before and not after else "\u03c3"
    return "".join(chars)


def _word_part(chars: Iterable[str]) -> Iterable[str]:
    """The characters up to the next word boundary of Java's word ``BreakIterator`` (approximately:
    letters, digits and marks; dashes, quotes and periods between letters; quotes, periods and
    commas between digits). The first character is where the search starts, not part of it."""
    items = list(chars)
    for index, ch in enumerate(items):
        if index == 0:
            continue
        if ch.isalnum() or unicodedata.category(ch) in ("Mn", "Me", "Mc", "Cf"):
            yield ch
            continue
        before = items[index - 1] if index else ""
        after = items[index + 1] if index + 1 < len(items) else ""
        between_letters = before.isalpha() and after.isalpha()
        between_digits = before.isnumeric() and after.isnumeric()
        if (between_letters and (unicodedata.category(ch) == "Pd" or ch in "\u00ad\u2027\"'.")) or (
            between_digits and ch in "\"',.\u066b"
        ):
            yield ch
        else:
            return


def _cased(ch: str) -> bool:
    return ch.lower() != ch or ch.upper() != ch or unicodedata.category(ch) == "Lt"


def _finish(tokens: Iterable[str]) -> str:
    """pycocoevalcap's last step: lowercased tokens joined, right-stripped, punctuation removed."""
    line = " ".join(_java_lower(tok) for tok in tokens if tok != "\n").rstrip()
    return " ".join(word for word in line.split(" ") if word not in COCO_PUNCTUATION)


def coco_line(caption: str, following: str | None = None) -> str:
    """One caption as pycocoevalcap's ``PTBTokenizer`` returns it: lowercased PTB tokens without
    punctuation, joined by spaces.

    ``following`` is the next caption of the batch (None for the last one): pycocoevalcap
    tokenizes a batch as one text, one caption per line, and a few rules look past a line end.

    Examples
    --------
    >>> coco_line("A man (wearing a hat) rides a horse, doesn't he?")
    "a man -lrb- wearing a hat -rrb- rides a horse does n't he"
    """
    caption = caption.replace("\n", " ")
    simple = _simple_caption(caption)
    if simple is not None:
        return simple
    if _CROSSING.search(caption):
        return _finish(_caption_tokens(caption, following))
    text = caption if following is None else f"{caption}\n{following[:_CONTEXT]}"
    disabled = _disabled(text)

    def lexed(chunk: re.Match[str]) -> str:
        # the lexer's spaces rule took the other spaces after the ASCII one with it
        start = chunk.start() if chunk.start() == 0 else _space_run_end(text, chunk.start())
        tokens: list[str] = []
        _lex(text, start, chunk.end(), tokens, disabled)
        return " ".join(tokens)

    words = _not_plain().sub(lexed, caption).split(" ")
    return _finish(word for word in words if word)


def coco_tokenize(captions: Iterable[str]) -> list[str]:
    """:func:`coco_line` of every caption (repeated captions are tokenized once), natively.

    The native lexer (``nlpeval._core.PtbLexer``) runs the rules of
    :mod:`nlpeval.tokenizers.ptb_rules` through the same steps as :func:`coco_line`; the captions
    it leaves out (characters beyond the Basic Multilingual Plane, ``Σ``, ``İ``, ``ı``) and every
    caption when the core lacks it go through :func:`coco_tokenize_python`'s code.

    Examples
    --------
    >>> coco_tokenize(["A dog.", "Two cats on a sofa ..."])
    ['a dog', 'two cats on a sofa']
    """
    items = list(captions)
    lexer = _native_lexer()
    if lexer is None:
        return coco_tokenize_python(items)
    try:
        native: list[str | None] = lexer.coco_lines(items)
    except UnicodeEncodeError:  # a lone surrogate: Python strings only
        return coco_tokenize_python(items)
    cache: dict[str, str] = {}
    return [_python_line(items, index, cache) if line is None else line for index, line in enumerate(native)]


def _python_line(items: list[str], index: int, cache: dict[str, str]) -> str:
    """Caption ``index`` of ``items`` by the Python rules (the next caption is its trailing context), reusing
    ``cache`` for captions whose line does not depend on what follows."""
    caption = items[index]
    line = cache.get(caption)
    if line is None:
        following = items[index + 1].replace("\n", " ") if index < len(items) - 1 else None
        line = coco_line(caption, following)
        if _context_free(caption):
            cache[caption] = line
    return line


def coco_tokenize_python(captions: Iterable[str]) -> list[str]:
    """:func:`coco_tokenize` in Python alone (the native lexer's fallback and its oracle in the tests).

    Examples
    --------
    >>> coco_tokenize_python(["A dog.", "Two cats on a sofa ..."])
    ['a dog', 'two cats on a sofa']
    """
    items = list(captions)
    cache: dict[str, str] = {}
    return [_python_line(items, index, cache) for index in range(len(items))]


@functools.cache
def _native_lexer() -> Any:
    """The native lexer over :func:`~nlpeval.tokenizers.ptb_rules.rules` and Python's character
    tables, or None with a core built without it (built once per process)."""
    from nlpeval import _native

    if _native.PtbLexer is None:
        return None
    specs = []
    for rule in rules():
        chars = pattern = None
        if rule.needs is not None:
            body = rule.needs.pattern
            if body.startswith("[") and body.endswith("]"):
                chars = re.sub(r"\\(.)", r"\1", body[1:-1])
            else:
                pattern = body
        first = rule.first.pattern if rule.first is not None else "[\\s\\S]"
        specs.append((rule.name, rule.regex.pattern, rule.context, rule.action, chars, pattern, first))
    flags = bytearray(0x10000)
    lower = []
    for code in range(0x10000):
        ch = chr(code)
        flags[code] = ch.isalpha() | ch.isdecimal() << 1 | ch.isalnum() << 2
        if code >= 0x80 and not 0xD800 <= code < 0xE000 and ch.lower() != ch:
            lower.append((ch, ch.lower()))
    return _native.PtbLexer(specs, bytes(flags), lower)


def _context_free(caption: str) -> bool:
    """Whether no rule can look past the end of ``caption`` (its tokenization then depends on it alone)."""
    tail = caption.rstrip(" ")
    return not tail or (tail[-1].isalpha() and tail[-1].isascii())


__all__ = ["COCO_PUNCTUATION", "coco_line", "coco_tokenize", "coco_tokenize_python", "ptb_tokens"]
