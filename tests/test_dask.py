"""nlpeval.dask: the Dask result equals the single-machine result on real data, for any partitioning.

Exactness: metrics whose statistics are integers (BLEU in every flavor, chrF/chrF++, WER family,
METEOR 1.5, confusion matrices; TER's edit counts are integer-valued floats, so their sums are
exact too) must agree bit for bit, signature and components included. Metrics whose per-segment
statistics are real numbers (ROUGE's per-segment P/R/F for the macro average, NLTK's METEOR,
perplexity's log-likelihoods, regression sums) are floating-point sums whose order differs
between a tree of partitions and one ``numpy.sum``: they agree to 1e-12 relative.
"""

from __future__ import annotations

import math
import os
import signal
import time

import dask
import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest

import nlpeval
import nlpeval.dask
from distributed_data import compare_mt, wmt17
from nlpeval.classification.matrix import ConfusionMatrix
from nlpeval.distributed import NotDecomposableError, PartitionInputError
from nlpeval.lm.logprobs import Perplexity
from nlpeval.metrics.rouge.rouge155 import Rouge155
from nlpeval.metrics.wer import CER, MER, WER, WIL, WIP
from nlpeval.significance.poisson import paired_poisson

SYSTEM = "uedin-nmt.4722"

#: integer statistics: bit-for-bit parity
EXACT = {
    "bleu": nlpeval.BLEU(),
    "bleu-intl-lc": nlpeval.BLEU(tokenize="intl", lowercase=True, smooth="floor"),
    "bleu-nltk": nlpeval.NltkBLEU(smooth="method5"),
    "bleu-hf": nlpeval.HfBLEU(),
    "chrf": nlpeval.CHRF(),
    "chrf++": nlpeval.CHRF(word_order=2),
    "ter": nlpeval.TER(),
    "wer": WER(),
    "mer": MER(),
    "wil": WIL(),
    "wip": WIP(),
    "cer": CER(),
    "meteor-exact-stem": nlpeval.METEOR(modules=("exact", "stem")),
}
#: slower metrics: run on fewer partitionings
EXACT_SLOW = {"meteor": nlpeval.METEOR()}
#: real-valued statistics: 1e-12
FLOAT = {
    "rouge1": nlpeval.Rouge("rouge1"),
    "rougeL-micro": nlpeval.Rouge("rougeL", aggregate="micro"),
    "rougeLsum": nlpeval.Rouge("rougeLsum"),
    "rouge2-rs": nlpeval.Rouge("rouge2", flavor="rouge-score"),
    "rougeW": nlpeval.Rouge("rougeW-1.2"),
}
FLOAT_SLOW = {"rougeSU4": nlpeval.Rouge("rougeSU4"), "meteor-nltk": nlpeval.NltkMETEOR()}


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return value


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return a == b


def assert_same(dist, local, *, exact: bool) -> None:
    if exact:
        assert dist.to_dict() == local.to_dict()
    else:
        assert dist.signature == local.signature
        assert _close(_plain(dist.to_dict()), _plain(local.to_dict())), (dist, local)


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list[list[str]]]:
    data = wmt17()
    return data[SYSTEM], [[r] for r in data["reference"]]


@pytest.fixture(scope="module")
def local_scores(corpus):
    hyps, refs = corpus
    metrics = {**EXACT, **EXACT_SLOW, **FLOAT, **FLOAT_SLOW}
    return {name: metric(hyps, refs) for name, metric in metrics.items()}


def _uneven_bag(rows: list, sizes: list[int]) -> db.Bag:
    """A bag with the given partition sizes (the last takes the rest); zeros are empty partitions."""
    from dask import delayed

    chunks, start = [], 0
    for size in [*sizes, len(rows)]:
        chunks.append(rows[start : start + size])
        start += len(chunks[-1])
    return db.from_delayed([delayed(list)(chunk) for chunk in chunks])


def _bags(hyps, refs):
    rows = list(zip(hyps, refs, strict=True))
    return {
        "1": db.from_sequence(rows, npartitions=1),
        "7": db.from_sequence(rows, npartitions=7),
        "64": db.from_sequence(rows, npartitions=64),
        "uneven+empty": _uneven_bag(rows, [0, 1, 5, 0, 1000, 3, 0, 0, 1500]),
    }


