"""The engine-neutral partial result of a corpus metric: merged statistics that merge further.

A :class:`Partial` holds the merged statistics of some segments (the metric's
``StatsSchema`` totals), their count, the configured metric (so its signature can
be computed) and the nlpeval version; optionally the keyed-Poisson resample
totals. ``merge`` applies the schema's per-field rules, so partials computed on
any partitioning — Dask tasks, separate batch jobs, other engines — merge into
exactly the statistics of the whole corpus, and ``score`` gives the same
:class:`~nlpeval.core.score.Score` as the single-machine path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from nlpeval._version import __version__
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats
from nlpeval.distributed.errors import IncompatiblePartialsError, NotDecomposableError


def require_corpus_metric(metric: Any) -> CorpusMetric:
    """``metric`` if its score decomposes into mergeable statistics, else a clear error.

    Examples
    --------
    >>> import nlpeval
    >>> require_corpus_metric(nlpeval.BLEU()).name
    'bleu'
    >>> require_corpus_metric(nlpeval.krippendorff_alpha)
    Traceback (most recent call last):
    ...
    nlpeval.distributed.errors.NotDecomposableError: krippendorff_alpha does not decompose ...
    """
    from nlpeval.distributed.decomposable import class_reason, explain

    if isinstance(metric, CorpusMetric):
        reason = class_reason(metric)
        if reason is None:
            return metric
        raise NotDecomposableError(reason)
    raise NotDecomposableError(explain(metric))


def bare_metric(metric: CorpusMetric) -> CorpusMetric:
    """A copy of ``metric`` with its dataclass fields only (no cached tokenizers or resources),
    so it pickles small; the caches are rebuilt lazily where it is used.

    Examples
    --------
    >>> import pickle, nlpeval
    >>> m = nlpeval.BLEU(); _ = m(["a b"], ["a b"])
    >>> bare_metric(m) == m, len(pickle.dumps(bare_metric(m))) < 400
    (True, True)
    """
    from dataclasses import fields, is_dataclass

    if not is_dataclass(metric):
        return metric
    copy = object.__new__(type(metric))
    for item in fields(metric):
        object.__setattr__(copy, item.name, getattr(metric, item.name))
    return copy


@dataclass(frozen=True, eq=False)
class Partial:
    """Merged statistics of a metric over some segments, mergeable with other partials.

    Parameters
    ----------
    metric : CorpusMetric
        The configured metric (a frozen dataclass: its options travel with the partial).
    totals : numpy.ndarray
        The merged statistics, shape ``(n_fields,)``.
    n_segments : int
        Number of segments merged in (0 for the identity).
    boot : numpy.ndarray or None
        Keyed-Poisson resample totals, shape ``(n_resamples, n_fields)``.
    seed : int or None
        Seed of the Poisson resampling (with ``boot``).
    version : str
        nlpeval version that computed the statistics.

    Examples
    --------
    >>> import nlpeval
    >>> m = nlpeval.BLEU()
    >>> a = Partial.of(m, ["the cat sat"], [["the cat sat"]])
    >>> b = Partial.of(m, ["a dog"], [["the dog"]])
    >>> merged = a.merge(b)
    >>> merged.n_segments, merged.score().score == m(["the cat sat", "a dog"], [["the cat sat"], ["the dog"]]).score
    (2, True)
    >>> Partial.zero(m).merge(a).totals.tolist() == a.totals.tolist()
    True
    """

    metric: CorpusMetric
    totals: np.ndarray
    n_segments: int = 0
    boot: np.ndarray | None = None
    seed: int | None = None
    version: str = __version__

    # ------------------------------------------------------------------ construction

    @classmethod
    def zero(cls, metric: CorpusMetric, *, n_resamples: int = 0, seed: int | None = None) -> Partial:
        """The identity element: the partial of no segments."""
        metric = require_corpus_metric(metric)
        totals = metric.schema.identity(np.int64)
        boot = np.broadcast_to(totals, (n_resamples, totals.shape[0])).copy() if n_resamples else None
        return cls(metric, totals, 0, boot, seed if n_resamples else None)

    @classmethod
    def from_stats(
        cls,
        metric: CorpusMetric,
        stats: Stats,
        *,
        ids: Sequence[Any] | np.ndarray | None = None,
        n_resamples: int = 0,
        seed: int = 12345,
    ) -> Partial:
        """The partial of already computed segment statistics.

        With ``n_resamples`` the keyed Poisson resample totals are kept too; ``ids``
        are then required (one per segment, unique in the whole corpus).
        """
        metric = require_corpus_metric(metric)
        if len(stats) == 0:
            return cls.zero(metric, n_resamples=n_resamples, seed=seed)
        boot = None
        if n_resamples:
            from nlpeval.significance.poisson import poisson_totals

            if ids is None:
                raise ValueError("Poisson resampling needs segment ids (unique in the whole corpus)")
            boot = poisson_totals(stats.schema, stats.rows, ids, n_resamples, seed)
        return cls(metric, stats.totals(), len(stats), boot, seed if n_resamples else None)

    @classmethod
    def of(
        cls,
        metric: CorpusMetric,
        hypotheses: Sequence[Any],
        references: Sequence[Any],
        *,
        ids: Sequence[Any] | np.ndarray | None = None,
        n_resamples: int = 0,
        seed: int = 12345,
    ) -> Partial:
        """Compute the segment statistics of a batch and merge them into a partial."""
        metric = require_corpus_metric(metric)
        stats = metric.segment_stats(hypotheses, references)
        return cls.from_stats(metric, stats, ids=ids, n_resamples=n_resamples, seed=seed)

    # ------------------------------------------------------------------ merging

    @property
    def n_resamples(self) -> int:
        """Number of Poisson resamples carried (0 without)."""
        return 0 if self.boot is None else int(self.boot.shape[0])

    def check_compatible(self, other: Partial) -> None:
        """Raise :class:`IncompatiblePartialsError` unless ``other`` can merge with this partial."""
        if not isinstance(other, Partial):
            raise IncompatiblePartialsError(f"cannot merge a Partial with {type(other).__name__}")
        if self.version != other.version:
            raise IncompatiblePartialsError(
                f"cannot merge partials of different nlpeval versions: {self.version} and {other.version}"
            )
        if type(self.metric) is not type(other.metric) or self.metric != other.metric:
            raise IncompatiblePartialsError(
                f"cannot merge partials of differently configured metrics: {_describe(self.metric, other.metric)}"
            )
        if (self.n_resamples, self.seed) != (other.n_resamples, other.seed):
            raise IncompatiblePartialsError(
                "cannot merge partials with different resampling: "
                f"{self.n_resamples} resamples (seed {self.seed}) and {other.n_resamples} (seed {other.seed})"
            )

    def merge(self, other: Partial) -> Partial:
        """The partial of both sets of segments (``other``'s segments come after this one's).

        Associative; commutative unless a field merges by ``last``. The identity is :meth:`zero`.
        """
        self.check_compatible(other)
        if other.n_segments == 0:
            return self
        if self.n_segments == 0:
            return other
        schema = self.metric.schema
        totals = schema.combine(self.totals, other.totals)
        boot = None
        if self.boot is not None and other.boot is not None:
            from nlpeval.significance.poisson import combine_blocks

            boot = combine_blocks(schema, self.boot, other.boot)
        return replace(self, totals=totals, n_segments=self.n_segments + other.n_segments, boot=boot)

    @classmethod
    def merge_all(cls, partials: Iterable[Partial]) -> Partial:
        """Merge partials in order (at least one is required)."""
        items = list(partials)
        if not items:
            raise ValueError("nothing to merge")
        result = items[0]
        for item in items[1:]:
            result = result.merge(item)
        return result

    # ------------------------------------------------------------------ scoring

    def signature(self) -> Signature:
        """The metric's signature for these statistics (``ci:poisson`` etc. when resampled)."""
        signature = self.metric.signature(self.totals)
        if self.boot is not None:
            signature = signature.with_fields(ci="poisson", bs=self.n_resamples, rs=self.seed)
        return signature

    def score(self, *, confidence: float = 0.95) -> Score:
        """The corpus :class:`Score`, with the Poisson interval when resample totals are carried."""
        if self.n_segments == 0:
            raise ValueError(f"nothing to score: the {self.metric.name} partial holds no segments")
        score = self.metric.score_from_totals(self.totals, signature=self.signature())
        if self.boot is not None:
            from nlpeval.significance.bootstrap import percentile_interval

            ci = percentile_interval(self.metric.corpus_values(self.boot), level=confidence, seed=self.seed)
            score = replace(score, ci=ci)
        return score

    # ------------------------------------------------------------------ serialisation

    def to_bytes(self) -> bytes:
        """A stable, versioned binary form (an ``.npz`` archive; no pickle)."""
        from nlpeval.distributed.serialize import partial_to_bytes

        return partial_to_bytes(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> Partial:
        """Read :meth:`to_bytes` output."""
        from nlpeval.distributed.serialize import partial_from_bytes

        return partial_from_bytes(data)

    def save(self, path: str) -> None:
        """Write the partial to ``path`` (an ``.npz`` file), atomically."""
        from nlpeval.distributed.serialize import save

        save(self, path)

    @classmethod
    def load(cls, path: str) -> Partial:
        """Read a partial written by :meth:`save`."""
        from nlpeval.distributed.serialize import load

        return load(path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Partial):
            return NotImplemented
        same_boot = (self.boot is None and other.boot is None) or (
            self.boot is not None and other.boot is not None and np.array_equal(self.boot, other.boot, equal_nan=True)
        )
        return (
            type(self.metric) is type(other.metric)
            and self.metric == other.metric
            and self.version == other.version
            and self.n_segments == other.n_segments
            and self.seed == other.seed
            and np.array_equal(self.totals, other.totals, equal_nan=True)
            and same_boot
        )

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # unhashable: equal by value over arrays (typeshed spells it so)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the metric travels without its caches (a used METEOR holds WordNet: megabytes)
        return (Partial, (bare_metric(self.metric), self.totals, self.n_segments, self.boot, self.seed, self.version))

    def __repr__(self) -> str:
        extra = f", {self.n_resamples} Poisson resamples" if self.boot is not None else ""
        return f"Partial({self.metric.name}, {self.n_segments} segments{extra})"


def _describe(left: CorpusMetric, right: CorpusMetric) -> str:
    """What differs between two metric configurations, in one line."""
    if type(left) is not type(right):
        return f"{type(left).__name__} and {type(right).__name__}"
    from dataclasses import fields, is_dataclass

    if not is_dataclass(left):
        return f"{left!r} and {right!r}"
    diffs = [
        f"{f.name}={getattr(left, f.name)!r} vs {getattr(right, f.name)!r}"
        for f in fields(left)
        if getattr(left, f.name) != getattr(right, f.name)
    ]
    return f"{type(left).__name__}: " + ", ".join(diffs)
