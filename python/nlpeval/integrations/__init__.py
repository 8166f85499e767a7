"""Training-loop integrations: fastai, Hugging Face ``Trainer``, torchmetrics/Lightning.

Each integration lives in its own module behind an optional extra and is loaded
on first use, so ``import nlpeval`` (and even ``import nlpeval.integrations``)
imports none of torch, fastai, transformers or torchmetrics:

* :class:`~nlpeval.integrations.torchmetrics.StatsMetric` (extra ``torchmetrics``):
  a ``torchmetrics.Metric`` whose states are a metric's sufficient statistics,
  synchronised across DDP ranks by the schema's merge rules;
* :func:`~nlpeval.integrations.transformers.seq2seq_compute_metrics` and
  :func:`~nlpeval.integrations.transformers.classification_compute_metrics`
  (extra ``transformers``): ``compute_metrics`` callables for ``Seq2SeqTrainer``
  and ``Trainer``;
* :class:`~nlpeval.integrations.fastai.CorpusBLEU` (extra ``fastai``): corpus
  BLEU on token ids, accumulated per batch, reported per epoch.

Examples
--------
>>> import sys
>>> import nlpeval.integrations
>>> "torch" in sys.modules or "nlpeval.integrations.torchmetrics" not in sys.modules
True
"""

from __future__ import annotations

from nlpeval._lazy import lazy_attributes

#: public name -> module that defines it (imported on first attribute access)
_LAZY = {
    "StatsMetric": "nlpeval.integrations.torchmetrics",
    "seq2seq_compute_metrics": "nlpeval.integrations.transformers",
    "classification_compute_metrics": "nlpeval.integrations.transformers",
    "CorpusBLEU": "nlpeval.integrations.fastai",
}

__all__ = list(_LAZY)


__getattr__ = lazy_attributes(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
