"""Reproducibility signatures in sacreBLEU's ``key:value|key:value`` format."""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import cast

from nlpeval.core.signature_text import field_pairs, nrefs_field, render


@dataclass(frozen=True)
class Signature:
    """The settings that determine a score, printed as ``key:value|…``.

    Every score carries one so that a number can be reproduced and compared.
    The nlpeval version is always last, as in sacreBLEU.

    Parameters
    ----------
    items : tuple of (str, str)
        Ordered key/value pairs.

    Examples
    --------
    >>> sig = Signature.build(nrefs=1, case="mixed", eff=False, flavor="sacrebleu")
    >>> str(sig).startswith("nrefs:1|case:mixed|eff:no|flavor:sacrebleu|version:")
    True
    >>> sig["case"]
    'mixed'
    """

    items: tuple[tuple[str, str], ...]

    @classmethod
    def build(cls, **fields: object) -> Signature:
        """Signature from keyword fields (``None`` values are left out), version appended."""
        try:
            # a class is hashable (mypy checks a class against Hashable through its instances' __hash__)
            return _built(cast(Hashable, cls), tuple(fields.items()))
        except TypeError:  # an unhashable value: build it uncached
            return _built.__wrapped__(cls, tuple(fields.items()))

    def with_fields(self, **fields: object) -> Signature:
        """A copy with ``fields`` added (or replaced) before the version."""
        pairs = [(k, v) for k, v in self.items if k not in fields and k != "version"]
        pairs += [(k, render(v)) for k, v in fields.items() if v is not None]
        pairs += [(k, v) for k, v in self.items if k == "version"]
        return Signature(tuple(pairs))

    def __getitem__(self, key: str) -> str:
        for name, value in self.items:
            if name == key:
                return value
        raise KeyError(key)

    def __str__(self) -> str:
        return self._text

    @cached_property
    def _text(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.items)

    def as_dict(self) -> dict[str, str]:
        """The fields as a dict."""
        return dict(self.items)


@functools.lru_cache(maxsize=1024)
def _built(cls: type[Signature], fields: tuple[tuple[str, object], ...]) -> Signature:
    """:meth:`Signature.build` of hashable fields, cached: a training loop scores the same settings each call."""
    return cls(tuple(field_pairs(fields)))


__all__ = ["Signature", "nrefs_field"]
