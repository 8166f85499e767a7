"""compare-mt's corpus BLEU (neulab/compare-mt 0.2.10) on token lists, one reference per segment.

compare-mt counts clipped n-grams per segment against one reference, makes each denominator at least 1,
gives 0 when no unigram matches, takes ``log p = 0`` for a zero precision and ``BP = min(1, exp(1 - r/c))``.
The report's compare-mt preset (:mod:`nlpeval.reports.analyses.comparemt`) uses it on compare-mt's tokens
(``line.strip().split(" ")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats, StatsSchema


@dataclass(frozen=True)
class CompareMtBLEU(CorpusMetric):
    """compare-mt's corpus BLEU on token lists (one reference), as a metric over segment statistics.

    Examples
    --------
    >>> metric = CompareMtBLEU()
    >>> stats = metric.segment_stats([["a", "b", "c", "d"]], [["a", "b", "c", "d"]])
    >>> float(metric.corpus_values(stats.totals()))
    1.0
    """

    max_order: int = 4
    name: ClassVar[str] = "bleu"

    @property
    def schema(self) -> StatsSchema:
        orders = range(1, self.max_order + 1)
        return StatsSchema.of("ref_len", "out_len", *(f"num{n}" for n in orders), *(f"den{n}" for n in orders))

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``ref_len, out_len, num1..k, den1..k`` (each ``den`` at least 1, as compare-mt)."""
        if not len(hypotheses):
            return Stats(self.schema, np.zeros((0, 2 + 2 * self.max_order), dtype=np.int64))
        return self.stats_from_native(native_rows(hypotheses, references, self.max_order))

    def stats_from_native(self, native: np.ndarray) -> Stats:
        """The statistics of :func:`native_rows` (of this metric's ``max_order``)."""
        k = self.max_order
        rows = np.empty((len(native), 2 + 2 * k), dtype=np.int64)
        # native columns: hyp_len, ref_len_closest, ref_len_shortest, correct_1..k, total_1..k
        rows[:, 0], rows[:, 1] = native[:, 1], native[:, 0]
        rows[:, 2 : 2 + k] = native[:, 3 : 3 + k]
        rows[:, 2 + k :] = np.maximum(1, native[:, 3 + k : 3 + 2 * k])
        return Stats(self.schema, rows)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        k = self.max_order
        ref_len, out_len = totals[..., 0], totals[..., 1]
        weight = 1.0 / k
        log_precision = np.zeros(totals.shape[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            for n in range(1, k + 1):
                num, den = totals[..., 1 + n], totals[..., 1 + k + n]
                p = np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0)
                log_precision = log_precision + np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0) * weight
            bp = np.where(
                out_len != 0, np.minimum(1.0, np.exp(1.0 - ref_len / np.where(out_len != 0, out_len, 1.0))), 0.0
            )
        return np.where(totals[..., 2] == 0, 0.0, bp * np.exp(log_precision))

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"ref_len": int(totals[0]), "out_len": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        return Signature.build(nrefs=1, tok="space", order=self.max_order, flavor="compare-mt")


def native_rows(outs: Sequence[Any], refs: Sequence[Any], max_order: int = 4) -> np.ndarray:
    """The native BLEU rows (``hyp_len, ref_len, ref_len, correct_1..k, total_1..k``) of token lists
    against one reference each: the counts behind both compare-mt's BLEU and its sentence BLEU.

    Examples
    --------
    >>> native_rows([["a", "b", "c"]], [["a", "b", "d"]], 2).tolist()
    [[3, 3, 3, 2, 1, 3, 2]]
    """
    from nlpeval import _native

    hyps = [h if type(h) is list else list(h) for h in outs]
    return np.asarray(_native.bleu_stats_tokens(hyps, [[r if type(r) is list else list(r)] for r in refs], max_order))


def native_rows_ids(
    outs: tuple[np.ndarray, np.ndarray], refs: tuple[np.ndarray, np.ndarray], max_order: int = 4
) -> np.ndarray:
    """:func:`native_rows` of token ids: ``(flat ids, segment offsets)`` of the outputs and of the
    references, one reference per segment (the layout of ``ngram_codes.Corpus.sides``). Same rows as
    the token lists they encode, without handing every token to the native core as a Python string.

    Examples
    --------
    >>> import numpy as np
    >>> ids = lambda *seqs: (np.array([i for s in seqs for i in s]), np.cumsum([0, *map(len, seqs)]))
    >>> native_rows_ids(ids([1, 2, 3]), ids([1, 2, 4]), 2).tolist()
    [[3, 3, 3, 2, 1, 3, 2]]
    """
    from nlpeval import _native

    out_ids, out_offsets = outs
    ref_ids, ref_offsets = refs
    ones = np.ones(len(out_offsets) - 1, dtype=np.int64)
    lengths = [np.ascontiguousarray(np.diff(o), dtype=np.int64) for o in (out_offsets, ref_offsets)]
    return np.asarray(
        _native.bleu_stats_flat(
            np.ascontiguousarray(out_ids, dtype=np.int64),
            lengths[0],
            np.ascontiguousarray(ref_ids, dtype=np.int64),
            lengths[1],
            ones,
            max_order,
        )
    )
