"""The COMET metric object: unbabel-comet 2.2.7's regression scores from a local checkpoint.

Each segment's statistics row holds its score and a count, so the system score (COMET's mean of the
segment scores) is a sum over rows divided by the count, and every statistic of nlpeval applies. The
object keeps the model and the pooled embeddings of the sources and references it has seen, so several
systems scored against the same sources and references embed them once.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats
from nlpeval.core.validation import validate_segments
from nlpeval.metrics.bertscore.tokenize import TruncationWarning
from nlpeval.metrics.comet.checkpoint import CometCheckpoint
from nlpeval.metrics.comet.unified import defaults
from nlpeval.neural.ahead import LookAhead
from nlpeval.neural.deps import require, transformers_version
from nlpeval.neural.local import weights_sha256
from nlpeval.neural.segment_mean import SCHEMA, SegmentMeanMetric

#: error spans per segment (xCOMET): one tuple of span mappings (text, start, end, severity, confidence) each
Spans = tuple[tuple[Mapping[str, Any], ...], ...]


def _spans(found: Mapping[str, Any]) -> Spans | None:
    """The error spans of :meth:`COMET.predict`'s outputs as a tuple per segment (None: the model tags none)."""
    if "error_spans" not in found:
        return None
    return tuple(tuple(segment) for segment in found["error_spans"])