@pytest.mark.parametrize("layout", ["1", "7", "64", "uneven+empty"])
def test_bag_parity_threads(corpus, local_scores, layout) -> None:
    hyps, refs = corpus
    bag = _bags(hyps, refs)[layout]
    metrics = {**EXACT, **FLOAT}
    if layout in ("7", "uneven+empty"):
        metrics |= {**EXACT_SLOW, **FLOAT_SLOW}
    scores = nlpeval.dask.score(bag, metrics, split_every=3).compute(scheduler="threads")
    for name, score in scores.items():
        assert_same(score, local_scores[name], exact=name in EXACT or name in EXACT_SLOW)


def _frame_uneven(frame: pd.DataFrame, sizes: list[int]) -> dd.DataFrame:
    from dask import delayed

    parts, start = [], 0
    for size in [*sizes, len(frame)]:
        parts.append(frame.iloc[start : start + size])
        start += len(parts[-1])
    return dd.from_delayed([delayed(lambda p: p)(p) for p in parts], meta=frame.iloc[:0], verify_meta=False)


@pytest.mark.parametrize("name", ["ted", "sum"])
def test_dataframe_parity_compare_mt(name) -> None:
    data = compare_mt()
    hyps, refs = data[f"{name}.sys1.eng"], data[f"{name}.ref.eng"]
    frame = pd.DataFrame({"output": hyps, "target": refs, "lang": ["en"] * len(hyps)})
    metrics = {k: EXACT[k] for k in ("bleu", "chrf++", "ter", "wer")} | FLOAT
    local = {k: m(hyps, [[r] for r in refs]) for k, m in metrics.items()}
    for ddf in (dd.from_pandas(frame, npartitions=7), _frame_uneven(frame, [0, 13, 0, 400, 1])):
        scores = nlpeval.dask.score(ddf, metrics, hyp="output", ref="target").compute(scheduler="threads")
        for key, score in scores.items():
            assert_same(score, local[key], exact=key in EXACT)


def test_multi_reference_columns_and_groups(corpus) -> None:
    hyps, refs = corpus
    other = wmt17()["online-B.0"]
    frame = pd.DataFrame({"hyp": hyps, "r1": [r[0] for r in refs], "r2": other, "half": np.arange(len(hyps)) % 2})
    ddf = dd.from_pandas(frame, npartitions=5)
    metric = nlpeval.BLEU()
    got = nlpeval.dask.score(ddf, metric, ref=["r1", "r2"], by="half").compute(scheduler="threads")
    for half in (0, 1):
        rows = frame[frame.half == half]
        local = metric(rows.hyp.tolist(), [[a, b] for a, b in zip(rows.r1, rows.r2, strict=True)])
        assert got[half].to_dict() == local.to_dict()
    # references as a list column give the same (dask would turn a list column of a pandas frame into
    # strings unless told not to; Parquet list columns are kept)
    listed = frame.assign(refs=[[a, b] for a, b in zip(frame.r1, frame.r2, strict=True)])[["hyp", "refs"]]
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(listed, npartitions=3)
    whole = nlpeval.dask.score(ddf, metric, ref="refs").compute(scheduler="sync")
    assert whole.to_dict() == metric(hyps, [[a, b] for a, b in zip(frame.r1, frame.r2, strict=True)]).to_dict()


def test_perplexity_parity() -> None:
    rng = np.random.default_rng(4)
    sequences = [np.log(rng.uniform(0.01, 1.0, size=rng.integers(1, 40))) for _ in range(500)]
    local = Perplexity()(sequences)
    bag = db.from_sequence([{"lp": s} for s in sequences], npartitions=9)
    dist = nlpeval.dask.score(bag, Perplexity(), hyp="lp", ref=None).compute(scheduler="threads")
    assert_same(dist, local, exact=False)


