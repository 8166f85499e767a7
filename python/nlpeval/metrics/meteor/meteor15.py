"""METEOR 1.5 (Denkowski & Lavie, 2014) for English, as the reference jar computes it.

Each hypothesis is aligned with each reference by the modules in order (exact
words, Snowball stems, WordNet synonyms, paraphrase-table phrases) and a beam
search (see ``src/meteor/``: ``align.rs``, ``matches.rs``, ``search.rs``). An
alignment's sufficient statistics are word counts: lengths, function words,
matches per module split into content and function words, and chunks. The
score of summed statistics is

* weighted precision ``P`` and recall ``R``: matches weighted by module weight,
  content words by ``delta`` and function words by ``1 - delta``;
* ``Fmean = 1 / ((1 - alpha) / P + alpha / R)``;
* fragmentation ``frag = chunks / mean(matched words)``, penalty ``gamma * frag ** beta``;
* ``score = Fmean * (1 - penalty)`` (0 when undefined, never negative).

A segment keeps the statistics of its best reference; the corpus score is the
score of the summed statistics (a perfectly matched segment adds no chunks), not
a mean of segment scores.

Worst case: the alignment search's time grows with the number of *candidate
matches* of a hypothesis-reference pair (pairs of positions some module
matches, e.g. n * n for n repeated words against n repeated synonyms), at
roughly 20-80 ns each on a 2-core Xeon. Pairs with more than ``max_candidates``
(default :data:`MAX_CANDIDATES`, 100 million: a few seconds of search at most;
natural text of 16,000 tokens a side has about 5 million) are refused with an
:class:`~nlpeval.core.errors.InputError` naming the segment, in milliseconds and
before any search; ``max_candidates=None`` lifts the bound. Memory stays flat
(candidates are listed once per word type).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nlpeval import _native
from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.progress import map_chunks
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, unicode_checked, validate_text
from nlpeval.metrics.meteor import config
from nlpeval.metrics.meteor.config import MAX_CANDIDATES, MODULES, TASK_ALIASES, TASKS, function_words
from nlpeval.metrics.meteor.language import warn_unless_english
from nlpeval.metrics.meteor.normalize import normalize_lines
from nlpeval.metrics.meteor.paraphrase import find_paraphrases, load_paraphrases
from nlpeval.metrics.meteor.tokens import split_intern
from nlpeval.metrics.meteor.wordnet import WordNet

__all__ = ["MAX_CANDIDATES", "METEOR", "MODULES", "TASKS", "TASK_ALIASES", "function_words"]


def _schema(modules: tuple[str, ...]) -> StatsSchema:
    per_module = [f"{m}_{part}" for m in modules for part in ("hyp_content", "ref_content", "hyp_function",
                                                              "ref_function")]  # fmt: skip
    return StatsSchema.of(
        "hyp_len", "ref_len", "hyp_function", "ref_function", *per_module, "chunks", nrefs_min="min", nrefs_max="max"
    )


@dataclass(frozen=True)
class METEOR(CorpusMetric):
    """METEOR 1.5 for English, identical to ``java -jar meteor-1.5.jar … -l en``.

    Parameters
    ----------
    modules : tuple of str
        Matchers in order, from ``exact``, ``stem``, ``synonym``, ``paraphrase``.
    task : str
        Parameter preset: ``default`` (= ``rank``), ``adq``, ``hter``, ``li``, ``tune``.
    alpha, beta, gamma, delta : float, optional
        Override the task's parameters.
    weights : tuple of float, optional
        Module weights, one per module. By default the task's weights are taken
        *by position*, as METEOR 1.5 does (so ``modules=("exact", "synonym")``
        weighs synonyms with the task's stem weight).
    normalize : bool
        METEOR's ``-norm``: tokenize punctuation and lowercase.
    keep_punctuation : bool
        With ``normalize``, ``False`` is METEOR's ``-noPunct``.
    lowercase : bool
        METEOR's ``-lower`` (implied by ``normalize``).
    beam_size : int
        Width of the alignment beam search.
    wordnet : str, optional
        WordNet 3.0 folder or zip for ``synonym`` (found automatically when omitted).
    paraphrases : str, optional
        METEOR 1.5 paraphrase table for ``paraphrase`` (found automatically when omitted).
    max_candidates : int or None
        Refuse (:class:`~nlpeval.core.errors.InputError`) a hypothesis-reference pair with more
        candidate word matches than this, which bounds the search's time; ``None``: no bound.
        It never changes a score, only whether one is computed.

    Examples
    --------
    >>> metric = METEOR(modules=("exact", "stem"), normalize=True)
    >>> round(metric(["The cats sat on the mat."], ["A cat sat on the mat."]).score, 4)
    0.4824
    >>> metric.parameters, metric.module_weights
    ((0.85, 0.2, 0.6, 0.75), (1.0, 0.6))
    """

    modules: tuple[str, ...] = MODULES
    task: str = "default"
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    delta: float | None = None
    weights: tuple[float, ...] | None = None
    normalize: bool = False
    keep_punctuation: bool = True
    lowercase: bool = False
    beam_size: int = 40
    wordnet: str | None = None
    paraphrases: str | None = None
    max_candidates: int | None = MAX_CANDIDATES

    name: ClassVar[str] = "meteor"
    flavor: ClassVar[str] = "meteor1.5"

    def __post_init__(self) -> None:
        modules = tuple(self.modules)
        object.__setattr__(self, "modules", modules)
        if not modules:
            raise ValueError("METEOR needs at least one module")
        unknown = [m for m in modules if m not in MODULES]
        if unknown:
            raise ValueError(f"unknown METEOR module(s) {unknown}; choose from {', '.join(MODULES)}")
        if len(set(modules)) != len(modules):
            raise ValueError(f"METEOR modules must not repeat; got {modules}")
        task = TASK_ALIASES.get(self.task, self.task)
        if task not in TASKS:
            raise ValueError(f"unknown METEOR task {self.task!r}; choose from default, {', '.join(TASKS)}")
        if self.weights is not None:
            weights = tuple(float(w) for w in self.weights)
            object.__setattr__(self, "weights", weights)
            if len(weights) != len(modules):
                raise ValueError(f"{len(weights)} weights for {len(modules)} modules; give one weight per module")
        if not isinstance(self.beam_size, int) or self.beam_size < 1:
            raise ValueError(f"beam_size must be a positive int; got {self.beam_size!r}")
        if self.max_candidates is not None and (not isinstance(self.max_candidates, int) or self.max_candidates < 0):
            raise ValueError(f"max_candidates must be a non-negative int or None; got {self.max_candidates!r}")
        if not self.keep_punctuation and not self.normalize:
            raise ValueError("keep_punctuation=False (METEOR's -noPunct) requires normalize=True")
        for key in ("wordnet", "paraphrases"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, os.fspath(value))

    # configuration

    @property
    def parameters(self) -> tuple[float, float, float, float]:
        """``(alpha, beta, gamma, delta)`` in effect."""
        return config.parameters(self.task, (self.alpha, self.beta, self.gamma, self.delta))

    @property
    def module_weights(self) -> tuple[float, ...]:
        """Weight of each module in effect."""
        return config.module_weights(self.task, self.modules, self.weights)

    @property
    def schema(self) -> StatsSchema:
        return _schema(self.modules)

    @cached_property
    def _wordnet(self) -> WordNet | None:
        return WordNet.open(self.wordnet) if "synonym" in self.modules else None

    @cached_property
    def _paraphrase_path(self) -> Path | None:
        return find_paraphrases(self.paraphrases) if "paraphrase" in self.modules else None

    def _prepare(self, texts: list[str]) -> list[str]:
        if self.normalize:
            texts = normalize_lines(texts, keep_punctuation=self.keep_punctuation)
        if self.normalize or self.lowercase:
            texts = [text.lower() for text in texts]
        return texts

    # statistics

    def pair_rows(self, hypotheses: list[str], references: list[str]) -> np.ndarray:
        """Alignment statistics of hypothesis–reference pairs (already validated text).

        Columns: hypothesis and reference lengths and function words, then per
        module the hypothesis/reference content/function matches, then chunks.
        A pair with more than ``max_candidates`` candidate matches is not aligned:
        its row is ``-1``, its candidate count, then zeros.
        """
        # the paraphrase table loads (from its cache, mostly outside the GIL) while the words are prepared
        table_loader = _Background(load_paraphrases, self._paraphrase_path) if self._paraphrase_path else None
        texts = self._prepare([*hypotheses, *references])
        words = split_intern(texts, java=True)
        types = words.types
        n_hyp = int(words.lens[: len(hypotheses)].sum())
        word_hash, stem_hash = _native.meteor_word_keys(types, "stem" in self.modules)
        function = function_words()
        is_function = np.fromiter(map(function.__contains__, map(str.lower, types)), dtype=bool, count=len(types))
        synsets: list[int] = []
        synset_lens: Any = np.zeros(0, dtype=np.int64)
        if self._wordnet is not None:
            synsets, synset_lens = self._wordnet.meteor_synsets_batch(types)
        table = None
        para_id = np.empty(0, dtype=np.int32)
        if table_loader is not None:
            table = table_loader.result()
            para_id = np.asarray(table.lookup(types), dtype=np.int32)
        return _native.meteor_align_rows(
            words.ids[:n_hyp],
            words.lens[: len(hypotheses)],
            words.ids[n_hyp:],
            words.lens[len(hypotheses) :],
            np.asarray(word_hash, dtype=np.int32),
            np.asarray(stem_hash, dtype=np.int32),
            np.asarray(synsets, dtype=np.int32),
            np.asarray(synset_lens, dtype=np.int64),
            para_id,
            is_function,
            [MODULES.index(m) for m in self.modules],
            self.beam_size,
            table,
            self.max_candidates,
        )

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        hyps, refs = validate_text(hypotheses, references)
        warn_unless_english(refs)
        with unicode_checked(hyps, refs):  # a lone surrogate is an InputError naming the segment
            return self._validated_stats(hyps, refs)

    def _validated_stats(self, hyps: list[str], refs: list[list[str]]) -> Stats:
        counts = reference_counts(refs)
        owner = np.repeat(np.arange(len(hyps)), counts)
        pair_hyps = [hyps[i] for i in owner.tolist()]
        pair_refs = [r for seg in refs for r in seg]
        rows = map_chunks(self.pair_rows, pair_hyps, pair_refs, desc="METEOR", unit=" pairs", min_items=2000)
        refused = np.flatnonzero(rows[:, 0] < 0)
        if len(refused):
            pair = int(refused[0])
            segment = int(owner[pair])
            reference = pair - int(np.sum(counts[:segment]))
            message = config.refusal_message(reference, int(rows[pair, 1]), self.max_candidates)
            raise InputError(message, segment=segment, side="hypotheses")
        # METEOR keeps the first reference with the highest score
        scores = self._scores(rows.astype(np.float64))
        starts = np.cumsum(counts) - counts
        if len(starts):
            top = np.repeat(np.maximum.reduceat(scores, starts), counts)
            at_top = np.flatnonzero(scores == top)
            best = at_top[np.unique(owner[at_top], return_index=True)[1]]
        else:
            best = np.empty(0, dtype=np.int64)
        chosen = rows[best] if len(best) else np.empty((0, rows.shape[1]), dtype=np.int64)
        # a perfectly matched segment adds no chunks to the corpus totals
        chosen[:, -1] = np.where(self._perfect(chosen), 0, chosen[:, -1])
        out = np.column_stack([chosen, counts, counts]) if len(hyps) else np.empty((0, self.schema.width))
        return Stats(self.schema, out.astype(np.int64))

    # scoring

    def _parts(self, totals: np.ndarray) -> dict[str, Any]:
        k = len(self.modules)
        t = np.asarray(totals, dtype=np.float64)
        per = t[..., 4 : 4 + 4 * k].reshape((*t.shape[:-1], k, 4))
        return {
            "hyp_len": t[..., 0],
            "ref_len": t[..., 1],
            "hyp_function": t[..., 2],
            "ref_function": t[..., 3],
            "hyp_content_matches": per[..., 0],
            "ref_content_matches": per[..., 1],
            "hyp_function_matches": per[..., 2],
            "ref_function_matches": per[..., 3],
            "chunks": t[..., 4 + 4 * k],
        }

    def _perfect(self, rows: np.ndarray) -> np.ndarray:
        p = self._parts(rows)
        hyp_matches = (p["hyp_content_matches"] + p["hyp_function_matches"]).sum(axis=-1)
        ref_matches = (p["ref_content_matches"] + p["ref_function_matches"]).sum(axis=-1)
        return (hyp_matches == p["hyp_len"]) & (ref_matches == p["ref_len"]) & (p["chunks"] == 1)

    def _metrics(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        """METEOR's ``computeMetrics`` of rows of statistics (any leading shape), by the native formula
        (``meteor_row_parts``, operation for operation in METEOR's order; the NumPy-free CLI path uses it too)."""
        t = np.asarray(totals, dtype=np.float64)
        width = 5 + 4 * len(self.modules)
        rows = np.ascontiguousarray(t[..., :width].reshape(-1, width))
        parts = _native.meteor_rows_parts(rows, *self.parameters, list(self.module_weights))
        parts = parts.reshape((*t.shape[:-1], parts.shape[-1]))
        names = ("score", "precision", "recall", "fmean", "fragmentation_penalty", "hyp_matches", "ref_matches")
        return {name: parts[..., i] for i, name in enumerate(names)}

    def _scores(self, totals: np.ndarray) -> np.ndarray:
        return self._metrics(totals)["score"]

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._scores(totals)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        return config.totals_score(np.asarray(totals).tolist(), self.modules, self.parameters, self.module_weights)[1]

    def signature(self, totals: np.ndarray) -> Signature:
        schema = self.schema
        nrefs_min, nrefs_max = int(totals[schema.index("nrefs_min")]), int(totals[schema.index("nrefs_max")])
        fields = config.signature_fields(
            nrefs=nrefs_field(nrefs_min, nrefs_max) if nrefs_max >= nrefs_min else "0",
            normalize=self.normalize,
            keep_punctuation=self.keep_punctuation,
            lowercase=self.lowercase,
            modules=self.modules,
            task=self.task,
            params=self.parameters,
            weights=self.module_weights,
            beam_size=self.beam_size,
            wordnet_version=self._wordnet.version if self._wordnet is not None else None,
            paraphrase_path=self._paraphrase_path,
        )
        return Signature.build(**fields)


class _Background:
    """``function(argument)`` run in a thread; :meth:`result` waits and returns it (or raises its error)."""

    def __init__(self, function: Callable[[Any], Any], argument: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(function, argument), daemon=True)
        self._thread.start()

    def _run(self, function: Callable[[Any], Any], argument: Any) -> None:
        try:
            self._value = function(argument)
        except BaseException as exc:  # handed to the caller by result()
            self._error = exc

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
