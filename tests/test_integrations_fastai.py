"""nlpeval.integrations.fastai.CorpusBLEU inside a tiny fastai Learner (random weights, built here, CPU).

The metric's per-epoch value must equal nlpeval.bleu on the same predicted ids and sacreBLEU on the decoded text.
"""

from __future__ import annotations

import fastai  # noqa: F401 - the test needs it installed
import pytest
import sacrebleu
import torch
from fastai.data.core import DataLoaders
from fastai.data.load import DataLoader
from fastai.learner import Learner
from fastai.losses import CrossEntropyLossFlat

import nlpeval
from fastai_toy import PAD, Tagger, pairs
from nlpeval.integrations.fastai import CorpusBLEU

EOS = 2
VOCAB = ["<pad>", "<bos>", "<eos>", *[f"w{i}" for i in range(3, 14)]]
TOL = 1e-9  # on sacreBLEU's 0-100 scale


def _pairs(seed: int, n: int) -> list[tuple]:
    """(source, target) ids of the toy task: a noisy copy of the source ending in EOS (:func:`fastai_toy.pairs`)."""
    return pairs(seed, n, words=range(3, len(VOCAB)), eos=EOS, keep=0.8, length=9)


def _text(ids) -> str:
    out = []
    for token in ids:
        if token == EOS:
            break
        if token not in (PAD, -100):
            out.append(VOCAB[token])
    return " ".join(out)


def test_corpus_bleu_in_a_learner_equals_nlpeval_and_sacrebleu(tmp_path):
    torch.manual_seed(0)
    train, valid = _pairs(1, 24), _pairs(2, 22)
    dls = DataLoaders(DataLoader(train, bs=8, shuffle=True), DataLoader(valid, bs=5), path=tmp_path, device="cpu")
    metric = CorpusBLEU(pad_id=PAD, eos_id=EOS)
    loss = CrossEntropyLossFlat(ignore_index=-100)
    learn = Learner(dls, Tagger(len(VOCAB)), loss_func=loss, metrics=[metric], lr=0.05, path=tmp_path)
    with learn.no_logging():
        learn.fit(2)
    epochs = [row[-1] for row in learn.recorder.values]
    assert len(epochs) == 2 and epochs[0] != epochs[1]  # reported per epoch, from that epoch's batches only

    logits, targets = learn.get_preds(dl=dls.valid)
    predicted = logits.argmax(dim=-1).numpy()
    targets = targets.numpy()
    hyps = [row[row != -100] for row in predicted]
    refs = [row[row != -100] for row in targets]
    expected = nlpeval.bleu(hyps, refs, pad_id=PAD, eos_id=EOS)
    assert epochs[-1] == expected.score
    assert 0 < expected.score < 1
    hyp_text = [_text(row) for row in predicted]
    ref_text = [_text(row) for row in targets]
    assert epochs[-1] * 100 == pytest.approx(sacrebleu.corpus_bleu(hyp_text, [ref_text]).score, abs=TOL)
    assert nlpeval.bleu(hyp_text, ref_text).components["counts"] == expected.components["counts"]


def test_value_is_none_before_any_batch_and_reset_forgets():
    from types import SimpleNamespace

    metric = CorpusBLEU(pad_id=PAD)
    assert metric.value is None and metric.name == "corpus_bleu"
    metric.accumulate(SimpleNamespace(pred=torch.tensor([[3, 4, 5]]), y=(torch.tensor([[3, 4, 6]]),)))
    assert metric.value == nlpeval.bleu([[3, 4, 5]], [[3, 4, 6]]).score
    metric.reset()
    assert metric.value is None
