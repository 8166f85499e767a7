"""BERTScore's greedy cosine matching, batch by batch as bert-score 0.3.13 (``greedy_cos_idf``).

Pairs are matched in consecutive batches of ``batch_size``. Within a batch, embeddings are padded
(bert-score pads with 2.0 and L2-normalises after padding) and the similarity matrix is multiplied by the
padding mask, so a padded position enters the maximum as 0: a token whose best cosine is negative
scores 0 when its partner is shorter than the longest partner in the batch. The batching is reproduced
so that the numbers are bert-score's at the same batch size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlpeval.neural.deps import require


def _padded(items: Sequence[Any], value: float) -> tuple[Any, Any]:
    torch = require("torch", "BERTScore")
    lengths = torch.tensor([item.shape[0] for item in items], dtype=torch.long)
    padded = torch.nn.utils.rnn.pad_sequence(list(items), batch_first=True, padding_value=value)
    mask = torch.arange(int(lengths.max())).expand(len(items), -1) < lengths.unsqueeze(1)
    return padded, mask


def greedy_match(
    hyp_embeddings: Sequence[Any],
    ref_embeddings: Sequence[Any],
    hyp_weights: Sequence[Any],
    ref_weights: Sequence[Any],
    batch_size: int,
) -> Any:
    """``(n_pairs, 3)`` float32 tensor of precision, recall and F of each (hypothesis, reference) pair.

    ``*_embeddings`` are unpadded ``(tokens, dim)`` float32 tensors; ``*_weights`` the token weights
    (1 or idf; 0 for the special tokens without idf).
    """
    torch = require("torch", "BERTScore")
    out = []
    with torch.inference_mode():
        for start in range(0, len(hyp_embeddings), batch_size):
            stop = start + batch_size
            hyp, hyp_mask = _padded(hyp_embeddings[start:stop], 2.0)
            ref, ref_mask = _padded(ref_embeddings[start:stop], 2.0)
            hyp_idf, _ = _padded(hyp_weights[start:stop], 0.0)
            ref_idf, _ = _padded(ref_weights[start:stop], 0.0)
            hyp = hyp / torch.norm(hyp, dim=-1).unsqueeze(-1)
            ref = ref / torch.norm(ref, dim=-1).unsqueeze(-1)
            sim = torch.bmm(hyp, ref.transpose(1, 2))
            sim = sim * torch.bmm(hyp_mask.unsqueeze(2).float(), ref_mask.unsqueeze(1).float())
            word_precision = sim.max(dim=2)[0]
            word_recall = sim.max(dim=1)[0]
            hyp_idf = hyp_idf / hyp_idf.sum(dim=1, keepdim=True)
            ref_idf = ref_idf / ref_idf.sum(dim=1, keepdim=True)
            precision = (word_precision * hyp_idf).sum(dim=1)
            recall = (word_recall * ref_idf).sum(dim=1)
            f = 2 * precision * recall / (precision + recall)
            # a sequence of two tokens (only [CLS] [SEP]: an empty sentence) scores P = R = 0
            empty = hyp_mask.sum(dim=1).eq(2) | ref_mask.sum(dim=1).eq(2)
            precision = precision.masked_fill(empty, 0.0)
            recall = recall.masked_fill(empty, 0.0)
            f = f.masked_fill(torch.isnan(f), 0.0)
            out.append(torch.stack((precision, recall, f), dim=-1))
    return torch.cat(out, dim=0) if out else torch.zeros((0, 3))


def torchmetrics_match(
    hyp_embeddings: Sequence[Any],
    ref_embeddings: Sequence[Any],
    hyp_weights: Sequence[Any],
    ref_weights: Sequence[Any],
    batch_size: int,
) -> Any:
    """``(n_pairs, 3)`` float32 precision, recall and F as torchmetrics 1.9's ``bert_score`` computes them.

    The first and last token of each sentence (the special tokens) and the padding get zero embeddings after
    L2 normalisation, so each token's maximum includes 0 (a token whose best cosine is negative scores 0);
    weights (1 or idf, 0 at the special tokens) are divided by their sum: a sentence of special tokens only
    (an empty string) has 0/0 = NaN weights, so its precision (hypothesis) or recall (reference) is NaN, as in
    torchmetrics; F is 0 then.
    """
    torch = require("torch", "BERTScore")
    out = []
    with torch.inference_mode():
        for start in range(0, len(hyp_embeddings), batch_size):
            stop = start + batch_size
            sides = []
            for embeddings, weights in ((hyp_embeddings[start:stop], hyp_weights[start:stop]),
                                        (ref_embeddings[start:stop], ref_weights[start:stop])):  # fmt: skip
                normalised = [e / torch.norm(e, dim=-1).unsqueeze(-1) for e in embeddings]
                padded, mask = _padded(normalised, 0.0)
                keep = mask.clone()
                keep[:, 0] = False
                keep[torch.arange(len(normalised)), mask.sum(dim=1) - 1] = False
                padded = padded * keep.unsqueeze(-1).float()
                weight, _ = _padded(list(weights), 0.0)
                weight = weight * keep.float()
                sides.append((padded, weight / weight.sum(dim=-1, keepdim=True)))
            (hyp, hyp_w), (ref, ref_w) = sides
            sim = torch.bmm(hyp, ref.transpose(1, 2))
            precision = (sim.max(dim=2)[0] * hyp_w).sum(dim=-1)
            recall = (sim.max(dim=1)[0] * ref_w).sum(dim=-1)
            f = 2 * precision * recall / (precision + recall)
            f = f.masked_fill(torch.isnan(f), 0.0)
            out.append(torch.stack((precision, recall, f), dim=-1))
    return torch.cat(out, dim=0) if out else torch.zeros((0, 3))