def test_classification_and_regression_parity(corpus) -> None:
    from sklearn import metrics as skm

    hyps, refs = corpus
    y_true = np.array([len(r[0].split()) % 4 for r in refs])
    y_pred = np.array([len(h.split()) % 4 for h in hyps])
    cm = nlpeval.dask.confusion_matrix(
        da.from_array(y_true, chunks=(1, 6, 500, 0, 2497)), da.from_array(y_pred, chunks=(1, 6, 500, 0, 2497)),
        labels=[0, 1, 2, 3],
    ).compute(scheduler="threads")  # fmt: skip
    assert cm.matrix.tolist() == skm.confusion_matrix(y_true, y_pred, labels=[0, 1, 2, 3]).tolist()
    assert cm == ConfusionMatrix.from_predictions(y_true, y_pred, labels=[0, 1, 2, 3])
    assert cm.f1(average="macro") == skm.f1_score(y_true, y_pred, average="macro")
    assert cm.accuracy() == skm.accuracy_score(y_true, y_pred)

    scores = np.array([len(h) / (len(h) + len(r[0]) + 1) for h, r in zip(hyps, refs, strict=True)])
    labels = (y_true == y_pred).astype(int)
    curve = nlpeval.dask.binned_curve(
        dd.from_pandas(pd.Series(labels), npartitions=6), dd.from_pandas(pd.Series(scores), npartitions=6), bins=50
    ).compute(scheduler="threads")
    cells = np.minimum((scores * 50).astype(int), 49)
    assert math.isclose(curve["roc_auc"], skm.roc_auc_score(labels, cells), rel_tol=1e-12)
    assert math.isclose(curve["average_precision"], skm.average_precision_score(labels, cells), rel_tol=1e-12)
    assert curve["signature"] == "curve:binned|bins:50"

    t = np.array([len(r[0]) for r in refs], dtype=float)
    p = np.array([len(h) for h in hyps], dtype=float)
    reg = nlpeval.dask.regression(da.from_array(t, chunks=300), da.from_array(p, chunks=300)).compute()
    assert math.isclose(reg["mae"], skm.mean_absolute_error(t, p), rel_tol=1e-12)
    assert math.isclose(reg["mse"], skm.mean_squared_error(t, p), rel_tol=1e-12)
    assert math.isclose(reg["r2"], skm.r2_score(t, p), rel_tol=1e-12)


@pytest.mark.parametrize("with_ids", [False, True])
def test_poisson_bootstrap_equals_local_path_across_partitionings(corpus, with_ids) -> None:
    hyps, refs = corpus
    metrics = {"bleu": nlpeval.BLEU(), "chrf": nlpeval.CHRF()}
    ids = [f"newstest2017-{i}" for i in range(len(hyps))] if with_ids else None
    local = {
        k: m.score_from_stats(m.segment_stats(hyps, refs), n_bootstrap=100, resampling="poisson", seed=3, ids=ids)
        for k, m in metrics.items()
    }
    frame = pd.DataFrame({"hyp": hyps, "ref": [r[0] for r in refs], "sid": ids or range(len(hyps))})
    for ddf in (dd.from_pandas(frame, npartitions=1), dd.from_pandas(frame, npartitions=13),
                _frame_uneven(frame, [0, 3, 0, 2000])):  # fmt: skip
        got = nlpeval.dask.score(
            ddf, metrics, id="sid" if with_ids else None, n_resamples=100, seed=3, split_every=2
        ).compute(scheduler="threads")
        for key in metrics:
            assert got[key].to_dict() == local[key].to_dict()
            assert "ci:poisson" in got[key].signature


def test_paired_poisson_equals_local(corpus) -> None:
    hyps, refs = corpus
    base = wmt17()["online-A.0"]
    metric = nlpeval.BLEU()
    local = paired_poisson(metric, metric.segment_stats(base, refs), metric.segment_stats(hyps, refs),
                           n_resamples=200, seed=1)  # fmt: skip
    frame = pd.DataFrame({"a": base, "b": hyps, "ref": [r[0] for r in refs]})
    got = nlpeval.dask.paired(dd.from_pandas(frame, npartitions=11), metric, baseline="a", system="b",
                              n_resamples=200, seed=1).compute(scheduler="threads")  # fmt: skip
    assert got == local


