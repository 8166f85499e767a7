"""BERTScore's encoder: a stock transformers model cut to ``num_layers`` layers, loaded from local files.

Sentences are deduplicated, sorted by token length (longest first) and embedded in batches under
``torch.inference_mode``; each sentence keeps its unpadded ``(tokens, dim)`` float32 embedding. The
layer cut follows bert-score 0.3.13's ``get_model`` (the output of layer ``num_layers``, 0 = the
embeddings), for the encoder layouts it knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlpeval.metrics.bertscore.tokenize import OwnedTokenizer
from nlpeval.neural.deps import quiet_transformers, require
from nlpeval.neural.local import ModelNotFoundError, require_file

_DTYPES = ("float32", "bfloat16", "float16")


def _layer_list(model: Any) -> tuple[Any, str]:
    """The module holding the layer list and the attribute name (bert-score's layouts)."""
    for owner, attribute in (
        (getattr(model, "encoder", None), "layer"),  # bert, roberta, xlm-roberta, electra, deberta
        (getattr(model, "encoder", None), "block"),  # t5
        (getattr(model, "transformer", None), "layer"),  # distilbert
        (model, "layers"),  # bart / mbart encoders
        (model, "layer"),  # xlnet
    ):
        layers = getattr(owner, attribute, None) if owner is not None else None
        if layers is not None and hasattr(layers, "__len__") and hasattr(layers, "__getitem__"):
            return owner, attribute
    raise ValueError(f"BERTScore cannot cut the layers of {type(model).__name__}: unsupported architecture")


def cut_layers(model: Any, num_layers: int) -> Any:
    """Keep the first ``num_layers`` layers of ``model`` (in place), as bert-score does."""
    torch = require("torch", "BERTScore")
    owner, attribute = _layer_list(model)
    layers = getattr(owner, attribute)
    if not 0 <= num_layers <= len(layers):
        raise ValueError(f"num_layers must be between 0 and {len(layers)} for this model; got {num_layers}")
    setattr(owner, attribute, torch.nn.ModuleList(list(layers)[:num_layers]))
    return model


def count_layers(model: Any) -> int:
    """Number of layers of ``model``."""
    owner, attribute = _layer_list(model)
    return len(getattr(owner, attribute))


@dataclass
class Encoder:
    """A loaded tokenizer + model pair that embeds sentences.

    Attributes
    ----------
    tokenizer : OwnedTokenizer
    model : torch.nn.Module
        The model cut to ``num_layers`` (or all layers with ``hidden_states=True``).
    num_layers : int
        The layer whose output is used.
    total_layers : int
        The model's layer count before the cut.
    device : str
    dtype : str
    """

    tokenizer: OwnedTokenizer
    model: Any
    num_layers: int
    total_layers: int
    device: str
    dtype: str

    @classmethod
    def load(cls, folder: Path, num_layers: int | None, *, device: str | None, dtype: str) -> Encoder:
        """Load from a local folder only (``local_files_only``: never a network request)."""
        transformers = require("transformers", "BERTScore")
        torch = require("torch", "BERTScore")
        if dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
        require_file(folder, ("config.json",), metric="BERTScore", what="model configuration")
        with quiet_transformers():
            try:
                hf_tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
                model = transformers.AutoModel.from_pretrained(
                    str(folder), local_files_only=True, dtype=getattr(torch, dtype)
                )
            except OSError as exc:
                raise ModelNotFoundError(f"BERTScore model in {folder} is incomplete: {exc}") from None
        model.eval()
        if hasattr(model, "decoder") and hasattr(model, "encoder"):
            model = model.encoder
        total = count_layers(model)
        layers = total if num_layers is None else num_layers
        cut_layers(model, layers)
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device)
        positions = getattr(model.config, "max_position_embeddings", None)
        if positions is not None and getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
            positions -= 2  # RoBERTa's positions start after the padding index
        return cls(OwnedTokenizer.of(hf_tokenizer, max_positions=positions), model, layers, total, device, dtype)

    def embed(self, token_ids: Sequence[Sequence[int]], batch_size: int) -> list[Any]:
        """Float32 ``(tokens, dim)`` embeddings of each id sequence (longest first, padded per batch: see
        :func:`nlpeval.neural.batching.padded_batches`)."""
        from nlpeval.neural.batching import padded_batches

        torch = require("torch", "BERTScore")
        pad = self.tokenizer.tokenizer.pad_token_id
        pad = 0 if pad is None else int(pad)
        out: list[Any] = [None] * len(token_ids)
        with torch.inference_mode():
            for chunk, ids, mask in padded_batches(token_ids, batch_size, pad):
                hidden = self.model(ids.to(self.device), attention_mask=mask.to(self.device))[0]
                hidden = hidden.float().cpu()
                for row, i in enumerate(chunk):
                    out[i] = hidden[row, : len(token_ids[i])].clone()
        return out
