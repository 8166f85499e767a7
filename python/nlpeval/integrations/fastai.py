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