def test_results_are_lazy_and_compose(corpus) -> None:
    hyps, refs = corpus
    bag = db.from_sequence(list(zip(hyps, refs, strict=True)), npartitions=4)
    bleu = nlpeval.dask.score(bag, nlpeval.BLEU())
    chrf = nlpeval.dask.score(bag, nlpeval.CHRF())
    assert hasattr(bleu, "dask") and not isinstance(bleu, nlpeval.Score)
    b, c = dask.compute(bleu, chrf, scheduler="threads")
    assert b.score == nlpeval.BLEU()(hyps, refs).score and c.score == nlpeval.CHRF()(hyps, refs).score
    parts = nlpeval.dask.partials(bag, nlpeval.BLEU()).compute(scheduler="sync")
    assert parts["bleu"].n_segments == len(hyps)


# ------------------------------------------------------------------ bad input


def test_bad_input_names_partition_and_row() -> None:
    rows = [{"hyp": "a b", "ref": "a b"}] * 5 + [{"hyp": "c d", "ref": None}] + [{"hyp": "e", "ref": "e"}] * 4
    bag = db.from_sequence(rows, npartitions=2)
    with pytest.raises(PartitionInputError, match=r"partition 1, row 0: has no reference"):
        nlpeval.dask.score(bag, nlpeval.BLEU()).compute(scheduler="sync")
    frame = pd.DataFrame({"hyp": ["a", "b", "c", "d"], "ref": ["a", "b", None, "d"]})
    with pytest.raises(PartitionInputError, match=r"partition 1, row 0: has no reference"):
        nlpeval.dask.score(dd.from_pandas(frame, npartitions=2), nlpeval.CHRF()).compute(scheduler="sync")
    with pytest.raises(PartitionInputError, match=r"partition [01]: no column 'target'"):
        nlpeval.dask.score(dd.from_pandas(frame, npartitions=2), nlpeval.CHRF(), ref="target").compute(scheduler="sync")
    with pytest.raises(PartitionInputError, match=r"partition 1, row 0 \(row 2 of the input\): has no reference"):
        nlpeval.dask.score(dd.from_pandas(frame, npartitions=2), nlpeval.CHRF(), n_resamples=10).compute(
            scheduler="sync"
        )
    grouped = pd.DataFrame({"hyp": ["a", "b"], "ref": ["a", "b"], "lang": ["de", None]})
    with pytest.raises(PartitionInputError, match=r"partition 0, row 1: has no group value"):
        nlpeval.dask.score(dd.from_pandas(grouped, npartitions=1), nlpeval.CHRF(), by="lang").compute(scheduler="sync")
    # a metric's own validation, located
    bad = db.from_sequence([("a", ["a"]), ("b", ["b"]), ("c", [3])], npartitions=2)
    with pytest.raises(PartitionInputError, match=r"partition 1, row 0: references"):
        nlpeval.dask.score(bad, nlpeval.BLEU()).compute(scheduler="sync")


def test_mismatched_partitions_are_refused() -> None:
    hyps = db.from_sequence(["a", "b", "c", "d"], npartitions=2)
    refs3 = db.from_sequence(["a", "b", "c", "d", "e", "f"], npartitions=3)
    with pytest.raises(PartitionInputError, match="2 partitions and the references 3"):
        nlpeval.dask.score((hyps, refs3), nlpeval.BLEU())
    from dask import delayed

    refs = db.from_delayed([delayed(list)(["a", "b", "c"]), delayed(list)(["d"])])
    message = r"partition (0: 2 hypotheses but 3|1: 2 hypotheses but 1) references \(.* partitioned differently"
    with pytest.raises(PartitionInputError, match=message):
        nlpeval.dask.score((hyps, refs), nlpeval.BLEU()).compute(scheduler="sync")
    good = db.from_sequence(["a b c d", "b", "c", "d"], npartitions=2)
    texts = ["a b c d", "b", "c", "d"]
    expected = nlpeval.BLEU()(texts, [[t] for t in texts]).to_dict()
    assert nlpeval.dask.score((good, good), nlpeval.BLEU()).compute(scheduler="sync").to_dict() == expected


