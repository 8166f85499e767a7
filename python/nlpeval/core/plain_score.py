"""A corpus score as plain Python values, for code that must not import ``dataclasses`` or NumPy.

``nlpeval score``'s NumPy-free path (``nlpeval.cli.fastscore``) returns these: what the renderers
read of a :class:`~nlpeval.core.score.Score` (``name``, ``score``, the ``signature`` text,
``components``; no ``segments`` or ``ci``) and the same :meth:`to_dict`, from the one
:func:`score_dict` that ``Score.to_dict`` uses too. A plain class with slots: building a dataclass
imports ``dataclasses`` (and ``inspect``), which costs a whole fast ``nlpeval score`` process
more than everything else it imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def score_dict(name: str, score: float, signature: str, components: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-ready head of a score: name, score, signature, then the components.

    Examples
    --------
    >>> score_dict("bleu", 0.25, "nrefs:1", {"hyp_len": 4})
    {'name': 'bleu', 'score': 0.25, 'signature': 'nrefs:1', 'hyp_len': 4}
    """
    return {"name": name, "score": score, "signature": signature, **components}


class PlainScore:
    """A corpus score of plain Python values (the fields :class:`~nlpeval.core.score.Score` renders).

    Examples
    --------
    >>> PlainScore("chrf", 0.5, "nrefs:1", {"beta": 2}).to_dict()
    {'name': 'chrf', 'score': 0.5, 'signature': 'nrefs:1', 'beta': 2}
    """

    __slots__ = ("components", "name", "score", "signature")
    segments = None
    ci = None
    error_spans = None  # as Score's: the score table asks every score for its spans

    def __init__(self, name: str, score: float, signature: str, components: dict[str, Any]) -> None:
        self.name, self.score, self.signature, self.components = name, score, signature, components

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, as ``Score.to_dict``: name, score, signature, then the components."""
        return score_dict(self.name, self.score, self.signature, self.components)
