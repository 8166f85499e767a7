"""BLEU (Papineni et al., 2002) in the flavors users know: sacreBLEU (default), NLTK, HF/Google NMT."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlpeval._lazy import lazy_attributes
from nlpeval.core.validation import check_order

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.score import Score
    from nlpeval.metrics.bleu.hf import HfBLEU, HfTokenIdBLEU
    from nlpeval.metrics.bleu.nltk import NltkBLEU, NltkTokenIdBLEU
    from nlpeval.metrics.bleu.sacrebleu import BLEU, TokenIdBLEU

#: Each flavor's classes, imported on first use (a fresh ``nlpeval score -m bleu`` needs only
#: sacreBLEU's, a compare-mt report only NLTK's).
_FLAVOR_MODULES = {
    "BLEU": "nlpeval.metrics.bleu.sacrebleu",
    "TokenIdBLEU": "nlpeval.metrics.bleu.sacrebleu",
    "HfBLEU": "nlpeval.metrics.bleu.hf",
    "HfTokenIdBLEU": "nlpeval.metrics.bleu.hf",
    "NltkBLEU": "nlpeval.metrics.bleu.nltk",
    "NltkTokenIdBLEU": "nlpeval.metrics.bleu.nltk",
}


__getattr__ = lazy_attributes(__name__, _FLAVOR_MODULES)


FLAVORS = ("sacrebleu", "nltk", "hf")

#: Tokenizers that read a SentencePiece model file (never cached with the metric object).
_SPM_TOKENIZERS = frozenset({"spm", "flores101", "flores200", "spBLEU-1K"})

#: The shared default of ``smooth``: it stands for each flavor's own default.
DEFAULT_SMOOTH = "exp"


def _refuse(flavor: str, **options: Any) -> None:
    """ValueError for options that ``flavor`` does not have (given a non-default value)."""
    for option, given in options.items():
        if given:
            raise ValueError(f"{option} is not an option of flavor={flavor!r}")


def _nltk_smooth(smooth: str) -> str:
    if smooth in (DEFAULT_SMOOTH, "none"):
        return "method0"
    if smooth in ("floor", "add-k"):
        hint = "method1 (epsilon)" if smooth == "floor" else "method2 (add one to orders >= 2)"
        raise ValueError(f"smooth={smooth!r} is a sacreBLEU method; NLTK's nearest is {hint}")
    return smooth


def _hf_smooth(smooth: str | bool, smooth_value: float | None) -> bool:
    if isinstance(smooth, bool):
        on = smooth
    elif smooth in (DEFAULT_SMOOTH, "none"):
        on = False
    elif smooth in ("add-k", "add-one"):
        on = True
    else:
        raise ValueError(f"smooth={smooth!r} is not available in flavor='hf'; it has add-one smoothing (True/'add-k')")
    if smooth_value is not None and not (on and smooth_value == 1):
        raise ValueError("flavor='hf' smoothing adds exactly one (smooth_value may only be 1 with smooth='add-k')")
    return on


def _nltk_weights(weights: Sequence[float] | None, max_order: int) -> tuple[float, ...]:
    if weights is None:
        check_order("max_order", max_order)
        return (1.0 / max_order,) * max_order
    weights = tuple(weights)
    if max_order not in (4, len(weights)):
        raise ValueError(f"max_order={max_order} disagrees with {len(weights)} weights; give one or the other")
    return weights


def make_bleu(
    *,
    flavor: str = "sacrebleu",
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth: str = DEFAULT_SMOOTH,
    smooth_value: float | None = None,
    max_order: int = 4,
    effective_order: bool = False,
    weights: Sequence[float] | None = None,
    auto_reweigh: bool = False,
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
    >>> make_bleu(flavor="nltk", weights=(0.5, 0.5), smooth="method1")
    NltkBLEU(weights=(0.5, 0.5), smooth='method1', smooth_value=None, auto_reweigh=False)
    >>> make_bleu(flavor="hf", max_order=2, smooth="add-k")
    HfBLEU(tokenize='13a', max_order=2, smooth=True)
    >>> make_bleu(flavor="hf", weights=(0.5, 0.5))
    Traceback (most recent call last):
    ...
    ValueError: weights is not an option of flavor='hf'
    """
    if flavor == "sacrebleu":
        _refuse(flavor, weights=weights is not None, auto_reweigh=auto_reweigh)
        from nlpeval.metrics.bleu.sacrebleu import BLEU, TokenIdBLEU

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
    if flavor == "nltk":
        _refuse(flavor, lowercase=lowercase, effective_order=effective_order, spm_model=spm_model)
        if tokenize not in ("13a", "none"):
            raise ValueError(f"flavor='nltk' splits strings on whitespace; tokenize={tokenize!r} is not available")
        options: dict[str, Any] = {
            "weights": _nltk_weights(weights, max_order),
            "smooth": _nltk_smooth(smooth),
            "smooth_value": smooth_value,
            "auto_reweigh": auto_reweigh,
        }
        from nlpeval.metrics.bleu.nltk import NltkBLEU, NltkTokenIdBLEU

        if token_ids:
            return NltkTokenIdBLEU(**options, pad_id=pad_id, eos_id=eos_id)
        return NltkBLEU(**options)
    if flavor == "hf":
        _refuse(
            flavor,
            lowercase=lowercase,
            effective_order=effective_order,
            weights=weights is not None,
            auto_reweigh=auto_reweigh,
            spm_model=spm_model,
        )
        on = _hf_smooth(smooth, smooth_value)
        from nlpeval.metrics.bleu.hf import HfBLEU, HfTokenIdBLEU

        if token_ids:
            return HfTokenIdBLEU(max_order=max_order, smooth=on, pad_id=pad_id, eos_id=eos_id)
        return HfBLEU(tokenize=tokenize, max_order=max_order, smooth=on)
    raise ValueError(f"unknown BLEU flavor {flavor!r}; choose one of {', '.join(FLAVORS)}")


