"""MetricX batched against MetricX's own batched run (issue 23): nlpeval at batch size 8 against google-research/
metricx's ``predict.py`` path (``Trainer.predict``, ``per_device_eval_batch_size`` 8) under its pinned transformers
4.30.2 (goldens of tests/fixtures/neural/make_fixtures.py, stage ``metricx-batched``), on the segments MetricX can
batch (inputs cut to ``max_input_length``: its collator stacks rows without padding and raises on unequal lengths).
At the same torch thread count the scores are MetricX's batched scores bit for bit, though both differ from batch 1
by float32 rounding (tests/test_metricx_batching.py); live against MetricX's model class when it imports."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

from nlpeval.metrics.metricx import MetricX, metricx_input  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")
BATCHED = json.loads((FIXTURES / "metricx_batched_golden.json").read_text(encoding="utf-8"))
SINGLE = json.loads((FIXTURES / "metricx_golden.json").read_text(encoding="utf-8"))
CASES = [(c["version"], c["qe"]) for c in BATCHED["cases"]]
#: segments compared per case: MetricX's first batches of 8 (the same batches as over the whole index)
N = 32


@pytest.fixture(autouse=True)
def golden_threads() -> Iterator[None]:
    """torch's intra-op thread count of the goldens (a product's rounding depends on how it is split)."""
    before = torch.get_num_threads()
    torch.set_num_threads(BATCHED["torch_threads"])
    yield
    torch.set_num_threads(before)


@cache
def _texts() -> dict[str, list[str]]:
    return make_fixtures.real_texts()


def _case() -> dict[str, list[str]]:
    return make_fixtures.metricx_cases(_texts())[0]


def _ours(version: str, qe: bool, index: list[int], batch_size: int) -> np.ndarray:
    case = _case()
    metric = MetricX(model=FIXTURES / "metricx-tiny", tokenizer=FIXTURES / "metricx-tokenizer", version=version,
                     max_input_length=BATCHED["max_input_length"], batch_size=batch_size, device="cpu")  # fmt: skip
    refs = None if qe else [case["ref"][i] for i in index]
    stats = metric.segment_stats([case["mt"][i] for i in index], refs, sources=[case["src"][i] for i in index])
    return stats.rows[:, 0]


def _gold(version: str, qe: bool) -> dict:
    return next(c for c in BATCHED["cases"] if c["version"] == version and c["qe"] == qe)


def test_goldens_are_metricx_batched_at_8_and_differ_from_batch_one() -> None:
    assert BATCHED["batch_size"] == 8 and BATCHED["transformers"] == "4.30.2"
    assert "stack expects each tensor to be equal size" in BATCHED["unequal_lengths_error"]
    for version, qe in CASES:
        gold = _gold(version, qe)
        assert len(gold["index"]) >= 100 and len(gold["scores"]) == len(gold["index"])
        single = next(c for c in SINGLE["cases"] if c["version"] == version and c["qe"] == qe and c["case"] == "ted")
        gap = np.abs(np.array(gold["scores"]) - np.array(single["scores"])[gold["index"]])
        assert 1e-6 < gap.max() <= 5e-5  # MetricX's own batches round differently from its batch 1


@pytest.mark.parametrize(("version", "qe"), CASES)
def test_batched_equals_metricx_batched_bit_for_bit(version: str, qe: bool) -> None:
    gold = _gold(version, qe)
    ours = _ours(version, qe, gold["index"][:N], BATCHED["batch_size"])
    assert np.array_equal(ours, np.array(gold["scores"][:N]))


def _live_model(version: str):
    sys.path.insert(0, str(make_fixtures.METRICX_CODE))
    try:
        module = __import__(f"metricx{version}.models", fromlist=["models"])
        return module.MT5ForRegression.from_pretrained(str(FIXTURES / "metricx-tiny"), torch_dtype=torch.float32)
    except Exception:  # not on disk, or not importable beside this transformers (MetricX pins 4.30.2)
        return None
    finally:
        sys.path.remove(str(make_fixtures.METRICX_CODE))


def test_live_metricx_batched_when_it_imports() -> None:
    """MetricX's model class run here on the stacked batches ``Trainer.predict`` forms; where it does not import
    (transformers 5), the goldens above are the comparison and this checks the batches those goldens came from."""
    import transformers

    case = _case()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(FIXTURES / "metricx-tokenizer"))
    for version, qe in CASES:
        gold = _gold(version, qe)
        assert gold["index"] == make_fixtures.metricx_batchable(version, qe, tokenizer, _texts())
        rows = [metricx_input(version, case["mt"][i], None if qe else case["ref"][i], case["src"][i]) for i in
                gold["index"][:N]]  # fmt: skip
        assert len(set(rows)) == len(rows)  # no duplicate: nlpeval's batches are MetricX's, in order
        assert len({len(tokenizer(text, max_length=48, truncation=True)["input_ids"]) for text in rows}) == 1
        model = _live_model(version)
        if model is None:
            continue
        model.eval()
        scores = []
        for start in range(0, len(rows), BATCHED["batch_size"]):
            encoded = [
                tokenizer(text, max_length=48, truncation=True) for text in rows[start : start + BATCHED["batch_size"]]
            ]
            ids = torch.stack([torch.tensor(e["input_ids"][:-1]) for e in encoded])
            mask = torch.stack([torch.tensor(e["attention_mask"][:-1]) for e in encoded])
            with torch.no_grad():
                scores += [float(x) for x in model(input_ids=ids, attention_mask=mask).predictions.reshape(-1)]
        assert np.array_equal(np.array(scores), np.array(gold["scores"][:N]))
