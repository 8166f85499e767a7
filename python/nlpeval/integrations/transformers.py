"""``compute_metrics`` callables for Hugging Face ``Seq2SeqTrainer`` and classification ``Trainer``.

The seq2seq factory decodes generated ids and labels with the given tokenizer
(``-100``, the label padding of ``DataCollatorForSeq2Seq`` and of the Trainer's
cross-batch gathering, becomes the pad id first) and scores the decoded text
with any nlpeval corpus metrics. The classification factory takes the argmax of
the logits and reports scikit-learn-equal label metrics from one confusion
matrix. Needs the optional extra ``nlpeval[transformers]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.integrations._metrics import resolve_metrics

#: label padding used by transformers' collators and by the Trainer when it concatenates batches
IGNORE_INDEX = -100

#: classification metrics by name: (ConfusionMatrix method, takes ``average``)
_CLASSIFICATION = {
    "accuracy": ("accuracy", False),
    "balanced_accuracy": ("balanced_accuracy", False),
    "precision": ("precision", True),
    "recall": ("recall", True),
    "f1": ("f1", True),
    "matthews": ("matthews", False),
    "kappa": ("kappa", False),
}


def _parts(eval_pred: Any) -> tuple[Any, Any]:
    """``(predictions, label_ids)`` of an ``EvalPrediction`` or a plain pair."""
    if hasattr(eval_pred, "predictions"):
        return eval_pred.predictions, eval_pred.label_ids
    predictions, labels = eval_pred
    return predictions, labels


def _first(value: Any) -> np.ndarray:
    """The first array of a model-output tuple (logits or generated ids)."""
    while isinstance(value, tuple):
        value = value[0]
    return np.asarray(value)


def decode(tokenizer: Any, ids: Any, *, skip_special_tokens: bool = True) -> list[str]:
    """Decode a batch of id rows: ``-100`` becomes the pad id, then special tokens are dropped.

    Examples
    --------
    >>> class Toy:
    ...     pad_token_id = 0
    ...     def batch_decode(self, rows, skip_special_tokens=True):
    ...         return [" ".join(str(t) for t in row if t != 0) for row in rows]
    >>> decode(Toy(), np.array([[5, 6, -100], [7, 0, -100]]))
    ['5 6', '7']
    """
    array = _first(ids)
    if array.ndim == 3:  # logits: greedy ids
        array = array.argmax(axis=-1)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    array = np.where(array == IGNORE_INDEX, pad, array).astype(np.int64)
    texts = tokenizer.batch_decode(array.tolist(), skip_special_tokens=skip_special_tokens)
    return [text.strip() for text in texts]


def seq2seq_compute_metrics(
    tokenizer: Any,
    metrics: str | CorpusMetric | Sequence[str | CorpusMetric] | Mapping[str, CorpusMetric] = "bleu",
    *,
    skip_special_tokens: bool = True,
    postprocess: Callable[[str], str] | None = None,
    options: Mapping[str, Any] | None = None,
    sources: Sequence[str] | None = None,
) -> Callable[[Any], dict[str, float]]:
    """A ``compute_metrics`` for ``Seq2SeqTrainer(..., predict_with_generate=True)``.

    Parameters
    ----------
    tokenizer : transformers tokenizer
        Decodes predictions and labels (``batch_decode``; ``pad_token_id`` replaces ``-100``).
    metrics : str, CorpusMetric, or a sequence or mapping of them
        Names as in ``nlpeval score -m`` (``bleu``, ``chrf``, ``ter``, ``rougeL``,
        ``wer``…, every option at its default) or configured metrics.
    skip_special_tokens : bool
        Passed to ``batch_decode``.
    postprocess : callable, optional
        Applied to every decoded hypothesis and reference (e.g. detokenisation).
    options : mapping, optional
        Options of the metrics given by name, as the registry names them (``{"comet_model": path}``,
        ``{"bertscore_model": path}``; a neural metric needs its model), as ``StatsMetric(options=...)``.
    sources : sequence of str, optional
        The evaluation set's source segments, in its order (the Trainer evaluates the whole set in order),
        for the metrics that read them (COMET, MetricX, SARI). Their count must equal the predictions'.

    Returns
    -------
    callable
        ``compute_metrics(eval_pred) -> {name: score}`` (the Trainer prefixes ``eval_``).
        Scores are nlpeval's: fractions (BLEU 0.25 is sacreBLEU's 25.0).

    Examples
    --------
    >>> class Toy:
    ...     pad_token_id = 0
    ...     def batch_decode(self, rows, skip_special_tokens=True):
    ...         return [" ".join("abcdefgh"[t] for t in row if t != 0) for row in rows]
    >>> compute = seq2seq_compute_metrics(Toy(), ["bleu", "chrf"])
    >>> scores = compute((np.array([[1, 2, 3, 4, 0]]), np.array([[1, 2, 3, 4, -100]])))
    >>> round(scores["bleu"], 6), scores["chrf"]
    (1.0, 1.0)
    """
    from nlpeval.integrations._metrics import corpus_score

    resolved = resolve_metrics(metrics, options)
    kept = None if sources is None else list(sources)

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        predictions, labels = _parts(eval_pred)
        hyps = decode(tokenizer, predictions, skip_special_tokens=skip_special_tokens)
        refs = decode(tokenizer, labels, skip_special_tokens=skip_special_tokens)
        if postprocess is not None:
            hyps, refs = [postprocess(h) for h in hyps], [postprocess(r) for r in refs]
        references = [[ref] for ref in refs]
        return {
            name: float(corpus_score(name, metric, hyps, references, kept).score) for name, metric in resolved.items()
        }

    return compute_metrics


def classification_compute_metrics(
    metrics: Sequence[str] = ("accuracy", "f1"),
    *,
    average: str = "macro",
    num_labels: int | None = None,
    zero_division: float | str = 0.0,
) -> Callable[[Any], dict[str, float]]:
    """A ``compute_metrics`` for a sequence-classification ``Trainer``.

    Parameters
    ----------
    metrics : sequence of str
        Any of ``accuracy``, ``balanced_accuracy``, ``precision``, ``recall``,
        ``f1``, ``matthews``, ``kappa``.
    average : str
        ``macro``, ``micro`` or ``weighted`` for precision, recall and F1.
    num_labels : int, optional
        Classes ``0..num_labels-1`` (default: the width of the logits), so a
        class never predicted still counts in the macro average.
    zero_division : float or "warn"
        Value of undefined 0/0 ratios (as scikit-learn's ``zero_division``).

    Returns
    -------
    callable
        ``compute_metrics(eval_pred) -> {name: value}``.

    Examples
    --------
    >>> compute = classification_compute_metrics(["accuracy", "f1"])
    >>> logits = np.array([[2.0, 0.1, 0.0], [0.0, 1.0, 0.2], [0.3, 0.0, 0.9], [1.0, 0.0, 0.5]])
    >>> compute((logits, np.array([0, 1, 1, 0])))
    {'accuracy': 0.75, 'f1': 0.5555555555555555}
    """
    unknown = [m for m in metrics if m not in _CLASSIFICATION]
    if unknown:
        raise ValueError(f"unknown classification metric(s) {unknown}; known: {', '.join(_CLASSIFICATION)}")
    from nlpeval.classification.matrix import ConfusionMatrix

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        predictions, labels = _parts(eval_pred)
        logits = _first(predictions)
        predicted = logits.argmax(axis=-1) if logits.ndim == 2 else logits
        gold = np.asarray(labels).reshape(-1)
        keep = gold != IGNORE_INDEX
        width = num_labels or (logits.shape[-1] if logits.ndim == 2 else int(max(gold.max(), predicted.max())) + 1)
        cm = ConfusionMatrix.from_predictions(gold[keep], predicted[keep], labels=list(range(width)))
        values: dict[str, float] = {}
        for name in metrics:
            method, averaged = _CLASSIFICATION[name]
            kwargs: dict[str, Any] = {}
            if averaged:
                kwargs = {"average": average, "zero_division": zero_division}
            elif name == "accuracy":
                kwargs = {"zero_division": zero_division}
            values[name] = float(getattr(cm, method)(**kwargs))
        return values

    return compute_metrics
