"""An on-disk cache of neural metrics' segment scores (``nlpeval score --cache DIR``).

A segment's statistics row is stored under the SHA-256 of its texts (hypothesis, references, source), in
a folder named by the metric's identity: the SHA-256 of its checkpoint's weights, its signature (model,
layers, idf, baseline, dtype, flavor, transformers and nlpeval versions) and its options. Scoring again
with the same model and options computes only the segments not seen before; a changed checkpoint,
option or library version is a different folder, so a stale score is never returned.

Files are written atomically through :func:`nlpeval.core.cache.write_private` (a folder of mode 0700,
files of mode 0600 carrying the hash of their content); a file that is corrupt, cut short, or not
private to this user is ignored and recomputed. The whole cache is bounded: past ``max_bytes`` the
least recently written files are removed. Two processes writing the same file at once lose one
side's new entries (they are computed again next time), never the file.

xCOMET's error spans (:meth:`SegmentCache.stats_and_spans`) are kept beside the rows, in a JSON file per
shard under the same segment keys; a segment whose row is cached without its spans (scored earlier without
them) is computed again, so a cached run shows the same spans as the run that computed them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nlpeval.core.cache import read_private, write_private
from nlpeval.core.stats import Stats

#: default bound of a cache folder (bytes)
DEFAULT_MAX_BYTES = 1 << 30

#: metric fields that do not change a score (beyond float32 rounding) and so do not key the cache
_NOT_KEYED = frozenset({"batch_size", "device", "cache_sentences"})

_KEY_BYTES = 32


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, default=str).encode("utf-8")).hexdigest()


def _weights(metric: Any) -> Path | None:
    """The weights file or model folder of a neural metric (COMET's checkpoint, BERTScore's and MetricX's folder)."""
    checkpoint = getattr(metric, "checkpoint", None)
    if checkpoint is not None:
        return Path(checkpoint.weights)
    folder = getattr(metric, "folder", None)
    return Path(folder) if folder is not None else None


def corpus_dependent(metric: Any) -> bool:
    """Whether a segment's score depends on the other segments of the call (BERTScore's idf weights)."""
    return bool(getattr(metric, "idf", False))


def identity(metric: Any, references: Sequence[Any] | None = None) -> str:
    """The hex SHA-256 naming ``metric``'s cache folder: weights, signature and options.

    A metric whose segment scores depend on the whole call (:func:`corpus_dependent`) is also keyed by
    ``references``.

    Examples
    --------
    >>> from nlpeval.neural.examples import tiny_bert
    >>> from nlpeval.metrics.bertscore import BERTScore
    >>> a, b = BERTScore(model=tiny_bert(), num_layers=1), BERTScore(model=tiny_bert(), num_layers=2)
    >>> identity(a) == identity(BERTScore(model=tiny_bert(), num_layers=1, batch_size=3)), identity(a) == identity(b)
    (True, False)
    """
    from nlpeval.neural.local import weights_sha256

    weights = _weights(metric)
    options = {}
    if dataclasses.is_dataclass(metric):
        options = {
            f.name: getattr(metric, f.name) for f in dataclasses.fields(metric) if f.init and f.name not in _NOT_KEYED
        }
    width = metric.schema.width
    signature = str(metric.signature(np.zeros(width)))
    parts: list[Any] = [
        type(metric).__name__,
        signature,
        options,
        "none" if weights is None else weights_sha256(weights),
    ]
    if corpus_dependent(metric):
        parts.append(_digest(list(references or [])))
    return _digest(*parts)


def segment_key(hypothesis: str, reference: Any, source: str | None) -> bytes:
    """The 32-byte key of one segment's texts."""
    return hashlib.sha256(json.dumps([hypothesis, reference, source], ensure_ascii=False).encode("utf-8")).digest()


class SegmentCache:
    """Segment statistics of neural metrics, on disk under ``folder``.

    Parameters
    ----------
    folder : path
        The cache folder (created with mode 0700).
    max_bytes : int
        Bound of the folder's size; the least recently written files go first.

    Examples
    --------
    >>> import tempfile
    >>> from nlpeval.neural.examples import tiny_bert
    >>> from nlpeval.metrics.bertscore import BERTScore
    >>> metric = BERTScore(model=tiny_bert(), num_layers=2)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = SegmentCache(folder)
    ...     first = cache.stats(metric, ["the cat sat"], ["a cat sat"])
    ...     again = cache.stats(metric, ["the cat sat", "a dog"], ["a cat sat", "the dog"])
    ...     cache.hits, cache.misses, bool((first.rows[0] == again.rows[0]).all())
    (1, 2, True)
    """

    def __init__(self, folder: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.folder = Path(folder)
        self.max_bytes = int(max_bytes)
        self.hits = 0
        self.misses = 0

    def stats(
        self,
        metric: Any,
        hypotheses: Sequence[str],
        references: Sequence[Any] | None,
        sources: Sequence[str] | None = None,
    ) -> Stats:
        """``metric``'s statistics rows of the segments, the cached ones read and the others computed.

        ``references`` (``None`` for reference-free metrics) and ``sources`` (``None`` for metrics
        without them) are passed on as the metric takes them.
        """
        return self._lookup(metric, hypotheses, references, sources, spans=False)[0]

    def stats_and_spans(
        self,
        metric: Any,
        hypotheses: Sequence[str],
        references: Sequence[Any] | None,
        sources: Sequence[str] | None = None,
    ) -> tuple[Stats, tuple[tuple[dict[str, Any], ...], ...]]:
        """:meth:`stats` and each segment's error spans (``metric.segment_stats_and_spans``: xCOMET), both
        cached: a segment counts as found only when its row and its spans are stored.

        Examples
        --------
        >>> import tempfile
        >>> from nlpeval.core.stats import Stats
        >>> from nlpeval.neural.segment_mean import SCHEMA
        >>> class Tagger:  # a stand-in for xCOMET: one span per segment
        ...     schema = SCHEMA
        ...     def signature(self, totals):
        ...         return "tagger"
        ...     def segment_stats_and_spans(self, hyps, refs, *, sources):
        ...         rows = np.array([[len(h), 1.0] for h in hyps])
        ...         return Stats(SCHEMA, rows), tuple(({"text": h[:3], "start": 0, "end": 3},) for h in hyps)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     first = SegmentCache(folder).stats_and_spans(Tagger(), ["the cat"], ["a cat"])
        ...     cache = SegmentCache(folder)
        ...     again = cache.stats_and_spans(Tagger(), ["the cat", "a dog"], ["a cat", "the dog"])
        ...     cache.hits, cache.misses, again[1]
        (1, 1, (({'text': 'the', 'start': 0, 'end': 3},), ({'text': 'a d', 'start': 0, 'end': 3},)))
        """
        stats, spans = self._lookup(metric, hypotheses, references, sources, spans=True)
        assert spans is not None
        return stats, spans

    def _lookup(
        self,
        metric: Any,
        hypotheses: Sequence[str],
        references: Sequence[Any] | None,
        sources: Sequence[str] | None,
        *,
        spans: bool,
    ) -> tuple[Stats, tuple[tuple[dict[str, Any], ...], ...] | None]:
        """The rows (and the error spans when ``spans``) of the segments, cached ones read, others computed."""
        n = len(hypotheses)
        name = identity(metric, references)
        keys = [
            segment_key(
                hypotheses[i],
                None if references is None else references[i],
                None if sources is None else sources[i],
            )
            for i in range(n)
        ]
        width = metric.schema.width
        shards: dict[str, dict[bytes, np.ndarray]] = {}
        span_shards: dict[str, dict[str, Any]] = {}
        for key in keys:
            shard = key[:1].hex()
            if shard not in shards:
                shards[shard] = self._read(name, shard, width)
                if spans:
                    span_shards[shard] = self._read_spans(name, shard)
        found = [shards[key[:1].hex()].get(key) for key in keys]
        if spans:  # a row without its spans (scored without them) is no hit
            found = [
                row if key.hex() in span_shards[key[:1].hex()] else None for row, key in zip(found, keys, strict=True)
            ]
        missing = [i for i, row in enumerate(found) if row is None]
        if missing and corpus_dependent(metric):
            missing = list(range(n))  # the scores depend on the whole call: compute it whole
        self.hits += n - len(missing)
        self.misses += len(missing)
        rows = np.empty((n, width), dtype=np.float64)
        if missing:
            computed, computed_spans = _call(metric, hypotheses, references, sources, missing, spans=spans)
            rows[missing] = computed.rows
            changed = set()
            for j, (i, row) in enumerate(zip(missing, computed.rows, strict=True)):
                shard = keys[i][:1].hex()
                shards[shard][keys[i]] = np.asarray(row, dtype=np.float64)
                if computed_spans is not None:
                    span_shards[shard][keys[i].hex()] = [dict(span) for span in computed_spans[j]]
                changed.add(shard)
            for shard in sorted(changed):
                self._write(name, shard, shards[shard], width)
                if spans:
                    self._write_spans(name, shard, span_shards[shard])
            self._bound()
        recomputed = set(missing)
        for i, row in enumerate(found):
            if row is not None and i not in recomputed:
                rows[i] = row
        if not spans:
            return Stats(metric.schema, rows), None
        segment_spans = tuple(tuple(dict(span) for span in span_shards[key[:1].hex()][key.hex()]) for key in keys)
        return Stats(metric.schema, rows), segment_spans

    # -- files ----------------------------------------------------------------------------

    def _path(self, name: str, shard: str) -> Path:
        return self.folder / name[:32] / f"{shard}.bin"

    def _read(self, name: str, shard: str, width: int) -> dict[bytes, np.ndarray]:
        data = read_private(self._path(name, shard))
        record = _KEY_BYTES + 8 * width
        if not data or len(data) % record:
            return {}
        table = np.frombuffer(data, dtype=[("key", f"S{_KEY_BYTES}"), ("row", "<f8", (width,))])
        return {
            bytes(key).ljust(_KEY_BYTES, b"\0"): row.copy() for key, row in zip(table["key"], table["row"], strict=True)
        }

    def _write(self, name: str, shard: str, table: dict[bytes, np.ndarray], width: int) -> None:
        records = np.empty(len(table), dtype=[("key", f"S{_KEY_BYTES}"), ("row", "<f8", (width,))])
        for index, (key, row) in enumerate(table.items()):
            records[index] = (key, row)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(self._path(name, shard), records.tobytes())

    def _spans_path(self, name: str, shard: str) -> Path:
        return self.folder / name[:32] / f"{shard}.spans.json"

    def _read_spans(self, name: str, shard: str) -> dict[str, Any]:
        data = read_private(self._spans_path(name, shard))
        if not data:
            return {}
        try:
            table = json.loads(data.decode("utf-8"))
        except ValueError:
            return {}
        return table if isinstance(table, dict) else {}

    def _write_spans(self, name: str, shard: str, table: dict[str, Any]) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(self._spans_path(name, shard), json.dumps(table, ensure_ascii=False).encode("utf-8"))

    def _bound(self) -> None:
        """Remove the least recently written files while the folder is over ``max_bytes``."""
        try:
            files = [(p.stat().st_mtime_ns, p.stat().st_size, p) for p in self.folder.glob("*/*.*")]
        except OSError:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size


def _call(
    metric: Any,
    hypotheses: Sequence[str],
    references: Sequence[Any] | None,
    sources: Sequence[str] | None,
    index: list[int],
    *,
    spans: bool = False,
) -> tuple[Stats, Any]:
    """``metric.segment_stats`` of the segments ``index`` (and their error spans from
    ``segment_stats_and_spans`` when ``spans``; else ``None``)."""
    hyps = [hypotheses[i] for i in index]
    refs = None if references is None else [references[i] for i in index]
    if spans:
        srcs = None if sources is None else [sources[i] for i in index]
        stats, found = metric.segment_stats_and_spans(hyps, refs, sources=srcs)
        return stats, found
    if sources is None:
        return metric.segment_stats(hyps, refs), None
    return metric.segment_stats(hyps, refs, sources=[sources[i] for i in index]), None
