"""COMET's unified models: CometKiwi (reference-free) and xCOMET (scores + error spans), as unbabel-comet 2.2.7.

A ``unified_metric`` (CometKiwi-22/23: ``input_segments: [mt, src]``) or ``xcomet_metric`` (xCOMET-XL/XXL)
encodes the translation jointly with its source and/or reference in one sequence (``<s> mt </s></s> src
</s>``, each part tokenised alone and truncated to ``max_positions - 2`` tokens first, the whole cut to
``max_positions``); the layer mix of all hidden states (``sent_layer: mix``) gives the first token's
embedding, which the estimator turns into a score.

With both a source and a reference, three inputs are scored, ``[mt:src]``, ``[mt:ref]`` and
``[mt:src:ref]``:

* ``unified_metric``: the score is their mean;
* ``xcomet_metric``: each score is capped at 1 and weighted 0.12, 0.33, 0.33, plus 0.22 x an MQM-like score
  from the error spans: ``(25 - min(25, minor + 5 major + 10 critical)) / 25``; the tagger's softmax
  probabilities of the three inputs are averaged with the weights 0.1667, 0.3333, 0.5 before decoding.

With one of them (no reference, or no source) one input is scored; xCOMET then gives ``0.78 x min(score, 1) +
0.22 x MQM``. Error spans are decoded from the translation's sub-words: a run of tokens whose most probable
label is an error starts at the first token (its severity) and ends before the next ``O`` token (a run still
open at the end of the sequence is dropped, as in COMET); ``confidence`` is the mean of the tokens' top
probabilities, ``text`` the decoded tokens, ``start``/``end`` character offsets in the translation.

Segments are batched as ``predict`` does: sorted by the character length of the source (of the reference
when there is no source), ``batch_size`` at a time, each input padded to the longest in its batch, so
scores equal the reference's at its batch size up to float32 rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.neural.deps import require

#: xCOMET's weights of the regression scores of [mt:src], [mt:ref], [mt:src:ref] and of the MQM score
SCORE_WEIGHTS = (0.12, 0.33, 0.33, 0.22)
#: weights of the tagger's probabilities of the three inputs (COMET's ``input_weights_spans``)
SPAN_WEIGHTS = (0.1667, 0.3333, 0.5)
#: MQM penalty per severity, and its cap
SEVERITY_PENALTY = {"minor": 1, "major": 5, "critical": 10}
MQM_CAP = 25


def defaults(kind: str) -> dict[str, Any]:
    """The hyper-parameters' defaults of COMET's model class ``kind`` (used when ``hparams.yaml`` omits them)."""
    if kind == "xcomet_metric":
        return {"layer_transformation": "sparsemax", "layer_norm": False, "word_layer": 36}
    if kind == "unified_metric":
        return {"layer_transformation": "sparsemax", "layer_norm": True, "word_layer": 24}
    return {"layer_transformation": "softmax", "layer_norm": True}


def tokenize(model: Any, texts: Sequence[str], *, offsets: bool = False) -> tuple[list[list[int]], list[Any]]:
    """Ids of each text as COMET's encoder ``prepare_sample`` (special tokens, truncation to
    ``max_positions - 2`` keeping the final ``</s>``), and their character offsets when asked for."""
    if not texts:
        return [], []
    encoded = model.tokenizer(list(texts), add_special_tokens=True, return_offsets_mapping=offsets, verbose=False)
    limit = model.max_length
    ids, spans = [], []
    for i, row in enumerate(encoded["input_ids"]):
        row = list(row)
        cut = len(row) > limit
        ids.append([*row[: limit - 1], row[-1]] if cut else row)
        if offsets:
            found = [tuple(pair) for pair in encoded["offset_mapping"][i]]
            spans.append([*found[: limit - 1], found[-1]] if cut else found)
    return ids, spans


def concatenate(parts: Sequence[Sequence[int]], max_positions: int, tokenizer: Any) -> list[int]:
    """``<s> a </s></s> b </s>...``: COMET's ``concat_sequences`` of one segment's tokenised parts."""
    pad, cls, sep = tokenizer.pad_token_id, tokenizer.cls_token_id, tokenizer.sep_token_id
    pieces = [[t for t in part if t != pad] for part in parts]
    sequence = pieces[0]
    for piece in pieces[1:]:  # XLM-R's pair template (transformers 5 tokenizers no longer expose it)
        sequence = [cls, *sequence[1:-1], sep, sep, *piece[1:-1], sep]
    return sequence[:max_positions]


def comet_order(sources: Sequence[str] | None, references: Sequence[str] | None) -> np.ndarray:
    """``predict``'s order: ``np.argsort`` of the sources' character lengths (the references' without sources)."""
    keys = sources if sources is not None else references
    assert keys is not None
    return np.argsort([len(text) for text in keys])


def _forward(model: Any, batch: list[list[int]], *, device: str, mix: dict[str, Any]) -> tuple[Any, Any]:
    """Scores (n,) and tagger logits (n, width, labels) or None of one padded batch."""
    torch = require("torch", "COMET")
    from nlpeval.metrics.comet.model import _layer_norm, layer_weights

    pad = int(model.tokenizer.pad_token_id)
    width = max(len(ids) for ids in batch)
    tokens = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, ids in enumerate(batch):
        tokens[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        mask[row, : len(ids)] = 1
    tokens, mask = tokens.to(device), mask.to(device)
    hidden = model.encoder.model(input_ids=tokens, attention_mask=mask, output_hidden_states=True).hidden_states
    if model.sent_layer == "mix":
        weights = layer_weights(model, mix["layer_transformation"])
        gamma = model.layerwise_attention.gamma
        norm = mix["layer_norm"]
        embeddings = gamma * sum(
            w * (_layer_norm(h, mask) if norm else h) for w, h in zip(torch.split(weights, 1), hidden, strict=True)
        )
    else:
        embeddings = hidden[int(model.sent_layer)]
    scores = model.estimator.ff(embeddings[:, 0, :]).view(-1)
    logits = model.hidden2tag(hidden[mix["word_layer"]]) if model.word_level else None
    return scores, logits


def decode(model: Any, probs: Any, ids: Sequence[int], offsets: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """The error spans of one translation from its sub-words' label probabilities (COMET's ``decode``)."""
    torch = require("torch", "COMET")
    spans: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for token, row, offset in zip(ids, probs[: len(offsets)], offsets, strict=False):
        probability, index = torch.topk(row, 1)
        label = model.labels[int(index.reshape(-1)[0])]
        if label.startswith("I") and current is None:
            current = {
                "tokens": [int(token)],
                "severity": label.split("-")[1],
                "offset": [int(offset[0]), int(offset[1])],
                "confidence": [probability],
            }
        elif label.startswith("I") and current is not None:
            current["tokens"].append(int(token))
            current["confidence"].append(probability)
            current["offset"][1] = int(offset[1])
        elif label == "O" and current is not None:
            spans.append(current)
            current = None
    return [
        {
            "text": decode_tokens(model.tokenizer, span["tokens"]),
            "confidence": float(torch.concat(span["confidence"]).mean().item()),
            "severity": span["severity"],
            "start": span["offset"][0],
            "end": span["offset"][1],
        }
        for span in spans
    ]


def decode_tokens(tokenizer: Any, tokens: Sequence[int]) -> str:
    """The text of sub-word ids as COMET shows a span (special tokens kept; no clean-up of spaces, which
    XLM-R's tokenizer configurations leave off)."""
    text = str(tokenizer.backend_tokenizer.decode(list(tokens), skip_special_tokens=False))
    if getattr(tokenizer, "clean_up_tokenization_spaces", False):
        text = tokenizer.clean_up_tokenization(text)
    return text


def mqm_from_spans(spans: Sequence[Sequence[dict[str, Any]]]) -> Any:
    """xCOMET's MQM-like score of each segment's spans: ``(25 - min(25, penalties)) / 25`` (float32)."""
    torch = require("torch", "COMET")
    totals = [min(MQM_CAP, sum(SEVERITY_PENALTY.get(span["severity"], 0) for span in segment)) for segment in spans]
    return (torch.tensor(totals, dtype=torch.long) * -1 + MQM_CAP) / MQM_CAP


def predict(
    model: Any,
    hypotheses: Sequence[str],
    sources: Sequence[str] | None,
    references: Sequence[str] | None,
    *,
    hparams: dict[str, Any],
    batch_size: int,
    device: str,
) -> dict[str, Any]:
    """Scores (float32 values) and, for word-level models, error spans and per-input scores, in input order.

    ``sources``/``references`` are None when absent or unused by the model.
    """
    torch = require("torch", "COMET")
    mix: dict[str, Any] = {
        **defaults(model.kind),
        **{k: hparams[k] for k in ("layer_transformation", "layer_norm") if k in hparams},
    }
    mix["word_layer"] = int(hparams.get("word_layer", mix.get("word_layer", 0)))
    if model.word_level and not 0 <= mix["word_layer"] < model.num_layers:
        raise ValueError(
            f"COMET word_layer {mix['word_layer']} is not a layer of the encoder (0..{model.num_layers - 1})"
        )
    mt_ids, mt_offsets = tokenize(model, hypotheses, offsets=model.word_level)
    others = [tokenize(model, side)[0] for side in (sources, references) if side is not None]
    variants = [[0], [1], [0, 1]] if len(others) == 2 else [[0]]  # [mt:src], [mt:ref], [mt:src:ref]
    n = len(hypotheses)
    order = comet_order(sources, references)
    scores = [torch.empty(n) for _ in variants]
    spans: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    with torch.inference_mode():
        for start in range(0, n, batch_size):
            chunk = [int(i) for i in order[start : start + batch_size]]
            weighted_probs = []
            for v, parts in enumerate(variants):
                batch = [
                    concatenate([mt_ids[i], *(others[p][i] for p in parts)], model.max_positions, model.tokenizer)
                    for i in chunk
                ]
                values, logits = _forward(model, batch, device=device, mix=mix)
                scores[v][chunk] = values.float().cpu()
                if logits is not None:
                    width = max(len(mt_ids[i]) for i in chunk)
                    weighted = torch.softmax(logits.float().cpu(), dim=2)[:, :width, :]
                    if len(variants) == 3:
                        weighted = weighted * torch.tensor(SPAN_WEIGHTS)[v]
                    weighted_probs.append(weighted)
            if weighted_probs:
                probs = torch.sum(torch.stack(weighted_probs), dim=0)
                for row, i in enumerate(chunk):
                    spans[i] = decode(model, probs[row], mt_ids[i], mt_offsets[i])
    out: dict[str, Any] = {}
    if model.kind == "xcomet_metric":
        mqm = mqm_from_spans(spans)
        capped = [torch.where(s > 1.0, 1.0, s) for s in scores]
        if len(variants) == 3:
            regression = torch.stack([c * w for c, w in zip(capped, SCORE_WEIGHTS[:3], strict=True)]).sum(0)
        else:
            regression = capped[0] * sum(SCORE_WEIGHTS[:3])
        out["scores"] = regression + mqm * SCORE_WEIGHTS[3]
        out["mqm_scores"] = mqm
    elif len(variants) == 3:
        out["scores"] = torch.stack(scores).mean(0)
    else:
        out["scores"] = scores[0]
    if len(variants) == 3:
        out["src_scores"], out["ref_scores"], out["unified_scores"] = scores
    if model.word_level:
        out["error_spans"] = spans
    return out
