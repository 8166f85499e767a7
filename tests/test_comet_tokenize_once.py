"""COMET tokenises each distinct text once per call (the truncation warning and the encoder share it), texts whose
embeddings are kept are not tokenised again for a later system, and the warning still names every cut segment."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from nlpeval.metrics.bertscore.tokenize import TruncationWarning
from nlpeval.metrics.comet import COMET

torch.set_num_threads(1)
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
LONG = "word " * 200  # longer than the tiny model's 62 tokens


def test_each_text_is_tokenised_once_and_cut_segments_are_still_named(monkeypatch) -> None:
    metric = COMET(model=FIXTURES / "comet-tiny", device="cpu")
    seen: list[str] = []
    encode = COMET._encode

    def counting(self, texts):
        seen.extend(texts)
        return encode(self, texts)

    monkeypatch.setattr(COMET, "_encode", counting)
    srcs = ["A cat.", LONG, "A cat."]
    refs = ["Eine Katze.", "Ein Hund.", LONG + "x"]
    hyps = ["Die Katze.", "Ein Hund.", "Hund " * 150]
    with pytest.warns(TruncationWarning) as first:
        a = metric(hyps, refs, sources=srcs, segments=True)
    assert sorted(seen) == sorted(dict.fromkeys(srcs + refs + hyps))  # every distinct text once
    message = str(first[0].message)
    assert "hypotheses 2 (1)" in message and "references 2 (1)" in message and "sources 1 (1)" in message
    seen.clear()
    other = ["Eine Katze.", "Ein Hund!", "Katze."]
    with pytest.warns(TruncationWarning) as second:
        b = metric(other, refs, sources=srcs, segments=True)
    assert sorted(seen) == ["Ein Hund!", "Katze."]  # sources and references kept from the first system
    message = str(second[0].message)
    assert "hypotheses" not in message and "references 2 (1)" in message and "sources 1 (1)" in message
    fresh = COMET(model=FIXTURES / "comet-tiny", device="cpu")
    with pytest.warns(TruncationWarning):
        again = fresh(other, refs, sources=srcs, segments=True)
    # the same scores (other batches than the first call's: float32 rounding)
    assert np.abs(b.segments - again.segments).max() <= 1e-6 and a.score != b.score
