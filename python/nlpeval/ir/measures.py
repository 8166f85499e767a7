"""Names of the retrieval measures: trec_eval's spellings, the usual aliases, and one canonical name each.

The canonical name is trec_eval's output name (``P_10``, ``recall_100``, ``Rprec``,
``recip_rank``, ``map``, ``map_cut_10``, ``ndcg``, ``ndcg_cut_10``, ``success_1``) so that
per-query values line up with ``trec_eval -q`` and pytrec_eval. Measures trec_eval does not
have get names in the same style: ``recip_rank_cut_10`` (RR@10, as ranx's ``mrr@10``),
``ndcg_exp`` and ``ndcg_exp_cut_10`` (exponential gain ``2**rel - 1``, Burges et al. 2005).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nlpeval.core.errors import InputError

#: measure kind -> (canonical stem, display stem, takes a cutoff: "no" | "optional" | "required")
_KINDS = {
    "P": ("P", "P", "required"),
    "recall": ("recall", "R", "required"),
    "Rprec": ("Rprec", "R-prec", "no"),
    "recip_rank": ("recip_rank", "RR", "optional"),
    "map": ("map", "AP", "optional"),
    "ndcg": ("ndcg", "nDCG", "optional"),
    "ndcg_exp": ("ndcg_exp", "nDCG-exp", "optional"),
    "success": ("success", "Success", "required"),
}

#: lower-cased spelling (without the cutoff) -> kind
_ALIASES = {
    "p": "P",
    "precision": "P",
    "r": "recall",
    "recall": "recall",
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "r-precision": "Rprec",
    "r_precision": "Rprec",
    "rr": "recip_rank",
    "mrr": "recip_rank",
    "recip_rank": "recip_rank",
    "recip_rank_cut": "recip_rank",
    "map": "map",
    "ap": "map",
    "map_cut": "map",
    "ndcg": "ndcg",
    "ndcg_cut": "ndcg",
    "ndcg_exp": "ndcg_exp",
    "ndcg_exp_cut": "ndcg_exp",
    "ndcg_burges": "ndcg_exp",
    "success": "success",
    "hit": "success",
    "hits": "success",
    "hit_rate": "success",
    "hitrate": "success",
}

_SPELLING = re.compile(r"^\s*([A-Za-z][A-Za-z_\-]*?)(?:(?:@|_|\.)(\d+))?\s*$")

#: trec_eval's default measures of ``nlpeval.retrieval`` when none are given
DEFAULT_MEASURES = ("map", "ndcg", "ndcg@10", "P@10", "recall@100", "recip_rank", "Rprec")


@dataclass(frozen=True)
class Measure:
    """One retrieval measure: its kind and cutoff ``k`` (``None``: the whole ranking).

    Examples
    --------
    >>> Measure.parse("ndcg@10").name, Measure.parse("NDCG@10").label
    ('ndcg_cut_10', 'nDCG@10')
    >>> Measure.parse("mrr").name, Measure.parse("P.5").name, Measure.parse("hit@3").name
    ('recip_rank', 'P_5', 'success_3')
    """

    kind: str
    k: int | None = None

    @classmethod
    def parse(cls, text: str) -> Measure:
        """The measure a name spells: trec_eval's (``P_10``, ``ndcg_cut.10``) or an alias (``P@10``, ``mrr@10``).

        Raises
        ------
        InputError
            For a name no measure has, or a cutoff where none is allowed / missing where one is required.
        """
        if not isinstance(text, str):
            raise InputError(f"measure names are str; got {type(text).__name__}")
        match = _SPELLING.match(text)
        stem = match.group(1).lower() if match else ""
        if stem not in _ALIASES and match and match.group(1) == "P":
            stem = "p"
        kind = _ALIASES.get(stem)
        if match is None or kind is None:
            known = "P@k, recall@k, Rprec, recip_rank (mrr) [@k], map [@k], ndcg [@k], ndcg_exp [@k], success@k"
            raise InputError(f"unknown retrieval measure {text!r}; known: {known}")
        k = None if match.group(2) is None else int(match.group(2))
        rule = _KINDS[kind][2]
        if rule == "no" and k is not None:
            raise InputError(f"measure {text!r}: {_KINDS[kind][1]} takes no cutoff")
        if rule == "required" and k is None:
            raise InputError(f"measure {text!r}: give a cutoff, e.g. {_KINDS[kind][1]}@10")
        if k is not None and k < 1:
            raise InputError(f"measure {text!r}: the cutoff must be at least 1")
        return cls(kind, k)

    @property
    def name(self) -> str:
        """The canonical (trec_eval-style) name, e.g. ``ndcg_cut_10``."""
        stem = _KINDS[self.kind][0]
        if self.k is None:
            return stem
        if _KINDS[self.kind][2] == "required":
            return f"{stem}_{self.k}"
        return f"{stem}_cut_{self.k}"

    @property
    def label(self) -> str:
        """A short display name, e.g. ``nDCG@10``."""
        stem = _KINDS[self.kind][1]
        return stem if self.k is None else f"{stem}@{self.k}"

    @property
    def in_trec_eval(self) -> bool:
        """Whether trec_eval 9.0.8 has this measure under :attr:`name`."""
        return not (self.kind == "ndcg_exp" or (self.kind == "recip_rank" and self.k is not None))


def parse_measures(names: str | Measure | Sequence[str | Measure]) -> list[Measure]:
    """Measures from names (a comma-separated string or a sequence), without repeats, in the order given.

    Examples
    --------
    >>> [m.name for m in parse_measures("map, ndcg@10,ndcg_cut_10")]
    ['map', 'ndcg_cut_10']
    """
    if isinstance(names, Measure):
        items: list = [names]
    elif isinstance(names, str):
        items = [part for part in names.split(",") if part.strip()]
    else:
        items = list(names)
    out: list[Measure] = []
    for item in items:
        measure = item if isinstance(item, Measure) else Measure.parse(item)
        if measure not in out:
            out.append(measure)
    if not out:
        raise InputError("no retrieval measure given")
    return out
