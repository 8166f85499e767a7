"""CIDEr-D and CIDEr (Vedantam et al., 2015), exactly as pycocoevalcap 1.2 and the CIDEr authors' code.

Each caption becomes, per n-gram order ``n = 1..4``, a vector of tf-idf weights: the n-gram's count
times ``log(N) - log(max(1, df))``, where ``N`` is the number of images and ``df`` the number of
images whose reference set contains the n-gram. A hypothesis scores the cosine similarity of its
vectors with each reference's, averaged over the orders, averaged over the references, times 10.

* ``flavor="cider-d"`` (default) is pycocoevalcap 1.2's ``Cider`` (the COCO caption evaluation's
  "CIDEr", which is CIDEr-D): the hypothesis weight of each n-gram is clipped at the reference's
  (``min(h, r) * r``) and each similarity is multiplied by a Gaussian length penalty
  ``e ** (-(d ** 2) / (2 * sigma ** 2))``, ``sigma = 6``. As in pycocoevalcap, the length ``d``
  compares is the number of *bigrams* of each caption (``len - 1``), not of words.
* ``flavor="cider"`` is the original CIDEr of the authors' code (``vrama91/cider``'s ``Cider``,
  ``df_mode="corpus"``): no clipping, no length penalty, also times 10.

With ``tokenize="coco"`` (default) captions first go through pycocoevalcap's ``PTBTokenizer``
behaviour (:mod:`nlpeval.tokenizers.ptb`, native, no Java): the references as one batch and the
hypotheses as another, as ``COCOEvalCap`` does. ``tokenize="none"`` splits on whitespace (the
input of ``Cider().compute_score`` called directly).

**CIDEr does not decompose per segment**: ``df`` and ``N`` come from the whole corpus. Scoring
takes two passes over the corpus's statistics: the first counts document frequencies over all
reference sets, the second scores each image against them. The statistics rows that come out
(one per image: its CIDEr and a count) hold those corpus-weighted values, so the corpus score, the
per-image values and bootstrap resampling of images work from rows; resamples keep the full
corpus's ``df`` (they resample images, not the weighting). Rows of two separate calls do not merge
into the score of the joined corpus (each call weighted by its own references): score a corpus in
one call. SPICE is out of scope (it downloads Stanford CoreNLP models at first use).

Values equal pycocoevalcap's to the last bit in its summation order, except the corpus mean,
which is the sum of the rows divided by their number (within 1e-15 of ``np.mean``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import check_unicode, validate_text
from nlpeval.metrics.ngram_table import ngram_table, sorted_unique

if TYPE_CHECKING:
    from nlpeval.metrics.two_pass import CorpusPassAccumulator

#: CIDEr flavors: pycocoevalcap's CIDEr-D and the original CIDEr.
CIDER_FLAVORS = ("cider-d", "cider")
#: Tokenizers: pycocoevalcap's PTB tokenizer behaviour, or a whitespace split.
CIDER_TOKENIZERS = ("coco", "none")

_SCHEMA = StatsSchema.of("cider_sum", "images", nrefs_min="min", nrefs_max="max")


def _sequential_sum(values: np.ndarray, keys: np.ndarray, size: int) -> np.ndarray:
    """``out[k] = 0.0 + values[i] + ...`` over the ``i`` with ``keys[i] == k``, in array order."""
    return np.bincount(keys, weights=values, minlength=size).astype(np.float64, copy=False)


def cider_rows(
    hyp_tokens: Sequence[Sequence[str]],
    ref_tokens: Sequence[Sequence[Sequence[str]]],
    *,
    max_order: int = 4,
    sigma: float = 6.0,
    clipped: bool = True,
) -> np.ndarray:
    """Per-image CIDEr(-D) of tokenized captions, with ``df`` over the references given (both passes).

    Parameters
    ----------
    hyp_tokens : sequence of token lists
        One hypothesis per image.
    ref_tokens : sequence of lists of token lists
        The references of each image (at least one).
    max_order : int
        Largest n-gram order (4).
    sigma : float
        Width of CIDEr-D's length penalty (ignored without ``clipped``).
    clipped : bool
        CIDEr-D (clipping and length penalty) or the original CIDEr.

    Returns
    -------
    numpy.ndarray
        One value per image (pycocoevalcap's ``scores``).

    Examples
    --------
    >>> rows = cider_rows([["a", "dog"], ["a", "cat"]], [[["a", "dog"]], [["the", "cat"]]])
    >>> [round(v, 6) for v in rows.tolist()]
    [5.0, 1.25]
    """
    n_images = len(hyp_tokens)
    counts = np.fromiter(map(len, ref_tokens), dtype=np.int64, count=n_images)
    n_refs = int(counts.sum())
    flat = [ref for refs in ref_tokens for ref in refs]
    table = ngram_table([*flat, *hyp_tokens], max_order=max_order)
    image_of_ref = np.repeat(np.arange(n_images, dtype=np.int64), counts)
    is_ref = table.sequence < n_refs
    image = np.where(is_ref, image_of_ref[np.minimum(table.sequence, max(n_refs - 1, 0))], table.sequence - n_refs)

    # pass 1: document frequency over the reference sets of the whole corpus
    n_grams = max(table.n_grams, 1)
    pairs = sorted_unique(image[is_ref] * n_grams + table.gram[is_ref])
    df = np.bincount(pairs % n_grams, minlength=n_grams).astype(np.float64)
    ref_len = np.log(float(n_images)) if n_images else 0.0
    weight = table.count.astype(np.float64) * (ref_len - np.log(np.maximum(1.0, df)))[table.gram]

    # pass 2: each image against the corpus weights
    n_seq = table.n_sequences
    slot = table.sequence * max_order + (table.order - 1)
    norms = np.sqrt(_sequential_sum(weight * weight, slot, n_seq * max_order)).reshape(n_seq, max_order)
    bigrams = np.maximum(table.lengths - 1, 0) if max_order >= 2 else np.zeros(n_seq, dtype=np.int64)

    # the hypothesis entry (if any) of each reference entry's n-gram
    hyp_entry = np.flatnonzero(~is_ref)
    hyp_keys = image[hyp_entry] * n_grams + table.gram[hyp_entry]
    by_key = np.argsort(hyp_keys, kind="stable")
    sorted_keys = hyp_keys[by_key]
    ref_entry = np.flatnonzero(is_ref)
    ref_keys = image[ref_entry] * n_grams + table.gram[ref_entry]
    found = np.minimum(np.searchsorted(sorted_keys, ref_keys), max(sorted_keys.shape[0] - 1, 0))
    match = sorted_keys[found] == ref_keys if sorted_keys.shape[0] else np.zeros(ref_entry.shape[0], dtype=bool)
    ref_hit, hyp_hit = ref_entry[match], hyp_entry[by_key[found[match]]]
    w_ref, w_hyp = weight[ref_hit], weight[hyp_hit]
    terms = (np.minimum(w_hyp, w_ref) if clipped else w_hyp) * w_ref
    # pycocoevalcap adds the terms in the hypothesis' n-gram order
    arrange = np.lexsort((hyp_hit, table.sequence[ref_hit]))
    val = _sequential_sum(
        terms[arrange], (table.sequence[ref_hit] * max_order + table.order[ref_hit] - 1)[arrange], n_refs * max_order
    ).reshape(n_refs, max_order)
    hyp_norm = norms[n_refs:][image_of_ref]
    ref_norm = norms[:n_refs]
    both = (hyp_norm != 0) & (ref_norm != 0)
    val = np.where(both, val / np.where(both, hyp_norm * ref_norm, 1.0), val)
    if clipped:
        delta = (bigrams[n_refs:][image_of_ref] - bigrams[:n_refs]).astype(np.float64)
        val = val * _length_penalty(delta, sigma)[:, None]

    score = np.zeros((n_images, max_order), dtype=np.float64)
    first = np.zeros(n_images + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    for k in range(int(counts.max()) if n_images else 0):  # references added one after another, as there
        having = np.flatnonzero(counts > k)
        score[having] += val[first[having] + k]
    means = np.mean(score, axis=1) if max_order else np.zeros(n_images)
    return (means / counts) * 10.0


def _length_penalty(delta: np.ndarray, sigma: float) -> np.ndarray:
    """``np.e ** (-(delta ** 2) / (2 * sigma ** 2))`` with Python's float power, per distinct delta."""
    values, inverse = np.unique(delta, return_inverse=True)  # a few dozen distinct deltas
    denominator = 2 * sigma**2
    table = np.array([math.e ** (-(float(d) ** 2) / denominator) for d in values.tolist()], dtype=np.float64)
    return table[inverse.reshape(-1)]


def cider_rows_native(
    hyp_lines: Sequence[str],
    ref_lines: Sequence[str],
    counts: Sequence[int],
    *,
    max_order: int = 4,
    sigma: float = 6.0,
    clipped: bool = True,
) -> np.ndarray | None:
    """:func:`cider_rows` of whitespace-tokenized lines in the native core (``nlpeval._core``), or
    None when the core lacks the kernel.

    ``ref_lines`` holds the references of all images in order, ``counts`` how many each image
    has. The logarithms (``np.log``) and the length penalties (Python's float power) are computed
    here, as :func:`cider_rows` computes them, and handed to the kernel.

    Examples
    --------
    >>> rows = cider_rows_native(["a dog", "a cat"], ["a dog", "the cat"], [1, 1])
    >>> rows is None or [round(v, 6) for v in rows.tolist()] == [5.0, 1.25]
    True
    """
    from nlpeval import _native

    kernel = _native.cider_image_sums
    if kernel is None or max_order < 1:
        return None
    n_images = len(hyp_lines)
    if n_images == 0:
        return np.zeros(0, dtype=np.float64)
    log_df = np.log(np.maximum(1.0, np.arange(n_images + 1, dtype=np.float64)))
    ref_len = float(np.log(float(n_images)))
    penalty = None
    if clipped:
        longest = max(max(map(len, hyp_lines), default=0), max(map(len, ref_lines), default=0))
        penalty = _length_penalty(np.arange(longest + 1, dtype=np.float64), sigma)
    sums = kernel(list(hyp_lines), list(ref_lines), list(counts), log_df, ref_len, penalty, max_order)
    means = np.mean(sums, axis=1)
    return (means / np.asarray(counts, dtype=np.int64)) * 10.0


@dataclass(frozen=True)
class CIDEr(CorpusMetric):
    """CIDEr-D (pycocoevalcap 1.2) or the original CIDEr, with the COCO PTB tokenization.

    Parameters
    ----------
    flavor : {"cider-d", "cider"}
        ``cider-d``: pycocoevalcap's ``Cider`` (clipping, Gaussian length penalty); ``cider``: the
        original CIDEr of ``vrama91/cider``.
    tokenize : {"coco", "none"}
        ``coco``: pycocoevalcap's ``PTBTokenizer`` behaviour (native); ``none``: whitespace split.
    sigma : float
        Standard deviation of CIDEr-D's length penalty (6).

    Notes
    -----
    n-grams go up to 4 words, as in both reference implementations (pycocoevalcap's ``Cider(n=...)``
    does not reach its n-gram extraction, which always stops at 4).

    Examples
    --------
    >>> metric = CIDEr()
    >>> s = metric(["A dog runs.", "A cat."], [["a dog is running", "the dog runs"], ["a cat sleeps"]])
    >>> round(s.score, 6), s.components["images"]
    (3.069466, 2)
    """

    flavor: str = "cider-d"
    tokenize: str = "coco"
    sigma: float = 6.0

    max_order: ClassVar[int] = 4

    name: ClassVar[str] = "cider"

    def __post_init__(self) -> None:
        if self.flavor not in CIDER_FLAVORS:
            raise ValueError(f"unknown CIDEr flavor {self.flavor!r}; choose one of {', '.join(CIDER_FLAVORS)}")
        if self.tokenize not in CIDER_TOKENIZERS:
            raise ValueError(f"unknown tokenize {self.tokenize!r}; choose one of {', '.join(CIDER_TOKENIZERS)}")
        if not isinstance(self.sigma, (int, float)) or not math.isfinite(self.sigma) or self.sigma <= 0:
            raise ValueError(f"sigma must be a positive finite number; got {self.sigma!r}")

    @property
    def schema(self) -> StatsSchema:
        return _SCHEMA

    def lines(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[str], list[str], list[int]]:
        """Validated, tokenized input as lines: hypotheses, the references of all images in order,
        and the number of references of each image."""
        hyps, refs = validate_text(hypotheses, references)
        check_unicode(hyps, refs)
        flat = [ref for seg in refs for ref in seg]
        if self.tokenize == "coco":
            from nlpeval.tokenizers.ptb import coco_tokenize

            return coco_tokenize(hyps), coco_tokenize(flat), [len(seg) for seg in refs]
        return hyps, flat, [len(seg) for seg in refs]

    def tokens(
        self, hypotheses: Sequence[Any], references: Sequence[Any]
    ) -> tuple[list[list[str]], list[list[list[str]]]]:
        """Validated, tokenized input: hypothesis token lists and per-image lists of reference token lists."""
        hyp_lines, ref_lines, counts = self.lines(hypotheses, references)
        hyp_tokens = [line.split() for line in hyp_lines]
        flat = [line.split() for line in ref_lines]
        grouped, start = [], 0
        for count in counts:
            grouped.append(flat[start : start + count])
            start += count
        return hyp_tokens, grouped

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of ``cider_sum`` (the image's CIDEr, weighted by the whole call's ``df``), ``images``
        (1), ``nrefs_min`` and ``nrefs_max``, as float64 (both passes of the corpus)."""
        hyp_lines, ref_lines, counts = self.lines(hypotheses, references)
        sigma, clipped = float(self.sigma), self.flavor == "cider-d"
        values = cider_rows_native(hyp_lines, ref_lines, counts, max_order=self.max_order, sigma=sigma, clipped=clipped)
        if values is None:  # a core without the captioning kernels
            flat = [line.split() for line in ref_lines]
            grouped, start = [], 0
            for count in counts:
                grouped.append(flat[start : start + count])
                start += count
            hyp_tokens = [line.split() for line in hyp_lines]
            values = cider_rows(hyp_tokens, grouped, max_order=self.max_order, sigma=sigma, clipped=clipped)
        rows = np.empty((len(hyp_lines), _SCHEMA.width), dtype=np.float64)
        rows[:, 0] = values
        rows[:, 1] = 1.0
        rows[:, 2] = counts
        rows[:, 3] = counts
        return Stats(_SCHEMA, rows)

    def check_input(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
        """Validate one batch (as :meth:`segment_stats` does), naming the offending segment."""
        hyps, refs = validate_text(hypotheses, references)
        check_unicode(hyps, refs)
        return hyps, refs

    def accumulator(self, *, keep_segments: bool = False) -> CorpusPassAccumulator:
        """A streaming accumulator that keeps the batches: CIDEr's idf needs the whole corpus."""
        from nlpeval.metrics.two_pass import CorpusPassAccumulator

        return CorpusPassAccumulator(self, keep_segments=keep_segments)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        images = totals[..., 1]
        return np.where(images > 0, totals[..., 0] / np.where(images > 0, images, 1.0), 0.0)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return {"images": int(totals[1])}

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[2], totals[3]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        return Signature.build(
            nrefs=nrefs,
            tok="coco-ptb" if self.tokenize == "coco" else "none",
            n=self.max_order,
            sigma=float(self.sigma) if self.flavor == "cider-d" else None,
            df="corpus",
            flavor=self.flavor,
        )


def cider(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    flavor: str = "cider-d",
    tokenize: str = "coco",
    sigma: float = 6.0,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Corpus CIDEr-D (default, pycocoevalcap 1.2) or CIDEr of captions against their references.

    Parameters
    ----------
    hypotheses : sequence of str
        One caption per image.
    references : sequence of (str or sequence of str)
        The reference captions of each image (COCO has five).
    flavor : {"cider-d", "cider"}
        ``cider-d``: pycocoevalcap's ``Cider`` (clipped, length penalty); ``cider``: the original.
    tokenize : {"coco", "none"}
        ``coco``: pycocoevalcap's ``PTBTokenizer`` (lowercased PTB tokens, punctuation removed),
        native; ``none``: the captions are already tokenized (split on whitespace).
    sigma : float
        Standard deviation of CIDEr-D's Gaussian length penalty (6).
    segments : bool
        Also return each image's CIDEr (pycocoevalcap's ``scores``) in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval over images (``df`` stays the corpus's).
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on CIDEr's own scale (0 to 10 per reference match; pycocoevalcap prints the same
        number); ``components`` has ``images``.

    Examples
    --------
    >>> import nlpeval
    >>> hyps = ["A man rides a horse.", "Two dogs play in the snow."]
    >>> refs = [["A man is riding a horse.", "A person on a horse."], ["Dogs in snow.", "Two dogs in the snow."]]
    >>> s = nlpeval.cider(hyps, refs, segments=True)
    >>> round(s.score, 4), [round(v, 4) for v in s.segments.tolist()]
    (2.9166, [2.7451, 3.0882])
    >>> s.signature.split("|version")[0]
    'nrefs:2|tok:coco-ptb|n:4|sigma:6.0|df:corpus|flavor:cider-d'
    """
    metric = CIDEr(flavor=flavor, tokenize=tokenize, sigma=sigma)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["CIDER_FLAVORS", "CIDER_TOKENIZERS", "CIDEr", "cider", "cider_rows", "cider_rows_native"]
