"""COMET's fast paths against the plain computation they replace (issue 23, 1 system x 500 segments):
the layer mix adds into one buffer and skips sparsemax's exact zeros (bit-identical to Python's ``sum`` of
every layer), and the checkpoint's SHA-256 is kept on disk so a gigabyte is not hashed at every run."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import torch

from nlpeval.core.cache import write_private
from nlpeval.metrics.comet.model import _layer_norm, _mix, sparsemax
from nlpeval.neural import local


@pytest.mark.parametrize("layer_norm", [False, True])
@pytest.mark.parametrize("transformation", ["sparsemax", "softmax"])
def test_mix_is_bit_identical_to_the_sum_of_every_layer(layer_norm: bool, transformation: str) -> None:
    generator = torch.Generator().manual_seed(7)
    hidden = [torch.randn(4, 9, 12, generator=generator) * (i + 1) for i in range(13)]
    mask = torch.ones(4, 9, dtype=torch.long)
    mask[1, 5:] = 0
    mask[3, 2:] = 0
    scalars = torch.tensor([0.1 * (i % 5) - 0.2 for i in range(13)])
    weights = sparsemax(scalars) if transformation == "sparsemax" else torch.softmax(scalars, dim=0)
    if transformation == "sparsemax":
        assert int((weights == 0).sum()) >= 4  # the case skipped
    expected = sum(
        w * (_layer_norm(h, mask) if layer_norm else h) for w, h in zip(torch.split(weights, 1), hidden, strict=True)
    )
    found = _mix(weights, hidden, mask if layer_norm else None)
    assert torch.equal(found, expected)


def test_mix_keeps_a_first_layer_of_weight_zero() -> None:
    hidden = [torch.full((1, 2, 3), float(i + 1)) for i in range(3)]
    assert _mix(torch.tensor([0.0, 0.0, 1.0]), hidden, None).tolist() == [[[3.0] * 3] * 2]
    assert _mix(torch.tensor([0.0, 0.0, 0.0]), hidden, None).tolist() == [[[0.0] * 3] * 2]


def test_checkpoint_digest_is_kept_on_disk_and_follows_the_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NLPEVAL_CACHE_DIR", str(tmp_path / "cache"))
    local._sha256_of.cache_clear()
    weights = tmp_path / "model.ckpt"
    weights.write_bytes(os.urandom(1 << 16))
    first = local.weights_sha256(weights)
    assert first == hashlib.sha256(weights.read_bytes()).hexdigest()
    stored = list((tmp_path / "cache" / "weights-sha256").iterdir())
    assert len(stored) == 1 and stored[0].read_bytes().endswith(first.encode())
    # a new process reads the digest from disk: a planted one shows it was not hashed again
    local._sha256_of.cache_clear()
    assert write_private(stored[0], b"f" * 64)
    assert local.weights_sha256(weights) == "f" * 64
    # a corrupt stored digest is not trusted: hashed again
    local._sha256_of.cache_clear()
    stored[0].write_bytes(stored[0].read_bytes()[:-1] + b"!")
    assert local.weights_sha256(weights) == first
    # any write to the weights gives a new key: hashed again
    local._sha256_of.cache_clear()
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")
    assert local.weights_sha256(weights) == hashlib.sha256(weights.read_bytes()).hexdigest() != first
    # no cache folder: hashed, nothing written
    monkeypatch.setenv("NLPEVAL_CACHE_DIR", "")
    local._sha256_of.cache_clear()
    assert local.weights_sha256(weights) == hashlib.sha256(weights.read_bytes()).hexdigest()
    local._sha256_of.cache_clear()


def test_parameters_are_the_checkpoint_tensors_not_copies(monkeypatch) -> None:
    """The model takes the checkpoint's (mapped) tensors as its parameters (``load_state_dict(assign=True)``): no
    second copy of a 1.2 GB checkpoint, and only the pages the forward passes read become resident."""
    from nlpeval.metrics.comet import checkpoint as module
    from nlpeval.metrics.comet.model import build

    loaded: dict = {}
    original = module.CometCheckpoint.state_dict

    def keep(self):
        state = original(self)
        loaded.update(state)
        return state

    monkeypatch.setattr(module.CometCheckpoint, "state_dict", keep)
    folder = Path(__file__).resolve().parent / "fixtures" / "neural" / "comet-tiny"
    model = build(module.CometCheckpoint.locate(folder))
    parameters = dict(model.named_parameters())
    shared = [name for name, p in parameters.items() if p.data_ptr() == loaded[name].data_ptr()]
    assert len(shared) == len(parameters) > 20
    assert not any(p.requires_grad is False for p in parameters.values())  # the module's flags are kept
