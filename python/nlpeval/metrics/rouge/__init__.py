"""ROUGE (Lin 2004): ROUGE-N, -L, -Lsum, -W, -S, -SU in the flavors users know.

* ``default`` — rouge-score's numbers on ASCII text, with a Unicode-aware tokenizer
  (letters, marks and digits of every script are kept; Han, Kana, Thai, Lao, Khmer
  and Myanmar characters are single tokens) so non-English summaries are scored.
  ROUGE-W/S/SU follow Lin (2004).
* ``rouge-score`` — Google's rouge-score 0.1.2, bit for bit (its ASCII-only tokenizer,
  NLTK's Porter stemmer, ``score_multi``'s maximum F over references).
* ``rouge155`` — the Perl ROUGE-1.5.5 with its switches, its printed numbers to the
  last digit (see :mod:`nlpeval.metrics.rouge.rouge155`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nlpeval.core.token_ids import is_token_id_input
from nlpeval.core.zero_division import ZeroDivision
from nlpeval.metrics.rouge.engine import MAX_CELLS
from nlpeval.metrics.rouge.metric import FLAVORS, Rouge
from nlpeval.metrics.rouge.result import RougeScore
from nlpeval.metrics.rouge.types import TYPE_PATTERN, RougeType

#: The types :func:`rouge` computes by default.
DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


def _alpha(alpha: float, beta: float | None) -> float:
    if beta is None:
        return alpha
    if beta < 0:
        raise ValueError(f"beta must be non-negative; got {beta}")
    return 1.0 / (1.0 + beta * beta)


def make_rouge(
    rouge_type: str,
    *,
    flavor: str | None = None,
    stemmer: bool = False,
    multi_ref: str | None = None,
    alpha: float = 0.5,
    beta: float | None = None,
    aggregate: str = "macro",
    remove_stopwords: bool = False,
    word_limit: int | None = None,
    byte_limit: int | None = None,
    data_dir: str | None = None,
    sentence_splitter: str | Callable[[str], list[str]] | None = None,
    zero_division: ZeroDivision = 0.0,
    token_ids: bool = False,
    pad_id: int | None = None,
    eos_id: int | None = None,
    segment_columns: str = "prf",
    max_cells: int | None = MAX_CELLS,
) -> Rouge:
    """The configured metric object of one ROUGE type (see :func:`rouge` for the options).

    Examples
    --------
    >>> make_rouge("rougeSU4").type.max_gap
    4
    >>> make_rouge("rouge1", flavor="rouge-score", word_limit=100)
    Traceback (most recent call last):
    ...
    ValueError: word_limit, byte_limit, remove_stopwords and data_dir are ROUGE-1.5.5 switches: use flavor='rouge155'
    """
    flavor = flavor or "default"
    alpha = _alpha(alpha, beta)
    if flavor == "rouge155":
        if token_ids:
            raise ValueError("flavor='rouge155' scores text the way the Perl reads it; token ids need another flavor")
        from nlpeval.metrics.rouge.rouge155 import Rouge155

        return Rouge155(
            rouge_type,
            flavor=flavor,
            stemmer=stemmer,
            multi_ref=multi_ref,
            alpha=alpha,
            aggregate=aggregate,
            sentence_splitter=sentence_splitter,
            remove_stopwords=remove_stopwords,
            word_limit=word_limit,
            byte_limit=byte_limit,
            data_dir=data_dir,
            segment_columns=segment_columns,
            max_cells=max_cells,
        )
    if remove_stopwords or word_limit is not None or byte_limit is not None or data_dir is not None:
        raise ValueError(
            "word_limit, byte_limit, remove_stopwords and data_dir are ROUGE-1.5.5 switches: use flavor='rouge155'"
        )
    return Rouge(
        rouge_type,
        flavor=flavor,
        stemmer=stemmer,
        multi_ref=multi_ref,
        alpha=alpha,
        aggregate=aggregate,
        sentence_splitter=sentence_splitter,
        zero_division=zero_division,
        token_ids=token_ids,
        pad_id=pad_id,
        eos_id=eos_id,
        segment_columns=segment_columns,
        max_cells=max_cells,
    )


def rouge(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    types: Sequence[str] | str = DEFAULT_TYPES,
    stemmer: bool = False,
    flavor: str | None = None,
    multi_ref: str | None = None,
    alpha: float = 0.5,
    remove_stopwords: bool = False,
    word_limit: int | None = None,
    byte_limit: int | None = None,
    data_dir: str | None = None,
    segments: bool = False,
    beta: float | None = None,
    aggregate: str = "macro",
    sentence_splitter: str | Callable[[str], list[str]] | None = None,
    zero_division: ZeroDivision = 0.0,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    pad_id: int | None = None,
    eos_id: int | None = None,
    max_cells: int | None = MAX_CELLS,
) -> dict[str, RougeScore]:
    """ROUGE scores of ``hypotheses`` against ``references``, one :class:`RougeScore` per type.

    Parameters
    ----------
    hypotheses : sequence of str, or of integer id sequences
        One summary per segment; sentences separated by newlines (for ``rougeLsum``
        and the Perl's ROUGE-L/W). Integer sequences are scored as token ids.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references.
    types : sequence of str
        ``rouge1`` … ``rouge9``, ``rougeL`` (sentence-level LCS), ``rougeLsum``
        (summary-level union LCS over sentences), ``rougeW-<w>`` (weighted LCS),
        ``rougeS<d>`` / ``rougeSU<d>`` (skip-bigrams with at most ``d`` tokens
        between, SU adding unigrams), ``rougeS*`` / ``rougeSU*`` (no limit).
    stemmer : bool
        Porter stemming of tokens longer than 3 characters (NLTK's for ``default`` and
        ``rouge-score``; ROUGE-1.5.5's with its WordNet exceptions for ``rouge155``, ``-m``).
    flavor : {None, "rouge-score", "rouge155"}
        ``None`` is the default flavor (rouge-score's numbers, Unicode-aware tokenizer).
    multi_ref : {None, "max", "average", "best"}
        How references combine: ``max`` F (rouge-score; default of the default
        flavor), ``average`` (ROUGE-1.5.5 ``-f A``, pooled counts; its default),
        ``best`` recall (``-f B``).
    alpha : float
        F = P·R / ((1 − alpha)·P + alpha·R); 0.5 is the harmonic mean (``-p``).
    remove_stopwords, word_limit, byte_limit, data_dir
        ROUGE-1.5.5's ``-s``, ``-l``, ``-b`` and ``-e`` (``flavor="rouge155"`` only;
        ``data_dir`` defaults to ``$NLPEVAL_ROUGE_DATA``).
    segments : bool
        Also return per-segment ``(n, 3)`` precision, recall, F in ``.segments``.
    beta : float, optional
        F-beta instead of ``alpha`` (``alpha = 1 / (1 + beta²)``).
    aggregate : {"macro", "micro"}
        ``macro``: the mean of per-segment values (what both reference tools
        report); ``micro``: ratios of counts summed over the corpus (labelled
        ``agg:micro`` in the signature; ROUGE-1.5.5's ``-t 1``).
    sentence_splitter : {None, "simple", "nltk"} or callable
        Splits text without newlines into sentences for ``rougeLsum`` (``nltk``
        is rouge-score's ``split_summaries=True`` and needs NLTK's punkt data).
    zero_division : {0, 1, nan, "warn", "raise"}
        Precision of an empty hypothesis / recall of an empty reference. Both
        reference tools use 0.
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval of F from this many resamples.
    seed : int or None
        Seed of the bootstrap.
    pad_id, eos_id : int, optional
        Token-id input: drop ``pad_id`` and cut at the first ``eos_id``.
    max_cells : int or None
        Bound on one pair's super-linear work, in cells: hypothesis tokens x reference
        tokens for ``rougeL``/``rougeLsum``/``rougeW`` (LCS tables; time grows with the
        product, memory stays linear), 256 per skip-bigram for ``rougeS*``/``rougeSU*``.
        A pair above it is refused with an :class:`~nlpeval.core.errors.InputError`
        naming the segment, before any work. The default, 10^9, allows about 31,600
        tokens a side (a few seconds per pair at most); ``None``: no bound.

    Returns
    -------
    dict of str to RougeScore
        ``score`` (= ``fmeasure``), ``precision``, ``recall`` per type.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.rouge(["The big cat sitting on the rug"], ["The cat sits on the mat"],
    ...                   types=["rouge2", "rougeL"])
    >>> s["rouge2"].precision == 1 / 6, s["rouge2"].recall == 1 / 5
    (True, True)
    >>> s["rougeL"].precision == 4 / 7, s["rougeL"].recall == 4 / 6
    (True, True)
    >>> nlpeval.rouge(["我爱猫"], ["我爱狗"], types="rouge1")["rouge1"].fmeasure  # Unicode-aware
    0.6666666666666666
    """
    names = [types] if isinstance(types, str) else list(types)
    if not names:
        raise ValueError("no ROUGE type given")
    token_ids = is_token_id_input(hypotheses)
    metrics = {
        name: make_rouge(
            name,
            flavor=flavor,
            stemmer=stemmer,
            multi_ref=multi_ref,
            alpha=alpha,
            beta=beta,
            aggregate=aggregate,
            remove_stopwords=remove_stopwords,
            word_limit=word_limit,
            byte_limit=byte_limit,
            data_dir=data_dir,
            sentence_splitter=sentence_splitter,
            zero_division=zero_division,
            token_ids=token_ids,
            pad_id=pad_id,
            eos_id=eos_id,
            max_cells=max_cells,
        )
        for name in names
    }
    kernels = list(dict.fromkeys(m.kernel() for m in metrics.values()))
    first = next(iter(metrics.values()))
    pairs, ref_counts = first.pair_counts(hypotheses, references, kernels)
    results: dict[str, RougeScore] = {}
    for name, metric in metrics.items():
        column = kernels.index(metric.kernel())
        results[name] = metric.score_from_pairs(
            pairs[:, column, :], ref_counts, segments=segments, n_bootstrap=n_bootstrap, seed=seed
        )
    return results


__all__ = ["DEFAULT_TYPES", "FLAVORS", "TYPE_PATTERN", "Rouge", "RougeScore", "RougeType", "make_rouge", "rouge"]