@functools.lru_cache(maxsize=64, typed=True)
def _configured(**options: Any) -> CorpusMetric:
    """:func:`make_bleu`, kept for the last option sets (the metric objects are frozen)."""
    return make_bleu(**options)


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
    auto_reweigh: bool = False,
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
        ``ko-mecab``, ``spm``/``flores101``/``flores200``/``spBLEU-1K`` (a local model:
        ``spm_model`` or sacreBLEU's cache, ``~/.sacrebleu/models``).
        ``nltk``: strings are split on whitespace (``13a``, the default, and ``none``
        both mean that). ``hf``: ``13a`` (evaluate's Tokenizer13a) or ``none``.
    lowercase : bool
        Case-insensitive BLEU (``sacrebleu`` only).
    smooth : str
        ``sacrebleu``: ``exp``, ``floor``, ``add-k`` or ``none``. ``nltk``:
        ``method0`` … ``method7`` of NLTK's ``SmoothingFunction``. ``hf``: add-one
        smoothing on (``add-k`` or ``True``) or off (``none`` or ``False``). The
        default ``exp`` stands for each flavor's own default: sacreBLEU's ``exp``,
        NLTK's ``method0`` (no smoothing; NIST smoothing is ``method3``), HF's off.
    smooth_value : float, optional
        ``sacrebleu``: value for ``floor`` / ``add-k``. ``nltk``: epsilon of method1,
        k of method4/method7, alpha of method6 (NLTK's defaults 0.1, 5, 5).
        With ``add-k``, ``components["counts"]`` and ``["totals"]`` stay the raw n-gram
        counts; sacreBLEU's ``BLEUScore.counts``/``totals`` have k added for orders above
        one (its ``compute_bleu`` adds it in place). Scores and precisions are equal.
    max_order : int
        Largest n-gram order (``nltk``: uniform weights ``1/max_order`` unless
        ``weights`` are given).
    effective_order : bool
        Corpus score over the orders that have n-grams only (``sacrebleu`` only).
    flavor : str
        ``sacrebleu`` (default; sacreBLEU 2.x), ``nltk`` (NLTK's ``corpus_bleu``) or
        ``hf`` (Hugging Face evaluate's "bleu", Google NMT's ``compute_bleu``).
    weights : sequence of float, optional
        Per-order weights, any length (``nltk`` only).
    segments : bool
        Also return sentence-level values in ``Score.segments``: ``sacrebleu``
        as ``sacrebleu.sentence_bleu`` (effective order on), ``nltk`` as
        ``sentence_bleu`` with the same options, ``hf`` as ``compute_bleu`` of
        each segment alone.
    auto_reweigh : bool
        NLTK's ``auto_reweigh`` (``nltk`` only).
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
    >>> nltk = nlpeval.bleu(["the cat sat on the mat"], ["the cat sat on a mat"], flavor="nltk", smooth="method3")
    >>> round(nltk.score, 6), nltk.signature.split("|version")[0]
    (0.537285, 'nrefs:1|tok:split|smooth:method3|weights:0.25,0.25,0.25,0.25|flavor:nltk')
    >>> hf = nlpeval.bleu(["the cat sat on the mat"], ["the cat sat on a mat"], flavor="hf", max_order=2)
    >>> hf.to_dict()["precisions"], hf.to_dict()["brevity_penalty"]
    ([0.8333333333333334, 0.6], 1.0)
    """
    from nlpeval.core.token_ids import is_token_id_input

    options: dict[str, Any] = {
        "flavor": flavor,
        "tokenize": tokenize,
        "lowercase": lowercase,
        "smooth": smooth,
        "smooth_value": smooth_value,
        "max_order": max_order,
        "effective_order": effective_order,
        "weights": weights if weights is None else tuple(weights),
        "auto_reweigh": auto_reweigh,
        "token_ids": is_token_id_input(hypotheses),
        "pad_id": pad_id,
        "eos_id": eos_id,
        "spm_model": spm_model,
    }
    try:
        # the same options give an equal metric object: reuse it (with its resolved tokenizer and
        # cached signatures), as a training loop calls with the same options every step; an spm
        # model is a file that may change (or be found through $NLPEVAL_SPM_MODEL or sacreBLEU's
        # cache), so it is loaded afresh; weights may mix ints and floats, which a cache key would
        # not tell apart
        uncached = spm_model is not None or weights is not None or tokenize in _SPM_TOKENIZERS
        metric = make_bleu(**options) if uncached else _configured(**options)
    except TypeError as error:
        if "unhashable" not in str(error):
            raise
        metric = make_bleu(**options)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = [
    "BLEU",
    "FLAVORS",
    "HfBLEU",
    "HfTokenIdBLEU",
    "NltkBLEU",
    "NltkTokenIdBLEU",
    "TokenIdBLEU",
    "bleu",
    "make_bleu",
]
