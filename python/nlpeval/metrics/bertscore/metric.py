"""The BERTScore metric object: bert-score 0.3.13's numbers from local weights, on today's transformers.

Each segment's statistics row holds its precision, recall and F (after the multi-reference maximum and
the optional rescaling), so the corpus score, the mean of the segments' F, is a sum over rows divided by
the count: bootstrap intervals, paired tests, accumulators and Dask apply unchanged.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.metric import CorpusMetric
from nlpeval.core.signature import Signature, nrefs_field
from nlpeval.core.stats import Stats, StatsSchema
from nlpeval.core.validation import reference_counts, validate_text
from nlpeval.metrics.bertscore.tokenize import warn_truncated
from nlpeval.neural.ahead import LookAhead
from nlpeval.neural.deps import require, transformers_version
from nlpeval.neural.local import ModelNotFoundError, resolve_model, weights_sha256

FLAVORS = ("bert_score", "torchmetrics")

SCHEMA = StatsSchema.of("precision", "recall", "f1", "segments", nrefs_min="min", nrefs_max="max")

#: bert-score 0.3.13's tuned layer (``model2layers``) of the most used models, for ``num_layers=None``
MODEL_LAYERS = {
    "roberta-large": 17,
    "roberta-base": 10,
    "roberta-large-mnli": 19,
    "distilroberta-base": 5,
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "bert-base-multilingual-cased": 9,
    "bert-base-chinese": 8,
    "distilbert-base-uncased": 5,
    "distilbert-base-multilingual-cased": 5,
    "xlm-roberta-base": 9,
    "xlm-roberta-large": 17,
    "microsoft/deberta-base": 9,
    "microsoft/deberta-large": 16,
    "microsoft/deberta-xlarge-mnli": 40,
    "microsoft/deberta-v3-base": 9,
    "microsoft/deberta-v3-large": 12,
    "microsoft/mdeberta-v3-base": 10,
    "facebook/bart-large": 10,
    "allenai/scibert_scivocab_uncased": 8,
    "dbmdz/bert-base-turkish-cased": 10,
}


def read_baseline(path: str | Path, num_layers: int) -> np.ndarray:
    """The P, R, F rescaling baseline of layer ``num_layers`` from a bert-score baseline file
    (comma-separated ``LAYER,P,R,F`` with a header; row ``k`` is layer ``k``; ``-1``: the last row, which
    torchmetrics takes without ``num_layers``), as float32."""
    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(
            f"BERTScore baseline file {str(path)!r} not found (nlpeval ships no baselines and never downloads them; "
            "bert-score's are in its package folder rescale_baseline/<lang>/<model>.tsv)"
        )
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.reader(handle) if row][1:]
    if not -len(rows) <= num_layers < len(rows):
        raise InputError(f"baseline file {path} has no row for layer {num_layers} ({len(rows)} rows)")
    return np.asarray([float(v) for v in rows[num_layers][1:4]], dtype=np.float32)


@dataclass(frozen=True)
class BERTScore(CorpusMetric):
    """BERTScore (Zhang et al., 2020) exactly as bert-score 0.3.13, from a local model.

    See :func:`nlpeval.bertscore` for the options. The object keeps the loaded model and the
    embeddings of the references it has seen (up to ``cache_sentences``), so scoring several
    systems against one reference set embeds the references once.

    Examples
    --------
    >>> from nlpeval.neural.examples import tiny_bert
    >>> metric = BERTScore(model=tiny_bert(), num_layers=2)
    >>> a = metric(["the cat sat on the mat"], ["a cat sat on the mat"])
    >>> b = metric(["the cat sat"], ["a cat sat on the mat"])  # reference embedding reused
    >>> 0 < b.score < a.score <= 1
    True
    """

    model: str | Path
    num_layers: int | None = None
    idf: bool = False
    rescale_with_baseline: bool = False
    baseline_path: str | Path | None = None
    flavor: str = "bert_score"
    batch_size: int = 64
    device: str | None = None
    dtype: str = "float32"
    cache_sentences: int = 100_000
    #: tokens of texts that :meth:`prefetch` embeds ahead at most (about 0.75 GiB of float32 embeddings 768 wide)
    prefetch_tokens: ClassVar[int] = 1 << 18
    _embeddings: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    name: ClassVar[str] = "bertscore"

    def __post_init__(self) -> None:
        if self.flavor not in FLAVORS:
            raise ValueError(f"unknown BERTScore flavor {self.flavor!r}; choose one of {', '.join(FLAVORS)}")
        if not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise ValueError(f"batch_size must be a positive int; got {self.batch_size!r}")
        if self.rescale_with_baseline and self.baseline_path is None:
            raise ValueError("rescale_with_baseline=True needs baseline_path (nlpeval never downloads baselines)")

    @property
    def schema(self) -> StatsSchema:
        return SCHEMA

    # -- the model ------------------------------------------------------------------------

    @cached_property
    def folder(self) -> Path:
        """The local model folder (``model`` as a path, or a hub name found in the local cache)."""
        return resolve_model(self.model, metric="BERTScore")

    @cached_property
    def layers(self) -> int | None:
        """The layer used (``num_layers``, or bert-score's tuned layer of a known model; the last layer
        (None) for the torchmetrics flavor)."""
        if self.num_layers is not None:
            return int(self.num_layers)
        if self.flavor == "torchmetrics":
            return None  # torchmetrics: the last layer
        name = str(self.model).rstrip("/")
        for key in (name, Path(name).name):
            if key in MODEL_LAYERS:
                return MODEL_LAYERS[key]
        raise ValueError(f"num_layers is required for {name!r}: bert-score's tuned layer table has no entry for it")

    @cached_property
    def encoder(self) -> Any:
        """The loaded :class:`~nlpeval.metrics.bertscore.encoder.Encoder`."""
        from nlpeval.metrics.bertscore.encoder import Encoder

        return Encoder.load(self.folder, self.layers, device=self.device, dtype=self.dtype)

    @cached_property
    def baseline(self) -> np.ndarray | None:
        """The float32 P, R, F baseline, or None without rescaling."""
        if not self.rescale_with_baseline:
            return None
        assert self.baseline_path is not None
        if self.flavor == "torchmetrics" and self.num_layers is None:
            return read_baseline(self.baseline_path, -1)  # torchmetrics' baseline[-1]
        return read_baseline(self.baseline_path, int(self.encoder.num_layers))

    # -- statistics -----------------------------------------------------------------------

    @cached_property
    def _ahead(self) -> LookAhead:
        """The embeddings computed ahead by :meth:`prefetch`."""
        return LookAhead(self.prefetch_tokens)

    def prefetch(self, calls: Iterable[tuple[Any, ...]]) -> int:
        """Embed ahead, in one pool, the texts of the coming calls (``(hypotheses, references)`` of each, in
        calling order; a third item, the sources, is ignored); return how many texts were embedded.

        The distinct hypotheses and references of the first call and of as many following calls as fit in
        :attr:`prefetch_tokens` tokens are sorted by length together and embedded once each (see
        :class:`~nlpeval.neural.ahead.LookAhead`); those calls then find them. Nothing is done while the first
        call's texts are all embedded. Scores are those of calls without it (float32 rounding aside). A call
        whose input is invalid is skipped here (its own call reports it).

        Examples
        --------
        >>> from nlpeval.neural.examples import tiny_bert
        >>> metric = BERTScore(model=tiny_bert(), num_layers=2)
        >>> refs = ["a cat sat on the mat", "it rains"]
        >>> systems = [["the cat sat on the mat", "it rains"], ["a cat sat", "it rains"]]
        >>> metric.prefetch((hyps, refs) for hyps in systems)  # the 4 distinct texts, in one pool
        4
        >>> [round(metric(hyps, refs).score, 4) > 0 for hyps in systems]
        [True, True]
        """
        tokenizer = self.encoder.tokenizer
        encode = tokenizer.encode_plain if self.flavor == "torchmetrics" else tokenizer.encode
        return self._ahead.fill(
            _distinct_texts(calls),
            known=self._embeddings.__contains__,
            encode=lambda texts: encode(texts)[0],
            embed=lambda ids: self.encoder.embed(ids, self.batch_size),
        )

    def _embed(self, sentences: list[str], ids: dict[str, list[int]], keep: set[str]) -> dict[str, Any]:
        """Embeddings of ``sentences`` (unique), reusing those kept or computed ahead and keeping those in
        ``keep``."""
        found: dict[str, Any] = {}
        missing: list[str] = []
        for sentence in sentences:
            vector = self._embeddings.get(sentence)
            if vector is None and "_ahead" in self.__dict__:
                vector = self._ahead.get(sentence)
            if vector is None:
                missing.append(sentence)
            else:
                found[sentence] = vector
        vectors = self.encoder.embed([ids[s] for s in missing], self.batch_size) if missing else []
        found.update(zip(missing, vectors, strict=True))
        for sentence in sentences:
            if sentence in keep and sentence not in self._embeddings and len(self._embeddings) < self.cache_sentences:
                self._embeddings[sentence] = found[sentence]
        return found

    def segment_stats(self, hypotheses: Sequence[Any], references: Sequence[Any]) -> Stats:
        """Rows of precision, recall, F (each its own maximum over the references), a count of 1
        and the reference count, as float64 (the float32 values of the model)."""
        torch = require("torch", "BERTScore")
        hyps, refs = validate_text(hypotheses, references)
        counts = reference_counts(refs)
        if not hyps:
            return Stats(SCHEMA, np.empty((0, SCHEMA.width)))
        flat_hyps = [h for h, group in zip(hyps, refs, strict=True) for _ in group]
        flat_refs = [r for group in refs for r in group]
        unique = list(dict.fromkeys(hyps + flat_refs))
        tokenizer = self.encoder.tokenizer
        torchmetrics = self.flavor == "torchmetrics"
        encoded, cut = tokenizer.encode_plain(unique) if torchmetrics else tokenizer.encode(unique)
        ids = dict(zip(unique, encoded, strict=True))
        if cut:
            cut_texts = {unique[i] for i in cut}
            warn_truncated(
                {
                    "hypotheses": [i for i, h in enumerate(hyps) if h in cut_texts],
                    "references": [i for i, group in enumerate(refs) if any(r in cut_texts for r in group)],
                },
                tokenizer.max_length,
                "BERTScore",
            )
        vectors = self._embed(unique, ids, set(flat_refs))
        weight = self._weights(flat_refs, ids, frozenset() if torchmetrics else tokenizer.special_ids)
        values = (_torchmetrics if torchmetrics else _greedy)(
            [vectors[h] for h in flat_hyps],
            [vectors[r] for r in flat_refs],
            [torch.tensor([weight(t) for t in ids[h]], dtype=torch.float32) for h in flat_hyps],
            [torch.tensor([weight(t) for t in ids[r]], dtype=torch.float32) for r in flat_refs],
            self.batch_size,
        )
        if counts.max(initial=1) > 1:
            bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            values = torch.stack([values[bounds[i] : bounds[i + 1]].max(dim=0)[0] for i in range(len(hyps))])
        if self.baseline is not None:
            base = torch.from_numpy(self.baseline)
            values = (values - base) / (1 - base)
        rows = np.empty((len(hyps), SCHEMA.width), dtype=np.float64)
        rows[:, 0:3] = values.numpy().astype(np.float64)
        rows[:, 3] = 1.0
        rows[:, 4] = counts
        rows[:, 5] = counts
        return Stats(SCHEMA, rows)

    def _weights(self, flat_refs: list[str], ids: dict[str, list[int]], special: frozenset[int]) -> Any:
        """Token weight function: idf over the references (bert-score's ``get_idf_dict``), or 1 with
        the special tokens at 0."""
        if not self.idf:
            return lambda token: 0.0 if token in special else 1.0
        documents = len(flat_refs)
        frequency = Counter(token for r in flat_refs for token in set(ids[r]))
        unseen = math.log(documents + 1)
        table = {token: math.log((documents + 1) / (count + 1)) for token, count in frequency.items()}
        return lambda token: table.get(token, unseen)

    # -- scores ---------------------------------------------------------------------------

    def _means(self, totals: np.ndarray) -> np.ndarray:
        totals = np.asarray(totals, dtype=np.float64)
        count = totals[..., 3:4]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, totals[..., 0:3] / count, 0.0)

    def corpus_values(self, totals: np.ndarray) -> np.ndarray:
        return self._means(totals)[..., 2]

    def segment_values(self, stats: Stats) -> np.ndarray:
        """Per-segment ``[precision, recall, f1]``: an ``(n, 3)`` array."""
        return np.asarray(stats.rows[:, 0:3], dtype=np.float64)

    def components(self, totals: np.ndarray) -> dict[str, Any]:
        precision, recall, f1 = (float(v) for v in self._means(totals))
        return {"precision": precision, "recall": recall, "f1": f1, "n_segments": int(totals[3])}

    def signature(self, totals: np.ndarray) -> Signature:
        low, high = totals[4], totals[5]
        nrefs = nrefs_field(int(low), int(high)) if np.isfinite(low) and np.isfinite(high) and low <= high else "0"

        def build() -> Signature:
            baseline = "no"
            if self.rescale_with_baseline:
                assert self.baseline_path is not None
                baseline = "custom-" + weights_sha256(Path(self.baseline_path))[:12]
            return Signature.build(
                nrefs="{nrefs}",
                model=Path(str(self.model).rstrip("/")).name or str(self.model),
                sha256=weights_sha256(self.folder)[:16],
                layer=self.encoder.num_layers,
                idf=self.idf,
                rescaled=baseline,
                dtype=self.dtype,
                flavor=self.flavor,
                transformers=transformers_version(),
            )

        template = self._memo("signature", build)
        return Signature(tuple((k, nrefs if v == "{nrefs}" else v) for k, v in template.items))


def _distinct_texts(calls: Iterable[tuple[Any, ...]]) -> Iterator[list[str]]:
    """The distinct hypotheses and references of each call, as its ``segment_stats`` reads them (an invalid call:
    none)."""
    for call in calls:
        try:
            hyps, refs = validate_text(call[0], call[1])
        except InputError:
            yield []
            continue
        yield list(dict.fromkeys([*hyps, *(r for group in refs for r in group)]))


def _torchmetrics(*args: Any) -> Any:
    from nlpeval.metrics.bertscore.greedy import torchmetrics_match

    return torchmetrics_match(*args)


def _greedy(*args: Any) -> Any:
    from nlpeval.metrics.bertscore.greedy import greedy_match

    return greedy_match(*args)
