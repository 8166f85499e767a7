"""How ROUGE-1.5.5.pl reads and tokenizes a summary (``readText``, ``readText_LCS``,
``createNGram``, ``tokenizeText_LCS``), on UTF-8 bytes as the Perl sees them.

A summary is a file with one sentence per line (the SPL format): here a string whose
lines are its sentences. Empty lines are skipped; ``tr/A-Z/a-z/`` lowercases ASCII only;
``-`` becomes a token of its own and every other byte outside ``[A-Za-z0-9]`` a space;
tokens not starting with ``[a-z0-9$]`` (that is, ``-``) are dropped, stopwords are
dropped with ``-s``, and tokens longer than 3 bytes are stemmed with ``-m``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_SPACES = re.compile(rb"\s+")
_NOT_WORD = re.compile(rb"[^A-Za-z0-9\-]")
_KEEP = re.compile(rb"[a-z0-9$]")


def perl_split(text: bytes) -> list[bytes]:
    """Perl's ``split(/\\s+/, $text)``: a leading empty field is kept, trailing ones dropped."""
    fields = _SPACES.split(text)
    while fields and fields[-1] == b"":
        fields.pop()
    return fields


def sentences(text: str) -> list[bytes]:
    """The non-empty lines of a summary, lowercased with ``tr/A-Z/a-z/``."""
    return [line.translate(_LOWER) for line in text.encode("utf-8").split(b"\n") if line]


def limit_joined(sents: list[bytes], word_limit: int, byte_limit: int) -> bytes:
    """``readText``: the sentences joined by spaces, cut at the word or byte limit."""
    if not word_limit and not byte_limit:
        return b" ".join(sents)
    out = b""
    used = 0
    for sentence in sents:
        if word_limit:
            words = perl_split(sentence)
            size = len(words)
            if used + size < word_limit:
                out += b" " + sentence if used else sentence
                used += size
                continue
            out += (b" " if used > 0 else b"") + b" ".join(words[: word_limit - used])
            break
        size = len(sentence)
        if used + size < byte_limit:
            out += b" " + sentence if used else sentence
            used += size
            continue
        out += (b" " if used > 0 else b"") + sentence[: byte_limit - used]
        break
    return out


def limit_sentences(sents: list[bytes], word_limit: int, byte_limit: int) -> list[bytes]:
    """``readText_LCS``: the sentences kept under the limit (the byte limit is checked per
    sentence, as the Perl never adds up the bytes it has kept)."""
    if not word_limit and not byte_limit:
        return list(sents)
    out: list[bytes] = []
    used = 0
    for sentence in sents:
        if word_limit:
            words = perl_split(sentence)
            if used + len(words) < word_limit:
                used += len(words)
                out.append(sentence)
                continue
            out.append(b" ".join(words[: word_limit - used]))
            break
        if len(sentence) < byte_limit:
            out.append(sentence)
            continue
        out.append(sentence[:byte_limit])
        break
    return out


def normalise(text: bytes) -> bytes:
    """The Perl's clean-up of read text before tokenizing."""
    return b" ".join(_NOT_WORD.sub(b" ", text.replace(b"-", b" - ")).split())


@dataclass(frozen=True)
class PerlTokenizer:
    """Token filter of ``createNGram`` / ``tokenizeText_LCS``: stopwords, ``[a-z0-9$]``, stemming."""

    stopwords: frozenset[bytes]
    stem: Callable[[bytes], bytes] | None

    def tokens(self, text: bytes) -> list[bytes]:
        """Tokens of one normalised text."""
        out = []
        for token in perl_split(normalise(text)):
            if token in self.stopwords or not _KEEP.match(token):
                continue
            if self.stem is not None and len(token) > 3:
                token = self.stem(token)
            out.append(token)
        return out

    def summary(self, text: str, word_limit: int, byte_limit: int) -> tuple[list[list[bytes]], list[bytes]]:
        """``(LCS sentences, n-gram tokens)`` of one summary."""
        sents = sentences(text)
        lcs = [self.tokens(s) for s in limit_sentences(sents, word_limit, byte_limit)]
        return lcs, self.tokens(limit_joined(sents, word_limit, byte_limit))
