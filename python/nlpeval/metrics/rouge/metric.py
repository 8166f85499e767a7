"""The ROUGE metric object: one ROUGE type in one flavor, following stats -> merge -> score.

Each segment's statistics row holds its precision, recall and F (so that the
macro average both reference tools report is a sum over rows divided by the
count) plus its hits and (weighted) counts (for ``aggregate="micro"``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.zero_division import ZeroDivision, check_zero_division
from nlpeval.metrics.rouge.engine import MAX_CELLS, id_pairs, text_pairs
from nlpeval.metrics.rouge.formulas import MULTI_REF, combine_references, micro_values, reference_columns
from nlpeval.metrics.rouge.result import RougeScore
from nlpeval.metrics.rouge.splitters import resolve_splitter
from nlpeval.metrics.rouge.types import RougeType

#: Flavors: ``default`` (rouge-score's numbers, Unicode-aware tokens), ``rouge-score``, ``rouge155``.
FLAVORS = ("default", "rouge-score", "rouge155")

#: The tokenizer of each text flavor (recorded in the signature).
TOKENIZERS = {"default": "unicode", "rouge-score": "rouge-score", "rouge155": "rouge155"}

AGGREGATES = ("macro", "micro")

SCHEMA = StatsSchema.of(
    "precision", "recall", "fmeasure", "hits", "hyp_count", "ref_count", "segments", nrefs_min="min", nrefs_max="max"
)

#: Column of the per-segment count, and of the micro-average inputs.
_N = SCHEMA.index("segments")


@dataclass(frozen=True)
class Rouge(CorpusMetric):
    """One ROUGE type (e.g. ``rouge2``, ``rougeLsum``, ``rougeW-1.2``) in the ``default`` or
    ``rouge-score`` flavor. See :func:`nlpeval.rouge` for the options.

    Examples
    --------
    >>> metric = Rouge("rougeL")
    >>> s = metric(["The big cat sitting on the rug"], ["The cat sits on the mat"])
    >>> s.precision == 4 / 7, s.recall == 4 / 6
    (True, True)
    >>> acc = metric.accumulator()
    >>> acc.update(["a b c"], ["a b c"]).update(["a b"], ["c d"]).compute().fmeasure
    0.5
    """

    rouge_type: str = "rougeL"
    flavor: str = "default"
    stemmer: bool = False
    multi_ref: str | None = None
    alpha: float = 0.5
    aggregate: str = "macro"
    sentence_splitter: str | Callable[[str], list[str]] | None = None
    zero_division: ZeroDivision = 0.0
    token_ids: bool = False
    pad_id: int | None = None
    eos_id: int | None = None
    segment_columns: str = "prf"
    max_cells: int | None = MAX_CELLS

    def __post_init__(self) -> None:
        if self.flavor not in FLAVORS:
            raise ValueError(f"unknown ROUGE flavor {self.flavor!r}; choose one of {', '.join(FLAVORS)}")
        rtype = self.type  # validates the name
        if self.flavor == "rouge-score" and rtype.family not in ("n", "l", "lsum"):
            raise ValueError(
                f"rouge-score has no {rtype.name}; use flavor=None (the default flavor) or 'rouge155' for ROUGE-W/S/SU"
            )
        if self.multi_ref is not None and self.multi_ref not in MULTI_REF:
            raise ValueError(f"unknown multi_ref {self.multi_ref!r}; choose one of {', '.join(MULTI_REF)}")
        if self.flavor == "rouge-score" and self.multi_ref not in (None, "max"):
            raise ValueError("rouge-score combines references by the maximum F only (multi_ref='max')")
        if not isinstance(self.alpha, (int, float)) or not 0.0 <= float(self.alpha) <= 1.0:
            raise ValueError(f"alpha must be between 0 and 1; got {self.alpha!r}")
        if self.segment_columns not in ("prf", "f"):
            raise ValueError(f"segment_columns must be 'prf' or 'f'; got {self.segment_columns!r}")
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be 'macro' or 'micro'; got {self.aggregate!r}")
        check_zero_division(self.zero_division)
        resolve_splitter(self.sentence_splitter)
        if self.max_cells is not None and (
            isinstance(self.max_cells, bool) or not isinstance(self.max_cells, int) or self.max_cells < 0
        ):
            raise ValueError(f"max_cells must be a non-negative int or None; got {self.max_cells!r}")

    @property
    def name(self) -> str:
        """The ROUGE type, e.g. ``"rouge2"``."""
        return self.rouge_type

    @cached_property
    def type(self) -> RougeType:
        """The parsed ROUGE type."""
        return RougeType.parse(self.rouge_type)

    @property
    def combine(self) -> str:
        """The multi-reference rule in force."""
        return self.multi_ref or "max"

    @property
    def schema(self) -> StatsSchema:
        return SCHEMA

    def kernel(self) -> tuple[str, float]:
        """The native kernel computing this type's counts."""
        return self.type.kernel(perl=False)

    # -- statistics ---------------------------------------------------------------------

    def pair_counts(
        self, hypotheses: Sequence[Any], references: Sequence[Any], kernels: list[tuple[str, float]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Counts of every pair for several kernels (shared by :func:`nlpeval.rouge`)."""
        if self.token_ids:
            return id_pairs(
                hypotheses, references, kernels, pad_id=self.pad_id, eos_id=self.eos_id, max_cells=self.max_cells
            )
        return text_pairs(
            hypotheses,
            references,
            kernels,
            tokenizer=TOKENIZERS[self.flavor],
            stemmer=self.stemmer,
            splitter=resolve_splitter(self.sentence_splitter),
            max_cells=self.max_cells,
        )

    def rows_from_pairs(self, pairs: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
        """Statistics rows from this type's ``(n_pairs, 3)`` counts."""
        n = ref_counts.shape[0]
        if n == 0:
            return np.empty((0, SCHEMA.width))
        rows = combine_references(
            pairs,
            ref_counts,
            self.type,
            multi_ref=self.combine,
            alpha=self.alpha,
            zero_division=self.zero_division,
            extra=SCHEMA.width - 6,
        )
        rows[:, _N] = 1.0
        rows[:, _N + 1] = ref_counts
        rows[:, _N + 2] = ref_counts
        return rows

    def score_from_pairs(
        self,
        pairs: np.ndarray,
        ref_counts: np.ndarray,
        *,
        segments: bool = False,
        n_bootstrap: int = 0,
        seed: int | None = 12345,
    ) -> RougeScore:
        """The score of this type's ``(n_pairs, 3)`` counts: ``score_from_stats`` of
        :meth:`rows_from_pairs`, to the last bit. Without a bootstrap the totals are summed from
        the columns directly instead of building and reducing the statistics rows (at 20,000
        short segments that was a third of the time outside the native call)."""
        n = ref_counts.shape[0]
        if n_bootstrap or n == 0:
            return self._score_via_stats(pairs, ref_counts, segments=segments, n_bootstrap=n_bootstrap, seed=seed)
        columns = reference_columns(
            pairs, ref_counts, self.type, multi_ref=self.combine, alpha=self.alpha, zero_division=self.zero_division
        )
        # each column summed as Stats.totals sums it: one contiguous float64 column, numpy's pairwise sum
        totals = np.array(
            [col.sum() for col in columns] + [float(n), ref_counts.min(), ref_counts.max()], dtype=np.float64
        )
        score = self.score_from_totals(totals)
        if not segments:
            return score
        values = columns[2] if self.segment_columns == "f" else np.stack(columns[:3], axis=1)
        return RougeScore(score.name, score.score, score.signature, score.components, values)

    def _score_via_stats(
        self, pairs: np.ndarray, ref_counts: np.ndarray, *, segments: bool, n_bootstrap: int, seed: int | None
    ) -> RougeScore:
        """:meth:`score_from_stats` of the statistics rows of ``pairs`` (the general path)."""
        stats = Stats(SCHEMA, self.rows_from_pairs(pairs, ref_counts))
        score = self.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)
        return cast(RougeScore, score)  # score_from_totals makes a RougeScore; replace() keeps the class

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        pairs, ref_counts = self.pair_counts(hypotheses, references, [self.kernel()])
        return Stats(SCHEMA, self.rows_from_pairs(pairs[:, 0, :], ref_counts))

    # -- scores ---------------------------------------------------------------------------

    def _values(self, totals: np.ndarray) -> np.ndarray:
        """``[precision, recall, fmeasure]`` of totals, vectorised over leading axes."""
        totals = np.asarray(totals, dtype=np.float64)
        if self.aggregate == "micro":
            return micro_values(totals, self.type, self.alpha)
        count = totals[..., _N : _N + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, totals[..., 0:3] / count, 0.0)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._values(totals)[..., 2]

    def segment_values(self, stats: Stats) -> np.ndarray:
        """Per-segment ``[precision, recall, fmeasure]``: an ``(n, 3)`` array (with
        ``segment_columns="f"``, as the CLI uses, the F column only)."""
        if self.segment_columns == "f":
            return np.asarray(stats.rows[:, 2], dtype=np.float64)
        return np.asarray(stats.rows[:, 0:3], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        precision, recall, f = (float(v) for v in self._values(totals))
        return {
            "precision": precision,
            "recall": recall,
            "fmeasure": f,
            "aggregate": self.aggregate,
            "n_segments": int(totals[_N]),
            "hits": float(totals[SCHEMA.index("hits")]),
            "hyp_count": float(totals[SCHEMA.index("hyp_count")]),
            "ref_count": float(totals[SCHEMA.index("ref_count")]),
        }

    def signature_fields(self) -> dict[str, Any]:
        """Flavor-specific signature fields (tokenizer, stemmer, …)."""
        return {"tok": "ids" if self.token_ids else TOKENIZERS[self.flavor], "stem": self.stemmer}

    def signature(self, totals: np.ndarray) -> Signature:
        nrefs = nrefs_field(int(totals[SCHEMA.index("nrefs_min")]), int(totals[SCHEMA.index("nrefs_max")]))
        splitter = self.sentence_splitter
        if self.type.family != "lsum" and self.flavor != "rouge155":
            splitter = None
        return Signature.build(
            type=self.rouge_type,
            nrefs=nrefs if int(totals[_N]) else "0",
            **self.signature_fields(),
            split=None if splitter is None else (splitter if isinstance(splitter, str) else "custom"),
            multi=self.combine,
            alpha=self.alpha,
            agg=self.aggregate,
            flavor=self.flavor,
        )

    def score_from_totals(self, totals: np.ndarray, *, signature: Signature | None = None) -> RougeScore:
        totals = np.asarray(totals)
        return RougeScore(
            name=self.name,
            score=float(self.corpus_values(totals)),
            signature=str(signature if signature is not None else self.signature(totals)),
            components=self.components(totals),
        )
