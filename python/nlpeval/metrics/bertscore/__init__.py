"""BERTScore (Zhang et al., 2020): greedy cosine matching of contextual token embeddings.

``flavor="bert_score"`` equals bert-score 0.3.13 under transformers 4.57 (its pinned stack) on today's
transformers, from local weights only; ``flavor="torchmetrics"`` torchmetrics 1.9's ``bert_score`` defaults.
See :func:`bertscore`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlpeval.core.score import Score
from nlpeval.metrics.bertscore.metric import FLAVORS, MODEL_LAYERS, BERTScore, read_baseline
from nlpeval.metrics.bertscore.tokenize import TruncationWarning

__all__ = ["FLAVORS", "MODEL_LAYERS", "BERTScore", "TruncationWarning", "bertscore", "read_baseline"]


def bertscore(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    model: str | Path,
    num_layers: int | None = None,
    idf: bool = False,
    rescale_with_baseline: bool = False,
    baseline_path: str | Path | None = None,
    flavor: str = "bert_score",
    batch_size: int = 64,
    device: str | None = None,
    dtype: str = "float32",
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """BERTScore of ``hypotheses`` against ``references``, as bert-score 0.3.13 computes it.

    Each token of the hypothesis is matched to its most similar reference token (cosine of the
    layer-``num_layers`` embeddings) and vice versa; precision and recall are the (idf-)weighted
    means of those maxima, F their harmonic mean. With several references, precision, recall and F
    each take their own maximum over the references (so they may come from different references).

    Parameters
    ----------
    hypotheses : sequence of str
    references : sequence of (str or sequence of str)
        One reference or a list of references per hypothesis.
    model : str or path
        A local model folder, or a hub name (``"roberta-large"``) found in the local Hugging Face cache
        (``$HF_HOME/hub``). Never downloaded: a missing model raises
        :class:`~nlpeval.neural.local.ModelNotFoundError` saying where nlpeval looked.
    num_layers : int, optional
        Use the output of this layer (0 = the embeddings). Default: bert-score's tuned layer for a
        known model name (``roberta-large``: 17, see ``MODEL_LAYERS``); required otherwise.
    idf : bool
        Weight tokens by their inverse document frequency over the references
        (``log((M + 1) / (df + 1))``); otherwise every token weighs 1 and ``[CLS]``/``[SEP]`` 0.
    rescale_with_baseline : bool
        Rescale P, R and F as ``(x - b) / (1 - b)`` with the baseline row of the layer used.
    baseline_path : str or path, optional
        The baseline file (bert-score's ``LAYER,P,R,F`` CSV layout); required for rescaling.
    flavor : {"bert_score", "torchmetrics"}
        The reference implementation reproduced (recorded in the signature). ``"torchmetrics"``:
        torchmetrics 1.9's ``bert_score`` defaults: the last layer unless ``num_layers``, the tokenizer on
        the raw text, the special tokens' embeddings and weights zeroed (so each token's maximum includes
        0), the baseline file's last row without ``num_layers``; an empty hypothesis (reference) has NaN
        precision (recall) and F 0, as torchmetrics. torchmetrics itself pairs sentences wrongly when its
        length sort is not its own inverse; nlpeval scores the pairs given.
    batch_size : int
        Sentences per model batch and pairs per matching batch. bert-score's numbers depend on it
        beyond float rounding in one case: a padded position enters the maximum as 0 (see
        :mod:`nlpeval.metrics.bertscore.greedy`); nlpeval reproduces that at the same batch size.
    device : str, optional
        ``"cpu"``, ``"cuda"``…; default CUDA when available. Not in the signature.
    dtype : {"float32", "bfloat16", "float16"}
        Model precision (recorded in the signature).
    segments : bool
        Attach the per-segment ``(n, 3)`` array of precision, recall, F.
    n_bootstrap : int
        Bootstrap resamples for a confidence interval of the mean F (0: none).
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``.score`` the mean F; components ``precision``, ``recall``, ``f1`` (means) and
        ``n_segments``; the signature records the model, its weights' sha256, the layer, idf,
        the baseline, dtype, flavor and the transformers and nlpeval versions.

    Examples
    --------
    >>> from nlpeval.neural.examples import tiny_bert
    >>> s = bertscore(["the cat sat on the mat"], [["a cat sat on the mat", "the cat sat"]],
    ...               model=tiny_bert(), num_layers=2, segments=True)
    >>> s.segments.shape, bool(s.score == s.components["f1"] == s.segments[0, 2])
    ((1, 3), True)
    >>> str(s.signature).split("|")[:2]
    ['nrefs:2', 'model:tiny-bert']
    """
    metric = BERTScore(
        model=model,
        num_layers=num_layers,
        idf=idf,
        rescale_with_baseline=rescale_with_baseline,
        baseline_path=baseline_path,
        flavor=flavor,
        batch_size=batch_size,
        device=device,
        dtype=dtype,
    )
    return metric.score_from_stats(
        metric.segment_stats(hypotheses, references), segments=segments, n_bootstrap=n_bootstrap, seed=seed
    )
