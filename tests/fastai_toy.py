"""The toy sequence model and data of the fastai Learner tests (``test_integrations_fastai.py``,
``test_fastai_text_metric_learner.py``): built here, random weights, CPU, nothing downloaded."""

from __future__ import annotations

import numpy as np
import torch

PAD = 0


class Tagger(torch.nn.Module):
    """Embedding -> GRU -> vocabulary logits at every position: a toy sequence-to-sequence model."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab_size, 16)
        self.rnn = torch.nn.GRU(16, 16, batch_first=True)
        self.out = torch.nn.Linear(16, vocab_size)

    def forward(self, x):
        hidden, _ = self.rnn(self.embed(x))
        return self.out(hidden)


def pairs(seed: int, n: int, *, words: range, eos: int, keep: float, length: int) -> list[tuple]:
    """``n`` (source, target) id tensors of ``length``: the source 2 to ``length - 2`` ids drawn from ``words``,
    the target a noisy copy (each id kept with probability ``keep``, else another of ``words``) ending in ``eos``,
    padded with PAD (every third pair with -100, the ignored label)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        size = int(rng.integers(2, length - 1))
        drawn = rng.integers(words.start, words.stop, size)
        source = np.full(length, PAD)
        source[:size] = drawn
        target = np.full(length, PAD if i % 3 else -100)
        target[:size] = np.where(rng.random(size) < keep, drawn, rng.integers(words.start, words.stop, size))
        target[size] = eos
        out.append((torch.tensor(source), torch.tensor(target)))
    return out
