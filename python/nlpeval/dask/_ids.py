"""Which segments a system covers, as a mergeable fingerprint: the id check of ``--engine dask``.

On one machine, :mod:`nlpeval.cli.datafiles` aligns systems by id and refuses one that lacks an
id, repeats one or has other references for one. On Dask the ids stay on the workers: each
partition's task reduces its rows to a :class:`Fingerprint` (per id bucket: the row count and
the sum mod 2**64 of a keyed 64-bit hash of ``(id, references)``, plus the sorted hashes of
the ids to find repeats), merged in the same tree as the statistics; the client compares the
systems' fingerprints. Hashes are ``blake2b`` (keyed, 8 bytes), the same in every process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

#: the key under which :func:`nlpeval.dask.partials` returns a group's fingerprint (``check_ids=True``)
IDS_KEY = "ids:fingerprint"
#: id buckets (the top 8 bits of the id's hash): a difference is searched for in one bucket only
BUCKETS = 256
_KEY = b"nlpeval-ids-1"


def _id_digest(key: Any) -> bytes:
    return hashlib.blake2b(str(key).encode("utf-8", "surrogatepass"), digest_size=8, key=_KEY).digest()


def _row_digest(id_digest: bytes, refs: Sequence[str]) -> bytes:
    # several references: their lengths keep ["a", "b"] apart from ["a\x00b"]
    text = refs[0] if len(refs) == 1 else ",".join(str(len(r)) for r in refs) + "\x00" + "\x00".join(refs)
    data = id_digest + len(refs).to_bytes(4, "little") + text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=8, key=_KEY).digest()


def id_hash(key: Any) -> int:
    """The 64-bit hash of an id (the same in every process).

    Examples
    --------
    >>> id_hash("doc1") == id_hash("doc1") != id_hash("doc2")
    True
    """
    return int.from_bytes(_id_digest(key), "little")


def row_hash(key: Any, refs: Sequence[str]) -> int:
    """The 64-bit hash of an id and its references."""
    return int.from_bytes(_row_digest(_id_digest(key), refs), "little")


def bucket(hash_: int) -> int:
    """The bucket of an id's hash."""
    return hash_ >> 56


@dataclass
class Fingerprint:
    """The ids (and their references) of one system's rows, mergeable in any order.

    ``counts[b]``/``sums[b]``: rows whose id falls in bucket ``b`` and the sum mod 2**64 of
    their :func:`row_hash`; ``ids``: the sorted id hashes (``None`` once checked), ``repeats``:
    id hashes seen more than once (a few, to look up).

    Examples
    --------
    >>> a = Fingerprint.of(["1", "2"], [["x"], ["y"]])
    >>> b = Fingerprint.of(["2"], [["y"]]).merge(Fingerprint.of(["1"], [["x"]]))
    >>> a.same_rows(b), a.merge(b).finish().repeats != []
    (True, True)
    """

    counts: np.ndarray
    sums: np.ndarray
    ids: np.ndarray | None
    repeats: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, ids: Sequence[Any], refs: Sequence[Sequence[str]]) -> Fingerprint:
        """The fingerprint of rows ``ids`` with references ``refs``."""
        id_digests = [_id_digest(key) for key in ids]
        row_digests = [_row_digest(d, r) for d, r in zip(id_digests, refs, strict=True)]
        keys = np.frombuffer(b"".join(id_digests), dtype="<u8").astype(np.uint64)
        rows = np.frombuffer(b"".join(row_digests), dtype="<u8").astype(np.uint64)
        buckets = (keys >> np.uint64(56)).astype(np.intp)
        counts = np.bincount(buckets, minlength=BUCKETS).astype(np.int64)
        sums = np.zeros(BUCKETS, dtype=np.uint64)
        np.add.at(sums, buckets, rows)  # wraps mod 2**64
        return cls(counts, sums, np.sort(keys)).finish(keep=True)

    def merge(self, other: Fingerprint) -> Fingerprint:
        """Both sets of rows (order does not matter)."""
        keys = None
        if self.ids is not None and other.ids is not None:
            keys = np.sort(np.concatenate([self.ids, other.ids]))
        merged = Fingerprint(self.counts + other.counts, self.sums + other.sums, keys, self.repeats + other.repeats)
        return merged.finish(keep=True)

    def finish(self, *, keep: bool = False) -> Fingerprint:
        """Record repeated id hashes (at most 8); drop the id hashes unless ``keep``."""
        repeats = self.repeats
        if self.ids is not None and len(repeats) < 8:
            twice = self.ids[1:][self.ids[1:] == self.ids[:-1]]
            repeats = sorted(set(repeats) | {int(h) for h in np.unique(twice)[:8]})[:8]
        return replace(self, ids=self.ids if keep else None, repeats=repeats)

    @property
    def n_rows(self) -> int:
        return int(self.counts.sum())

    def same_rows(self, other: Fingerprint) -> bool:
        """Whether both cover the same ids with the same references (up to a 2**-64 chance)."""
        return bool(np.array_equal(self.counts, other.counts) and np.array_equal(self.sums, other.sums))

    def first_difference(self, other: Fingerprint) -> int:
        """The first bucket in which ``other``'s rows differ from these."""
        differs = (self.counts != other.counts) | (self.sums != other.sums)
        return int(np.flatnonzero(differs)[0])
