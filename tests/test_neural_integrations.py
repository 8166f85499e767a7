"""The neural metrics by name in the training-loop integrations (torchmetrics adapter): options, sources, batches."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import nlpeval  # noqa: E402
from nlpeval.integrations.torchmetrics import StatsMetric  # noqa: E402
from realdata import data_dir, read_lines  # noqa: E402

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")

N = 20
METRICX = {"metricx_model": FIXTURES / "metricx-tiny", "metricx_tokenizer": FIXTURES / "metricx-tokenizer",
           "metricx_max_input_length": 48}  # fmt: skip


def texts() -> dict[str, list[str]]:
    ted = data_dir() / "mqm-ted-ende"
    names = {"src": "source.en", "ref": "reference.de", "a": "Facebook-AI.de"}
    return {key: read_lines(ted / name)[:N] for key, name in names.items()}


def _batches(metric: StatsMetric, refs: bool = True, sources: bool = True) -> float:
    t = texts()
    for start in range(0, N, 7):
        part = slice(start, start + 7)
        metric.update(t["a"][part], t["ref"][part] if refs else None, sources=t["src"][part] if sources else None)
    return float(metric.compute())


def test_comet_by_name_in_batches_equals_the_whole_corpus() -> None:
    t = texts()
    metric = StatsMetric("comet", options={"comet_model": FIXTURES / "comet-tiny"})
    value = _batches(metric)
    expected = nlpeval.comet(t["a"], t["ref"], sources=t["src"], model=FIXTURES / "comet-tiny")
    assert value == pytest.approx(expected.score, abs=1e-6)  # float32 rounding: other batches
    assert metric.last_score is not None and metric.last_score.signature == expected.signature


def test_bertscore_and_metricx_by_name() -> None:
    t = texts()
    bert = StatsMetric("bertscore", options={"bertscore_model": FIXTURES / "bert-tiny", "bertscore_num_layers": 2})
    expected = nlpeval.bertscore(t["a"], t["ref"], model=FIXTURES / "bert-tiny", num_layers=2)
    assert _batches(bert, sources=False) == pytest.approx(expected.score, abs=1e-6)
    qe = StatsMetric("metricx-qe", options=METRICX)
    expected = nlpeval.metricx(t["a"], None, sources=t["src"], model=FIXTURES / "metricx-tiny",
                               tokenizer=FIXTURES / "metricx-tokenizer", max_input_length=48)  # fmt: skip
    assert _batches(qe, refs=False) == pytest.approx(expected.score, abs=5e-5)


def test_a_neural_name_without_its_model_or_with_an_unknown_option_is_refused() -> None:
    with pytest.raises(ValueError, match="COMET needs a model: give --comet-model PATH"):
        StatsMetric("comet")
    with pytest.raises(ValueError, match="unknown metric option 'comet_modle'"):
        StatsMetric("comet", options={"comet_modle": "x"})
    metric = StatsMetric("comet", options={"comet_model": FIXTURES / "comet-tiny"})
    with pytest.raises(ValueError, match="comet needs the sources"):
        metric.update(["a"], ["b"])
