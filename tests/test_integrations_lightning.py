"""StatsMetric logged from a tiny PyTorch Lightning module (CPU, random weights): the epoch value is nlpeval's."""

from __future__ import annotations

import numpy as np
import pytest
import pytorch_lightning as pl
import torch

import nlpeval
from nlpeval.integrations.torchmetrics import StatsMetric

PAD, EOS, VOCAB = 0, 2, 14


class Tagger(pl.LightningModule):
    """Embedding -> vocabulary logits per position; logs corpus BLEU of the argmax ids on validation."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 16)
        self.out = torch.nn.Linear(16, VOCAB)
        self.bleu = StatsMetric(nlpeval.TokenIdBLEU(pad_id=PAD, eos_id=EOS), ignore_index=-100)

    def forward(self, x):
        return self.out(self.embed(x))

    def training_step(self, batch, _):
        x, y = batch
        return torch.nn.functional.cross_entropy(self(x).transpose(1, 2), y, ignore_index=-100)

    def validation_step(self, batch, _):
        x, y = batch
        self.bleu.update(self(x).argmax(dim=-1), y)
        self.log("val_bleu", self.bleu, on_epoch=True, batch_size=len(x))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.5)


def _data(seed: int, n: int, length: int = 8) -> list[tuple]:
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        size = int(rng.integers(2, length))
        x = np.full(length, PAD)
        x[:size] = rng.integers(3, VOCAB, size)
        y = np.full(length, -100)
        y[:size] = np.where(rng.random(size) < 0.8, x[:size], rng.integers(3, VOCAB, size))
        if size < length:
            y[size] = EOS
        pairs.append((torch.tensor(x), torch.tensor(y)))
    return pairs


def test_logged_epoch_value_equals_nlpeval(tmp_path):
    torch.manual_seed(0)
    model = Tagger()
    train, valid = _data(1, 24), _data(2, 19)
    loader = torch.utils.data.DataLoader
    trainer = pl.Trainer(
        max_epochs=2,
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        default_root_dir=tmp_path,
    )
    trainer.fit(model, loader(train, batch_size=8), loader(valid, batch_size=5))
    logged = trainer.callback_metrics["val_bleu"].item()
    model.eval()
    with torch.no_grad():
        predicted = model(torch.stack([x for x, _ in valid])).argmax(dim=-1).numpy()
    targets = [y.numpy()[y.numpy() != -100] for _, y in valid]
    expected = nlpeval.bleu(list(predicted), targets, pad_id=PAD, eos_id=EOS).score
    assert 0 < expected < 1
    assert logged == pytest.approx(expected, abs=1e-6)  # Lightning keeps logged values as float32 tensors
    model.bleu.update(predicted, [np.append(t, EOS) for t in targets])  # Lightning reset it at the epoch's end
    assert model.bleu.compute().item() == expected  # the metric itself is exact (float64)
