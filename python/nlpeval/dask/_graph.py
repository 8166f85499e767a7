"""The task graph: one partials task per partition, then a tree of merges."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.dask import _spans
from nlpeval.dask._inputs import Columns, Where, partition_rows, zip_partition
from nlpeval.distributed.errors import PartitionInputError
from nlpeval.distributed.partial import Partial
from nlpeval.neural.worker import is_neural, stats_and_spans
from nlpeval.neural.worker import segment_stats as neural_stats

if TYPE_CHECKING:
    from nlpeval.dask._ids import Fingerprint

#: group key -> metric name -> Partial, and ``IDS_KEY`` -> the ids' Fingerprint when ids are checked (the key is
#: ``None`` without ``by``)
Grouped = dict[Any, dict[str, "Partial | Fingerprint"]]


def _stats(metric: CorpusMetric, hyps: list[Any], refs: list[list[Any]] | None, where: Where, rows: list[int],
           locs: list[Any] | None, srcs: list[Any] | None = None, spans: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """(statistics, error spans or None: kept when ``spans`` and the metric tags them)."""
    try:
        if is_neural(metric) or srcs is not None:  # one loaded model per worker process; the sources for the
            if spans:  # metrics that read them (COMET, MetricX, SARI)
                return stats_and_spans(metric, hyps, refs, srcs)
            return neural_stats(metric, hyps, refs, srcs), None
        # refs is None only for a metric that reads no references (Perplexity: see _needs_refs), which takes None
        return metric.segment_stats(hyps, refs), None  # type: ignore[arg-type]  # None: a metric reading no references
    except InputError as exc:
        if exc.segment is None:
            raise PartitionInputError(f"partition {where.partition}: {exc}") from None
        row = rows[exc.segment]
        location = locs[row] if locs else None
        side = f"{exc.side}: " if exc.side and not isinstance(location, str) else ""
        error = where.fail(row, f"{side}{exc.message}", location)
        # what the command line needs to name file:line: the side and the reference's position
        error.detail, error.side, error.reference = exc.message, exc.side, exc.reference
        raise error from None


def partition_partials(
    part: Any,
    index: int,
    offset: dict[Any, int] | None,
    *,
    metrics: dict[str, CorpusMetric],
    columns: Columns,
    n_resamples: int,
    seed: int,
    check_ids: bool = False,
    error_spans: bool = False,
) -> Grouped:
    """The partials of one partition, per group and metric (a task of the graph); with ``error_spans``, the
    spans of each metric that tags them under :func:`nlpeval.dask._spans.key` too."""
    release_memory()  # what the worker's previous partitions freed
    where = Where(index, None if offset is None or columns.by is not None else offset.get(None, 0))
    rows = partition_rows(part, columns, where)
    n = len(rows)
    if rows.groups is None:
        selections = {None: list(range(n))}
    else:
        selections = {}
        for row, key in enumerate(rows.groups):
            selections.setdefault(key, []).append(row)
    out: Grouped = {}
    for key, selected in selections.items():
        hyps = [rows.hyps[i] for i in selected]
        refs = None if rows.refs is None else [rows.refs[i] for i in selected]
        srcs = None if rows.srcs is None else [rows.srcs[i] for i in selected]
        all_stats = {}
        found: dict[str, Any] = {}
        for name, metric in metrics.items():
            if refs is None and _needs_refs(metric, name):
                raise PartitionInputError(f"{name} needs references: give the reference column (ref=...)")
            all_stats[name], spans = _stats(metric, hyps, refs, where, selected, rows.locs, srcs, error_spans)
            if spans is not None:
                found[_spans.key(name)] = _spans.SpanRun(tuple(spans))
        if n_resamples and selected:
            from nlpeval.significance.poisson import poisson_totals_many

            # one draw of the keyed weights for every metric; without ids, segments are keyed by their
            # row number in the input (in their group with ``by``)
            if rows.ids is not None:
                picked: Any = [rows.ids[i] for i in selected]
            else:
                start = (offset or {}).get(key, 0)
                picked = np.arange(start, start + len(selected), dtype=np.int64)
            boots = poisson_totals_many([(s.schema, s.rows) for s in all_stats.values()], picked, n_resamples, seed)
            out[key] = {
                name: Partial(metrics[name], stats.totals(), len(stats), boot, seed)
                for (name, stats), boot in zip(all_stats.items(), boots, strict=True)
            }
        else:
            out[key] = {
                name: Partial.from_stats(metrics[name], stats, n_resamples=n_resamples, seed=seed)
                for name, stats in all_stats.items()
            }
        out[key].update(found)
        if check_ids and rows.ids is not None:
            from nlpeval.dask._ids import IDS_KEY, Fingerprint

            out[key][IDS_KEY] = Fingerprint.of([rows.ids[i] for i in selected], refs or [[] for _ in selected])
    return out


def release_memory() -> None:
    """Hand the memory freed by a partition's task back to the operating system (glibc only).

    glibc keeps freed blocks in its per-thread arenas; a worker that builds and frees a
    partition's rows and statistics task after task otherwise sees its RSS creep up with the
    number of partitions it has processed (BENCHMARKS.md, "Beyond one machine"). One
    ``malloc_trim(0)`` per partition costs a few milliseconds.
    """
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            import ctypes
            import ctypes.util

            try:
                _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
            except (OSError, AttributeError):  # not glibc (musl): nothing to do
                _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


def _needs_refs(metric: CorpusMetric, name: str = "") -> bool:
    from nlpeval.lm.logprobs import Perplexity

    if is_neural(metric) and type(metric).__name__ == "MetricX":
        return False  # MetricX scores with the sources alone (QE)
    return not isinstance(metric, Perplexity)


def merge_grouped(parts: Sequence[Grouped]) -> Grouped:
    """Merge several partitions' partials in order (a task of the tree)."""
    out: Grouped = {}
    for part in parts:
        for key, by_name in part.items():
            if key not in out:
                out[key] = dict(by_name)
            else:
                out[key] = {name: _merge(out[key][name], p) for name, p in by_name.items()}
    return out


