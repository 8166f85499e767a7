"""COMET's look-ahead (``COMET.prefetch``, as BERTScore's): the distinct sources, references and hypotheses of
several systems embedded once each in one pool of length-sorted batches; the scores are those of calls one by one
(unbabel-comet's goldens are checked at call level in tests/test_comet.py), cut segments are still named, unified
models (xCOMET) and invalid calls are left to their own calls."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nlpeval.metrics.bertscore.tokenize import TruncationWarning
from nlpeval.metrics.comet import COMET
from realdata import data_dir, read_lines

torch.set_num_threads(1)
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
TOLERANCE = 1e-6
N = 40
pytestmark = pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")


def ted() -> dict[str, list[str]]:
    root = data_dir() / "mqm-ted-ende"
    names = {"src": "source.en", "ref": "reference.de", "a": "Facebook-AI.de", "b": "Nemo.de", "c": "UEdin.de"}
    return {key: read_lines(root / name)[:N] for key, name in names.items()}


def counted(metric: COMET, monkeypatch) -> list[int]:
    from nlpeval.metrics.comet import model

    sizes: list[int] = []
    pooled = model.pooled_embeddings

    def counting(network, ids, **kwargs):
        sizes.append(len(ids))
        return pooled(network, ids, **kwargs)

    monkeypatch.setattr(model, "pooled_embeddings", counting)
    return sizes


@pytest.mark.parametrize("model", ["comet-tiny", "comet-tiny-ln", "comet-qe-tiny"])
def test_systems_pooled_score_as_calls_one_by_one(model: str, monkeypatch) -> None:
    t = ted()
    metric = COMET(model=FIXTURES / model, device="cpu")
    plain = COMET(model=FIXTURES / model, device="cpu")
    references = None if model == "comet-qe-tiny" else t["ref"]
    systems = [t["a"], t["b"], t["c"]]
    expected = [plain(hyps, references, sources=t["src"], segments=True).segments for hyps in systems]
    sizes = counted(metric, monkeypatch)
    for k, hyps in enumerate(systems):
        metric.prefetch((h, references, t["src"]) for h in systems[k:])
        got = metric(hyps, references, sources=t["src"], segments=True).segments
        assert np.abs(got - expected[k]).max() <= TOLERANCE
    distinct = set(t["src"]) | set(references or []) | set(t["a"]) | set(t["b"]) | set(t["c"])
    assert sizes == [len(distinct)]  # one pool, nothing embedded by the calls


def test_cut_segments_are_named_by_the_call_that_uses_them() -> None:
    long = "word " * 200  # longer than the tiny model's 62 tokens
    srcs, refs = ["A cat.", long], ["Eine Katze.", "Ein Hund."]
    systems = [["Die Katze.", "Hund " * 150], ["Katze.", "Ein Hund."]]
    metric = COMET(model=FIXTURES / "comet-tiny", device="cpu")
    assert metric.prefetch((hyps, refs, srcs) for hyps in systems) == 7  # "Ein Hund." is a reference too
    for hyps, side in zip(systems, ("hypotheses 1 (1); sources 1 (1)", "sources 1 (1)"), strict=True):
        with pytest.warns(TruncationWarning) as caught:
            metric(hyps, refs, sources=srcs)
        assert str(caught[0].message).endswith(side)


def test_unified_models_and_invalid_calls_are_left_to_their_own_calls() -> None:
    from nlpeval.core.errors import InputError

    t = ted()
    xcomet = COMET(model=FIXTURES / "xcomet-tiny", device="cpu")
    assert xcomet.prefetch([(t["a"], t["ref"], t["src"])]) == 0
    metric = COMET(model=FIXTURES / "comet-tiny", device="cpu")
    assert metric.prefetch([(["a", None], ["b", "c"], ["d", "e"])]) == 0  # the call itself reports it
    assert metric.prefetch([(["a"], ["b"], None)]) == 0  # no sources for a model that needs them
    assert metric.prefetch([(["a"], ["b"], ["c", "d"])]) == 0  # unequal lengths
    with pytest.raises(InputError, match="segment 1"):
        metric(["a", None], ["b", "c"], sources=["d", "e"])