def test_non_decomposable_metric_is_refused() -> None:
    bag = db.from_sequence([("a", "a")])
    with pytest.raises(NotDecomposableError, match="krippendorff_alpha does not decompose"):
        nlpeval.dask.score(bag, nlpeval.krippendorff_alpha)
    with pytest.raises(NotDecomposableError, match="Rouge155"):
        nlpeval.dask.score(bag, Rouge155("rouge2", flavor="rouge155"))
    with pytest.raises(NotDecomposableError, match="not a CorpusMetric"):
        nlpeval.dask.score(bag, [nlpeval.BLEU(), len])


# ------------------------------------------------------------------ a real process cluster, and a fault


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, worker_dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_process_cluster_parity(client, corpus, local_scores) -> None:
    hyps, refs = corpus
    frame = pd.DataFrame({"hyp": hyps, "ref": [r[0] for r in refs]})
    metrics = {**EXACT, **FLOAT, "meteor": EXACT_SLOW["meteor"]}
    lazy = nlpeval.dask.score(_frame_uneven(frame, [0, 700, 0, 5, 1200]), metrics)
    scores = client.compute(lazy).result()
    for name, score in scores.items():
        assert_same(score, local_scores[name], exact=name in EXACT or name in EXACT_SLOW)
    # the keyed Poisson interval on worker processes equals the single-machine one
    metric = nlpeval.BLEU()
    local = metric.score_from_stats(metric.segment_stats(hyps, refs), n_bootstrap=60, resampling="poisson", seed=8)
    ddf = dd.from_pandas(frame, npartitions=5)
    remote = client.compute(nlpeval.dask.score(ddf, metric, n_resamples=60, seed=8)).result()
    assert remote.to_dict() == local.to_dict()


def _slow_rows(rows: list, pause: float) -> list:
    time.sleep(pause)
    return rows


def test_worker_killed_mid_run_gives_the_same_result(client, corpus, local_scores) -> None:
    from dask import delayed

    hyps, refs = corpus
    rows = list(zip(hyps, refs, strict=True))
    chunks = [rows[i : i + 150] for i in range(0, len(rows), 150)]
    bag = db.from_delayed([delayed(_slow_rows)(chunk, 0.15) for chunk in chunks])
    metrics = {"bleu": EXACT["bleu"], "chrf": EXACT["chrf"], "ter": EXACT["ter"]}
    future = client.compute(nlpeval.dask.score(bag, metrics))
    deadline = time.time() + 20
    while not any(client.processing().values()) and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # some partitions done, others running
    assert not future.done()
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    os.kill(pids[victim], signal.SIGKILL)
    scores = future.result(timeout=60)
    for name, score in scores.items():
        assert score.to_dict() == local_scores[name].to_dict()
    assert victim not in client.scheduler_info()["workers"] or pids[victim] not in client.run(os.getpid).values()


def test_mbr_grouped_by_source_equals_local_selection() -> None:
    from nlpeval.dask.selection import select
    from nlpeval.metrics.chrf.pairwise import pairwise_chrf

    data = compare_mt()
    systems = [data["ted.sys1.eng"], data["ted.sys2.eng"], data["ted.ref.eng"]]
    n = 300
    frame = pd.DataFrame(
        [{"src": i, "hyp": systems[k][i]} for k in range(3) for i in range(n)]  # sources spread over partitions
    )
    got = nlpeval.dask.mbr(dd.from_pandas(frame, npartitions=6), source="src", candidate="hyp", word_order=2,
                               shuffle_method="tasks")  # fmt: skip
    got = got.compute(scheduler="threads").set_index("src").sort_index()
    assert len(got) == n
    for i in (0, 1, 57, 299):
        candidates = [systems[k][i] for k in range(3)]
        matrix = pairwise_chrf(candidates, candidates, word_order=2)
        expected = [(matrix[j].sum() - matrix[j, j]) / 2 for j in range(3)]
        best = int(np.argmax(expected))
        assert (got.loc[i, "position"], got.loc[i, "expected_utility"]) == (best * n + i, expected[best])
        assert got.loc[i, "candidate"] == candidates[best]
        assert select(candidates, word_order=2) == (best, expected[best])
