"""A fastai ``Metric``: corpus BLEU on token ids, accumulated per batch, reported per epoch.

The fastai translation notebook's ``CorpusBLEU``, exact (sacreBLEU's formula,
the statistics of :class:`~nlpeval.TokenIdBLEU`) and fast: each validation
batch adds its n-gram statistics to running totals (no text, no NLTK), and the
epoch's value is the corpus BLEU of those totals. Needs the optional extra
``nlpeval[fastai]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fastai.learner import Metric

from nlpeval.metrics.bleu import TokenIdBLEU


def _host(value: Any) -> np.ndarray:
    """A tensor (or the first of a tuple of them) as a NumPy array."""
    if isinstance(value, (tuple, list)):
        value = value[0]
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


class CorpusBLEU(Metric):
    """Corpus BLEU of the predicted token ids against the targets, per epoch.

    Parameters
    ----------
    pad_id : int, optional
        Padding id, removed from predictions and targets.
    eos_id : int, optional
        End-of-sequence id: each sequence is cut at its first one.
    ignore_index : int, optional
        Target positions to drop (``-100``, the loss's ignore index, by default).
    max_order, smooth :
        BLEU's n-gram order (4) and sacreBLEU smoothing (``exp``).
    name : str
        Column name in fastai's recorder.

    Notes
    -----
    Predictions are ``learn.pred``: logits ``(batch, length, vocab)`` (their
    argmax is taken) or ids ``(batch, length)``; targets are ``learn.y``. The
    value is a fraction (sacreBLEU's score / 100), ``None`` before any batch.

    Examples
    --------
    >>> import torch
    >>> from types import SimpleNamespace
    >>> metric = CorpusBLEU(pad_id=0, eos_id=2)
    >>> metric.reset()
    >>> logits = torch.nn.functional.one_hot(torch.tensor([[5, 6, 7, 8, 2, 9]]), 10).float()
    >>> metric.accumulate(SimpleNamespace(pred=logits, y=torch.tensor([[5, 6, 7, 8, 2, 0]])))
    >>> metric.value == TokenIdBLEU()([[5, 6, 7, 8]], [[5, 6, 7, 8]]).score
    True
    """

    def __init__(
        self,
        pad_id: int | None = None,
        eos_id: int | None = None,
        *,
        ignore_index: int | None = -100,
        max_order: int = 4,
        smooth: str = "exp",
        name: str = "corpus_bleu",
    ) -> None:
        self.bleu = TokenIdBLEU(pad_id=pad_id, eos_id=eos_id, max_order=max_order, smooth=smooth)
        self.ignore_index = ignore_index
        self._name = name
        self._accumulator = self.bleu.accumulator()

    def reset(self) -> None:
        """Forget the statistics of the previous epoch."""
        self._accumulator.reset()

    def _rows(self, ids: np.ndarray) -> list[np.ndarray]:
        if self.ignore_index is None:
            return list(ids)
        return [row[row != self.ignore_index] for row in ids]

    def accumulate(self, learn: Any) -> None:
        """Add the statistics of one batch (``learn.pred`` against ``learn.y``)."""
        pred = _host(learn.pred)
        if pred.ndim == 3:
            pred = pred.argmax(axis=-1)
        target = _host(learn.y)
        hyps = self._rows(pred.astype(np.int64, copy=False))
        refs = self._rows(target.astype(np.int64, copy=False))
        self._accumulator.update(hyps, refs)

    @property
    def value(self) -> float | None:
        """Corpus BLEU of the epoch so far (a fraction), or None before any batch."""
        if not self._accumulator.n_segments:
            return None
        return float(self._accumulator.compute().score)

    @property
    def name(self) -> str:
        return self._name


class TextMetric(Metric):
    """Any nlpeval metric by name (or configured) on decoded text, per epoch: COMET, BERTScore, MetricX, SARI,
    chrF... with their options and, for the metrics that read them, the validation set's sources.

    Parameters
    ----------
    metric : str or CorpusMetric
        A name as in ``nlpeval score -m`` (``"comet"``, ``"chrf"``) or a configured metric.
    decode : callable
        Turns a batch of ids (``learn.pred``'s argmax, or ``learn.y``) into a list of texts (e.g.
        ``lambda ids: tokenizer.batch_decode(ids, skip_special_tokens=True)``).
    options : mapping, optional
        Options of a metric given by name, as the registry names them (``{"comet_model": path}``); a neural
        metric needs its model.
    sources : sequence of str, optional
        The validation set's source segments in its order (fastai's validation loader does not shuffle): each
        batch takes the next ones. For the metrics that read them (COMET, MetricX, SARI).
    ignore_index : int, optional
        Target positions to drop before decoding (``-100`` by default).
    name : str, optional
        Column name in fastai's recorder (default the metric's name).

    Notes
    -----
    Each batch's segment statistics are kept (a neural metric loads its model once, on the first batch); the
    epoch's value is the corpus score of all of them, as ``nlpeval score`` of the whole validation set.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import nlpeval
    >>> words = {1: "the", 2: "cat", 3: "sat"}
    >>> metric = TextMetric("chrf", lambda ids: [" ".join(words[i] for i in row if i in words) for row in ids])
    >>> metric.reset()
    >>> metric.accumulate(SimpleNamespace(pred=np.array([[1, 2, 3]]), y=np.array([[1, 2, -100]])))
    >>> metric.value == nlpeval.chrf(["the cat sat"], [["the cat"]]).score
    True
    """

    def __init__(
        self,
        metric: Any,
        decode: Any,
        *,
        options: Any = None,
        sources: Any = None,
        ignore_index: int | None = -100,
        name: str | None = None,
    ) -> None:
        from nlpeval.integrations._metrics import resolve_metrics

        ((key, resolved),) = resolve_metrics(metric, options).items()
        self.key, self.metric, self.decode = key, resolved, decode
        self.sources = None if sources is None else list(sources)
        self.ignore_index = ignore_index
        self._name = name or key
        self._stats: list[Any] = []
        self._seen = 0

    def reset(self) -> None:
        """Forget the previous epoch (the sources start again at the first)."""
        self._stats, self._seen = [], 0

    def _texts(self, ids: np.ndarray) -> list[str]:
        rows = [row if self.ignore_index is None else row[row != self.ignore_index] for row in ids]
        return [str(text) for text in self.decode([row.tolist() for row in rows])]

    def accumulate(self, learn: Any) -> None:
        """Add one batch: ``learn.pred`` (logits or ids) decoded against ``learn.y``."""
        from nlpeval.integrations._metrics import _reference_free
        from nlpeval.neural.worker import segment_stats

        pred = _host(learn.pred)
        if pred.ndim == 3:
            pred = pred.argmax(axis=-1)
        hyps = self._texts(pred.astype(np.int64, copy=False))
        refs = None if _reference_free(self.key) else [[ref] for ref in self._texts(_host(learn.y).astype(np.int64))]
        sources = None
        if self.sources is not None:
            sources = self.sources[self._seen : self._seen + len(hyps)]
            if len(sources) != len(hyps):
                raise ValueError(
                    f"{self._name}: {len(self.sources)} sources, but the validation set has more than that "
                    f"({self._seen + len(hyps)} segments so far)"
                )
        self._stats.append(segment_stats(self.metric, hyps, refs, sources))
        self._seen += len(hyps)

    @property
    def value(self) -> float | None:
        """The epoch's corpus score (a fraction for most metrics), or None before any batch."""
        if not self._stats:
            return None
        from nlpeval.core.stats import Stats

        return float(self.metric.score_from_stats(Stats.concat(self._stats)).score)

    @property
    def name(self) -> str:
        return self._name
