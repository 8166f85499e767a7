"""COMET's regression model rebuilt in plain torch around a stock transformers XLM-R encoder.

As unbabel-comet 2.2.7 (``RegressionMetric``): every hidden state of the encoder (embeddings included)
is mixed by a layer-wise attention (softmax or sparsemax of scalar weights, optionally each layer
normalised over its unmasked tokens x dimensions with eps 1e-12, scaled by gamma), average-pooled over
the non-padding tokens, and the features ``[h, r, h*r, |h-r|, h*s, |h-s|]`` go through the feed-forward
estimator (Linear, activation, dropout (off), ..., Linear) to one score.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from nlpeval.metrics.comet.checkpoint import CometCheckpoint
from nlpeval.neural.deps import quiet_transformers, require


def sparsemax(weights: Any) -> Any:
    """Sparsemax of a 1-D tensor (Martins and Astudillo, 2016): the Euclidean projection on the simplex.

    Examples
    --------
    >>> import torch
    >>> sparsemax(torch.tensor([0.5, 0.0, 1.0])).tolist()
    [0.25, 0.0, 0.75]
    """
    torch = require("torch", "COMET")
    ordered, _ = torch.sort(weights, descending=True)
    cumulative = ordered.cumsum(dim=0) - 1
    ranks = torch.arange(1, weights.numel() + 1, dtype=weights.dtype)
    support = (ranks * ordered - cumulative) > 0
    k = int(support.sum())
    tau = cumulative[k - 1] / k
    return torch.clamp(weights - tau, min=0)


#: stock transformers classes of COMET's ``encoder_model`` names (configuration, model)
ENCODERS = {
    "XLM-RoBERTa": ("XLMRobertaConfig", "XLMRobertaModel"),
    "XLM-RoBERTa-XL": ("XLMRobertaXLConfig", "XLMRobertaXLModel"),
}


def build(checkpoint: CometCheckpoint, *, dtype: str = "float32") -> Any:
    """The COMET model of ``checkpoint`` as a ``torch.nn.Module`` (eval mode).

    ``regression_metric``: encoder, layer mix and the estimator over ``[h, r, h*r, |h-r|, h*s, |h-s|]``.
    ``unified_metric`` / ``xcomet_metric`` (CometKiwi, xCOMET): encoder, layer mix (``sent_layer: mix``) and
    the estimator over the first token's embedding, plus the word-level tagger ``hidden2tag`` when the model
    tags words (xCOMET always; a unified model with ``word_level_training``).
    """
    torch = require("torch", "COMET")
    transformers = require("transformers", "COMET")
    nn = torch.nn
    # torch is loaded at run time (``require``), so to mypy its classes are ``Any``: a typed alias of the base
    module_base: Any = nn.Module
    hparams = checkpoint.hparams
    kind = checkpoint.kind
    config_name, model_name = ENCODERS[checkpoint.encoder_model]
    with quiet_transformers():
        config = getattr(transformers, config_name).from_pretrained(str(checkpoint.encoder), local_files_only=True)
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(checkpoint.encoder), local_files_only=True)
    unified = kind in ("unified_metric", "xcomet_metric")
    features = 1 if unified else 4 if kind == "referenceless_regression_metric" else 6
    mixed = str(hparams.get("sent_layer", hparams.get("layer", "mix")) if unified else hparams.get("layer", "mix"))
    word_level = kind == "xcomet_metric" or (unified and bool(hparams.get("word_level_training", False)))
    labels = list(hparams.get("error_labels") or ["minor", "major", "critical"]) if word_level else []

    class Encoder(module_base):
        def __init__(self) -> None:
            super().__init__()
            self.model = getattr(transformers, model_name)(config, add_pooling_layer=False)

    class LayerMix(module_base):
        def __init__(self, count: int) -> None:
            super().__init__()
            self.scalar_parameters = nn.ParameterList([nn.Parameter(torch.zeros(1)) for _ in range(count)])
            self.gamma = nn.Parameter(torch.ones(1))

    class Estimator(module_base):
        def __init__(self, dim: int) -> None:
            super().__init__()
            sizes = [dim, *hparams.get("hidden_sizes", [3072, 1024])]
            activation = getattr(nn, str(hparams.get("activations", "Tanh")).title())
            modules: list[Any] = []
            for a, b in itertools.pairwise(sizes):
                modules += [nn.Linear(a, b), activation(), nn.Dropout(0.0)]
            modules.append(nn.Linear(sizes[-1], 1))
            if hparams.get("final_activation"):
                modules.append(getattr(nn, str(hparams["final_activation"]).title())())
            self.ff = nn.Sequential(*modules)

    class Model(module_base):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = Encoder()
            if mixed == "mix":
                self.layerwise_attention = LayerMix(config.num_hidden_layers + 1)
            self.estimator = Estimator(config.hidden_size * features)
            if word_level:
                self.hidden2tag = nn.Linear(config.hidden_size, len(labels) + 1)

    with _uninitialised(transformers):  # every parameter comes from the checkpoint (a missing one is an error)
        model = Model()
    state = {k: v for k, v in checkpoint.state_dict().items() if not k.startswith("layerwise_attention.dropout_")}
    # assign: the parameters become the checkpoint's (mapped) tensors, not copies of them; only the pages the
    # forward passes read become resident (the 250,002-row embedding is mostly never read)
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    unexpected = [
        k for k in unexpected if not k.endswith("position_ids") and not k.startswith(("wordloss.", "sentloss."))
    ]
    if missing or unexpected:
        raise ValueError(
            f"COMET checkpoint {checkpoint.weights} does not match its hparams.yaml: "
            f"missing {missing[:5]}, unexpected {unexpected[:5]}"
        )
    model.eval()
    model.to(getattr(torch, dtype))
    model.tokenizer = tokenizer
    model.max_length = config.max_position_embeddings - 4  # COMET: max_positions - 2, itself mpe - 2
    model.max_positions = config.max_position_embeddings - 2
    model.num_layers = config.num_hidden_layers + 1
    model.kind = kind
    model.sent_layer = mixed
    model.word_level = word_level
    model.labels = ["O", *(f"I-{label}" for label in labels)]
    return model


def _uninitialised(transformers: Any) -> Any:
    """transformers' ``no_init_weights`` (no random initialisation of parameters that the checkpoint then
    overwrites: about 2 s of CPU for an XLM-R-base-sized encoder), or nothing where this version has none."""
    import contextlib

    for module in ("initialization", "modeling_utils"):  # transformers 5.x, 4.x
        found = getattr(import_module(f"transformers.{module}"), "no_init_weights", None) if _has(module) else None
        if found is not None:
            return found()
    return contextlib.nullcontext()


def _has(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(f"transformers.{module}") is not None


def layer_weights(model: Any, transformation: str) -> Any:
    """The normalised layer weights (sparsemax only when named, as COMET's ``LayerwiseAttention``)."""
    torch = require("torch", "COMET")
    weights = torch.cat(list(model.layerwise_attention.scalar_parameters))
    return sparsemax(weights) if transformation == "sparsemax" else torch.softmax(weights, dim=0)


def pooled_embeddings(
    model: Any, ids: Sequence[Sequence[int]], *, batch_size: int, layer_norm: bool, transformation: str, device: str
) -> list[Any]:
    """The mixed, average-pooled float32 embedding of each id sequence (longest first, padded per batch: see
    :func:`nlpeval.neural.batching.padded_batches`)."""
    from nlpeval.neural.batching import padded_batches

    torch = require("torch", "COMET")
    pad = int(model.tokenizer.pad_token_id)
    out: list[Any] = [None] * len(ids)
    with torch.inference_mode():
        weights = layer_weights(model, transformation)
        gamma = model.layerwise_attention.gamma
        for chunk, tokens, mask in padded_batches(ids, batch_size, pad):
            hidden = model.encoder.model(
                input_ids=tokens.to(device), attention_mask=mask.to(device), output_hidden_states=True
            ).hidden_states
            mixed = gamma * _mix(weights, hidden, mask.to(device) if layer_norm else None)
            keep = tokens.to(device).eq(pad).unsqueeze(-1)
            summed = mixed.float().masked_fill_(keep, 0.0).type_as(mixed).sum(1)
            pooled = (summed / mask.to(device).unsqueeze(-1).expand(mixed.size()).float().sum(1)).float().cpu()
            for row, i in enumerate(chunk):
                out[i] = pooled[row].clone()
    return out


def _mix(weights: Any, hidden: Sequence[Any], mask: Any | None) -> Any:
    """COMET's weighted sum of the hidden states (each layer-normalised over ``mask`` when given), added in
    layer order as Python's ``sum`` adds them, into one buffer; a layer of weight exactly 0 (sparsemax gives
    zeros) adds exact zeros and is skipped.

    Examples
    --------
    >>> import torch
    >>> hidden = [torch.full((1, 2, 3), float(i)) for i in range(3)]
    >>> _mix(torch.tensor([0.25, 0.0, 0.75]), hidden, None)[0, 0].tolist()
    [1.5, 1.5, 1.5]
    """
    torch = require("torch", "COMET")
    total = None
    for w, h in zip(torch.split(weights, 1), hidden, strict=True):
        if total is not None and not bool(w.ne(0).item()):
            continue
        term = w * (_layer_norm(h, mask) if mask is not None else h)
        total = term if total is None else total.add_(term)
    return total


def _layer_norm(tensor: Any, mask: Any) -> Any:
    """COMET's masked layer normalisation over all tokens x dimensions of each sequence."""
    torch = require("torch", "COMET")
    mask = mask.float()
    broadcast = mask.unsqueeze(-1)
    batch, _, dim = tensor.size()
    count = mask.sum(1) * dim
    masked = tensor * broadcast
    mean = (masked.view(batch, -1).sum(1) / count).view(batch, 1, 1)
    variance = (((masked - mean) * broadcast) ** 2).view(batch, -1).sum(1) / count
    return (tensor - mean) / torch.sqrt(variance + 1e-12).view(batch, 1, 1)


def estimate(model: Any, src: Any, mt: Any, ref: Any | None) -> Any:
    """Scores of stacked ``(n, dim)`` source, translation and reference embeddings (``ref`` None: the
    reference-free ``referenceless_regression_metric`` features ``[h, s, h*s, |h-s|]``)."""
    torch = require("torch", "COMET")
    with torch.inference_mode():
        if ref is None:
            features = torch.cat((mt, src, mt * src, torch.abs(mt - src)), dim=1)
        else:
            features = torch.cat((mt, ref, mt * ref, torch.abs(mt - ref), mt * src, torch.abs(mt - src)), dim=1)
        parameter = next(model.estimator.parameters())
        return model.estimator.ff(features.to(parameter.device, parameter.dtype)).view(-1).float().cpu()
