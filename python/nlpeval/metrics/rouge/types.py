"""ROUGE type names (``rouge1`` … ``rouge9``, ``rougeL``, ``rougeLsum``, ``rougeW-1.2``,
``rougeS4``, ``rougeSU4``, ``rougeS*``, ``rougeSU*``) and what each one computes."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The pattern of every valid type name (full match).
TYPE_PATTERN = r"rouge[1-9]|rougeL|rougeLsum|rougeW-\d+(?:\.\d+)?|rougeSU?(?:\d+|\*)"

_TYPE_RE = re.compile(TYPE_PATTERN)


@dataclass(frozen=True)
class RougeType:
    """A parsed ROUGE type.

    Attributes
    ----------
    name : str
        The type as written, e.g. ``"rougeW-1.2"``.
    family : {"n", "l", "lsum", "w", "s", "su"}
        ROUGE-N, sentence-level LCS, summary-level LCS, weighted LCS, skip-bigram,
        skip-bigram plus unigram.
    n : int
        The n of ROUGE-N (0 otherwise).
    weight : float
        The weight of ROUGE-W (0 otherwise).
    max_gap : int or None
        The maximum number of skipped tokens of ROUGE-S/SU (``None``: no limit).

    Examples
    --------
    >>> RougeType.parse("rougeSU4").max_gap, RougeType.parse("rougeW-1.2").weight
    (4, 1.2)
    >>> RougeType.parse("rouge10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown ROUGE type 'rouge10'; valid: rouge1 … rouge9, rougeL, rougeLsum, ...
    """

    name: str
    family: str
    n: int = 0
    weight: float = 0.0
    max_gap: int | None = None

    @classmethod
    def parse(cls, name: str) -> RougeType:
        """Parse a type name; ``ValueError`` for anything else."""
        if not isinstance(name, str) or not _TYPE_RE.fullmatch(name):
            raise ValueError(
                f"unknown ROUGE type {name!r}; valid: rouge1 … rouge9, rougeL, rougeLsum, "
                "rougeW-<weight> (e.g. rougeW-1.2), rougeS<gap>, rougeSU<gap>, rougeS*, rougeSU*"
            )
        if name == "rougeL":
            return cls(name, "l")
        if name == "rougeLsum":
            return cls(name, "lsum")
        if name.startswith("rougeW-"):
            weight = float(name[len("rougeW-") :])
            if weight <= 0:
                raise ValueError(f"the weight of {name!r} must be positive")
            return cls(name, "w", weight=weight)
        if name.startswith("rougeS"):
            family = "su" if name.startswith("rougeSU") else "s"
            gap = name[len("rougeSU") if family == "su" else len("rougeS") :]
            return cls(name, family, max_gap=None if gap == "*" else int(gap))
        return cls(name, "n", n=int(name[len("rouge") :]))

    def kernel(self, *, perl: bool) -> tuple[str, float]:
        """The native kernel code and parameter (``perl``: ROUGE-1.5.5's variants)."""
        gap = -1.0 if self.max_gap is None else float(self.max_gap)
        if self.family == "n":
            return ("n", float(self.n))
        if self.family == "l":
            return ("lsum", 0.0) if perl else ("l", 0.0)
        if self.family == "lsum":
            return ("lsum", 0.0)
        if self.family == "w":
            return ("wperl" if perl else "w", self.weight)
        if self.family == "s":
            return ("s", gap)
        return ("superl" if perl else "su", gap)
