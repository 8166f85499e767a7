"""A ``torchmetrics.Metric`` (and so a PyTorch Lightning metric) for any nlpeval corpus metric.

The states are the metric's sufficient statistics, not its scores: integer
fields are totals merged by the schema's rules (``sum`` / ``min`` / ``max``), so
torchmetrics' DDP synchronisation reduces them exactly and the distributed
score equals the single-process one. Metrics with floating-point statistics
(TER, ROUGE, perplexity) keep their rows and sum them with :func:`math.fsum`,
the exactly rounded sum, so the result does not depend on how segments are
split over ranks or batches either (it may differ from a plain NumPy sum in the
last bit). Needs the optional extra ``nlpeval[torchmetrics]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import torch
from torchmetrics import Metric

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.integrations._metrics import resolve_metrics

_RULES = ("sum", "min", "max")


def _to_host(value: Any, ignore_index: int | None = None) -> Any:
    """Tensors (or lists of tensors) as NumPy arrays on the CPU, ``ignore_index`` positions dropped."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        if ignore_index is not None and value.ndim == 2:
            return [row[row != ignore_index] for row in value]
        if ignore_index is not None and value.ndim == 1 and np.issubdtype(value.dtype, np.integer):
            return value[value != ignore_index]
        return value
    if isinstance(value, (list, tuple)):
        return [_to_host(item, ignore_index) for item in value]
    return value


class StatsMetric(Metric):
    """An nlpeval metric as a ``torchmetrics.Metric`` whose states are its statistics.

    Parameters
    ----------
    metric : CorpusMetric or str
        A configured metric (``nlpeval.TokenIdBLEU(pad_id=0)``, ``nlpeval.CHRF()``…)
        or a name as in ``nlpeval score -m`` (defaults for every option).
    ignore_index : int, optional
        Token-id positions to drop from id tensors and arrays before scoring
        (``-100``, the label padding of PyTorch losses and transformers' collators).
    options : mapping, optional
        Options of a metric given by name, as the registry names them (``{"comet_model": path}``,
        ``{"bertscore_model": path, "bertscore_num_layers": 17}``); a neural metric needs its model.
    **kwargs
        Passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``dist_sync_fn``…).

    Notes
    -----
    ``update(preds, target)`` takes hypotheses (texts, or token ids as lists,
    arrays or tensors) and references (one item, or a list of items, per
    hypothesis) and, for metrics that read them (COMET, MetricX, SARI), ``sources=``;
    ``compute()`` returns the corpus score as a float64 tensor and
    keeps the full :class:`~nlpeval.Score` in :attr:`last_score`. Metrics whose
    statistics merge by ``last`` (NLTK BLEU smoothing 5-7) are refused: "last"
    has no meaning across ranks.

    Examples
    --------
    >>> import nlpeval
    >>> bleu = StatsMetric(nlpeval.TokenIdBLEU(pad_id=0))
    >>> bleu.update(torch.tensor([[5, 6, 7, 8, 0]]), [[5, 6, 7, 8]])
    >>> bleu.update([[5, 6, 9]], [[5, 6, 9, 8]])
    >>> value = bleu.compute()
    >>> value.item() == nlpeval.TokenIdBLEU()([[5, 6, 7, 8], [5, 6, 9]], [[5, 6, 7, 8], [5, 6, 9, 8]]).score
    True
    """

    full_state_update = False
    is_differentiable = False
    #: the float statistics rows: a list of batch tensors (an ``add_state`` list), one tensor once synchronised
    float_rows: list[torch.Tensor] | torch.Tensor

    def __init__(
        self,
        metric: CorpusMetric | str,
        *,
        ignore_index: int | None = None,
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.ignore_index = ignore_index
        ((_, resolved),) = resolve_metrics(metric, options).items()
        schema = resolved.schema
        if "last" in schema.merge:
            raise ValueError(f"{resolved.name}: statistics merged by 'last' cannot be synchronised across ranks")
        self.metric = resolved
        self.last_score: Score | None = None
        self._columns = {rule: [i for i, m in enumerate(schema.merge) if m == rule] for rule in _RULES}
        identity = schema.identity(np.int64)
        for rule, columns in self._columns.items():
            default = torch.tensor(identity[columns], dtype=torch.int64)
            self.add_state(f"int_{rule}", default=default, dist_reduce_fx=rule)
        self.add_state("float_rows", default=[], dist_reduce_fx="cat")

    def update(self, preds: Sequence[Any], target: Sequence[Any] | None, sources: Sequence[str] | None = None) -> None:
        """Add a batch: ``preds`` are hypotheses, ``target`` one reference item per hypothesis (``None`` for
        reference-free metrics), ``sources`` the source segments of the metrics that read them."""
        from nlpeval.neural.worker import segment_stats

        hyps = _to_host(preds, self.ignore_index)
        refs = None if target is None else _to_host(target, self.ignore_index)
        # a neural metric's model is loaded once, on the first batch; the sources go to the metrics that read
        # them (COMET, MetricX, SARI); any other metric is called as itself
        stats = segment_stats(self.metric, hyps, refs, sources)
        rows = np.asarray(stats.rows)
        if not rows.shape[0]:
            return
        if np.issubdtype(rows.dtype, np.integer):
            totals = torch.from_numpy(self.metric.schema.reduce(rows).astype(np.int64))
            for rule, columns in self._columns.items():
                state = getattr(self, f"int_{rule}")
                batch = totals[columns].to(state.device)
                merged = {"sum": state + batch, "min": torch.minimum(state, batch), "max": torch.maximum(state, batch)}
                setattr(self, f"int_{rule}", merged[rule])
        else:
            # a list while updating (torchmetrics refuses to update a synchronised metric)
            cast("list[torch.Tensor]", self.float_rows).append(
                torch.from_numpy(rows.astype(np.float64)).to(self.device)
            )

    def totals(self) -> np.ndarray:
        """The merged statistics of everything seen (on this rank, or all ranks after a sync)."""
        schema = self.metric.schema
        int_totals = schema.identity(np.int64)
        for rule, columns in self._columns.items():
            int_totals[columns] = getattr(self, f"int_{rule}").cpu().numpy()
        rows: list[torch.Tensor] | torch.Tensor | None = self.float_rows
        if isinstance(rows, list):
            rows = torch.cat(rows) if rows else None
        if rows is None or not rows.numel():
            return int_totals
        table = rows.reshape(-1, schema.width).cpu().numpy()
        float_totals = np.array(
            [
                math.fsum(table[:, i].tolist()) if rule == "sum" else float(getattr(np, rule)(table[:, i]))
                for i, rule in enumerate(schema.merge)
            ]
        )
        int_rows = [i for i, v in enumerate(int_totals) if v != schema.identity(np.int64)[i]]
        if not int_rows:
            return float_totals
        return schema.combine(float_totals, int_totals.astype(np.float64))

    def compute(self) -> torch.Tensor:
        """The corpus score (float64 tensor); the whole :class:`~nlpeval.Score` goes to :attr:`last_score`."""
        totals = self.totals()
        if totals.dtype.kind == "i" and np.array_equal(totals, self.metric.schema.identity(np.int64)):
            raise ValueError(f"{self.metric.name}: nothing to score; call update() first")
        self.last_score = self.metric.score_from_totals(totals)
        return torch.tensor(self.last_score.score, dtype=torch.float64)
