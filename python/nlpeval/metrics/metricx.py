"""MetricX-23 and MetricX-24 (Juraska et al., 2023, 2024) from local weights, on today's transformers.

MetricX is an mT5 encoder-decoder read as a regressor: the input text is
``candidate: {hyp} reference: {ref}`` (23; QE: ``candidate: {hyp} source: {src}``) or
``source: {src} candidate: {hyp} reference: {ref}`` (24; QE drops the reference), tokenized with
truncation at ``max_input_length`` and the final EOS dropped; the decoder runs one step from token 0 and
the score is the logit of vocabulary id 250089, clamped to [0, 25]. Lower is better (an MQM-like error
score). Stock ``MT5ForConditionalGeneration`` gives it bit for bit, so nothing of MetricX's code is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.core.score import Score
from nlpeval.core.signature import Signature
from nlpeval.core.stats import Stats
from nlpeval.core.validation import validate_segments
from nlpeval.metrics.bertscore.tokenize import warn_truncated
from nlpeval.neural.deps import quiet_transformers, require, transformers_version
from nlpeval.neural.local import require_file, resolve_model, weights_sha256
from nlpeval.neural.segment_mean import SCHEMA, SegmentMeanMetric

#: the vocabulary id whose first-step logit is MetricX's score
SCORE_TOKEN = 250089

VERSIONS = ("23", "24")


def metricx_input(version: str, hypothesis: str, reference: str | None, source: str | None) -> str:
    """MetricX's input text for one segment (``predict.py``'s ``_make_input``).

    Examples
    --------
    >>> metricx_input("24", "Hallo", "Hallo!", "Hello")
    'source: Hello candidate: Hallo reference: Hallo!'
    >>> metricx_input("23", "Hallo", None, "Hello")
    'candidate: Hallo source: Hello'
    """
    if version == "23":
        if reference is None:
            return f"candidate: {hypothesis} source: {source}"
        return f"candidate: {hypothesis} reference: {reference}"
    if reference is None:
        return f"source: {source} candidate: {hypothesis}"
    return f"source: {source} candidate: {hypothesis} reference: {reference}"


@dataclass(frozen=True)
class MetricX(SegmentMeanMetric):
    """MetricX-23/24 as google-research/metricx (``MT5ForRegression``), from local files.

    See :func:`nlpeval.metricx`.

    Examples
    --------
    >>> MetricX(model="/models/metricx-24-hybrid-large-v2p6", tokenizer="/models/mt5-large").version
    '24'
    """

    model: str | Path
    tokenizer: str | Path = "google/mt5-xl"
    version: str = "24"
    max_input_length: int = 1536
    batch_size: int = 8
    device: str | None = None
    dtype: str = "float32"

    name: ClassVar[str] = "metricx"
    flavor: ClassVar[str] = "metricx"

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise ValueError(f"MetricX version must be '23' or '24'; got {self.version!r}")
        if self.dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"dtype must be float32, bfloat16 or float16; got {self.dtype!r}")

    @cached_property
    def folder(self) -> Path:
        """The model folder (a path, or a hub name in the local Hugging Face cache)."""
        folder = resolve_model(self.model, metric="MetricX")
        require_file(folder, ("config.json",), metric="MetricX", what="model configuration")
        return folder

    @cached_property
    def loaded(self) -> tuple[Any, Any, str]:
        """(tokenizer, model, device), from local files only."""
        torch = require("torch", "MetricX")
        transformers = require("transformers", "MetricX")
        folder = self.folder  # the model first: its error is the one to report when both are missing
        tokenizer_folder = resolve_model(self.tokenizer, metric="MetricX", what="tokenizer")
        with quiet_transformers():
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(tokenizer_folder), local_files_only=True)
            # eager attention: matmul, + position bias, float softmax, matmul, the op order of transformers
            # 4.30.2 (MetricX's pin); the default SDPA kernel of 5.x rounds differently (2.5e-5 on the tiny
            # fixture's 0-25 scores), eager gives 4.30.2's scores bit for bit
            model = transformers.MT5ForConditionalGeneration.from_pretrained(
                str(folder), local_files_only=True, dtype=getattr(torch, self.dtype), attn_implementation="eager"
            )
        model.eval()
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device)
        return tokenizer, model, device

    @cached_property
    def _trailing_space_id(self) -> int | None:
        """The id of the lone ``▁`` piece when this transformers drops a text's trailing whitespace (5.x does;
        4.x, which MetricX pins, keeps it as ``▁`` before the EOS); None when the tokenizer keeps it itself."""
        tokenizer = self.loaded[0]
        with_space, without = tokenizer("a ")["input_ids"], tokenizer("a")["input_ids"]
        if list(with_space) != list(without):
            return None
        piece = tokenizer.convert_tokens_to_ids("\u2581")
        return None if piece is None or piece == tokenizer.unk_token_id else int(piece)

    def segment_stats(
        self,
        hypotheses: Sequence[Any],
        references: Sequence[Any] | None = None,
        *,
        sources: Sequence[Any] | None = None,
    ) -> Stats:
        """Rows of (segment score, 1)."""
        torch = require("torch", "MetricX")
        hyps = validate_segments(hypotheses, "hypotheses")
        refs = None if references is None else validate_segments(references, "references")
        srcs = None if sources is None else validate_segments(sources, "sources")
        if refs is None and srcs is None:
            raise InputError("MetricX needs references, sources (QE) or both")
        if self.version == "24" and srcs is None:
            raise InputError("MetricX-24 needs sources (its input always starts with the source)", side="sources")
        for side, given in (("references", refs), ("sources", srcs)):
            if given is not None and len(given) != len(hyps):
                raise InputError(f"{len(hyps)} hypotheses but {len(given)} {side}", side=side)
        if not hyps:
            return Stats(SCHEMA, np.empty((0, SCHEMA.width)))
        tokenizer, model, device = self.loaded
        texts = [
            metricx_input(self.version, h, None if refs is None else refs[i], None if srcs is None else srcs[i])
            for i, h in enumerate(hyps)
        ]
        unique = list(dict.fromkeys(texts))
        encoded = [list(seq) for seq in tokenizer(unique, verbose=False)["input_ids"]]
        space = self._trailing_space_id
        if space is not None:  # transformers 4.x's mT5 tokenizer ends a text ending in whitespace with "▁"
            encoded = [
                [*seq[:-1], space, seq[-1]] if text[-1:].isspace() else seq
                for text, seq in zip(unique, encoded, strict=True)
            ]
        cut = [i for i, t in enumerate(texts) if len(encoded[unique.index(t)]) > self.max_input_length]
        warn_truncated({"segments": cut}, self.max_input_length, "MetricX")
        # the tokenizer's truncation keeps the final EOS, which MetricX then drops
        ids = [
            [*seq[: self.max_input_length - 1], seq[-1]][:-1] if len(seq) > self.max_input_length else seq[:-1]
            for seq in encoded
        ]
        pad = int(tokenizer.pad_token_id)
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        values = np.empty(len(ids), dtype=np.float64)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                width = max(1, len(ids[chunk[0]]))
                tokens = torch.full((len(chunk), width), pad, dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for row, i in enumerate(chunk):
                    tokens[row, : len(ids[i])] = torch.tensor(ids[i], dtype=torch.long)
                    mask[row, : len(ids[i])] = 1
                logits = model(
                    input_ids=tokens.to(device),
                    attention_mask=mask.to(device),
                    decoder_input_ids=torch.zeros((len(chunk), 1), dtype=torch.long, device=device),
                    use_cache=False,
                ).logits
                scores = torch.clamp(logits[:, 0, SCORE_TOKEN], 0, 25).float().cpu().numpy()
                values[chunk] = scores
        position = {t: i for i, t in enumerate(unique)}
        rows = np.empty((len(hyps), 2), dtype=np.float64)
        rows[:, 0] = values[[position[t] for t in texts]]
        rows[:, 1] = 1.0
        return Stats(SCHEMA, rows)

    def __call__(
        self,
        hypotheses: Sequence[Any],
        references: Sequence[Any] | None = None,
        *,
        sources: Sequence[Any] | None = None,
        segments: bool = False,
    ) -> Score:
        return self.score_from_stats(self.segment_stats(hypotheses, references, sources=sources), segments=segments)

    def signature(self, totals: np.ndarray) -> Signature:
        def build() -> Signature:
            return Signature.build(
                model=Path(str(self.model).rstrip("/")).name,
                sha256=weights_sha256(self.folder)[:16],
                tokenizer=Path(str(self.tokenizer).rstrip("/")).name,
                metricx=self.version,
                max_len=self.max_input_length,
                dtype=self.dtype,
                flavor=self.flavor,
                transformers=transformers_version(),
            )

        return self._memo("signature", build)


def metricx(
    hypotheses: Sequence[str],
    references: Sequence[str] | None = None,
    *,
    sources: Sequence[str] | None = None,
    model: str | Path,
    tokenizer: str | Path = "google/mt5-xl",
    version: str = "24",
    max_input_length: int = 1536,
    batch_size: int = 8,
    device: str | None = None,
    dtype: str = "float32",
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """MetricX-23/24 error score of ``hypotheses`` (lower is better, in [0, 25]).

    Parameters
    ----------
    hypotheses : sequence of str
    references : sequence of str, optional
        Omit for quality estimation (QE) with the sources only.
    sources : sequence of str, optional
        Required by MetricX-24 (hybrid: source + reference, or source only); MetricX-23 QE uses them instead
        of references.
    model : str or path
        A local MetricX checkpoint folder (e.g. ``google/metricx-24-hybrid-large-v2p6``), or a hub name in
        the local Hugging Face cache. Never downloaded.
    tokenizer : str or path
        The mT5 tokenizer (MetricX uses ``google/mt5-xl``'s), local folder or cached hub name.
    version : {"24", "23"}
        The input format.
    max_input_length : int
        Token limit of the input (MetricX: 1536 for 24, 1024 for 23); longer inputs are cut with a warning.
    batch_size : int
        Inputs per batch (not in the signature).
    device : str, optional
    dtype : {"float32", "bfloat16", "float16"}
        Model precision (recorded in the signature). The published checkpoints are stored in bfloat16;
        MetricX's ``predict.py`` computes in the stored precision.
    segments : bool
        Attach the per-segment scores.
    n_bootstrap, seed
        Bootstrap confidence interval of the mean.

    Returns
    -------
    Score
        ``.score`` the mean segment score (lower is better).

    Examples
    --------
    >>> metricx_input("23", "Die Katze.", "Die Katze!", None)
    'candidate: Die Katze. reference: Die Katze!'
    """
    metric = MetricX(
        model=model,
        tokenizer=tokenizer,
        version=version,
        max_input_length=max_input_length,
        batch_size=batch_size,
        device=device,
        dtype=dtype,
    )
    return metric.score_from_stats(
        metric.segment_stats(hypotheses, references, sources=sources),
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
