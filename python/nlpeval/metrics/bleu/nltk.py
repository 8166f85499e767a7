"""BLEU as NLTK computes it: ``nltk.translate.bleu_score.corpus_bleu`` / ``sentence_bleu`` (flavor ``nltk``).

What NLTK does, and therefore what this flavor does (NLTK 3.9/3.10):

* Strings are split on whitespace (``str.split``); token lists (any hashable
  tokens, e.g. integer ids) are used as they are.
* Per segment and order ``n`` the modified precision is ``correct_n / max(1, total_n)``
  (NLTK's ``modified_precision``); the corpus precision sums those numerators and
  denominators, so a segment shorter than ``n`` adds 1 to the denominator.
* Brevity penalty from the summed hypothesis lengths and the summed *closest*
  reference lengths (ties go to the shorter reference).
* If the corpus has no unigram match at all the score is 0 (checked before smoothing).
* ``weights`` of any length give the orders; ``auto_reweigh`` replaces the default
  weights ``(0.25, 0.25, 0.25, 0.25)`` by ``(1/L,) * L`` when the corpus hypothesis
  length ``L`` is below 4.
* Orders whose (smoothed) precision is 0 are left out of the weighted log sum
  (NLTK's ``if p_i > 0``), they do not zero the score.
* ``SmoothingFunction().method0`` … ``method7`` (Chen & Cherry 2014) with NLTK's
  defaults ``epsilon=0.1`` (method1), ``k=5`` (method4, method7) and ``alpha=5``
  (method6); ``smooth_value`` overrides that parameter.

NLTK quirks reproduced on purpose (they change scores, so parity needs them):

* ``method0`` replaces a zero precision by ``sys.float_info.min``: the score is tiny
  but not 0 (NLTK also warns; nlpeval does not).
* ``method4`` and ``method7`` use the *corpus* hypothesis length in ``ln(len(T))``
  and do not smooth at all when it is 1.
* ``method5`` and ``method7`` average each order with the next one; for the highest
  order the "next one" is the order-**5** modified precision of the **last segment
  of the corpus** (whatever the number of weights).
* ``method6`` counts the n-grams of the **last hypothesis of the corpus** (not of the
  corpus) in its interpolation, and NLTK asserts a non-zero *trigram* precision:
  where NLTK raises ``AssertionError`` the corpus score raises ``ValueError`` and
  per-segment values are NaN. It needs at least three weights (NLTK raises
  ``IndexError`` otherwise; nlpeval refuses the configuration up front).
* ``method5``-``method7`` use exact fractions in NLTK and floats here: values agree
  to about 1e-15 (relative); every other method agrees to the last bit.
* ``auto_reweigh`` compares the weights by value; NLTK compares with a tuple, so it
  would not re-weigh ``weights=[0.25, 0.25, 0.25, 0.25]`` given as a *list*.

Statistics: per segment the rows hold the lengths, ``correct_n``, ``total_n`` and
``denom_n = max(1, total_n)``, which merge by sum. Because methods 5-7 look at the
last segment of the corpus, their rows also carry ``last_*`` fields (the last
segment's length and order-5 counts) that merge by the ``last`` rule: corpus
scores still come from merged statistics, but merging is order-sensitive for them.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import MAX_NGRAM_ORDER
from nlpeval.metrics.bleu import _pymath

#: NLTK's ``SmoothingFunction`` methods.
SMOOTHING_METHODS = tuple(f"method{i}" for i in range(8))

#: The parameter ``smooth_value`` sets for each method, with NLTK's default.
SMOOTH_PARAMETERS: dict[str, tuple[str, float]] = {
    "method1": ("epsilon", 0.1),
    "method4": ("k", 5.0),
    "method6": ("alpha", 5.0),
    "method7": ("k", 5.0),
}

#: NLTK's default weights (the only ones ``auto_reweigh`` replaces).
DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)

#: Order whose last-segment precision methods 5 and 7 use (hard-coded in NLTK).
_METHOD5_ORDER = 5


@functools.lru_cache(maxsize=32)
def nltk_schema(n_orders: int, *, last_order5: bool) -> StatsSchema:
    """Statistics fields of the NLTK flavor for ``n_orders`` orders."""
    orders = range(1, n_orders + 1)
    last: dict[str, Any] = {"last_hyp_len": "last"}
    if last_order5:
        last.update(last_correct_5="last", last_denom_5="last")
    return StatsSchema.of(
        "hyp_len",
        "ref_len_closest",
        "ref_len_shortest",
        *(f"correct_{n}" for n in orders),
        *(f"total_{n}" for n in orders),
        *(f"denom_{n}" for n in orders),
        nrefs_min="min",
        nrefs_max="max",
        **last,
    )


def nltk_rows(base: np.ndarray, n_orders: int, *, last_order5: bool) -> np.ndarray:
    """NLTK rows from the shared BLEU rows (``extract``'s layout, any order >= ``n_orders``)."""
    base = np.asarray(base, dtype=np.int64)
    width = (base.shape[1] - 5) // 2
    correct = base[:, 3 : 3 + width]
    total = base[:, 3 + width : 3 + 2 * width]
    columns = [
        base[:, :3],
        correct[:, :n_orders],
        total[:, :n_orders],
        np.maximum(total[:, :n_orders], 1),
        base[:, -2:],
        base[:, :1],
    ]
    if last_order5:
        k = _METHOD5_ORDER - 1
        columns += [correct[:, k : k + 1], np.maximum(total[:, k : k + 1], 1)]
    return np.hstack(columns)


def _divide(numerator: np.ndarray | float, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1.0), 0.0)


