"""nlpeval on Dask: corpus metrics over a ``dask.bag`` or ``dask.dataframe``, exact and lazy.

Each partition becomes one task computing the :class:`~nlpeval.distributed.Partial` of
every metric (per group with ``by=``); a tree of merge tasks (``split_every`` at a time,
partition order kept) reduces them, and the client receives only the merged statistics.
The result equals the single-machine score (bit for bit for integer statistics).
Results are lazy ``dask.delayed`` objects: ``.compute()`` them, or pass several to
``dask.compute`` to share one read of the data.

Requires the ``dask`` extra (``pip install nlpeval[dask]``).

Examples
--------
>>> import dask, dask.bag as db, nlpeval, nlpeval.dask
>>> rows = [("the cat sat on the mat", ["the cat sat on a mat"]), ("a dog barks", ["the dog barks"])]
>>> bag = db.from_sequence(rows, npartitions=2)
>>> s = nlpeval.dask.score(bag, nlpeval.BLEU()).compute(scheduler="sync")
>>> s.score == nlpeval.bleu([h for h, _ in rows], [r for _, r in rows]).score
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from nlpeval.core.metric import CorpusMetric
from nlpeval.dask._graph import Grouped, merge_grouped, offsets, partition_partials, partitions, tree
from nlpeval.dask._inputs import Columns
from nlpeval.dask.classification import binned_curve, confusion_matrix, regression
from nlpeval.dask.selection import mbr
from nlpeval.distributed.partial import Partial, bare_metric, require_corpus_metric

if TYPE_CHECKING:
    from nlpeval.dask._ids import Fingerprint

__all__ = ["binned_curve", "confusion_matrix", "mbr", "paired", "partials", "regression", "score"]


def _metric(metric: Any) -> CorpusMetric:
    """A configured metric, or the registry's metric of a ``score -m`` name at its defaults."""
    if isinstance(metric, str):
        from nlpeval.metrics import registry

        return registry.text_entry(metric).build(metric)
    return require_corpus_metric(metric)


def _named(metrics: Any) -> tuple[dict[str, CorpusMetric], bool]:
    """name -> metric, and whether a single metric was given (names are built by the registry)."""
    if isinstance(metrics, Mapping):
        return {str(k): _metric(m) for k, m in metrics.items()}, False
    if isinstance(metrics, (list, tuple)):
        named: dict[str, CorpusMetric] = {}
        for metric in metrics:
            name = metric if isinstance(metric, str) else None
            metric = _metric(metric)
            name = name or metric.name
            if name in named:
                raise ValueError(f"two metrics are named {name!r}: pass a dict name -> metric")
            named[name] = metric
        return named, False
    if isinstance(metrics, str):
        return {metrics: _metric(metrics)}, True
    metric = _metric(metrics)
    return {metric.name: metric}, True


def _columns(
    hyp: str, ref: str | Sequence[str] | None, id: str | None, by: str | None, loc: str | None, src: str | None = None
) -> Columns:
    refs = ref if ref is None or isinstance(ref, str) else tuple(ref)
    return Columns(hyp=hyp, ref=refs, id=id, by=by, loc=loc, src=src)


def _check_neural(named: dict[str, CorpusMetric]) -> None:
    """Refuse a metric whose segment scores depend on the whole corpus (BERTScore's idf): in pieces it differs."""
    from nlpeval.neural.cache import corpus_dependent
    from nlpeval.neural.worker import is_neural

    for name, metric in named.items():
        if is_neural(metric) and corpus_dependent(metric):
            raise ValueError(
                f"{name} with idf weights them over every reference at once: it cannot be scored in pieces "
                "(Dask); score it on one machine"
            )


