"""nlpeval.integrations.torchmetrics: statistics as torchmetrics states, exact under 2-process DDP (gloo, CPU)."""

from __future__ import annotations

import json
import random
import socket
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import torch
import torchmetrics  # noqa: F401 - the test needs it installed

import nlpeval
from nlpeval.integrations.torchmetrics import StatsMetric
from textgen import corpus

#: text metrics checked under DDP: integer statistics (bleu, chrf, wer) and float ones (ter, rougeL)
TEXT_METRICS = ("bleu", "chrf", "wer", "ter", "rougeL")


def _ids(seed: int, n: int) -> tuple[list[list[int]], list[list[list[int]]]]:
    """Padded token-id hypotheses (pad 0, eos 2) and 1-2 references per segment."""
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        ref = [rng.randint(3, 12) for _ in range(rng.randint(1, 9))]
        hyp = [t if rng.random() < 0.7 else rng.randint(3, 12) for t in ref][: rng.randint(1, 9)]
        hyps.append([*hyp, 2, *[0] * rng.randint(0, 3)])
        refs.append([ref] + ([ref[::-1]] if rng.random() < 0.5 else []))
    return hyps, refs


def _batches(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def test_token_ids_in_batches_equal_one_shot_bleu():
    hyps, refs = _ids(1, 37)
    metric = StatsMetric(nlpeval.TokenIdBLEU(pad_id=0, eos_id=2), ignore_index=-100)
    for hyp, ref in zip(_batches(hyps, 5), _batches(refs, 5), strict=True):
        width = max(len(h) for h in hyp)
        metric.update(torch.tensor([h + [-100] * (width - len(h)) for h in hyp]), ref)  # label-style padding
    expected = nlpeval.bleu(hyps, refs, pad_id=0, eos_id=2)
    assert metric.compute().item() == expected.score
    assert metric.last_score.components == expected.components
    no_eos = StatsMetric(nlpeval.TokenIdBLEU(pad_id=0), ignore_index=-100)
    width = max(len(h) for h in hyps)
    no_eos.update(torch.tensor([h + [-100] * (width - len(h)) for h in hyps]), refs)
    assert no_eos.compute().item() == nlpeval.bleu(hyps, refs, pad_id=0).score
    assert no_eos.compute().item() != StatsMetric(nlpeval.TokenIdBLEU(pad_id=0))(
        torch.tensor([h + [-100] * (width - len(h)) for h in hyps]), refs
    )
    metric.reset()
    with pytest.raises(ValueError, match="nothing to score"), pytest.warns(UserWarning, match="before the"):
        metric.compute()


@pytest.mark.parametrize("name", TEXT_METRICS)
def test_text_metric_in_batches_equals_one_shot(name):
    hyps, refs = corpus(seed=3, n=60)
    metric = StatsMetric(name)
    for hyp, ref in zip(_batches(hyps, 7), _batches(refs, 7), strict=True):
        metric.update(hyp, ref)
    one_shot = metric.metric(hyps, refs).score
    # integer statistics merge exactly; float ones are summed exactly (math.fsum), NumPy's sum may differ in the last bit
    if np.issubdtype(metric.metric.segment_stats(hyps[:1], refs[:1]).rows.dtype, np.integer):
        assert metric.compute().item() == one_shot
    else:
        assert metric.compute().item() == pytest.approx(one_shot, rel=1e-14, abs=1e-15)


def test_last_rule_and_unknown_names_are_refused():
    with pytest.raises(ValueError, match="'last'"):
        StatsMetric(nlpeval.make_bleu(flavor="nltk", smooth="method5"))
    with pytest.raises(ValueError, match="unknown metric 'blue'"):
        StatsMetric("blue")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker(rank: int, world: int, port: int, out: str, texts: tuple, ids: tuple) -> None:
    """One DDP rank: update with its interleaved shard (as DistributedSampler does), sync, write the values."""
    import torch.distributed as dist

    torch.set_num_threads(1)  # two ranks on a small machine: no thread oversubscription
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world, timeout=timedelta(seconds=60)
    )
    try:
        values = {}
        hyps, refs = texts
        for name in TEXT_METRICS:
            metric = StatsMetric(name)
            mine_h, mine_r = hyps[rank::world], refs[rank::world]
            for hyp, ref in zip(_batches(mine_h, 4 + rank), _batches(mine_r, 4 + rank), strict=True):
                metric.update(hyp, ref)
            values[name] = metric.compute().item()
        metric = StatsMetric(nlpeval.TokenIdBLEU(pad_id=0, eos_id=2))
        id_h, id_r = ids
        for hyp, ref in zip(_batches(id_h[rank::world], 3), _batches(id_r[rank::world], 3), strict=True):
            metric.update(hyp, ref)
        values["token_id_bleu"] = metric.compute().item()
        Path(out, f"rank{rank}.json").write_text(json.dumps(values), encoding="utf-8")
    finally:
        dist.destroy_process_group()


def test_two_process_ddp_equals_single_process(tmp_path):
    import torch.multiprocessing as mp

    hyps, refs = corpus(seed=5, n=41)  # odd: the ranks get different numbers of segments
    id_h, id_r = _ids(7, 29)
    context = mp.start_processes(
        _worker,
        args=(2, _free_port(), str(tmp_path), (hyps, refs), (id_h, id_r)),
        nprocs=2,
        join=False,
        start_method="spawn",
    )
    deadline = time.monotonic() + 240
    while not context.join(timeout=5):
        if time.monotonic() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail("the DDP workers did not finish in 240 s")
    results = [json.loads((tmp_path / f"rank{r}.json").read_text(encoding="utf-8")) for r in range(2)]
    assert results[0] == results[1]
    for name in TEXT_METRICS:
        single = StatsMetric(name)
        for hyp, ref in zip(_batches(hyps, 9), _batches(refs, 9), strict=True):
            single.update(hyp, ref)
        assert results[0][name] == single.compute().item(), name
        assert results[0][name] == pytest.approx(single.metric(hyps, refs).score, rel=1e-14, abs=1e-15)
    assert results[0]["token_id_bleu"] == nlpeval.bleu(id_h, id_r, pad_id=0, eos_id=2).score
