"""SARI (Xu et al., 2016), the text-simplification metric, as HF evaluate 0.4.6 and as EASSE compute it.

SARI compares a system output (the hypothesis) with its *source* and several references, n-gram order
by order (1-4): the n-grams the system *added* (in the output, not in the source), *kept* (in both) and
*deleted* (in the source, not in the output) are each scored against what the references did.
Counts of the source and output are multiplied by the number of references ``R``; the references'
counts are summed. The two tools that publish SARI numbers compute it differently:

* ``flavor="hf"`` (default) is HF evaluate 0.4.6's ``sari`` metric (adapted from tensor2tensor's
  ``sari_hook``): a **sentence** score averaged over sentences. Per order, keep is the F1 of a
  precision that averages ``min(kept, ref) / kept`` over the distinct kept n-grams (summed in the
  source's first-occurrence order, as the script's ``Counter`` does) and a recall over the summed
  counts; delete is such a precision alone; add is the F1 of distinct added n-grams; ``0/0 = 1``
  (an empty operation scores 1). Tokens are ``str.split(" ")``, so an empty sentence has one empty
  token. Rows: the sentence SARI (and its keep/delete/add parts) and a count; they merge by sum.
* ``flavor="easse"`` is EASSE's ``corpus_sari`` (its defaults: 13a tokens, lowercase, deletion scored
  by F1, the "macro" version the SARI authors' Java code computes): a **corpus** score. Per order the
  integer counts ``correct``, ``system total`` and ``reference total`` of each operation are summed
  over the corpus (36 integer columns that merge by sum); precision and recall are ratios of those
  sums with ``0/0 = 0``, F1 is 0 unless both are positive, and each operation's F1 is averaged over
  the orders. Tokens are ``str.split()``. A sentence's value is the same formula on its own row
  (``corpus_sari`` of one sentence).

Both flavors lowercase and tokenize every sentence with sacreBLEU's 13a tokenizer first
(``tokenize="none"`` and ``lowercase=False`` change that; the references use the defaults). The score is
on the 0-1 scale (the tools print 100 times it); higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import (
    check_unicode,
    reference_counts,
    unicode_checked,
    validate_segments,
    validate_text,
)
from nlpeval.metrics.ngram_table import ngram_table, token_ids, unique_inverse

#: SARI flavors: HF evaluate's sentence-averaged SARI and EASSE's corpus SARI.
SARI_FLAVORS = ("hf", "easse")
#: Tokenizers: sacreBLEU's 13a (both tools' default) or none (the text as it is).
SARI_TOKENIZERS = ("13a", "none")
#: n-gram orders, fixed by both tools
ORDER = 4
_OPERATIONS = ("add", "keep", "del")
_PARTS = ("correct", "sys_total", "ref_total")

_HF_SCHEMA = StatsSchema.of("sari_sum", "keep_sum", "del_sum", "add_sum", "segments", nrefs_min="min", nrefs_max="max")
_EASSE_SCHEMA = StatsSchema.of(
    *(f"{op}_{part}_{n}" for op in _OPERATIONS for part in _PARTS for n in range(1, ORDER + 1)),
    nrefs_min="min",
    nrefs_max="max",
)


def _normalize(lines: list[str], *, lowercase: bool, tokenize: str) -> list[str]:
    """Both tools' ``normalize``: ``str.lower()`` then sacreBLEU's ``Tokenizer13a`` called directly."""
    if lowercase:
        lines = [line.lower() for line in lines]
    if tokenize == "13a":
        from nlpeval.metrics.bleu.hf import hf_13a

        return hf_13a(lines)
    return lines


@dataclass(frozen=True)
class GramCounts:
    """Per (segment, distinct n-gram) counts in the source ``s``, the output ``c`` and the references ``r``.

    ``key_segment``, ``key_order``: segment and order of each distinct n-gram; ``source_rows``: for
    each n-gram of each source in ``Counter`` order, its index into the distinct n-grams."""

    segment: np.ndarray
    order: np.ndarray
    s: np.ndarray
    c: np.ndarray
    r: np.ndarray
    nrefs: np.ndarray
    source_rows: np.ndarray


def _bits(value: int) -> int:
    return max(int(value).bit_length(), 1)


def token_id_rows(lines: list[str], *, flavor: str, tokenize: str) -> tuple[np.ndarray, np.ndarray]:
    """Flat token ids and token counts of normalised lines: ``str.split()`` words (EASSE), or
    ``str.split(" ")`` words (evaluate; after 13a the two differ only for an empty line, which has one
    empty token)."""
    from nlpeval import _native

    if flavor == "hf" and tokenize != "13a":
        ids, lengths, _ = token_ids([line.split(" ") for line in lines])
        return ids, lengths
    flat, lengths, types = _native.meteor_split_intern(lines, False, False)
    ids = np.asarray(flat, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if flavor == "hf":
        empty = np.flatnonzero(lengths == 0)
        if empty.shape[0]:
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            ids = np.insert(ids, starts[empty], len(types))  # the empty token "" (str.split never yields it)
            lengths = np.where(lengths == 0, 1, lengths)
    return ids, lengths


def gram_counts(ids: np.ndarray, lengths: np.ndarray, n: int, counts: np.ndarray) -> GramCounts:
    """Count every segment's n-grams (orders 1-4) in its source, its output and its references (summed).

    ``ids``/``lengths``: the token ids of the sources, then the outputs, then every reference (in
    segment order; ``counts`` references per segment). Tokens get ids local to their segment (a few bits
    each), so an n-gram is one exact int64 key ``(segment, order, ids)`` and one sort groups the whole
    corpus; corpora whose keys would not fit in 63 bits take :func:`_gram_counts_table`.
    """
    n_sequences = lengths.shape[0]
    vocabulary = int(ids.max()) + 1 if ids.shape[0] else 1
    seq_segment = np.concatenate((np.arange(n), np.arange(n), np.repeat(np.arange(n), counts))).astype(np.int64)
    seq_side = np.repeat(np.arange(3, dtype=np.int8), [n, n, n_sequences - 2 * n])
    owner = np.repeat(np.arange(n_sequences, dtype=np.int64), lengths)
    token_segment = seq_segment[owner]
    pairs, local = unique_inverse(token_segment * max(vocabulary, 1) + ids)
    first_of_segment = np.searchsorted(pairs // max(vocabulary, 1), np.arange(n))
    local = local - first_of_segment[token_segment] + 1  # 1..distinct tokens of the segment; 0: padding
    width = _bits(int(local.max()) if local.shape[0] else 1)
    if _bits(max(n - 1, 1)) + 2 + ORDER * width > 63:
        return _gram_counts_table(ids, lengths, n, counts)
    starts = np.zeros(n_sequences, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    remaining = lengths[owner] - (np.arange(ids.shape[0], dtype=np.int64) - starts[owner])
    padded = np.concatenate((local, np.zeros(ORDER, dtype=np.int64)))
    keys, sides = [], []
    packed = np.zeros(ids.shape[0], dtype=np.int64)
    for k in range(1, ORDER + 1):
        packed = packed | (padded[k - 1 : k - 1 + ids.shape[0]] << (width * (ORDER - k)))
        valid = np.flatnonzero(remaining >= k)
        prefix = (token_segment[valid] << 2 | (k - 1)) << (width * ORDER)
        keys.append(prefix | packed[valid])
        sides.append(seq_side[owner[valid]])
    key = np.concatenate(keys)
    side = np.concatenate(sides)
    uniq, group = np.unique(key, return_inverse=True)
    size = uniq.shape[0]
    s, c, r = (np.bincount(group[side == k], minlength=size) for k in range(3))
    source_groups = group[side == 0]
    _, first = np.unique(source_groups, return_index=True)
    return GramCounts(
        segment=uniq >> (2 + width * ORDER),
        order=((uniq >> (width * ORDER)) & 3) + 1,
        s=s.astype(np.int64),
        c=c.astype(np.int64),
        r=r.astype(np.int64),
        nrefs=counts,
        source_rows=source_groups[np.sort(first)],
    )


def _gram_counts_table(ids: np.ndarray, lengths: np.ndarray, n: int, counts: np.ndarray) -> GramCounts:
    """:func:`gram_counts` through global n-gram ids (:func:`~nlpeval.metrics.ngram_table.ngram_table`)."""
    sequences = np.split(ids, np.cumsum(lengths)[:-1]) if lengths.shape[0] else []
    flat = sequences[2 * n :]
    table = ngram_table([seq.tolist() for seq in sequences], max_order=ORDER)
    seq = table.sequence
    ref_segment = np.repeat(np.arange(n, dtype=np.int64), counts)
    segment = np.where(seq < n, seq, np.where(seq < 2 * n, seq - n, ref_segment[np.maximum(seq - 2 * n, 0)]))
    if not len(flat):
        segment = np.where(seq < 2 * n, segment, 0)
    n_grams = max(table.n_grams, 1)
    keys, group = unique_inverse(segment * n_grams + table.gram)
    size = keys.shape[0]
    weights = table.count.astype(np.float64)
    side = np.where(seq < n, 0, np.where(seq < 2 * n, 1, 2))
    s, c, r = (np.bincount(group[side == k], weights=weights[side == k], minlength=size) for k in range(3))
    order = np.zeros(size, dtype=np.int64)
    order[group] = table.order
    return GramCounts(
        segment=keys // n_grams,
        order=order,
        s=s.astype(np.int64),
        c=c.astype(np.int64),
        r=r.astype(np.int64),
        nrefs=counts,
        source_rows=group[side == 0],
    )


def native_rows(lines: list[str], n: int, counts: np.ndarray, *, flavor: str) -> np.ndarray:
    """The statistics of normalised ``lines`` (sources, outputs, then every reference) from the native kernel.

    ``hf``: ``(n, 4)`` rows of :func:`hf_rows`; ``easse``: ``(n, 36)`` counts of :func:`easse_rows` (each
    segment's n-grams counted in one hash table; the same values as the NumPy path through
    :func:`gram_counts`, which the tests keep as a second implementation).
    """
    from nlpeval import _native

    kernel = _native.sari_hf_rows if flavor == "hf" else _native.sari_easse_rows
    if kernel is None:  # a core built before src/gen
        ids, lengths = token_id_rows(lines, flavor=flavor, tokenize="none")  # str.split(" ") / str.split()
        grams = gram_counts(ids, lengths, n, counts)
        return hf_rows(grams, n) if flavor == "hf" else easse_rows(grams, n)[:, : 9 * ORDER]
    return kernel(lines[:n], lines[n : 2 * n], lines[2 * n :], counts.tolist())


def _per_order(values: np.ndarray, where: np.ndarray, slot: np.ndarray, size: int) -> np.ndarray:
    """Sum of ``values`` over the entries selected by ``where``, per (segment, order) slot, in array order."""
    return np.bincount(slot[where], weights=values[where], minlength=size)


def hf_rows(grams: GramCounts, n_segments: int) -> np.ndarray:
    """Rows ``(sari, keep, delete, add)`` of evaluate's ``SARIsent`` for every segment (orders 1-4)."""
    size = n_segments * ORDER
    slot = grams.segment * ORDER + grams.order - 1
    big_r = grams.nrefs[grams.segment]
    s_rep, c_rep, r = grams.s * big_r, grams.c * big_r, grams.r
    kept = np.minimum(s_rep, c_rep)
    good = np.minimum(kept, r)
    everything = np.ones(slot.shape[0], dtype=bool)
    # KEEP: the fractions are summed over the source's n-grams in its Counter order
    src = grams.source_rows
    with np.errstate(divide="ignore", invalid="ignore"):
        keep_fraction = np.where(kept > 0, good / kept, 0.0)
        deleted = s_rep - c_rep
        del_good = np.maximum(deleted - r, 0)
        del_fraction = np.where(deleted > 0, del_good / deleted, 0.0)
    keep_sum1 = np.bincount(slot[src], weights=keep_fraction[src], minlength=size)
    keep_sum2 = _per_order(good.astype(np.float64), everything, slot, size)
    keep_len = np.bincount(slot[kept > 0], minlength=size)
    keep_all = _per_order(np.minimum(s_rep, r).astype(np.float64), everything, slot, size)
    with np.errstate(divide="ignore", invalid="ignore"):
        keep_p = np.where(keep_len > 0, keep_sum1 / keep_len, 1.0)
        keep_r = np.where(keep_all > 0, keep_sum2 / keep_all, 1.0)
        keep = np.where((keep_p > 0) | (keep_r > 0), 2 * keep_p * keep_r / (keep_p + keep_r), 0.0)
    # DELETION: a precision only
    del_sum = np.bincount(slot[src], weights=del_fraction[src], minlength=size)
    del_len = np.bincount(slot[deleted > 0], minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        delete = np.where(del_len > 0, del_sum / del_len, 1.0)
    # ADDITION: distinct n-grams
    added = (grams.c > 0) & (grams.s == 0)
    add_good = np.bincount(slot[added & (r > 0)], minlength=size).astype(np.float64)
    add_len = np.bincount(slot[added], minlength=size)
    add_all = np.bincount(slot[(r > 0) & (grams.s == 0)], minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        add_p = np.where(add_len > 0, add_good / add_len, 1.0)
        add_r = np.where(add_all > 0, add_good / add_all, 1.0)
        add = np.where((add_p > 0) | (add_r > 0), 2 * add_p * add_r / (add_p + add_r), 0.0)
    parts = []
    for values in (keep, delete, add):
        per = values.reshape(n_segments, ORDER)
        total = per[:, 0] + per[:, 1]  # Python's sum([k1, k2, k3, k4]), left to right
        for k in range(2, ORDER):
            total = total + per[:, k]
        parts.append(total / 4)
    rows = np.empty((n_segments, 4), dtype=np.float64)
    rows[:, 0] = (parts[0] + parts[1] + parts[2]) / 3
    rows[:, 1], rows[:, 2], rows[:, 3] = parts
    return rows


def easse_rows(grams: GramCounts, n_segments: int) -> np.ndarray:
    """EASSE's ``compute_ngram_stats`` per segment: 36 integer counts (operation x part x order)."""
    size = n_segments * ORDER
    slot = grams.segment * ORDER + grams.order - 1
    big_r = grams.nrefs[grams.segment]
    s, c, r = grams.s, grams.c, grams.r
    s_rep, c_rep = s * big_r, c * big_r
    added_sys = (c > 0) & (s == 0)
    added_ref = (r > 0) & (s == 0)
    del_sys = np.maximum(s_rep - c_rep, 0)
    del_ref = np.maximum(s_rep - r, 0)
    kept_sys = np.minimum(s_rep, c_rep)
    kept_ref = np.minimum(s_rep, r)
    columns = (
        added_sys & (r > 0),
        added_sys,
        added_ref,
        np.minimum(kept_sys, kept_ref),
        kept_sys,
        kept_ref,
        np.minimum(del_sys, del_ref),
        del_sys,
        del_ref,
    )
    rows = np.empty((n_segments, len(columns) * ORDER + 2), dtype=np.int64)
    for k, values in enumerate(columns):
        summed = np.bincount(slot, weights=values.astype(np.float64), minlength=size)
        rows[:, k * ORDER : (k + 1) * ORDER] = summed.astype(np.int64).reshape(n_segments, ORDER)
    return rows


def easse_values(totals: np.ndarray) -> dict[str, np.ndarray]:
    """EASSE's ``compute_macro_sari`` of summed counts (vectorised over leading axes): add, keep, del F1."""
    totals = np.asarray(totals, dtype=np.float64)
    out = {}
    for k, op in enumerate(_OPERATIONS):
        base = 3 * k * ORDER
        correct = totals[..., base : base + ORDER]
        sys_total = totals[..., base + ORDER : base + 2 * ORDER]
        ref_total = totals[..., base + 2 * ORDER : base + 3 * ORDER]
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(sys_total > 0, correct / sys_total, 0.0)
            recall = np.where(ref_total > 0, correct / ref_total, 0.0)
            f1 = np.where((precision > 0) & (recall > 0), 2 * precision * recall / (precision + recall), 0.0)
        total = 0.0 + f1[..., 0] / ORDER  # f1 += f1_n / 4, order by order
        for n in range(1, ORDER):
            total = total + f1[..., n] / ORDER
        out[op] = total
    return out


@dataclass(frozen=True)
class SARI(CorpusMetric):
    """SARI of simplifications against their sources and references (see :func:`sari`).

    Call it as ``metric(hypotheses, references, sources=sources)``.

    Parameters
    ----------
    flavor : {"hf", "easse"}
        HF evaluate 0.4.6's sentence-averaged ``sari`` or EASSE's ``corpus_sari``.
    tokenize : {"13a", "none"}
        sacreBLEU's 13a tokenizer (both tools) or the text as given.
    lowercase : bool
        Lowercase before tokenizing (both tools).

    Examples
    --------
    >>> metric = SARI(flavor="easse")
    >>> s = metric(["About 95 you now get in ."], [["About 95 species are now accepted ."]],
    ...            sources=["About 95 species are currently accepted ."])
    >>> round(s.score, 6)  # EASSE corpus_sari: 33.71031746031746
    0.337103
    """

    flavor: str = "hf"
    tokenize: str = "13a"
    lowercase: bool = True

    name: ClassVar[str] = "sari"

    def __post_init__(self) -> None:
        if self.flavor not in SARI_FLAVORS:
            raise ValueError(f"flavor must be one of {', '.join(SARI_FLAVORS)}; got {self.flavor!r}")
        if self.tokenize not in SARI_TOKENIZERS:
            raise ValueError(f"tokenize must be one of {', '.join(SARI_TOKENIZERS)}; got {self.tokenize!r}")

    @property
    def schema(self) -> StatsSchema:
        return _HF_SCHEMA if self.flavor == "hf" else _EASSE_SCHEMA

    def check_input(
        self, hypotheses: Sequence[Any], references: Sequence[Any], sources: Sequence[Any] | None
    ) -> tuple[list[str], list[list[str]], list[str]]:
        """Validate the three inputs; errors name the segment."""
        hyps, refs = validate_text(hypotheses, references)
        if sources is None:
            raise InputError("SARI needs the source sentences: pass sources=[...] (one per hypothesis)", side="sources")
        srcs = validate_segments(sources, "sources")
        if len(srcs) != len(hyps):
            raise InputError(
                f"{len(hyps)} hypotheses but {len(srcs)} sources; one source per hypothesis", side="sources"
            )
        return hyps, refs, srcs

    def segment_stats(
        self, hypotheses: Sequence[Any], references: Sequence[Any], *, sources: Sequence[Any] | None = None
    ) -> Stats:
        """One row per segment: the sentence SARI and its parts (``hf``) or EASSE's 36 counts (``easse``)."""
        hyps, refs, srcs = self.check_input(hypotheses, references, sources)
        n = len(hyps)
        counts = reference_counts(refs)
        flat = [ref for seg in refs for ref in seg]
        with unicode_checked(hyps, refs):  # a lone surrogate: an InputError naming the segment
            try:
                lines = _normalize([*srcs, *hyps, *flat], lowercase=self.lowercase, tokenize=self.tokenize)
                parts = native_rows(lines, n, counts, flavor=self.flavor)
            except UnicodeEncodeError:
                check_unicode(srcs, side="sources")
                raise
        if self.flavor == "hf":
            rows = np.empty((n, _HF_SCHEMA.width), dtype=np.float64)
            rows[:, :4] = parts
            rows[:, 4] = 1.0
        else:
            rows = np.empty((n, _EASSE_SCHEMA.width), dtype=np.int64)
            rows[:, :-2] = parts
        rows[:, -2] = counts
        rows[:, -1] = counts
        return Stats(self.schema, rows)

    def _parts(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        totals = np.asarray(totals, dtype=np.float64)
        if self.flavor == "hf":
            n = totals[..., 4]
            with np.errstate(divide="ignore", invalid="ignore"):
                return {
                    "sari": totals[..., 0] / n,
                    "keep": totals[..., 1] / n,
                    "del": totals[..., 2] / n,
                    "add": totals[..., 3] / n,
                }
        parts = easse_values(totals)
        # corpus_sari: (100 * add + 100 * keep + 100 * del) / 3, here on the 0-1 scale
        parts["sari"] = (100.0 * parts["add"] + 100.0 * parts["keep"] + 100.0 * parts["del"]) / 3 / 100.0
        return parts

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._parts(totals)["sari"]

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        parts = self._parts(totals)
        out: dict[str, Any] = {op: float(parts[op]) for op in ("add", "keep", "del")}
        if self.flavor == "hf":
            out["segments"] = int(totals[4])
        return out

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[-2], totals[-1]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) else "0"
        return Signature.build(
            nrefs=nrefs,
            case="lc" if self.lowercase else "mixed",
            tok=self.tokenize,
            flavor=self.flavor,
        )

    def __call__(
        self,
        hypotheses: Sequence[Any],
        references: Sequence[Any],
        *,
        sources: Sequence[Any] | None = None,
        segments: bool = False,
    ) -> Score:
        return self.score_from_stats(self.segment_stats(hypotheses, references, sources=sources), segments=segments)


def sari(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    sources: Sequence[str],
    flavor: str = "hf",
    tokenize: str = "13a",
    lowercase: bool = True,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """SARI of simplifications ``hypotheses`` of ``sources`` against ``references``.

    Parameters
    ----------
    hypotheses : sequence of str
        One system output (simplification) per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the count may vary).
    sources : sequence of str
        The sentence each hypothesis simplifies (required).
    flavor : {"hf", "easse"}
        ``"hf"``: HF evaluate 0.4.6's ``sari`` (mean of sentence SARI); ``"easse"``: EASSE's
        ``corpus_sari`` (counts summed over the corpus, then the score). They differ.
    tokenize : {"13a", "none"}
        sacreBLEU's 13a tokenizer (both tools' default) or the text as given.
    lowercase : bool
        Lowercase first (both tools' default).
    segments : bool
        Also return each sentence's SARI in ``Score.segments`` (``hf``: the script's ``SARIsent``;
        ``easse``: ``corpus_sari`` of the one sentence).
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples of sentences.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0-1 scale (the tools print 100 times it); ``components`` has ``add``,
        ``keep`` and ``del`` (the three operation scores, 0-1).

    Examples
    --------
    >>> import nlpeval
    >>> src = ["About 95 species are currently accepted ."]
    >>> hyp = ["About 95 you now get in ."]
    >>> refs = [["About 95 species are currently known .", "About 95 species are now accepted .",
    ...          "95 species are now accepted ."]]
    >>> s = nlpeval.sari(hyp, refs, sources=src)
    >>> round(100 * s.score, 10)  # evaluate's docstring: {'sari': 26.953601953601954}
    26.9536019536
    >>> round(100 * nlpeval.sari(hyp, refs, sources=src, flavor="easse").score, 10)  # EASSE: 31.350246975246975
    31.3502469752
    >>> s.signature.split("|version")[0]
    'nrefs:3|case:lc|tok:13a|flavor:hf'
    """
    metric = SARI(flavor=flavor, tokenize=tokenize, lowercase=lowercase)
    stats = metric.segment_stats(hypotheses, references, sources=sources)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = ["SARI", "SARI_FLAVORS", "sari"]
