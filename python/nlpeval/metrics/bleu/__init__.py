"""BLEU (Papineni et al., 2002) in the flavors users know: sacreBLEU (default), NLTK, HF/Google NMT."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.metrics.bleu.extract import is_token_id_input
from nlpeval.metrics.bleu.sacrebleu import BLEU, TokenIdBLEU

FLAVORS = ("sacrebleu",)


def make_bleu(
    *,
    flavor: str = "sacrebleu",
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    effective_order: bool = False,
    weights: Sequence[float] | None = None,
    token_ids: bool = False,
    pad_id: int | None = None,
    eos_id: int | None = None,
    spm_model: str | None = None,
) -> CorpusMetric:
    """The configured BLEU metric object for ``flavor`` (see :func:`bleu` for the options).

    Examples
    --------
    >>> make_bleu(tokenize="intl").tokenize
    'intl'
    """
    if flavor == "sacrebleu":
        if weights is not None:
            raise ValueError("weights are an option of flavor='nltk'; sacreBLEU weighs orders uniformly")
        if token_ids:
            return TokenIdBLEU(
                lowercase=False,
                smooth=smooth,
                smooth_value=smooth_value,
                max_order=max_order,
                effective_order=effective_order,
                pad_id=pad_id,
                eos_id=eos_id,
            )
        return BLEU(
            tokenize=tokenize,
            lowercase=lowercase,
            smooth=smooth,
            smooth_value=smooth_value,
            max_order=max_order,
            effective_order=effective_order,
            spm_model=spm_model,
        )
    raise ValueError(f"unknown BLEU flavor {flavor!r}; choose one of {', '.join(FLAVORS)}")


def bleu(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth: str = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    effective_order: bool = False,
    flavor: str = "sacrebleu",
    weights: Sequence[float] | None = None,
    segments: bool = False,
    pad_id: int | None = None,
    eos_id: int | None = None,
    spm_model: str | None = None,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus BLEU of ``hypotheses`` against ``references``.

    Parameters
    ----------
    hypotheses : sequence of str, or of integer id sequences
        One system output per segment. Integer sequences (lists, NumPy arrays,
        tensors) are scored as token ids, with no tokenization.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the count
        may vary per segment). For token ids: an id sequence or a list of them.
    tokenize : str
        sacreBLEU tokenizer: ``13a``, ``intl``, ``zh``, ``char``, ``none``, ``ja-mecab``,
        ``ko-mecab``, ``spm``/``flores101``/``flores200`` (needs ``spm_model``).
    lowercase : bool
        Case-insensitive BLEU.
    smooth : str
        ``exp``, ``floor``, ``add-k`` or ``none``.
    smooth_value : float, optional
        Value for ``floor`` / ``add-k``.
    max_order : int
        Largest n-gram order.
    effective_order : bool
        Corpus score over the orders that have n-grams only.
    flavor : str
        ``sacrebleu`` (default).
    weights : sequence of float, optional
        Per-order weights (NLTK flavor).
    segments : bool
        Also return sentence BLEU per segment (as ``sacrebleu.sentence_bleu``:
        effective order on) in ``Score.segments``.
    pad_id, eos_id : int, optional
        Token-id input: drop ``pad_id`` and cut at the first ``eos_id``.
    spm_model : str, optional
        Local SentencePiece model for the ``spm`` tokenizers.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale; ``components`` has ``precisions``,
        ``brevity_penalty``, ``length_ratio``, ``hyp_len``, ``ref_len``.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.bleu(["the cat is running in the fields"], ["the cat is walking in the garden"])
    >>> s.components["counts"], s.components["totals"]
    ([5, 3, 1, 0], [7, 6, 5, 4])
    >>> s.signature.split("|version")[0]
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|flavor:sacrebleu'
    """
    metric = make_bleu(
        flavor=flavor,
        tokenize=tokenize,
        lowercase=lowercase,
        smooth=smooth,
        smooth_value=smooth_value,
        max_order=max_order,
        effective_order=effective_order,
        weights=weights,
        token_ids=is_token_id_input(hypotheses),
        pad_id=pad_id,
        eos_id=eos_id,
        spm_model=spm_model,
    )
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["BLEU", "FLAVORS", "TokenIdBLEU", "bleu", "make_bleu"]
