"""Why MetricX in batches differs from batch 1 (issue 23): not padding, the attention mask or the EOS position, but
float32 rounding of batched matrix products. A row padded alone scores bit for bit as unpadded (so the padding
side, the mask and the dropped final EOS are right); rows of equal length batched without any padding already
differ from batch 1 by as much as padded batches do; both stay within the documented bound (tests/test_metricx.py:
5e-5 on the 0-25 scale, ~1e-6 relative, with the tiny fixture's large score row)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

from nlpeval.metrics.metricx import SCORE_TOKEN, MetricX, metricx_input  # noqa: E402

torch.set_num_threads(1)
GOLDEN = json.loads((FIXTURES / "metricx_golden.json").read_text(encoding="utf-8"))
BOUND = 5e-5  # tests/test_metricx.py's TOLERANCE for padded batches
N = 24


def _model_and_ids() -> tuple[MetricX, list[list[int]], np.ndarray]:
    gold = next(g for g in GOLDEN["cases"] if g["version"] == "24" and not g["qe"])
    case = {c["name"]: c for c in make_fixtures.metricx_cases(make_fixtures.real_texts())}[gold["case"]]
    metric = MetricX(model=FIXTURES / "metricx-tiny", tokenizer=FIXTURES / "metricx-tokenizer", version="24",
                     max_input_length=GOLDEN["max_input_length"], batch_size=1, device="cpu")  # fmt: skip
    tokenizer = metric.loaded[0]
    texts = [metricx_input("24", h, r, s) for h, r, s in zip(case["mt"], case["ref"], case["src"], strict=True)][:N]
    limit = GOLDEN["max_input_length"]
    ids = [list(seq)[: limit - 1] if len(seq) > limit else list(seq)[:-1] for seq in tokenizer(texts)["input_ids"]]
    return metric, ids, np.array(gold["scores"][:N])


def _scores(metric: MetricX, rows: list[list[int]], width: int | None = None) -> np.ndarray:
    _, model, _ = metric.loaded
    width = width or max(len(r) for r in rows)
    tokens = torch.full((len(rows), width), int(metric.loaded[0].pad_token_id), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        tokens[i, : len(row)], mask[i, : len(row)] = torch.tensor(row), 1
    with torch.inference_mode():
        logits = model(input_ids=tokens, attention_mask=mask, decoder_input_ids=torch.zeros((len(rows), 1),
                       dtype=torch.long), use_cache=False).logits  # fmt: skip
    return torch.clamp(logits[:, 0, SCORE_TOKEN], 0, 25).float().numpy()


def test_batch_one_is_the_reference_and_padding_alone_changes_nothing() -> None:
    metric, ids, gold = _model_and_ids()
    one = np.array([_scores(metric, [row])[0] for row in ids])
    assert np.abs(one - gold).max() == 0.0  # MetricX under transformers 4.30.2 at batch 1: bit for bit
    padded = np.array([_scores(metric, [row], width=len(row) + 9)[0] for row in ids])
    assert np.array_equal(padded, one)  # right padding, masked: the same bits


def test_batched_rows_without_padding_differ_as_padded_batches_do() -> None:
    metric, ids, _ = _model_and_ids()
    one = np.array([_scores(metric, [row])[0] for row in ids])
    # each row batched with copies of itself: no padding at all, only the batch dimension changes
    unpadded = np.array([_scores(metric, [row] * 8)[0] for row in ids[:8]])
    padded = np.concatenate([_scores(metric, ids[i : i + 8]) for i in range(0, len(ids), 8)])
    gap_unpadded = np.abs(unpadded - one[:8]).max()
    gap_padded = np.abs(padded - one).max()
    assert gap_unpadded <= BOUND and gap_padded <= BOUND
    # the rounding of batching is of the size of the padded batches' gap: padding adds nothing of its own
    assert gap_padded <= 4 * max(gap_unpadded, 1e-6)
