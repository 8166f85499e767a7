"""chrF and chrF++ (Popović 2015, 2017), identical to sacreBLEU's ``CHRF``."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlpeval._lazy import lazy_attributes
from nlpeval.metrics.chrf.fields import DEFAULT_BETA

if TYPE_CHECKING:
    from nlpeval.core.score import Score
    from nlpeval.metrics.chrf.sacrebleu import CHRF

#: imported on first use: ``nlpeval.metrics.chrf.fields`` (the command line's NumPy-free path)
#: must not import NumPy through this package
__getattr__ = lazy_attributes(__name__, {"CHRF": "nlpeval.metrics.chrf.sacrebleu"})


@functools.lru_cache(maxsize=64, typed=True)
def _configured(**options: Any) -> CHRF:
    """``CHRF(**options)``, kept for the last option sets (the metric objects are frozen)."""
    from nlpeval.metrics.chrf.sacrebleu import CHRF

    return CHRF(**options)


def chrf(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = DEFAULT_BETA,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus chrF (or chrF++ with ``word_order=2``) of ``hypotheses`` against ``references``.

    Identical to sacreBLEU's ``CHRF(...).corpus_score`` (divided by 100): per
    segment the statistics of the reference with the best sentence chrF are
    kept, and the corpus score is the chrF of their sum.

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the count
        may vary per segment).
    char_order : int
        Largest character n-gram order.
    word_order : int
        Largest word n-gram order (2 for chrF++).
    beta : float
        Weight of recall relative to precision.
    lowercase : bool
        Case-insensitive chrF (``str.lower`` on both sides).
    whitespace : bool
        Keep whitespace in character n-grams.
    eps_smoothing : bool
        chrF++.py/Moses/NLTK epsilon smoothing instead of sacreBLEU's effective order.
    segments : bool
        Also return sentence chrF per segment (``sacrebleu.sentence_chrf`` / 100)
        in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale; ``components`` has ``precision`` and ``recall``
        (averaged over the effective orders), per-order ``char_precisions``,
        ``char_recalls``, ``word_precisions``, ``word_recalls``, and the options.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.chrf(["the cat sat on the mat"], ["the cat sat on a mat"])
    >>> round(s.score, 4)
    0.7208
    >>> s.signature.split("|version")[0]
    'nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|flavor:sacrebleu'
    >>> round(nlpeval.chrf(["the cat sat on the mat"], ["the cat sat on a mat"], word_order=2).score, 4)
    0.7203
    """
    options = {
        "char_order": char_order,
        "word_order": word_order,
        "beta": beta,
        "lowercase": lowercase,
        "whitespace": whitespace,
        "eps_smoothing": eps_smoothing,
    }
    try:
        # the same options give an equal metric object: reuse it (and its cached signatures), as a
        # training loop calls with the same options every step
        metric = _configured(**options)
    except TypeError as error:
        if "unhashable" not in str(error):
            raise
        metric = _configured.__wrapped__(**options)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["CHRF", "chrf"]
