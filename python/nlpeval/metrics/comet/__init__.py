"""COMET (Rei et al., 2020, 2022): a learned MT metric, from local checkpoints, without Lightning.

The ``regression_metric`` models (COMET-22 ``Unbabel/wmt22-comet-da`` and its kin), the reference-free
``unified_metric`` models (CometKiwi: ``Unbabel/wmt22-cometkiwi-da``, ``wmt23-cometkiwi-da-xl/xxl``) and
``xcomet_metric`` (``Unbabel/XCOMET-XL``/``-XXL``, with error spans) are rebuilt in plain torch around stock
transformers XLM-R / XLM-R-XL encoders and give unbabel-comet 2.2.7's scores, as do the older reference-free
``referenceless_regression_metric`` models (``wmt20-comet-qe-da``, ``wmt21-comet-qe-da``). See :func:`comet`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nlpeval.core.score import Score
from nlpeval.metrics.comet.checkpoint import SUPPORTED, CometCheckpoint
from nlpeval.metrics.comet.metric import COMET

__all__ = ["COMET", "SUPPORTED", "CometCheckpoint", "comet"]


def comet(
    hypotheses: Sequence[str],
    references: Sequence[str] | None = None,
    *,
    sources: Sequence[str] | None,
    model: str | Path,
    batch_size: int = 16,
    device: str | None = None,
    dtype: str = "float32",
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """COMET score of translations ``hypotheses`` of ``sources`` against ``references``.

    Parameters
    ----------
    hypotheses, references, sources : sequence of str
        One translation, one reference and one source per segment. A regression model (COMET-22) needs
        both; CometKiwi (``unified_metric`` with ``input_segments: [mt, src]``) and the
        ``referenceless_regression_metric`` QE models read the sources only
        (``references=None``; references given are ignored, as COMET does); xCOMET reads what it is given:
        sources and references (its three-input score), sources only, or references only (``sources=None``).
    model : str or path
        A COMET model folder (``hparams.yaml`` + ``checkpoints/model.ckpt``), its checkpoint file, or a
        hub name (``Unbabel/wmt22-comet-da``) already in the local Hugging Face cache. Its encoder
        (``pretrained_model`` in ``hparams.yaml``, e.g. ``xlm-roberta-large``) must be local too: a
        folder, a relative path from the folder holding ``hparams.yaml``, or a cached hub name. Nothing is
        downloaded; a missing file raises :class:`~nlpeval.neural.local.ModelNotFoundError`.
    batch_size : int
        Sentences per encoder batch (COMET's default 16). Not in the signature: float32 rounding only.
    device : str, optional
        Default CUDA when available. Not in the signature.
    dtype : {"float32", "bfloat16", "float16"}
        Model precision (recorded in the signature).
    segments : bool
        Attach the per-segment scores.
    n_bootstrap, seed
        Bootstrap confidence interval of the system score.

    Returns
    -------
    Score
        ``.score`` the mean of the segment scores (COMET's system score; not bounded to [0, 1]). For xCOMET,
        ``.error_spans[i]`` holds segment ``i``'s error spans (``text``, ``start``, ``end`` in characters
        of the hypothesis, ``severity`` minor/major/critical, ``confidence``), as COMET's
        ``metadata.error_spans``. The signature records the inputs a unified model scored (``inputs:src``).

    Examples
    --------
    >>> from nlpeval.neural.examples import tiny_comet
    >>> s = comet(["Die Katze sitzt.", "Hallo"], ["Die Katze saß.", "Hallo!"],
    ...           sources=["The cat sat.", "Hello!"], model=tiny_comet(), segments=True)
    >>> s.segments.shape, bool(abs(s.score - s.segments.mean()) < 1e-12)
    ((2,), True)
    """
    metric = COMET(model=model, batch_size=batch_size, device=device, dtype=dtype)
    return metric(hypotheses, references, sources=sources, segments=segments, n_bootstrap=n_bootstrap, seed=seed)