def _merge(mine: Partial | Fingerprint, theirs: Partial | Fingerprint) -> Partial | Fingerprint:
    """Two partitions' entries of one name: a metric's partials, or the ids' fingerprints (``IDS_KEY``)."""
    if isinstance(mine, Partial) and isinstance(theirs, Partial):
        return mine.merge(theirs)
    return cast("Fingerprint", mine).merge(cast("Fingerprint", theirs))


def tree(items: list[Any], combine: Callable[[list[Any]], Any], split_every: int) -> Any:
    """A tree reduction of delayed ``items`` (order kept): ``combine`` on groups of ``split_every``."""
    from dask import delayed

    if not items:
        raise ValueError("the collection has no partitions: there is nothing to score")
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2; got {split_every}")
    level = 0
    while len(items) > 1 or level == 0:
        items = [delayed(combine, pure=True)(items[i : i + split_every]) for i in range(0, len(items), split_every)]
        level += 1
    return items[0]


def partitions(data: Any) -> list[Any]:
    """Delayed partitions of a dask Bag or DataFrame, or of a ``(hypotheses, references)`` pair of bags."""
    from dask import delayed

    if isinstance(data, tuple) and len(data) == 2:
        hyps, refs = data
        if hyps.npartitions != refs.npartitions:
            raise PartitionInputError(
                f"the hypotheses have {hyps.npartitions} partitions and the references {refs.npartitions}: "
                "they must be partitioned alike (or give one collection of (hypothesis, references) rows)"
            )
        return [
            delayed(zip_partition, pure=True)(h, r) for h, r in zip(hyps.to_delayed(), refs.to_delayed(), strict=True)
        ]
    if not hasattr(data, "to_delayed"):
        raise TypeError(f"expected a dask Bag or DataFrame; got {type(data).__name__}")
    return list(data.to_delayed())


def _counts(part: Any, index: int, columns: Columns) -> dict[Any, int]:
    """Rows of one partition per group (one count under ``None`` without ``by``)."""
    if columns.by is None:
        return {None: len(part)}
    groups = partition_rows(part, columns, Where(index)).groups or []
    counts: dict[Any, int] = {}
    for key in groups:
        counts[key] = counts.get(key, 0) + 1
    return counts


def offsets(parts: list[Any], columns: Columns) -> list[dict[Any, int]]:
    """Row offset of each partition's first row (per group with ``by``), from a first pass that counts rows.

    Computed now (not in the scoring graph): a graph where every partition's task waited for
    every partition's length would hold the whole corpus in memory at once.
    """
    import dask

    counts = dask.compute(*[dask.delayed(_counts, pure=True)(p, i, columns) for i, p in enumerate(parts)])
    running: dict[Any, int] = {}
    out = []
    for count in counts:
        out.append(dict(running))
        for key, n in count.items():
            running[key] = running.get(key, 0) + n
    return out
