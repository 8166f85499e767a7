"""BERTScore's look-ahead: the texts of several calls embedded once each, in one pool of length-sorted batches
(``BERTScore.prefetch``, used by ``nlpeval score`` and the report). bert-score 0.3.13's goldens still hold at the
reference's batch size when every case is embedded in a pool with other texts; the scores do not depend on the
composition of the encoder's batches; the token budget bounds what is kept; the command line and the report
embed every distinct text once."""

from __future__ import annotations

import json
import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)

from embed_counting import counted  # noqa: E402
from nlpeval.metrics.bertscore import BERTScore, TruncationWarning  # noqa: E402
from nlpeval.neural.batching import padded_positions  # noqa: E402

GOLDEN = json.loads((FIXTURES / "bertscore_golden.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-6
pytestmark = pytest.mark.filterwarnings("ignore::nlpeval.metrics.bertscore.TruncationWarning")


@cache
def cases() -> dict[str, dict]:
    return {case["name"]: case for case in make_fixtures.bertscore_cases(make_fixtures.real_texts())}


def token_lengths(metric: BERTScore, texts: list[str]) -> dict[str, int]:
    distinct = list(dict.fromkeys(texts))
    return {t: len(ids) for t, ids in zip(distinct, metric.encoder.tokenizer.encode(distinct)[0], strict=True)}


def fresh(gold: dict, **changes) -> BERTScore:
    options = {
        "model": FIXTURES / gold["model"],
        "num_layers": gold["num_layers"],
        "idf": gold["idf"],
        "batch_size": gold["batch_size"],
        "rescale_with_baseline": gold["baseline"] is not None,
        "baseline_path": FIXTURES / gold["baseline"] if gold["baseline"] else None,
        "device": "cpu",
    }
    return BERTScore(**{**options, **changes})


@pytest.mark.parametrize("gold", GOLDEN["cases"], ids=lambda gold: gold["name"])
def test_goldens_hold_when_embedded_in_a_pool_with_other_texts(gold: dict) -> None:
    case = cases()[gold["name"]]
    texts = make_fixtures.real_texts()
    metric = fresh(gold)
    sizes = counted(metric)
    # another system's hypotheses first, then the case: one pool, sorted by length together
    other = (texts["ted_b"] if "-ted-" in gold["name"] else texts["wmt_c"])[: min(100, len(case["hyps"]))]
    pooled = metric.prefetch([(other, case["refs"][: len(other)]), (case["hyps"], case["refs"])])
    distinct = set(other) | set(case["hyps"]) | {r for g in case["refs"] for r in ([g] if isinstance(g, str) else g)}
    assert pooled == len(distinct) == sizes[0] and len(sizes) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        score = metric(case["hyps"], case["refs"], segments=True)
    assert len(sizes) == 1  # the call embedded nothing: every text came from the pool
    expected = np.array([gold["precision"], gold["recall"], gold["f1"]]).T
    assert np.abs(score.segments - expected).max() <= TOLERANCE
    assert abs(score.score - float(np.mean(np.float64(gold["f1"])))) <= TOLERANCE


def test_scores_do_not_depend_on_the_composition_of_the_batches() -> None:
    texts = make_fixtures.real_texts()
    refs = texts["ted_ref"][:60]
    systems = [texts["ted_a"][:60], texts["ted_b"][:60], texts["ted_a"][30:90]]

    def scores(batch_size: int, pool: bool, budget: int | None = None, flavor: str = "bert_score") -> list[np.ndarray]:
        metric = BERTScore(
            model=FIXTURES / "roberta-tiny", num_layers=2, idf=True, batch_size=batch_size, flavor=flavor
        )
        if budget is not None:
            object.__setattr__(metric, "prefetch_tokens", budget)  # frozen dataclass: a per-object budget
        out = []
        for k, hyps in enumerate(systems):
            if pool:
                metric.prefetch((h, refs) for h in systems[k:])
            out.append(metric(hyps, refs, segments=True).segments)
        return out

    # alone per call at bert-score's batch size: the batches bert-score's own calls would hold
    base = scores(64, pool=False)
    for batch_size, budget in ((64, None), (5, None), (64, 1500), (1, None)):
        for got, want in zip(scores(batch_size, pool=True, budget=budget), base, strict=True):
            assert np.abs(got - want).max() <= TOLERANCE, (batch_size, budget)
    # the matching batch (bert-score's padding quirk) is the one given, whatever the encoder's pool
    assert np.abs(scores(7, pool=True)[0] - scores(7, pool=False)[0]).max() <= TOLERANCE
    # torchmetrics' flavor (its own tokenisation of the raw text) pools the same way
    for got, want in zip(
        scores(64, True, flavor="torchmetrics"), scores(64, False, flavor="torchmetrics"), strict=True
    ):
        assert np.abs(np.nan_to_num(got) - np.nan_to_num(want)).max() <= TOLERANCE


def test_the_budget_bounds_the_texts_kept_ahead() -> None:
    texts = make_fixtures.real_texts()
    refs = texts["wmt_ref"][:40]
    systems = [texts["wmt_a"][:40], texts["wmt_b"][:40], texts["wmt_a"][40:80], texts["wmt_b"][40:80]]
    metric = BERTScore(model=FIXTURES / "bert-tiny", num_layers=3)
    tokens = token_lengths(metric, [*refs, *(t for hyps in systems for t in hyps)])
    size = lambda texts: sum(tokens[t] for t in set(texts))  # noqa: E731
    budget = size([*refs, *systems[0], *systems[1]])  # the first two calls fit, not three
    assert size([*refs, *systems[0], *systems[1], *systems[2]]) > budget >= size([*systems[2], *systems[3]])
    object.__setattr__(metric, "prefetch_tokens", budget)
    sizes = counted(metric)
    plain = BERTScore(model=FIXTURES / "bert-tiny", num_layers=3)
    for k, hyps in enumerate(systems):
        metric.prefetch((h, refs) for h in systems[k:])
        ahead = metric._ahead
        assert sum(ahead.tokens.values()) <= budget
        assert all(t in ahead.kept or t in metric._embeddings for t in [*hyps, *refs])  # ready before the call
        before = len(sizes)
        got = metric(hyps, refs, segments=True)
        assert len(sizes) == before  # nothing embedded during the call
        assert np.abs(got.segments - plain(hyps, refs, segments=True).segments).max() <= TOLERANCE
    # two pools (calls 1-2, calls 3-4: the references are kept from the first), one per window
    assert sizes == [len({*refs, *systems[0], *systems[1]}), len({*systems[2], *systems[3]} - set(refs))]


def test_a_pool_pads_fewer_positions_than_calls_one_by_one() -> None:
    texts = make_fixtures.real_texts()
    metric = BERTScore(model=FIXTURES / "roberta-tiny", num_layers=2)
    refs = texts["wmt_ref"][:100]
    systems = [texts["wmt_a"][:100], texts["wmt_b"][:100]]
    lengths = token_lengths(metric, [*refs, *(t for hyps in systems for t in hyps)])
    one_by_one = padded_positions([lengths[t] for t in {*refs, *systems[0]}], 64) + padded_positions(
        [lengths[t] for t in set(systems[1]) - set(refs)], 64
    )
    pooled = padded_positions(list(lengths.values()), 64)
    assert pooled < one_by_one


def test_invalid_calls_are_left_to_their_own_call() -> None:
    from nlpeval.core.errors import InputError

    metric = BERTScore(model=FIXTURES / "bert-tiny", num_layers=1)
    assert metric.prefetch([(["a", None], ["b", "c"]), (["d"], ["e"])]) == 0  # the first call's own call reports it
    assert metric.prefetch([(["d"], ["e"]), (["a", None], ["b", "c"])]) == 2
    with pytest.raises(InputError, match="segment 1"):
        metric(["a", None], ["b", "c"])


def test_the_report_embeds_every_distinct_text_once(monkeypatch) -> None:
    import nlpeval
    from nlpeval.metrics.bertscore.encoder import Encoder

    texts = make_fixtures.real_texts()
    refs = texts["wmt_ref"][:30]
    systems = {"a": texts["wmt_a"][:30], "b": texts["wmt_b"][:30]}
    sizes: list[int] = []
    embed = Encoder.embed

    def counting(self, ids, batch_size):
        sizes.append(len(ids))
        return embed(self, ids, batch_size)

    monkeypatch.setattr(Encoder, "embed", counting)
    options = {"bertscore_model": FIXTURES / "bert-tiny", "bertscore_num_layers": 3}
    report = nlpeval.report(systems, refs, metrics=["bertscore"], metric_options=options, n_bootstrap=50)
    assert sizes == [len(set(refs) | set(systems["a"]) | set(systems["b"]))]  # one pool
    plain = BERTScore(model=FIXTURES / "bert-tiny", num_layers=3)
    for cell in report.leaderboard.cells:
        assert abs(cell.estimate.value - plain(systems[cell.system], refs).score) <= TOLERANCE