def _method4(num: np.ndarray, den: np.ndarray, p: np.ndarray, hyp_len: np.ndarray, k: float) -> np.ndarray:
    applies = (num == 0) & (hyp_len > 1)[..., None]
    step = np.cumsum(applies, axis=-1)
    log_len = _pymath.log(np.where(hyp_len > 1, hyp_len, 2.0))[..., None]
    smoothed = (1.0 / ((2.0**step * k) / log_len)) / den
    return np.where(applies, smoothed, p)


def _method5(p: np.ndarray, last_p5: np.ndarray) -> np.ndarray:
    following = np.concatenate([p[..., 1:], last_p5[..., None]], axis=-1)
    out = np.empty_like(p)
    previous = p[..., 0] + 1.0
    for i in range(p.shape[-1]):
        previous = (previous + p[..., i] + following[..., i]) / 3.0
        out[..., i] = previous
    return out


def _method6(num: np.ndarray, p: np.ndarray, last_hyp_len: np.ndarray, alpha: float) -> np.ndarray:
    out = p.copy()
    for i in range(2, p.shape[-1]):
        before, prior = out[..., i - 2], out[..., i - 1]
        pi0 = np.where(before == 0, 0.0, prior**2 / np.where(before == 0, 1.0, before))
        ngrams_last = np.maximum(last_hyp_len - i, 0)
        out[..., i] = (num[..., i] + alpha * pi0) / (ngrams_last + alpha)
    return out


