"""Token sequences as flat integer arrays of interned word types (the native kernels' input)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nlpeval import _native


@dataclass(frozen=True)
class Interned:
    """Token sequences of a batch: ``ids`` (flat), ``lens`` per sequence, and the ``types``."""

    ids: np.ndarray
    lens: np.ndarray
    types: list[str]

    @property
    def offsets(self) -> np.ndarray:
        """Start of each sequence in ``ids`` (plus the end)."""
        return np.concatenate([[0], np.cumsum(self.lens)])


def split_intern(texts: Sequence[str], *, java: bool, key: Callable[[str], str] | None = None) -> Interned:
    """Splits ``texts`` into tokens and interns them (after ``key``, e.g. ``str.lower``).

    Parameters
    ----------
    texts : sequence of str
        The texts of a batch.
    java : bool
        Split like Java's ``StringTokenizer`` (METEOR 1.5) instead of Python's ``str.split``.
    key : callable, optional
        Applied to each distinct token; tokens with equal keys share an id.

    Examples
    --------
    >>> batch = split_intern(["The cat", "", "the"], java=False, key=str.lower)
    >>> batch.ids.tolist(), batch.lens.tolist(), batch.types
    ([0, 1, 0], [2, 0, 1], ['the', 'cat'])
    """
    ids, lens, raw = _native.meteor_split_intern(list(texts), java)
    if key is None:
        return Interned(ids, lens, raw)
    keyed: dict[str, int] = {}
    mapping = np.fromiter((keyed.setdefault(key(t), len(keyed)) for t in raw), dtype=np.uint32, count=len(raw))
    return Interned(mapping[ids] if len(ids) else ids, lens, list(keyed))