def partials(
    data: Any,
    metrics: Any,
    *,
    hyp: str = "hyp",
    ref: str | Sequence[str] | None = "ref",
    id: str | None = None,
    by: str | None = None,
    n_resamples: int = 0,
    seed: int = 12345,
    split_every: int = 8,
    loc: str | None = None,
    check_ids: bool = False,
    src: str | None = None,
    error_spans: bool = False,
) -> Any:
    """Lazy merged partials: ``{metric name: Partial}``, or ``{group: {metric name: Partial}}`` with ``by``
    (groups in order of first appearance in the input).

    Parameters
    ----------
    data : dask.bag.Bag, dask.dataframe.DataFrame or (Bag, Bag)
        A DataFrame with named columns; a Bag of ``(hypothesis, references)`` or
        ``(id, hypothesis, references)`` tuples or of dicts with named keys; or two
        Bags (hypotheses, references) partitioned alike.
    metrics : CorpusMetric or str, list or dict of them
        The configured metric(s), or names of ``nlpeval score -m`` (``"chrf++"``, ``"rougeL"``:
        :mod:`nlpeval.metrics.registry` builds them with default options); all are computed
        from one read of the data.
    hyp, ref, id, by : str
        Column (or dict key) names. ``ref`` holds one reference or a list per row, or
        name several columns (one reference each); ``None`` for perplexity. Note that
        ``dd.from_pandas`` and ``dd.read_json`` turn a column of lists into strings unless
        dask's ``dataframe.convert-string`` option is off; Parquet list columns are kept, and
        a Bag of dicts (``db.read_text(...).map(json.loads)``) keeps lists as they are.
    n_resamples : int
        Keyed Poisson bootstrap resamples to carry (0: none). Segments are keyed by ``id``;
        without it, by their row number in the whole input (with ``by``: in their group, as
        when each group is scored on its own), which needs a first pass that counts each
        partition's rows (run when this function is called).
    seed : int
        Seed of the Poisson resampling.
    split_every : int
        Fan-in of the merge tree.
    loc : str, optional
        Key of dict elements that says where the row came from (e.g. ``"file.jsonl:12"``);
        errors about a row then name it instead of its partition and row.
    check_ids : bool
        With ``id``: also return each group's :class:`~nlpeval.dask._ids.Fingerprint` (which ids,
        with which references; repeated ids) under the key ``"ids:fingerprint"``, merged in the
        same tree, so systems can be checked to cover the same segments without collecting ids.
    src : str, optional
        Column (or dict key) of the source segments, for the metrics that read them (COMET, MetricX).
        Neural metrics (COMET, BERTScore, MetricX) load their model once per worker process and score
        every partition the worker gets with it.
    error_spans : bool
        Also return the error spans of each metric that tags them (an xCOMET checkpoint), one tuple per
        segment in the input's order, under the key ``"spans:<name>"`` (a :class:`~nlpeval.dask._spans.SpanRun`).

    Examples
    --------
    >>> import dask.bag as db, nlpeval
    >>> bag = db.from_sequence([{"hyp": "a b c", "ref": "a b c", "lang": "de"},
    ...                         {"hyp": "x y", "ref": "x z", "lang": "fr"}], npartitions=2)
    >>> out = partials(bag, nlpeval.CHRF(), by="lang").compute(scheduler="sync")
    >>> sorted(out), out["de"]["chrf"].n_segments
    (['de', 'fr'], 1)
    """
    from functools import partial as bind

    import dask
    from dask import delayed

    named, _ = _named(metrics)
    if n_resamples < 0 or n_resamples == 1:
        raise ValueError(f"n_resamples must be 0 or at least 2; got {n_resamples}")
    _check_neural(named)
    columns = _columns(hyp, ref, id, by, loc, src)
    parts = partitions(data)
    # the (cache-free, small) metrics are bound to each task's function rather than being a key of the
    # graph: each partition's task then depends on its partition alone, so the two fuse (below)
    bare = {name: bare_metric(m) for name, m in named.items()}
    task = bind(partition_partials, metrics=bare, columns=columns, n_resamples=n_resamples, seed=seed,
                check_ids=check_ids, error_spans=error_spans)  # fmt: skip
    starts = offsets(parts, columns) if (n_resamples and id is None) else None
    tasks = []
    for index, part in enumerate(parts):
        start = starts[index] if starts is not None else None
        tasks.append(delayed(task, pure=True)(part, index, start))
    merged = tree(tasks, merge_grouped, split_every)
    result = delayed(bind(_ungroup, named=bare), pure=True)(merged, by is not None)
    if _bags(data):
        # Fuse each partition's reading with its statistics into one task: the rows then live only while
        # that task runs, a worker never holds (or is sent) a partition's rows between tasks, and its
        # memory stays bounded by its threads x one partition, whatever the corpus size (BENCHMARKS.md).
        # (dask's fusion of delayed graphs does not handle DataFrame partitions: those stay separate tasks.)
        with dask.config.set({"optimization.fuse.delayed": True}):
            (result,) = dask.optimize(result)
    return result


def _bags(data: Any) -> bool:
    """Whether the input is a Bag or a pair of Bags."""
    from dask.bag import Bag

    items = data if isinstance(data, tuple) else (data,)
    return all(isinstance(item, Bag) for item in items)


