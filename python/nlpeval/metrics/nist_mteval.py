"""NIST exactly as NIST's own script computes it: ``mteval-v13a.pl`` (``-n``, its default tokenization).

How mteval-v13a differs from NLTK's ``corpus_nist`` (:mod:`nlpeval.metrics.nltk_lexical.nist`):

* **Tokenization**: its ``tokenization`` (the normalisation of version 11b): whitespace runs made one space
  (the SGML reader), ``<skipped>`` removed, ``&quot; &amp; &lt; &gt;`` unescaped, ASCII lowercased (unless
  ``preserve_case``, its ``-c``), ASCII punctuation and symbols split off, ``.`` and ``,`` split off unless
  between digits, ``-`` split off after a digit.
* **Information weights** ``-log(count(w1..wn) / count(w1..wn-1)) / log 2`` over every reference of the
  corpus (unigrams: over the total reference words) -- NLTK's weights, except that a prefix that is the
  word ``0`` is false in Perl, so such n-grams take the unigram formula.
* **Matching**: each hypothesis n-gram is clipped to its largest count in any one reference (as BLEU),
  not matched against one best reference.
* **Length penalty**: ``exp(-beta * log(r)^2)`` for ``r`` = hypothesis words / (reference words /
  number of references) below 1, ``beta = -log(0.5) / log(1.5) / log(1.5)``; no penalty at ``r >= 1``.

Rows are per segment (the matched information and n-gram counts per order, the reference words), so the
corpus score sums rows with the corpus's weights; segment values are mteval's segment-level scores
(``-d 2`` / ``--metricsMATR``: each segment's own counts with the corpus's weights). The weights need the
whole corpus, so scoring takes two passes, as for NLTK's NIST.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import as_segment_list, check_lengths, check_unicode, validate_text
from nlpeval.metrics.bleu import _pymath
from nlpeval.metrics.ngram_table import ngram_table

if TYPE_CHECKING:
    from nlpeval.core.score import Score
    from nlpeval.metrics.two_pass import CorpusPassAccumulator

#: Perl's ``\s`` on character strings (Unicode White_Space; Python's ``\s`` also has U+001C..U+001F)
_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_SPACES = re.compile(f"[{_SPACE}]+")
_EDGES = re.compile(f"^[{_SPACE}]+|[{_SPACE}]+$")
_PUNCT = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_POINT_AFTER = re.compile(r"([^0-9])([\.,])")
_POINT_BEFORE = re.compile(r"([\.,])([^0-9])")
_DASH = re.compile(r"([0-9])(-)")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: the largest order mteval-v13a counts (its ``$max_Ngram``)
MAX_ORDER = 9


def mteval_tokenize(
    text: str, *, preserve_case: bool = False, international: bool = False, split_non_ascii: bool = False
) -> str:
    """mteval-v13a's normalisation of one segment (its ``tokenization``, after its SGML reader).

    Parameters
    ----------
    text : str
        The segment's text, as between ``<seg>`` and ``</seg>`` of mteval's SGML input.
    preserve_case : bool
        Keep upper case (mteval's ``-c``).
    international : bool
        Its ``tokenization_international`` (``--international-tokenization``): Unicode lowercasing,
        punctuation (category P) split off unless between digits, symbols (category S) split off.
    split_non_ascii : bool
        With ``international``: every non-ASCII character a word of its own (mteval's ``-e``).

    Examples
    --------
    >>> mteval_tokenize("It's 3,000.50 dollars &amp; (more)-- e.g. 1990-95!")
    "it's 3,000.50 dollars & ( more ) -- e . g . 1990 - 95 !"
    >>> mteval_tokenize("Ça coûte 3,50 € (env.)", international=True)
    'ça coûte 3,50 € ( env . )'
    """
    text = _SPACES.sub(" ", text)  # the SGML reader's s/[\s\n\r]+/ /g
    if international:
        return _international(text, preserve_case, split_non_ascii)
    if split_non_ascii:
        raise ValueError("split_non_ascii (mteval's -e) applies to its international tokenization only")
    text = text.replace("<skipped>", "")
    for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")):
        text = text.replace(entity, char)
    text = f" {text} "
    if not preserve_case:
        text = text.translate(_LOWER)
    text = _PUNCT.sub(r" \1 ", text)
    text = _POINT_AFTER.sub(r"\1 \2 ", text)
    text = _POINT_BEFORE.sub(r" \1 \2", text)
    text = _DASH.sub(r"\1 \2 ", text)
    text = _SPACES.sub(" ", text)
    return _EDGES.sub("", text)


def _international(text: str, preserve_case: bool, split_non_ascii: bool) -> str:
    """mteval-v13a's ``tokenization_international`` (Perl's Unicode properties, through ``regex``)."""
    try:
        import regex
    except ImportError:  # pragma: no cover - regex is in the mteval extra (and the test extra)
        raise ImportError("mteval's international tokenization needs regex: pip install 'nlpeval[mteval]'") from None

    text = text.replace("<skipped>", "")
    text = regex.sub(r"\p{Line_Break=Hyphen}\p{Zl}", "", text)
    text = regex.sub(r"\p{Zl}", " ", text)
    for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'")):
        text = text.replace(entity, char)
    if not preserve_case:
        text = text.lower()
    if split_non_ascii:
        text = regex.sub(r"([^[:ascii:]])", r" \1 ", text)
    text = regex.sub(r"(\P{N})(\p{P})", r"\1 \2 ", text)
    text = regex.sub(r"(\p{P})(\P{N})", r" \1 \2", text)
    text = regex.sub(r"(\p{S})", r" \1 ", text)
    text = regex.sub(r"\p{Z}+", " ", text)
    return regex.sub(r"^\p{Z}+|\p{Z}+$", "", text)


def _words(text: str) -> list[str]:
    """Perl's ``split /\\s+/`` of a normalised segment (no leading or trailing space is left)."""
    return text.split(" ") if text else []


def mteval_schema(n: int) -> StatsSchema:
    """Row fields: per order the matched information and the hypothesis n-grams, then reference words."""
    orders = range(1, n + 1)
    return StatsSchema.of(
        *(f"info_{i}" for i in orders),
        *(f"hyp_ngrams_{i}" for i in orders),
        "ref_words",
        nrefs_min="min",
        nrefs_max="max",
    )


def _weights(table: Any, n_refs: int, zero_gram: int) -> np.ndarray:
    """mteval's ``%ngram_info`` of every entry's n-gram (counted over the reference entries)."""
    is_ref = table.sequence < n_refs
    freq = np.bincount(table.gram[is_ref], weights=table.count[is_ref], minlength=max(table.n_grams, 1))
    total_words = float(table.lengths[:n_refs].sum())
    # Perl: `$mgram ? count/count(mgram) : count/tot_wrds`: the prefix "0" is false
    unigram_rule = (table.prefix < 0) | (table.prefix == zero_gram)
    denominator = np.where(unigram_rule, total_words, freq[np.maximum(table.prefix, 0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = freq[table.gram] / denominator
    out = np.zeros(table.gram.shape[0])
    out[is_ref] = -_pymath.log(ratio[is_ref]) / math.log(2)
    return out


def mteval_rows(hyp_words: Sequence[Sequence[str]], ref_words: Sequence[Sequence[Sequence[str]]], n: int) -> np.ndarray:
    """Rows of :func:`mteval_schema` (both passes: the corpus's weights, then each segment)."""
    n_seg = len(hyp_words)
    counts = np.fromiter(map(len, ref_words), dtype=np.int64, count=n_seg)
    n_refs = int(counts.sum())
    flat = [ref for refs in ref_words for ref in refs]
    table = ngram_table([*flat, *hyp_words, ["0"]], max_order=n)
    zero_gram = int(table.gram[table.sequence == n_refs + n_seg][0])
    weight = _weights(table, n_refs, zero_gram)
    segment_of_ref = np.repeat(np.arange(n_seg, dtype=np.int64), counts)
    is_ref = table.sequence < n_refs
    is_hyp = ~is_ref & (table.sequence < n_refs + n_seg)
    width = max(table.n_grams, 1)
    # the largest count of each (segment, n-gram) in any one reference, with its weight
    ref_entry = np.flatnonzero(is_ref)
    ref_key = segment_of_ref[table.sequence[ref_entry]] * width + table.gram[ref_entry]
    keys, inverse = np.unique(ref_key, return_inverse=True)
    most = np.zeros(keys.shape[0], dtype=np.int64)
    np.maximum.at(most, inverse, table.count[ref_entry])
    key_weight = np.zeros(keys.shape[0])
    key_weight[inverse] = weight[ref_entry]
    hyp_entry = np.flatnonzero(is_hyp)
    hyp_segment = table.sequence[hyp_entry] - n_refs
    hyp_key = hyp_segment * width + table.gram[hyp_entry]
    at = np.minimum(np.searchsorted(keys, hyp_key), max(keys.shape[0] - 1, 0))
    found = keys[at] == hyp_key if keys.shape[0] else np.zeros(hyp_key.shape[0], dtype=bool)
    matched = np.where(found, np.minimum(table.count[hyp_entry], most[at] if keys.shape[0] else 0), 0)
    info = np.where(found, key_weight[at] if keys.shape[0] else 0.0, 0.0) * matched
    slot = hyp_segment * n + table.order[hyp_entry] - 1
    schema = mteval_schema(n)
    rows = np.empty((n_seg, schema.width), dtype=np.float64)
    rows[:, :n] = np.bincount(slot, weights=info, minlength=n_seg * n).reshape(n_seg, n)
    rows[:, n : 2 * n] = table.ngram_counts()[n_refs : n_refs + n_seg]
    rows[:, 2 * n] = np.bincount(segment_of_ref, weights=table.lengths[:n_refs], minlength=n_seg)
    rows[:, -2] = counts
    rows[:, -1] = counts
    return rows


def length_penalty(ratio: np.ndarray) -> np.ndarray:
    """mteval's ``nist_length_penalty``: 1 at ``ratio >= 1``, 0 at ``ratio <= 0``, else ``exp(-beta log(r)^2)``."""
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    inside = (ratio > 0) & (ratio < 1)
    logs = _pymath.log(np.where(inside, ratio, 1.0))
    return np.where(inside, _pymath.exp(-beta * logs * logs), np.where(ratio >= 1, 1.0, 0.0))


def _texts(hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
    hyps = as_segment_list(hypotheses, "hypotheses")
    refs = as_segment_list(references, "references")
    check_lengths(len(hyps), refs)
    text_hyps, text_refs = validate_text(hyps, refs)
    check_unicode(text_hyps, text_refs)
    counts = {len(seg) for seg in text_refs}
    if len(counts) > 1:
        first = len(text_refs[0])
        at = next(i for i, seg in enumerate(text_refs) if len(seg) != first)
        raise InputError(
            f"has {len(text_refs[at])} references, segment 0 has {first}: mteval-v13a needs every reference "
            "set to translate every segment",
            segment=at,
            side="references",
        )
    return text_hyps, text_refs


@dataclass(frozen=True)
class MtevalNIST(CorpusMetric):
    """NIST as ``mteval-v13a.pl -n`` prints it (see the module).

    Parameters
    ----------
    n : int
        Largest n-gram order, 1 to 9 (mteval's headline score is 5; its "Cumulative N-gram scoring"
        row lists 1 to 9).
    preserve_case : bool
        Keep upper case (mteval's ``-c``).
    international : bool
        mteval's ``--international-tokenization`` (see :func:`mteval_tokenize`).
    split_non_ascii : bool
        With ``international``: mteval's ``-e`` (each non-ASCII character a word).

    Examples
    --------
    >>> s = MtevalNIST()(["The cat sat on the mat."], ["The cat sat on a mat."])
    >>> round(s.score, 4)
    2.4063
    """

    n: int = 5
    preserve_case: bool = False
    international: bool = False
    split_non_ascii: bool = False

    name: ClassVar[str] = "nist"
    flavor: ClassVar[str] = "mteval"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or not 1 <= self.n <= MAX_ORDER:
            raise ValueError(f"n must be an int from 1 to {MAX_ORDER} (mteval-v13a's orders); got {self.n!r}")
        if self.split_non_ascii and not self.international:
            raise ValueError("split_non_ascii (mteval's -e) applies to its international tokenization only")

    @cached_property
    def schema(self) -> StatsSchema:
        return mteval_schema(self.n)

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        """mteval's words of each text."""
        return [
            _words(
                mteval_tokenize(
                    text,
                    preserve_case=self.preserve_case,
                    international=self.international,
                    split_non_ascii=self.split_non_ascii,
                )
            )
            for text in texts
        ]

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows per segment with the corpus's information weights (both passes over the corpus)."""
        hyps, refs = _texts(hypotheses, references)
        ref_words = [self.tokenize(seg) for seg in refs]
        return Stats(self.schema, mteval_rows(self.tokenize(hyps), ref_words, self.n))

    def check_input(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """Validate one batch, naming the offending segment."""
        _texts(hypotheses, references)
        return list(hypotheses), list(references)

    def accumulator(self, *, keep_segments: bool = False) -> CorpusPassAccumulator:
        """A streaming accumulator that keeps the batches: the weights need the whole corpus."""
        from nlpeval.metrics.two_pass import CorpusPassAccumulator

        return CorpusPassAccumulator(self, keep_segments=keep_segments)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        n = self.n
        score = np.zeros(totals.shape[:-1])
        for i in range(n):  # mteval adds the orders one after another
            score = score + totals[..., i] / np.maximum(totals[..., n + i], 1.0)
        nsys = totals[..., -2]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = totals[..., n] / (totals[..., 2 * n] / nsys)
        # mteval-v13a stops ("Illegal division by zero") when there is no reference word: nan here
        return np.where(totals[..., 2 * n] > 0, score * length_penalty(np.nan_to_num(ratio)), np.nan)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        n = self.n
        ref_len = float(totals[2 * n] / totals[-2]) if totals[-2] else 0.0
        penalty = length_penalty(np.array(totals[n] / ref_len if ref_len else 0.0))
        return {
            "hyp_len": int(totals[n]),
            "ref_len": ref_len,
            "length_penalty": float(penalty),
            "information": [float(v) for v in totals[:n]],
            "hyp_ngrams": [int(v) for v in totals[n : 2 * n]],
        }

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[-2], totals[-1]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        tok = "mteval-v13a" + ("-intl" if self.international else "") + ("-e" if self.split_non_ascii else "")
        case = "mixed" if self.preserve_case else "lc"
        return Signature.build(nrefs=nrefs, tok=tok, case=case, n=self.n, flavor="mteval")


def mteval_nist(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    n: int = 5,
    preserve_case: bool = False,
    international: bool = False,
    split_non_ascii: bool = False,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """NIST of ``hypotheses`` as ``mteval-v13a.pl -n`` computes it (``nlpeval.nist(..., flavor="mteval")``).

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment (mteval's ``<seg>`` text; it is normalised by mteval's rules).
    references : sequence of (str or sequence of str)
        One reference, or the same number of references, per segment (one per mteval reference set).
    n : int
        Largest n-gram order (5, mteval's; 1 to 9).
    preserve_case : bool
        Keep upper case (mteval's ``-c``).
    international : bool
        mteval's ``--international-tokenization`` (Unicode punctuation and symbols; see :func:`mteval_tokenize`).
    split_non_ascii : bool
        With ``international``: mteval's ``-e`` (each non-ASCII character a word).
    segments : bool
        Also give mteval's segment-level scores (its ``-d 2``) in ``Score.segments``.
    n_bootstrap : int
        If > 0, a bootstrap 95% confidence interval over segments (the corpus's weights stay).
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on NIST's scale, as mteval prints it ("NIST score = ..."); ``components`` has
        ``hyp_len``, ``ref_len`` (average reference words), ``length_penalty``, ``information`` and
        ``hyp_ngrams`` per order (mteval's "Individual N-gram scoring" of order k is
        ``information[k-1] / max(hyp_ngrams[k-1], 1) * length_penalty``).
        With no reference word at all the score is nan (mteval-v13a stops with a division by zero).

    Examples
    --------
    >>> import nlpeval
    >>> hyps = ["It is a guide to action which ensures that the military always obeys the commands of the party."]
    >>> refs = [["It is a guide to action that ensures that the military will forever heed Party commands."]]
    >>> round(nlpeval.nist(hyps, refs, flavor="mteval").score, 4)
    2.7996
    """
    metric = MtevalNIST(n=n, preserve_case=preserve_case, international=international, split_non_ascii=split_non_ascii)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["MAX_ORDER", "MtevalNIST", "mteval_nist", "mteval_rows", "mteval_tokenize"]