def nltk_values(
    totals: np.ndarray,
    schema: StatsSchema,
    *,
    weights: tuple[float, ...],
    smooth: str,
    smooth_value: float,
    auto_reweigh: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Score, unsmoothed precisions, brevity penalty and NLTK-undefined mask of merged rows.

    Vectorised over the leading axes of ``totals``; follows ``corpus_bleu`` step
    by step (see the module docstring for the quirks).
    """
    totals = np.asarray(totals, dtype=np.float64)
    n = len(weights)
    col = schema.index
    hyp = totals[..., col("hyp_len")]
    ref = totals[..., col("ref_len_closest")]
    num = totals[..., col("correct_1") : col("correct_1") + n]
    den = totals[..., col("denom_1") : col("denom_1") + n]
    p = _divide(num, den)
    zero = num == 0

    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = ref / np.where(hyp == 0, 1.0, hyp)
    bp = np.where(hyp > ref, 1.0, np.where(hyp == 0, 0.0, _pymath.exp(1.0 - ratio)))

    if smooth == "method0":
        smoothed = np.where(zero, sys.float_info.min, p)
    elif smooth == "method1":
        smoothed = np.where(zero, _divide(0.0 + smooth_value, den), p)
    elif smooth == "method2":
        smoothed = p.copy()
        smoothed[..., 1:] = (num[..., 1:] + 1) / (den[..., 1:] + 1)
    elif smooth == "method3":
        smoothed = np.where(zero, _divide(1.0, 2.0 ** np.cumsum(zero, axis=-1) * den), p)
    elif smooth in ("method4", "method7"):
        smoothed = _method4(num, np.where(den == 0, 1.0, den), p, hyp, smooth_value)
    else:
        smoothed = p
    if smooth in ("method5", "method7"):
        last_p5 = _divide(totals[..., col("last_correct_5")], totals[..., col("last_denom_5")])
        smoothed = _method5(smoothed, last_p5)
    elif smooth == "method6":
        smoothed = _method6(num, p, totals[..., col("last_hyp_len")], smooth_value)

    weight = np.broadcast_to(np.asarray(weights, dtype=np.float64), smoothed.shape)
    used = np.ones(smoothed.shape, dtype=bool)
    if auto_reweigh and tuple(weights) == DEFAULT_WEIGHTS:
        short = ((hyp < 4) & (hyp > 0))[..., None]
        within = np.arange(n) < hyp[..., None]
        weight = np.where(short, 1.0 / np.where(short, hyp[..., None], 1.0), weight)
        used = np.where(short, within, used)
    positive = used & (smoothed > 0)
    terms = np.where(positive, weight * _pymath.log(np.where(positive, smoothed, 1.0)), 0.0)
    score = bp * _pymath.exp(_pymath.fsum(terms))
    matched = num[..., 0] != 0
    score = np.where(matched, score, 0.0)
    undefined = matched & zero[..., 2] if smooth == "method6" else np.zeros(score.shape, dtype=bool)
    return score, p, bp, undefined


def _check_weights(weights: Any) -> tuple[float, ...]:
    try:
        values = tuple(float(w) for w in weights)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be a sequence of numbers; got {weights!r}") from None
    if not values:
        raise ValueError("weights must not be empty")
    if len(values) > MAX_NGRAM_ORDER:  # one weight per n-gram order
        raise ValueError(f"weights must hold at most {MAX_NGRAM_ORDER} numbers (one per order); got {len(values)}")
    if not all(np.isfinite(values)):
        raise ValueError(f"weights must be finite; got {values!r}")
    return values


@dataclass(frozen=True)
class NltkBLEU(CorpusMetric):
    """BLEU exactly as NLTK's ``corpus_bleu`` / ``sentence_bleu`` compute it.

    Parameters
    ----------
    weights : sequence of float
        Weight of each n-gram order (the length gives the orders), NLTK's
        default ``(0.25, 0.25, 0.25, 0.25)``.
    smooth : str
        ``method0`` (no smoothing, NLTK's default) … ``method7`` of NLTK's
        ``SmoothingFunction``.
    smooth_value : float, optional
        The method's parameter: ``epsilon`` of method1 (default 0.1), ``k`` of
        method4/method7 (default 5), ``alpha`` of method6 (default 5).
    auto_reweigh : bool
        NLTK's ``auto_reweigh``: uniform weights over the orders a corpus shorter
        than 4 tokens has (only for the default weights).

    Notes
    -----
    Input: strings are split on whitespace; token lists are used as they are
    (references then as a list of token lists per segment, NLTK's layout).
    Segment values equal ``sentence_bleu`` per segment with the same options.
    See the module docstring for the NLTK quirks this flavor reproduces.

    Examples
    --------
    >>> metric = NltkBLEU(weights=(0.5, 0.5))
    >>> round(metric(["the cat sat on the mat"], ["the cat sat on a mat"]).score, 6)
    0.707107
    >>> NltkBLEU(smooth="method1")(["a b c"], ["a b d"]).signature.split("|version")[0]
    'nrefs:1|tok:split|smooth:method1[0.1]|weights:0.25,0.25,0.25,0.25|flavor:nltk'
    """

    weights: tuple[float, ...] = DEFAULT_WEIGHTS
    smooth: str = "method0"
    smooth_value: float | None = None
    auto_reweigh: bool = False

    name: ClassVar[str] = "bleu"
    flavor: ClassVar[str] = "nltk"
    _tok: ClassVar[str] = "split"

    def __post_init__(self) -> None:
        object.__setattr__(self, "weights", _check_weights(self.weights))
        if self.smooth not in SMOOTHING_METHODS:
            raise ValueError(
                f"unknown smooth {self.smooth!r} for flavor='nltk'; choose one of {', '.join(SMOOTHING_METHODS)}"
            )
        if self.smooth_value is not None and self.smooth not in SMOOTH_PARAMETERS:
            with_value = ", ".join(f"{m} ({p})" for m, (p, _) in SMOOTH_PARAMETERS.items())
            raise ValueError(f"smooth={self.smooth!r} takes no smooth_value; the methods with one are {with_value}")
        if self.smooth == "method6" and len(self.weights) < 3:
            raise ValueError("NLTK's method6 needs at least 3 n-gram orders (weights); NLTK raises IndexError")

    @property
    def _parameter(self) -> float:
        if self.smooth not in SMOOTH_PARAMETERS:
            return 0.0
        return SMOOTH_PARAMETERS[self.smooth][1] if self.smooth_value is None else float(self.smooth_value)

    @property
    def _last_order5(self) -> bool:
        return self.smooth in ("method5", "method7")

    @property
    def _extract_order(self) -> int:
        n = len(self.weights)
        return max(n, _METHOD5_ORDER) if self._last_order5 else n

    @property
    def schema(self) -> StatsSchema:
        return nltk_schema(len(self.weights), last_order5=self._last_order5)

    def _base_rows(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> np.ndarray:
        from nlpeval.metrics.bleu.extract import token_rows

        return token_rows(hypotheses, references, max_order=self._extract_order)

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        rows = nltk_rows(self._base_rows(hypotheses, references), len(self.weights), last_order5=self._last_order5)
        return Stats(self.schema, rows)

    def _values(self, totals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return nltk_values(
            totals,
            self.schema,
            weights=self.weights,
            smooth=self.smooth,
            smooth_value=self._parameter,
            auto_reweigh=self.auto_reweigh,
        )

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        score, _, _, undefined = self._values(totals)
        if np.any(undefined):
            raise ValueError(
                "NLTK's method6 is undefined here: it requires a non-zero trigram precision "
                "(NLTK raises AssertionError)"
            )
        return score

    def segment_values(self, stats: Stats) -> np.ndarray:
        """``sentence_bleu`` of each segment; NaN where NLTK's method6 raises."""
        score, _, _, undefined = self._values(stats.rows)
        return np.where(undefined, np.nan, score)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        _, precisions, bp, _ = self._values(totals)
        schema = self.schema
        n = len(self.weights)
        hyp_len = int(totals[schema.index("hyp_len")])
        ref_len = int(totals[schema.index("ref_len_closest")])
        first_correct, first_denom = schema.index("correct_1"), schema.index("denom_1")
        return {
            "precisions": [float(p) for p in precisions],
            "brevity_penalty": float(bp),
            "length_ratio": hyp_len / ref_len if ref_len else 0.0,
            "hyp_len": hyp_len,
            "ref_len": ref_len,
            "counts": [int(c) for c in totals[first_correct : first_correct + n]],
            "totals": [int(t) for t in totals[first_denom : first_denom + n]],
            "weights": list(self.weights),
        }

    def _smooth_field(self) -> str:
        if self.smooth not in SMOOTH_PARAMETERS:
            return self.smooth
        return f"{self.smooth}[{self._parameter:g}]"

    def signature(self, totals: np.ndarray) -> Signature:
        schema = self.schema
        return Signature.build(
            nrefs=nrefs_field(int(totals[schema.index("nrefs_min")]), int(totals[schema.index("nrefs_max")])),
            tok=self._tok,
            smooth=self._smooth_field(),
            weights=",".join(f"{w:g}" if float(f"{w:g}") == w else repr(w) for w in self.weights),
            reweigh=True if self.auto_reweigh else None,
            flavor=self.flavor,
        )


@dataclass(frozen=True)
class NltkTokenIdBLEU(NltkBLEU):
    """The NLTK flavor on integer token ids (NLTK scores any hashable tokens).

    Each id sequence is cut at its first ``eos_id`` and stripped of ``pad_id``.

    Examples
    --------
    >>> metric = NltkTokenIdBLEU(weights=(0.5, 0.5), pad_id=0)
    >>> metric([[1, 2, 3, 0, 0]], [[1, 2, 3]]).score
    1.0
    """

    pad_id: int | None = None
    eos_id: int | None = None

    _tok: ClassVar[str] = "ids"

    def _base_rows(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> np.ndarray:
        from nlpeval.metrics.bleu.extract import id_rows

        return id_rows(hypotheses, references, max_order=self._extract_order, pad_id=self.pad_id, eos_id=self.eos_id)


__all__ = ["DEFAULT_WEIGHTS", "SMOOTHING_METHODS", "NltkBLEU", "NltkTokenIdBLEU", "nltk_values"]
