"""Sources and model options in every training-loop integration (issue 23): transformers'
``seq2seq_compute_metrics(options=, sources=)``, fastai's ``TextMetric`` and the torchmetrics adapter score COMET,
MetricX-QE and SARI by name as the library does on the whole set (tiny fixture models, MQM TED text)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import nlpeval  # noqa: E402
from nlpeval.integrations.fastai import TextMetric  # noqa: E402
from nlpeval.integrations.torchmetrics import StatsMetric  # noqa: E402
from nlpeval.integrations.transformers import seq2seq_compute_metrics  # noqa: E402
from realdata import data_dir, read_lines  # noqa: E402

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")

N = 18
COMET = {"comet_model": FIXTURES / "comet-tiny"}
METRICX = {"metricx_model": FIXTURES / "metricx-tiny", "metricx_tokenizer": FIXTURES / "metricx-tokenizer",
           "metricx_max_input_length": 48}  # fmt: skip
#: float32 rounding of other batches than the whole set's
BOUND = {"comet": 1e-6, "metricx-qe": 5e-5}


def texts() -> dict[str, list[str]]:
    ted = data_dir() / "mqm-ted-ende"
    names = {"src": "source.en", "ref": "reference.de", "a": "Facebook-AI.de"}
    return {key: read_lines(ted / name)[:N] for key, name in names.items()}


class Table:
    """A toy tokenizer: id ``i`` is hypothesis ``i``, id ``1000 + i`` reference ``i`` (0 pads)."""

    pad_token_id = 0

    def __init__(self) -> None:
        t = texts()
        self.words = {i + 1: h for i, h in enumerate(t["a"])} | {1001 + i: r for i, r in enumerate(t["ref"])}

    def batch_decode(self, rows, skip_special_tokens=True):
        return [" ".join(self.words[i] for i in row if i in self.words) for row in rows]


def expected() -> dict[str, float]:
    t = texts()
    return {
        "comet": nlpeval.comet(t["a"], t["ref"], sources=t["src"], model=COMET["comet_model"]).score,
        "metricx-qe": nlpeval.metricx(t["a"], None, sources=t["src"], model=METRICX["metricx_model"],
                                      tokenizer=METRICX["metricx_tokenizer"], max_input_length=48).score,
        "sari": nlpeval.sari(t["a"], [[r] for r in t["ref"]], sources=t["src"]).score,
        "chrf": nlpeval.chrf(t["a"], [[r] for r in t["ref"]]).score,
    }  # fmt: skip


def test_transformers_compute_metrics_takes_options_and_sources() -> None:
    t = texts()
    compute = seq2seq_compute_metrics(Table(), ["comet", "metricx-qe", "sari", "chrf"], options={**COMET, **METRICX},
                                      sources=t["src"])  # fmt: skip
    preds = np.array([[i + 1, 0] for i in range(N)])
    labels = np.array([[1001 + i, -100] for i in range(N)])
    scores = compute((preds, labels))
    gold = expected()
    assert scores["sari"] == gold["sari"] and scores["chrf"] == gold["chrf"]
    for name in ("comet", "metricx-qe"):
        assert abs(scores[name] - gold[name]) <= BOUND[name], name
    with pytest.raises(ValueError, match=f"comet: {N - 1} hypotheses but {N} sources"):
        compute((preds[:-1], labels[:-1]))
    with pytest.raises(ValueError, match="needs a model: give --comet-model"):
        seq2seq_compute_metrics(Table(), ["comet"])


def test_fastai_text_metric_takes_options_and_sources_batch_by_batch() -> None:
    t = texts()
    table = Table()
    gold = expected()
    metrics = {
        "comet": TextMetric("comet", table.batch_decode, options=COMET, sources=t["src"]),
        "sari": TextMetric("sari", table.batch_decode, sources=t["src"], name="SARI"),
        "metricx-qe": TextMetric("metricx-qe", table.batch_decode, options=METRICX, sources=t["src"]),
    }
    for epoch in range(2):  # reset starts the sources again
        for metric in metrics.values():
            metric.reset()
            assert metric.value is None
            for start in range(0, N, 7):
                ids = np.arange(start, min(start + 7, N))
                batch = SimpleNamespace(pred=torch.tensor(ids[:, None] + 1), y=torch.tensor(ids[:, None] + 1001))
                metric.accumulate(batch)
        assert metrics["sari"].value == gold["sari"] and metrics["sari"].name == "SARI"
        for name in ("comet", "metricx-qe"):
            assert abs(metrics[name].value - gold[name]) <= BOUND[name], (epoch, name)
    short = TextMetric("sari", table.batch_decode, sources=t["src"][:3])
    short.reset()
    with pytest.raises(ValueError, match="3 sources, but the validation set has more"):
        short.accumulate(SimpleNamespace(pred=np.array([[1], [2], [3], [4]]), y=np.array([[1001]] * 4)))


def test_torchmetrics_adapter_passes_the_sources_to_sari() -> None:
    t = texts()
    metric = StatsMetric("sari")
    for start in range(0, N, 7):
        part = slice(start, start + 7)
        metric.update(t["a"][part], [[r] for r in t["ref"][part]], sources=t["src"][part])
    assert float(metric.compute()) == pytest.approx(expected()["sari"], abs=1e-12)
