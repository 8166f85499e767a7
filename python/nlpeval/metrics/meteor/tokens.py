"""Token sequences as flat integer arrays of interned word types (the native kernels' input)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nlpeval import _native


@dataclass(frozen=True)
class Interned:
    """Token sequences of a batch: ``ids`` (flat), ``lens`` per sequence, and the ``types``."""

    ids: np.ndarray
    lens: np.ndarray
    types: list[str]


def split_intern(texts: Sequence[str], *, java: bool, lowercase: bool = False) -> Interned:
    """Splits ``texts`` into tokens and interns them (lowercased with ``str.lower`` if asked).

    Parameters
    ----------
    texts : sequence of str
        The texts of a batch.
    java : bool
        Split like Java's ``StringTokenizer`` (METEOR 1.5) instead of Python's ``str.split``.
    lowercase : bool
        Intern ``token.lower()`` (tokens with equal lowercase forms share an id).

    Examples
    --------
    >>> batch = split_intern(["The cat", "", "the"], java=False, lowercase=True)
    >>> batch.ids.tolist(), batch.lens.tolist(), batch.types
    ([0, 1, 0], [2, 0, 1], ['the', 'cat'])
    """
    # ASCII tokens are lowercased natively; the rest by Python, whose rules are NLTK's
    ids, lens, raw = _native.meteor_split_intern(list(texts), java, lowercase)
    if not lowercase or all(t.isascii() for t in raw):
        return Interned(ids, lens, raw)
    types, mapping = number([t if t.isascii() else t.lower() for t in raw])
    return Interned(mapping[ids] if len(ids) else ids, lens, types)


def number(items: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct ``items`` in first-seen order, and each item's index among them.

    Examples
    --------
    >>> distinct, index = number(["b", "a", "b"])
    >>> distinct, index.tolist()
    (['b', 'a'], [0, 1, 0])
    """
    distinct = list(dict.fromkeys(items))
    ids = {item: i for i, item in enumerate(distinct)}
    return distinct, np.fromiter(map(ids.__getitem__, items), dtype=np.uint32, count=len(items))