@dataclass(frozen=True)
class COMET(SegmentMeanMetric):
    """COMET (Rei et al., 2020; COMET-22) as unbabel-comet 2.2.7 ``predict``, from a local checkpoint.

    See :func:`nlpeval.comet`. Call it as ``metric(hypotheses, references, sources=sources)``.

    Examples
    --------
    >>> from nlpeval.neural.examples import tiny_comet
    >>> metric = COMET(model=tiny_comet())
    >>> s = metric(["Die Katze sitzt."], ["Die Katze saß."], sources=["The cat sat."])
    >>> s.name, len(s.signature.split("|")) > 5
    ('comet', True)
    """

    model: str | Path
    batch_size: int = 16
    device: str | None = None
    dtype: str = "float32"
    cache_sentences: int = 100_000
    #: tokens of texts that :meth:`prefetch` embeds ahead at most (their pooled embeddings are kept: one vector each)
    prefetch_tokens: ClassVar[int] = 1 << 18
    _embeddings: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)
    _inputs: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)
    _truncated: set[str] = field(default_factory=set, init=False, repr=False, compare=False, hash=False)

    name: ClassVar[str] = "comet"
    flavor: ClassVar[str] = "unbabel-comet"

    def __post_init__(self) -> None:
        if not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise ValueError(f"batch_size must be a positive int; got {self.batch_size!r}")
        if self.dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"dtype must be float32, bfloat16 or float16; got {self.dtype!r}")

    @cached_property
    def checkpoint(self) -> CometCheckpoint:
        """The located checkpoint (folder, weights, hparams, encoder)."""
        return CometCheckpoint.locate(self.model)

    @cached_property
    def network(self) -> Any:
        """The rebuilt torch model."""
        from nlpeval.metrics.comet.model import build

        torch = require("torch", "COMET")
        model = build(self.checkpoint, dtype=self.dtype)
        model.device_name = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        model.to(model.device_name)
        return model

    def _encode(self, texts: list[str]) -> tuple[list[list[int]], list[int]]:
        tokenizer, limit = self.network.tokenizer, self.network.max_length
        encoded = tokenizer(texts, add_special_tokens=True, verbose=False)["input_ids"] if texts else []
        cut = [i for i, ids in enumerate(encoded) if len(ids) > limit]
        out = []
        for ids in encoded:
            if len(ids) > limit:  # the tokenizer's truncation: keep the last special token
                ids = [*ids[: limit - 1], ids[-1]]
            out.append(list(ids))
        return out, cut

    def _embedded(self, ids: list[list[int]]) -> list[Any]:
        """The pooled embedding of each id sequence (length-sorted batches of ``batch_size``)."""
        from nlpeval.metrics.comet.model import pooled_embeddings

        hparams = self.checkpoint.hparams
        return pooled_embeddings(
            self.network,
            ids,
            batch_size=self.batch_size,
            layer_norm=bool(hparams.get("layer_norm", True)),
            transformation=str(hparams.get("layer_transformation", "softmax")),
            device=self.network.device_name,
        )

    def _known(self, text: str) -> Any | None:
        """The pooled embedding of ``text`` kept from an earlier call or computed ahead (:meth:`prefetch`)."""
        vector = self._embeddings.get(text)
        if vector is None and "_ahead" in self.__dict__:
            vector = self._ahead.get(text)
        return vector

    def _pooled(self, texts: list[str], keep: set[str], encoded: Mapping[str, list[int]]) -> dict[str, Any]:
        """The pooled embedding of every text: those kept from earlier calls or computed ahead, the others
        computed from their ids (``encoded``: every other text, tokenised once by :meth:`predict`)."""
        found: dict[str, Any] = {}
        missing = []
        for text in dict.fromkeys(texts):
            vector = self._known(text)
            if vector is None:
                missing.append(text)
            else:
                found[text] = vector
        if missing:
            found.update(zip(missing, self._embedded([encoded[t] for t in missing]), strict=True))
        for text in dict.fromkeys(texts):
            if text in keep and text not in self._embeddings and len(self._embeddings) < self.cache_sentences:
                self._embeddings[text] = found[text]
        return found

    @cached_property
    def _ahead(self) -> LookAhead:
        """The embeddings computed ahead by :meth:`prefetch`."""
        return LookAhead(self.prefetch_tokens)

    def prefetch(self, calls: Iterable[tuple[Sequence[Any], Sequence[Any] | None, Sequence[Any] | None]]) -> int:
        """Embed ahead, in one pool, the texts of the coming calls (``(hypotheses, references, sources)`` of each,
        in calling order); return how many texts were embedded.

        As :meth:`nlpeval.BERTScore.prefetch`: the distinct sources, references and hypotheses of the first call
        and of as many following calls as fit in :attr:`prefetch_tokens` tokens are sorted by length together and
        embedded once each. Only for the regression models (COMET-22, CometKiwi): xCOMET and the other unified
        models encode each segment's inputs together (0 for them). A call whose input is invalid is skipped here
        (its own call reports it).

        Examples
        --------
        >>> from nlpeval.neural.examples import tiny_comet
        >>> metric = COMET(model=tiny_comet())
        >>> src, ref = ["The cat sat.", "It rains."], ["Die Katze saß.", "Es regnet."]
        >>> systems = [["Die Katze sitzt.", "Es regnet."], ["Eine Katze.", "Es regnet."]]
        >>> metric.prefetch((hyps, ref, src) for hyps in systems)  # 6 distinct texts, one pool
        6
        """
        if self.checkpoint.kind in ("unified_metric", "xcomet_metric"):
            return 0

        def encode(texts: list[str]) -> list[list[int]]:
            ids, cut = self._encode(texts)
            self._truncated.update(texts[i] for i in cut)  # for the warning of the call that uses them
            return ids

        return self._ahead.fill(
            self._call_texts(calls), known=self._embeddings.__contains__, encode=encode, embed=self._embedded
        )

    def _call_texts(
        self, calls: Iterable[tuple[Sequence[Any], Sequence[Any] | None, Sequence[Any] | None]]
    ) -> Iterator[list[str]]:
        """The distinct sources, references and hypotheses of each call that :meth:`predict` embeds (an invalid
        call: none)."""
        for hypotheses, references, sources in calls:
            try:
                hyps = validate_segments(hypotheses, "hypotheses")
                mode = self.inputs(references, sources)
                srcs = validate_segments(sources, "sources") if sources is not None and "src" in mode else []
                refs = validate_segments(references, "references") if references is not None and "ref" in mode else []
            except InputError:
                yield []
                continue
            if any(len(side) not in (0, len(hyps)) for side in (srcs, refs)):
                yield []
                continue
            yield list(dict.fromkeys([*srcs, *refs, *hyps]))

    def _tokenised(self, texts: list[str]) -> tuple[dict[str, list[int]], set[str]]:
        """(ids of every distinct text whose embedding is not kept, every text cut to the model's length): one
        tokenisation per text, shared by the truncation warning and the encoder (a kept text's cut is kept)."""
        unique = list(dict.fromkeys(texts))
        missing = [t for t in unique if self._known(t) is None]
        ids, cut = self._encode(missing)
        truncated = {missing[i] for i in cut} | {t for t in unique if t in self._truncated}
        return dict(zip(missing, ids, strict=True)), truncated

    # `sources` is keyword-only without a default on purpose: neural/worker.py reads the missing default as "this
    # metric needs the sources" and names them; so the override is narrower than CorpusMetric's
    def segment_stats(  # type: ignore[override]  # keyword sources without a default (the comment above)
        self, hypotheses: Sequence[Any], references: Sequence[Any] | None = None, *, sources: Sequence[Any] | None
    ) -> Stats:
        """Rows of (segment score, 1)."""
        return self._rows(self.predict(hypotheses, references, sources=sources)["scores"])

    @property
    def tags_errors(self) -> bool:
        """Whether the checkpoint tags error spans (xCOMET; a unified model trained on word level).

        Read from ``hparams.yaml`` alone: no model is loaded.

        Examples
        --------
        >>> from nlpeval.neural.examples import tiny_comet
        >>> COMET(model=tiny_comet()).tags_errors
        False
        """
        kind = self.checkpoint.kind
        return kind == "xcomet_metric" or (
            kind == "unified_metric" and bool(self.checkpoint.hparams.get("word_level_training", False))
        )

    def segment_stats_and_spans(
        self, hypotheses: Sequence[Any], references: Sequence[Any] | None = None, *, sources: Sequence[Any] | None
    ) -> tuple[Stats, Spans | None]:
        """The rows of :meth:`segment_stats` and each segment's error spans from the same forward pass
        (``None`` for a model that does not tag errors, see :attr:`tags_errors`)."""
        found = self.predict(hypotheses, references, sources=sources)
        return self._rows(found["scores"]), _spans(found)

    @staticmethod
    def _rows(scores: np.ndarray) -> Stats:
        rows = np.empty((len(scores), 2), dtype=np.float64)
        rows[:, 0] = scores
        rows[:, 1] = 1.0
        return Stats(SCHEMA, rows)

    def inputs(self, references: Sequence[Any] | None, sources: Sequence[Any] | None) -> str:
        """The inputs this model reads from the ones given: ``src+ref``, ``src`` or ``ref``.

        A regression model (COMET-22) needs both; a CometKiwi model reads the source only (a reference is
        ignored, as COMET does); xCOMET reads whichever it is given (both: its three-input score).
        """
        segments = (
            ("mt", "src", "ref") if self.checkpoint.kind == "regression_metric" else self.checkpoint.input_segments
        )
        used = [
            side for side, given in (("src", sources), ("ref", references)) if side in segments and given is not None
        ]
        if self.checkpoint.kind == "regression_metric" and len(used) < 2:
            missing = "sources" if sources is None else "references"
            raise InputError(f"this COMET model ({self.checkpoint.kind}) needs {missing}", side=missing)
        if not used:
            wanted = " or ".join({"src": "sources", "ref": "references"}[s] for s in segments if s != "mt")
            raise InputError(f"this COMET model ({self.checkpoint.kind}) needs {wanted}")
        return "+".join(used)

    def predict(
        self, hypotheses: Sequence[Any], references: Sequence[Any] | None = None, *, sources: Sequence[Any] | None
    ) -> dict[str, Any]:
        """Segment scores (``scores``, float64 array) and the model's other outputs, in input order.

        xCOMET adds ``error_spans`` (a list of spans per segment), ``mqm_scores`` and, with sources and
        references, ``src_scores``, ``ref_scores`` and ``unified_scores`` (the three inputs' regression scores).
        """
        torch = require("torch", "COMET")
        hyps = validate_segments(hypotheses, "hypotheses")
        mode = self.inputs(references, sources)
        srcs = validate_segments(sources, "sources") if sources is not None and "src" in mode else None
        refs = validate_segments(references, "references") if references is not None and "ref" in mode else None
        for side, values in (("sources", srcs), ("references", refs)):
            if values is not None and len(values) != len(hyps):
                raise InputError(f"{len(hyps)} hypotheses but {len(values)} {side}", side=side)
        self._inputs["mode"] = mode
        if not hyps:
            return {"scores": np.empty(0), **({"error_spans": []} if self.tags_errors else {})}
        encoded, truncated = self._tokenised([*hyps, *(refs or []), *(srcs or [])])
        self._warn_truncated(hyps, refs or [], srcs or [], truncated)
        if self.checkpoint.kind in ("unified_metric", "xcomet_metric"):
            from nlpeval.metrics.comet.unified import predict

            found = predict(
                self.network,
                hyps,
                srcs,
                refs,
                hparams=self.checkpoint.hparams,
                batch_size=self.batch_size,
                device=self.network.device_name,
            )
            return {k: v if k == "error_spans" else v.numpy().astype(np.float64) for k, v in found.items()}
        assert srcs is not None
        kept = refs or []
        keep = set(srcs) | set(kept)
        vectors = self._pooled(srcs + kept + hyps, keep, encoded)
        self._truncated.update(t for t in truncated if t in self._embeddings)
        from nlpeval.metrics.comet.model import estimate

        scores = estimate(
            self.network,
            torch.stack([vectors[t] for t in srcs]),
            torch.stack([vectors[t] for t in hyps]),
            None if refs is None else torch.stack([vectors[t] for t in refs]),
        )
        return {"scores": scores.numpy().astype(np.float64)}

    def _warn_truncated(self, hyps: list[str], refs: list[str], srcs: list[str], truncated: set[str]) -> None:
        """One :class:`TruncationWarning` naming the segments of each side that were cut (the texts in
        ``truncated``)."""
        parts = []
        for side, texts in (("hypotheses", hyps), ("references", refs), ("sources", srcs)):
            cut = [i for i, text in enumerate(texts) if text in truncated] if truncated else []
            if cut:
                parts.append(f"{side} {', '.join(map(str, cut[:20]))}{', ...' if len(cut) > 20 else ''} ({len(cut)})")
        if parts:
            warnings.warn(
                f"COMET: segments longer than {self.network.max_length} tokens were cut to that length: "
                + "; ".join(parts),
                TruncationWarning,
                stacklevel=4,  # the caller of segment_stats or __call__
            )

    def __call__(  # type: ignore[override]  # sources keyword-only without a default, as segment_stats
        self,
        hypotheses: Sequence[Any],
        references: Sequence[Any] | None = None,
        *,
        sources: Sequence[Any] | None,
        segments: bool = False,
        n_bootstrap: int = 0,
        seed: int | None = 12345,
    ) -> Any:
        found = self.predict(hypotheses, references, sources=sources)
        score = self.score_from_stats(
            self._rows(found["scores"]), segments=segments, n_bootstrap=n_bootstrap, seed=seed
        )
        spans = _spans(found)
        return score if spans is None else dataclasses.replace(score, error_spans=spans)

    def signature(self, totals: np.ndarray) -> Signature:
        mode = self._inputs.get("mode", "src+ref")

        def build() -> Signature:
            hparams = self.checkpoint.hparams
            kind = self.checkpoint.kind
            layer = hparams.get("sent_layer", hparams.get("layer", "mix"))
            transformation = hparams.get("layer_transformation", defaults(kind)["layer_transformation"])
            fields = {
                "model": self.checkpoint.folder.name,
                "sha256": weights_sha256(self.checkpoint.weights)[:16],
                "encoder": str(hparams.get("pretrained_model", "")),
                "layers": f"{layer}-{transformation}",
            }
            if kind != "regression_metric":  # CometKiwi / xCOMET: which inputs were scored changes the metric
                fields["type"] = kind.removesuffix("_metric")
                fields["inputs"] = mode
            return Signature.build(**fields, dtype=self.dtype, flavor=self.flavor, transformers=transformers_version())

        return self._memo(("signature", mode), build)
