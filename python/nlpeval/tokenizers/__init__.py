"""Tokenizers: the sacreBLEU set, native where possible, optional extras otherwise.

``13a``, ``intl``, ``zh``, ``char`` and ``none`` run in the Rust core.
``ja-mecab`` and ``ko-mecab`` need the ``ja`` / ``ko`` extras; ``spm``,
``flores101``, ``flores200`` and ``spBLEU-1K`` need ``sentencepiece`` and a local
model file (nlpeval never downloads one; sacreBLEU's cache is looked in).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

NATIVE_TOKENIZERS = ("13a", "intl", "zh", "char", "none")
EXTERNAL_TOKENIZERS = ("ja-mecab", "ko-mecab", "spm", "flores101", "flores200", "spBLEU-1K")
TOKENIZERS = NATIVE_TOKENIZERS + EXTERNAL_TOKENIZERS


@dataclass(frozen=True)
class TokenizerSpec:
    """How to tokenize: an optional Python pre-tokenizer, then a native tokenizer.

    Attributes
    ----------
    name : str
        The name the user asked for.
    native : str
        The native tokenizer applied last (``"none"`` after a Python pre-tokenizer).
    python : callable or None
        Pre-tokenizer mapping a line to space-separated tokens.
    signature : str
        What the signature's ``tok`` field shows.
    """

    name: str
    native: str
    python: Callable[[str], str] | None
    signature: str


def resolve_tokenizer(name: str, *, spm_model: str | os.PathLike[str] | None = None) -> TokenizerSpec:
    """Find the tokenizer called ``name`` (sacreBLEU's names).

    Parameters
    ----------
    name : str
        One of ``13a``, ``intl``, ``zh``, ``char``, ``none``, ``ja-mecab``, ``ko-mecab``,
        ``spm``, ``flores101``, ``flores200``, ``spBLEU-1K``.
    spm_model : path, optional
        SentencePiece model for ``spm``/``flores101``/``flores200``/``spBLEU-1K`` (or set
        ``NLPEVAL_SPM_MODEL``; else sacreBLEU's cache, ``~/.sacrebleu/models``, is looked in).

    Examples
    --------
    >>> resolve_tokenizer("13a").native
    '13a'
    >>> resolve_tokenizer("moses")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown tokenizer 'moses'; choose one of 13a, intl, zh, char, none, ja-mecab, ...
    """
    if name in NATIVE_TOKENIZERS:
        return TokenizerSpec(name, name, None, name)
    if name in ("ja-mecab", "ko-mecab"):
        from nlpeval.tokenizers.mecab import load_mecab

        tokenize, signature = load_mecab(name)
        return TokenizerSpec(name, "none", tokenize, signature)
    if name in ("spm", "flores101", "flores200", "spBLEU-1K"):
        from nlpeval.tokenizers.sentencepiece import SPM_MODELS, load_sentencepiece

        tokenize = load_sentencepiece(name, spm_model)
        signature = SPM_MODELS[name].signature
        return TokenizerSpec(name, "none", tokenize, signature)
    raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")


def tokenize_lines(lines: list[str], spec: TokenizerSpec) -> list[str]:
    """Tokenize lines (after sacreBLEU's ``rstrip``); tokens are separated by single spaces.

    Examples
    --------
    >>> tokenize_lines(["Hello, world!"], resolve_tokenizer("13a"))
    ['Hello , world !']
    """
    from nlpeval import _native

    if spec.python is not None:
        lines = [spec.python(line.rstrip()) for line in lines]
    return _native.tokenize(lines, spec.native)
