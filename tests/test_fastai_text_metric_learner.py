"""nlpeval.integrations.fastai.TextMetric inside a real fastai Learner (tiny GRU built here, CPU, a few batches,
nothing downloaded): the per-epoch values fastai records for chrF and COMET (with the validation set's sources, tiny
fixture checkpoint) equal nlpeval computed directly on the same predictions, and chrF equals sacreBLEU's."""

from __future__ import annotations

import sys
from pathlib import Path

import fastai  # noqa: F401 - the test needs it installed
import pytest
import sacrebleu
import torch
from fastai.data.core import DataLoaders
from fastai.data.load import DataLoader
from fastai.learner import Learner
from fastai.losses import CrossEntropyLossFlat

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nlpeval
from fastai_toy import PAD, Tagger, pairs
from nlpeval.integrations.fastai import TextMetric
from realdata import data_dir, read_lines

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")

COMET_MODEL = Path(__file__).resolve().parent / "fixtures" / "neural" / "comet-tiny"
EOS = 1
#: COMET scores each validation batch on its own (other padding than one whole call): float32 rounding
COMET_BOUND = 1e-6


def vocabulary() -> list[str]:
    """Real German words (the MQM TED references' first distinct ones) after the pad and end ids."""
    words: list[str] = []
    for line in read_lines(data_dir() / "mqm-ted-ende" / "reference.de"):
        for word in line.split():
            if word not in words:
                words.append(word)
        if len(words) >= 40:
            break
    return ["<pad>", "</s>", *words[:40]]


VOCAB = vocabulary()


def decode(rows) -> list[str]:
    """Ids to text: words up to the first end id, pads dropped (as a tokenizer's ``batch_decode``)."""
    texts = []
    for row in rows:
        words = []
        for token in row:
            if token == EOS:
                break
            if token != PAD:
                words.append(VOCAB[token])
        texts.append(" ".join(words))
    return texts


def toy_pairs(seed: int, n: int) -> list[tuple]:
    """(source, target) ids of the toy task: a noisy copy of the source ending in EOS (:func:`fastai_toy.pairs`)."""
    return pairs(seed, n, words=range(2, len(VOCAB)), eos=EOS, keep=0.7, length=10)


def test_text_metric_in_a_learner_equals_nlpeval_on_the_same_predictions(tmp_path) -> None:
    torch.manual_seed(0)
    train, valid = toy_pairs(1, 24), toy_pairs(2, 17)
    sources = decode([source.tolist() for source, _ in valid])  # the validation set's sources, in its order
    dls = DataLoaders(DataLoader(train, bs=8, shuffle=True), DataLoader(valid, bs=5), path=tmp_path, device="cpu")
    chrf = TextMetric("chrf", decode)
    comet = TextMetric("comet", decode, options={"comet_model": COMET_MODEL}, sources=sources, name="COMET")
    learn = Learner(dls, Tagger(len(VOCAB)), loss_func=CrossEntropyLossFlat(ignore_index=-100), metrics=[chrf, comet],
                    lr=0.05, path=tmp_path)  # fmt: skip
    with learn.no_logging():
        learn.fit(2)
    assert [m.name for m in learn.metrics] == ["chrf", "COMET"]
    recorded = [row[-2:] for row in learn.recorder.values]
    assert len(recorded) == 2 and recorded[0] != recorded[1]  # per epoch, from that epoch's batches only

    logits, targets = learn.get_preds(dl=dls.valid)  # the weights of the last validation
    predicted = logits.argmax(dim=-1).numpy()
    hyps = decode(predicted.tolist())
    refs = decode([row[row != -100].tolist() for row in targets.numpy()])
    assert len(hyps) == len(valid) and len(set(hyps)) > 3

    expected_chrf = nlpeval.chrf(hyps, [[r] for r in refs]).score
    assert recorded[-1][0] == expected_chrf
    assert recorded[-1][0] * 100 == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, abs=1e-9)
    expected_comet = nlpeval.comet(hyps, refs, sources=sources, model=COMET_MODEL).score
    assert abs(recorded[-1][1] - expected_comet) <= COMET_BOUND
    # scored again by the Learner itself: the same values (the sources start again at the first)
    _, again_chrf, again_comet = learn.validate()
    assert again_chrf == recorded[-1][0] and abs(again_comet - expected_comet) <= COMET_BOUND
