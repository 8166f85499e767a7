"""Flavor ``rouge155``: the Perl ROUGE-1.5.5 (``ROUGE-1.5.5.pl``) reproduced, switch by switch.

=================================  ==========================================
ROUGE-1.5.5.pl                     nlpeval (``flavor="rouge155"``)
=================================  ==========================================
``-n N``                           ``types=["rouge1", …, "rougeN"]``
(ROUGE-L, on by default)           ``rougeL`` (= ``rougeLsum``: the Perl's L is
                                   summary-level over the summary's lines)
``-w 1.2``                         ``rougeW-1.2``
``-2 4`` / ``-2 4 -u`` / ``-U``    ``rougeS4`` / ``rougeSU4`` / both
``-2 -1``                          ``rougeS*`` / ``rougeSU*``
``-m``                             ``stemmer=True`` (needs the data directory)
``-s``                             ``remove_stopwords=True`` (needs it too)
``-l N`` / ``-b N``                ``word_limit=N`` / ``byte_limit=N``
``-f A`` / ``-f B``                ``multi_ref="average"`` (default) / ``"best"``
``-p alpha``                       ``alpha=``
``-t 0`` / ``-t 1``                ``aggregate="macro"`` / ``"micro"``
``-r N``, ``-c 95``                ``n_bootstrap=N`` (default 1,000), 95% interval
``-e DIR``                         ``data_dir=`` or ``$NLPEVAL_ROUGE_DATA``
=================================  ==========================================

Each hypothesis (peer) and reference (model) is a summary whose lines are its sentences
(the SPL input format); segment ``i`` is the Perl's evaluation ``i + 1``. The reported
precision, recall and F are what the Perl prints: the mean of its 1,000 seeded bootstrap
resample means, rounded to 5 decimals (``components["mean_*"]`` has the plain mean), and
``ci`` is its interval. Per-segment values are the Perl's ``-d`` values (5 decimals).

The Perl's own quirks are kept, on purpose: ROUGE-W divides by the model length weighted
twice (``f(Σ f(len))``); ROUGE-SU counts the unigram of every token but the last; the
``-b`` limit of ROUGE-L/W is checked per sentence; ``-t 1`` does not map ROUGE-W back with
``1/w``. Version 1.5.5 does no jackknifing (removed in 1.4; see its release notes): several
references are combined by ``-f A`` or ``-f B`` only. Where the Perl stops with an error
(ROUGE-W against an empty reference) nlpeval scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpeval.core.score import ConfidenceInterval
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats
from nlpeval.core.validation import validate_text
from nlpeval.metrics.rouge.engine import guarded
from nlpeval.metrics.rouge.metric import SCHEMA, Rouge
from nlpeval.metrics.rouge.result import RougeScore
from nlpeval.metrics.rouge.rouge155.bootstrap import perl_averages
from nlpeval.metrics.rouge.rouge155.data import load_perl_data, resolve_data_dir
from nlpeval.metrics.rouge.rouge155.stemmer import morph_stem
from nlpeval.metrics.rouge.rouge155.text import PerlTokenizer
from nlpeval.metrics.rouge.splitters import apply_splitter, resolve_splitter

if TYPE_CHECKING:
    from nlpeval.core.accumulator import Accumulator


def _round5(values: np.ndarray) -> np.ndarray:
    """``sprintf("%7.5f")`` of each value, read back as a number."""
    return np.array([float(f"{v:.5f}") for v in np.asarray(values, dtype=np.float64).tolist()])


@dataclass(frozen=True)
class Rouge155(Rouge):
    """One ROUGE type as ROUGE-1.5.5.pl computes it (see the module docstring for the switches).

    Examples
    --------
    >>> m = Rouge155("rouge2", flavor="rouge155")
    >>> s = m(["police killed the gunman"], ["the gunman killed the policeman"])
    >>> s.recall, s.precision, s.fmeasure
    (0.5, 0.66667, 0.57143)
    """

    remove_stopwords: bool = False
    word_limit: int | None = None
    byte_limit: int | None = None
    data_dir: str | None = None

    def __post_init__(self) -> None:
        if self.multi_ref not in (None, "average", "best"):
            raise ValueError("ROUGE-1.5.5 combines references by 'average' (-f A) or 'best' (-f B)")
        if self.word_limit is not None and self.byte_limit is not None:
            raise ValueError("give a word limit or a byte limit, not both (as ROUGE-1.5.5's -l and -b)")
        for name in ("word_limit", "byte_limit"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a positive int; got {value!r}")
        super().__post_init__()
        if self.stemmer or self.remove_stopwords:
            needed = " and ".join(
                n for n, on in (("stemmer=True", self.stemmer), ("remove_stopwords=True", self.remove_stopwords)) if on
            )
            object.__setattr__(self, "data_dir", str(resolve_data_dir(self.data_dir, needed)))

    @property
    def combine(self) -> str:
        return self.multi_ref or "average"

    def kernel(self) -> tuple[str, float]:
        return self.type.kernel(perl=True)

    def _tokenizer(self) -> PerlTokenizer:
        data = None
        if self.stemmer or self.remove_stopwords:
            data = load_perl_data(str(self.data_dir), stopwords=self.remove_stopwords, exceptions=self.stemmer)
        stopwords = data.stopwords if data is not None and self.remove_stopwords else frozenset()
        stem = None
        if self.stemmer and data is not None:
            table = {k.decode("latin-1"): v.decode("latin-1") for k, v in data.exceptions.items()}
            cache: dict[bytes, bytes] = {}

            def stem(token: bytes) -> bytes:
                found = cache.get(token)
                if found is None:
                    found = cache[token] = morph_stem(token.decode("latin-1"), table).encode("latin-1")
                return found

        return PerlTokenizer(stopwords, stem)

    def pair_counts(
        self, hypotheses: Sequence[Any], references: Sequence[Any], kernels: list[tuple[str, float]]
    ) -> tuple[np.ndarray, np.ndarray]:
        from nlpeval import _native

        hyps, refs = validate_text(hypotheses, references)
        if not hyps:  # its interval arithmetic has no empty case; every corpus metric refuses one
            from nlpeval.core.metric import raise_empty

            raise_empty()
        splitter = resolve_splitter(self.sentence_splitter)
        if splitter is not None:
            hyps = apply_splitter(hyps, splitter)
            refs = [apply_splitter(seg, splitter) for seg in refs]
        tokenizer = self._tokenizer()
        words, bytes_ = self.word_limit or 0, self.byte_limit or 0
        vocabulary: dict[bytes, int] = {}

        def ids(tokens: list[bytes]) -> list[int]:
            return [vocabulary.setdefault(t, len(vocabulary)) for t in tokens]

        hyp_sents, hyp_flat, ref_sents, ref_flat = [], [], [], []
        for hyp, seg in zip(hyps, refs, strict=True):
            lcs, flat = tokenizer.summary(hyp, words, bytes_)
            hyp_sents.append([ids(s) for s in lcs])
            hyp_flat.append(ids(flat))
            seg_sents, seg_flat = [], []
            for ref in seg:
                lcs, flat = tokenizer.summary(ref, words, bytes_)
                seg_sents.append([ids(s) for s in lcs])
                seg_flat.append(ids(flat))
            ref_sents.append(seg_sents)
            ref_flat.append(seg_flat)
        pairs = guarded(
            lambda: _native.rouge_stats_ids(hyp_sents, hyp_flat, ref_sents, ref_flat, kernels, self.max_cells)
        )
        return pairs, np.fromiter((len(r) for r in refs), dtype=np.int64, count=len(refs))

    def rows_from_pairs(self, pairs: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
        """Per evaluation: the Perl's rounded R/P/F (stored as precision, recall, F) and its
        raw ``-t 1`` totals (hits, peer count, model count)."""
        n = ref_counts.shape[0]
        if n == 0:
            return np.empty((0, SCHEMA.width))
        rtype = self.type
        hits, peer, model = pairs[:, 0], pairs[:, 1], pairs[:, 2]
        w = rtype.weight
        with np.errstate(divide="ignore", invalid="ignore"):
            if rtype.family == "w":
                # per-model score (for -f B) with the singly weighted base; totals weigh it again
                model_score = np.where(model > 0, (hits / model) ** (1 / w), 0.0)
                model, peer = model**w, peer**w
            elif rtype.family in ("l", "lsum"):
                model_score = np.where(model > 0, hits / model, 0.0)
            else:
                model_score = np.where(model != 0, _round5(hits / np.where(model != 0, model, 1)), 0.0)
        starts = np.concatenate([[0], np.cumsum(ref_counts)[:-1]]).astype(np.int64)
        if self.combine == "average":
            hits, peer, model = (np.add.reduceat(col, starts) for col in (hits, peer, model))
        else:
            group = np.repeat(np.arange(n), ref_counts)
            order = np.lexsort((np.arange(pairs.shape[0]), -model_score, group))
            pick = order[starts]
            hits, peer, model = hits[pick], peer[pick], model[pick]
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = np.where(model != 0, hits / np.where(model != 0, model, 1), 0.0)
            precision = np.where(peer != 0, hits / np.where(peer != 0, peer, 1), 0.0)
            if rtype.family == "w":
                recall, precision = recall ** (1 / w), precision ** (1 / w)
            recall, precision = _round5(recall), _round5(precision)
            den = (1 - self.alpha) * precision + self.alpha * recall
            f = np.where(den > 0, _round5(np.where(den > 0, (precision * recall) / np.where(den > 0, den, 1), 0)), 0.0)
        nrefs = ref_counts.astype(np.float64)
        return np.column_stack([precision, recall, f, hits, peer, model, np.ones(n), nrefs, nrefs])

    def score_from_pairs(
        self,
        pairs: np.ndarray,
        ref_counts: np.ndarray,
        *,
        segments: bool = False,
        n_bootstrap: int = 0,
        seed: int | None = 12345,
    ) -> RougeScore:
        """The Perl's averages of this type's counts (always through the statistics rows)."""
        return self._score_via_stats(pairs, ref_counts, segments=segments, n_bootstrap=n_bootstrap, seed=seed)

    def accumulator(self, *, keep_segments: bool = False) -> Accumulator:
        """Streaming accumulation; keeps every row, as the Perl's averages need them."""
        return super().accumulator(keep_segments=True)

    def perl_order(self, n: int) -> np.ndarray:
        """Evaluations in the order the Perl sorts them: ``sort keys`` of ``"<i+1>.<peer>"``."""
        return np.array(sorted(range(n), key=lambda i: f"{i + 1}."), dtype=np.int64)

    def perl_averages(self, stats: Stats, n_resamples: int = 1000) -> Any:
        rows = stats.rows[self.perl_order(len(stats))]
        if self.aggregate == "micro":
            table = rows[:, [SCHEMA.index("ref_count"), SCHEMA.index("hyp_count"), SCHEMA.index("hits")]]
        else:
            table = rows[:, [1, 0, 2]]
        return perl_averages(table, n_resamples=n_resamples, micro=self.aggregate == "micro", alpha=self.alpha)

    def signature_fields(self) -> dict[str, Any]:
        limit = None
        if self.word_limit is not None:
            limit = f"l{self.word_limit}"
        elif self.byte_limit is not None:
            limit = f"b{self.byte_limit}"
        return {"tok": "rouge155", "stem": self.stemmer, "stop": self.remove_stopwords, "limit": limit}

    def score_from_stats(
        self,
        stats: Stats,
        *,
        segments: bool = False,
        n_bootstrap: int = 0,
        seed: int | None = 12345,
        confidence: float = 0.95,
        resampling: str = "multinomial",
        ids: Sequence[Any] | None = None,
    ) -> RougeScore:
        """The Perl's printed averages (bootstrap means of ``n_bootstrap`` or 1,000 resamples).

        The Perl's own resampling is the only one: ``resampling`` other than ``"multinomial"`` and
        keyed ``ids`` (the Poisson bootstrap of distributed runs) are refused.
        """
        if resampling != "multinomial" or ids is not None:
            raise ValueError("ROUGE-1.5.5 resamples as the Perl does: no Poisson bootstrap or keyed ids")
        resamples = n_bootstrap or 1000
        totals = stats.totals()
        plain = self._values(totals)
        perl = self.perl_averages(stats, resamples)
        recall, precision, f = perl.average
        signature: Signature = self.signature(totals).with_fields(bs=resamples, rs="perl")
        components = {
            **self.components(totals),
            "precision": precision,
            "recall": recall,
            "fmeasure": f,
            "mean_precision": float(plain[0]),
            "mean_recall": float(plain[1]),
            "mean_fmeasure": float(plain[2]),
            "ci_recall": (perl.low[0], perl.high[0]),
            "ci_precision": (perl.low[1], perl.high[1]),
        }
        ci = ConfidenceInterval(perl.low[2], perl.high[2], f, 0.95, resamples, None)
        score = RougeScore(self.name, f, str(signature), components, ci=ci)
        if segments:
            score = replace(score, segments=self.segment_values(stats))
        return score


__all__ = ["Rouge155"]