def _ungroup(merged: Grouped, grouped: bool, *, named: dict[str, CorpusMetric]) -> Any:
    from nlpeval.dask._ids import IDS_KEY

    for by_name in merged.values():
        if IDS_KEY in by_name:  # the client needs the fingerprint, not every id's hash
            by_name[IDS_KEY] = cast("Fingerprint", by_name[IDS_KEY]).finish()
    if grouped:  # groups in order of first appearance (the merge tree keeps partition order), as on one machine
        return dict(merged)
    return merged.get(None) or {name: Partial.zero(m) for name, m in named.items()}


def _finish(result: Any, grouped: bool, single: bool, confidence: float) -> Any:
    from dataclasses import replace

    from nlpeval.dask._spans import split

    def scores(by_name: dict[str, Any]) -> Any:
        partials, spans = split(by_name)
        out = {name: partial.score(confidence=confidence) for name, partial in partials.items()}
        for name, run in spans.items():
            out[name] = replace(out[name], error_spans=run.spans)
        return next(iter(out.values())) if single else out

    if grouped:
        return {key: scores(value) for key, value in result.items()}
    return scores(result)


def score(
    data: Any,
    metrics: Any,
    *,
    hyp: str = "hyp",
    ref: str | Sequence[str] | None = "ref",
    id: str | None = None,
    by: str | None = None,
    n_resamples: int = 0,
    seed: int = 12345,
    confidence: float = 0.95,
    split_every: int = 8,
    src: str | None = None,
    error_spans: bool = False,
) -> Any:
    """Lazy corpus score(s): a :class:`~nlpeval.core.score.Score` for one metric, ``{name: Score}``
    for several, ``{group: ...}`` with ``by``. With ``n_resamples`` each score carries the keyed
    Poisson interval (``ci:poisson`` in its signature), identical to
    ``metric.score_from_stats(stats, n_bootstrap=n, resampling="poisson", ids=...)`` on one machine.

    The arguments are those of :func:`partials`, plus ``confidence`` (the interval's level); ``src`` names
    the sources' column for COMET and MetricX; with ``error_spans`` the score of a metric that tags error
    spans (xCOMET) carries them (:attr:`~nlpeval.core.score.Score.error_spans`, in segment order), as
    ``metric(hypotheses, references, sources=...)`` on one machine.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, nlpeval
    >>> frame = pd.DataFrame({"hyp": ["a b c d", "x y"], "ref": ["a b c d", "x z"]})
    >>> s = score(dd.from_pandas(frame, npartitions=2), nlpeval.TER()).compute(scheduler="sync")
    >>> s.score == nlpeval.ter(frame.hyp.tolist(), frame.ref.tolist()).score
    True
    """
    from dask import delayed

    _, single = _named(metrics)
    lazy = partials(
        data,
        metrics,
        hyp=hyp,
        ref=ref,
        id=id,
        by=by,
        n_resamples=n_resamples,
        seed=seed,
        split_every=split_every,
        src=src,
        error_spans=error_spans,
    )
    return delayed(_finish, pure=True)(lazy, by is not None, single, confidence)


def paired(
    data: Any,
    metric: CorpusMetric,
    *,
    baseline: str,
    system: str,
    ref: str | Sequence[str] = "ref",
    id: str | None = None,
    n_resamples: int = 1000,
    seed: int = 12345,
    split_every: int = 8,
) -> Any:
    """Lazy paired bootstrap test of column ``system`` against column ``baseline`` (keyed Poisson
    weights shared by both, so it equals :func:`nlpeval.significance.poisson.paired_poisson`).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, nlpeval
    >>> refs = ["the cat sat on the mat", "a dog barks loudly", "it rains today in town"]
    >>> frame = pd.DataFrame({"a": ["cat mat", "dog", "rain"], "b": refs, "ref": refs})
    >>> r = paired(dd.from_pandas(frame, npartitions=2), nlpeval.BLEU(), baseline="a", system="b",
    ...            n_resamples=100).compute(scheduler="sync")
    >>> r.system > r.baseline
    True
    """
    from dask import delayed

    from nlpeval.significance.poisson import paired_poisson_from_totals

    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}")
    base = partials(data, metric, hyp=baseline, ref=ref, id=id, n_resamples=n_resamples, seed=seed,
                    split_every=split_every)  # fmt: skip
    other = partials(data, metric, hyp=system, ref=ref, id=id, n_resamples=n_resamples, seed=seed,
                     split_every=split_every)  # fmt: skip

    def test(a: dict[str, Partial], b: dict[str, Partial]) -> Any:
        pa, pb = next(iter(a.values())), next(iter(b.values()))
        assert pa.boot is not None and pb.boot is not None  # drawn: n_resamples >= 2
        return paired_poisson_from_totals(metric, (pa.totals, pa.boot), (pb.totals, pb.boot), seed=seed)

    return delayed(test, pure=True)(base, other)
