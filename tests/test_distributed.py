"""The engine-neutral Partial: merge rules (properties), identity, serialisation, refusals; keyed Poisson bootstrap."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlpeval
from distributed_data import wmt17 as load_wmt17
from nlpeval.core.stats import Stats
from nlpeval.distributed import IncompatiblePartialsError, NotDecomposableError, Partial, PartialFormatError
from nlpeval.lm.logprobs import Perplexity
from nlpeval.metrics.rouge.rouge155 import Rouge155
from nlpeval.metrics.wer import CER, WER
from nlpeval.significance.paired import paired_bootstrap
from nlpeval.significance.poisson import paired_poisson, poisson_interval, poisson_totals, poisson_weights

#: one configured metric per statistics schema in nlpeval (plus variants whose schema differs)
METRICS = [
    nlpeval.BLEU(),
    nlpeval.NltkBLEU(smooth="method5"),  # a ``last`` field
    nlpeval.HfBLEU(),
    nlpeval.CHRF(),
    nlpeval.CHRF(word_order=2),
    nlpeval.TER(),
    nlpeval.Rouge("rouge2"),
    WER(),
    CER(),
    nlpeval.METEOR(modules=("exact", "stem")),
    nlpeval.NltkMETEOR(),
    Perplexity(),
]
IDS = [f"{type(m).__name__}-{m.name}" for m in METRICS]


def _rows(metric: nlpeval.CorpusMetric, values: list[list[int]]) -> Stats:
    width = metric.schema.width
    rows = np.array([(row * width)[:width] for row in values], dtype=np.int64).reshape(-1, width)
    return Stats(metric.schema, rows)


def _partial(metric: nlpeval.CorpusMetric, values: list[list[int]], start: int) -> Partial:
    stats = _rows(metric, values)
    ids = np.arange(start, start + len(stats))
    return Partial.from_stats(metric, stats, ids=ids, n_resamples=4, seed=7)


row = st.lists(st.integers(0, 50), min_size=1, max_size=4)
batch = st.lists(row, min_size=0, max_size=5)


@pytest.mark.parametrize("metric", METRICS, ids=IDS)
@settings(max_examples=25, deadline=None)
@given(a=batch, b=batch, c=batch)
def test_merge_is_associative_with_identity_and_equals_one_shot(metric, a, b, c) -> None:
    pa, pb, pc = _partial(metric, a, 0), _partial(metric, b, len(a)), _partial(metric, c, len(a) + len(b))
    zero = Partial.zero(metric, n_resamples=4, seed=7)
    left = pa.merge(pb).merge(pc)
    assert left == pa.merge(pb.merge(pc))
    assert zero.merge(pa) == pa and pa.merge(zero) == pa
    whole = _rows(metric, a + b + c)
    if len(whole):
        one_shot = Partial.from_stats(metric, whole, ids=np.arange(len(whole)), n_resamples=4, seed=7)
        assert left == one_shot
        assert left.n_segments == len(whole)


@pytest.mark.parametrize("metric", [m for m in METRICS if "last" not in m.schema.merge], ids=lambda m: m.name)
@settings(max_examples=25, deadline=None)
@given(a=batch, b=batch)
def test_merge_is_commutative_without_last_fields(metric, a, b) -> None:
    pa, pb = _partial(metric, a, 0), _partial(metric, b, len(a))
    assert pa.merge(pb) == pb.merge(pa)


def test_last_field_merge_keeps_order() -> None:
    metric = nlpeval.NltkBLEU(smooth="method5")
    a, b = _partial(metric, [[1] * 3], 0), _partial(metric, [[2] * 3], 1)
    last = metric.schema.index(metric.schema.fields[metric.schema.merge.index("last")])
    assert a.merge(b).totals[last] == 2 and b.merge(a).totals[last] == 1


@pytest.mark.parametrize("metric", METRICS, ids=IDS)
def test_bytes_and_npz_round_trip(metric, tmp_path) -> None:
    partial = _partial(metric, [[3, 1, 2], [5, 0, 4]], 0)
    assert Partial.from_bytes(partial.to_bytes()) == partial
    path = tmp_path / "part.npz"
    partial.save(str(path))
    assert Partial.load(str(path)) == partial


def test_float_totals_round_trip_bit_for_bit() -> None:
    metric = nlpeval.Rouge("rougeL")
    partial = Partial.of(metric, ["the cat sat on the mat", "a b c"], ["the cat is on the mat", "a c"])
    back = Partial.from_bytes(partial.to_bytes())
    assert back.totals.tobytes() == partial.totals.tobytes()


def test_real_scores_from_merged_partials_equal_one_shot() -> None:
    hyps = ["the cat sat on the mat", "a dog barks", "it is raining today", ""]
    refs = [["the cat sat on a mat"], ["the dog barks"], ["it rains today"], ["nothing"]]
    for metric in [nlpeval.BLEU(), nlpeval.CHRF(), nlpeval.TER(), WER(), nlpeval.METEOR(modules=("exact",))]:
        parts = [Partial.of(metric, hyps[i : i + 1], refs[i : i + 1]) for i in range(4)]
        merged = Partial.merge_all(parts).score()
        local = metric(hyps, refs)
        assert (merged.score, merged.signature, dict(merged.components)) == (
            local.score,
            local.signature,
            dict(local.components),
        )


def test_refuses_differently_configured_metrics_versions_and_resampling() -> None:
    a = Partial.of(nlpeval.BLEU(), ["a b"], [["a b"]])
    with pytest.raises(IncompatiblePartialsError, match="lowercase=False vs True"):
        a.merge(Partial.of(nlpeval.BLEU(lowercase=True), ["a b"], [["a b"]]))
    with pytest.raises(IncompatiblePartialsError, match="BLEU and CHRF"):
        a.merge(Partial.of(nlpeval.CHRF(), ["a b"], [["a b"]]))
    with pytest.raises(IncompatiblePartialsError, match="versions"):
        a.merge(Partial(a.metric, a.totals, 1, version="0.0.1"))
    with pytest.raises(IncompatiblePartialsError, match="resampling"):
        a.merge(Partial.of(nlpeval.BLEU(), ["a b"], [["a b"]], ids=[1], n_resamples=3))


def test_non_decomposable_metrics_say_so() -> None:
    with pytest.raises(NotDecomposableError, match="krippendorff_alpha does not decompose"):
        Partial.zero(nlpeval.krippendorff_alpha)

    def roc_auc_score(y_true, y_score):  # stands for scikit-learn's (not a corpus metric)
        return 0.0

    with pytest.raises(NotDecomposableError, match="binned_curve"):
        Partial.zero(roc_auc_score)
    assert nlpeval.distributed.is_decomposable(nlpeval.TER())
    # ROUGE-1.5.5's reported average is the mean of its bootstrap resamples over the whole corpus
    with pytest.raises(NotDecomposableError, match=r"rougeL \(Rouge155\) does not decompose"):
        Partial.zero(Rouge155("rougeL", flavor="rouge155"))
    assert not nlpeval.distributed.is_decomposable(Rouge155("rougeL", flavor="rouge155"))


def test_bad_bytes_are_refused_clearly(tmp_path) -> None:
    with pytest.raises(PartialFormatError, match="not an nlpeval partial"):
        Partial.from_bytes(b"hello")
    import io
    import json

    with np.load(io.BytesIO(Partial.of(nlpeval.TER(), ["a"], [["a"]]).to_bytes())) as archive:
        arrays = {name: archive[name] for name in archive.files}
    header = json.loads(bytes(arrays["header"]))
    header["format_version"] = 9
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    with pytest.raises(PartialFormatError, match="format version 9 is not supported"):
        Partial.from_bytes(data)
    with pytest.raises(PartialFormatError, match="cannot read"):
        Partial.load(str(tmp_path / "missing.npz"))


def test_import_nlpeval_does_not_import_dask() -> None:
    code = "import nlpeval, nlpeval.distributed, sys; nlpeval.BLEU; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ keyed Poisson bootstrap


def test_poisson_weights_have_poisson_one_moments_and_depend_only_on_the_key() -> None:
    weights = poisson_weights(np.arange(20_000), 50, seed=3)
    assert abs(weights.mean() - 1.0) < 0.01 and abs(weights.var() - 1.0) < 0.02
    assert abs((weights == 0).mean() - np.exp(-1)) < 0.005
    shuffled = np.random.default_rng(0).permutation(20_000)
    assert (poisson_weights(shuffled, 50, seed=3) == weights[:, shuffled]).all()
    assert not (poisson_weights(np.arange(100), 50, seed=4) == weights[:, :100]).all()
    strings = poisson_weights(["a", "b"], 5, seed=1)
    assert (strings == poisson_weights(["a", "b"], 5, seed=1)).all()


def test_poisson_weights_are_pinned() -> None:
    # SplitMix64 finaliser recomputed here in pure Python (independent of the vectorised code).
    mask = 2**64 - 1

    def mix(x: int) -> int:
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    golden = 0x9E3779B97F4A7C15
    import math

    cdf, acc = [], 0.0
    for k in range(32):
        acc += math.exp(-1.0) / math.factorial(k)
        cdf.append(acc)
    seed, expected = 12345, []
    for r in range(3):
        base = mix((seed + golden) & mask)
        rnd = mix(((base ^ r) + golden) & mask)
        row = []
        for i in range(6):
            u = (mix(((rnd ^ mix((i + golden) & mask)) + golden) & mask) >> 11) * 2.0**-53
            row.append(sum(1 for c in cdf if c <= u))
        expected.append(row)
    assert poisson_weights(np.arange(6), 3, seed=seed).tolist() == expected


@pytest.fixture(scope="module")
def wmt17() -> dict[str, list[str]]:
    return load_wmt17()


def _wmt_stats(wmt17, metric, system):
    refs = [[r] for r in wmt17["reference"]]
    return metric.segment_stats(wmt17[system], refs)


def test_poisson_interval_is_partition_independent_on_real_data(wmt17) -> None:
    metric = nlpeval.BLEU()
    stats = _wmt_stats(wmt17, metric, "uedin-nmt.4722")
    local = metric.score_from_stats(stats, n_bootstrap=200, resampling="poisson", seed=5)
    assert "ci:poisson|bs:200|rs:5" in local.signature
    n = len(stats)
    for cuts in ([n // 2], [1, 7, 400, 2000, 2000], list(range(50, n, 97))):
        bounds = [0, *cuts, n]
        parts = [
            Partial.from_stats(metric, stats.take(np.arange(a, b)), ids=np.arange(a, b), n_resamples=200, seed=5)
            for a, b in itertools.pairwise(bounds)
        ]
        merged = Partial.merge_all(parts).score()
        assert merged.ci == local.ci and merged.signature == local.signature and merged.score == local.score
    # a different resampling method than sacreBLEU's, but a comparable interval
    multinomial = metric.score_from_stats(stats, n_bootstrap=200, seed=5)
    assert abs(multinomial.ci.half_width - local.ci.half_width) < 0.35 * multinomial.ci.half_width


def test_paired_poisson_matches_across_partitionings(wmt17) -> None:
    metric = nlpeval.CHRF()
    base, system = _wmt_stats(wmt17, metric, "online-A.0"), _wmt_stats(wmt17, metric, "uedin-nmt.4722")
    local = paired_poisson(metric, base, system, n_resamples=100, seed=9)
    n, k = len(base), 100
    blocks = [(0, 1000), (1000, 1001), (1001, n)]
    pb = Partial.merge_all(
        Partial.from_stats(metric, base.take(range(a, b)), ids=np.arange(a, b), n_resamples=k, seed=9)
        for a, b in blocks
    )
    ps = Partial.merge_all(
        Partial.from_stats(metric, system.take(range(a, b)), ids=np.arange(a, b), n_resamples=k, seed=9)
        for a, b in blocks
    )
    from nlpeval.significance.poisson import paired_poisson_from_totals

    merged = paired_poisson_from_totals(metric, (pb.totals, pb.boot), (ps.totals, ps.boot), seed=9)
    assert merged == local
    # same decision as sacreBLEU's paired bootstrap on this clear difference
    assert (local.p_value < 0.05) == (paired_bootstrap(metric, base, system, n_resamples=100).p_value < 0.05)


def test_poisson_min_max_fields_use_drawn_rows_only() -> None:
    schema = nlpeval.TER().schema
    rows = np.array([[1.0, 2.0, 1.0, 1.0], [3.0, 4.0, 3.0, 3.0]])
    totals = poisson_totals(schema, rows, [0, 1], 300, seed=1)
    weights = poisson_weights([0, 1], 300, seed=1)
    for r in range(300):
        drawn = weights[r] > 0
        if drawn.any():
            assert totals[r, 2] == rows[drawn, 2].min() and totals[r, 3] == rows[drawn, 3].max()
        assert totals[r, 0] == weights[r] @ rows[:, 0]


def test_poisson_needs_matching_ids() -> None:
    metric = nlpeval.BLEU()
    stats = metric.segment_stats(["a b c d"], ["a b c d"])
    with pytest.raises(ValueError, match="one id per segment"):
        poisson_interval(metric, stats, ids=[1, 2], n_resamples=10)
    with pytest.raises(ValueError, match="resampling must be"):
        metric.score_from_stats(stats, n_bootstrap=10, resampling="jackknife")


def test_partials_pickle_without_metric_caches() -> None:
    import pickle

    metric = nlpeval.METEOR(modules=("exact", "stem", "synonym"))
    partial = Partial.of(metric, ["the cats sat on the mat"], [["a cat sits on the mat"]])
    assert len(pickle.dumps(metric)) > 1_000_000  # a used METEOR holds WordNet
    data = pickle.dumps(partial)
    assert len(data) < 5_000 and pickle.loads(data) == partial
    assert pickle.loads(data).score().to_dict() == partial.score().to_dict()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.floats(0, 1)), min_size=0, max_size=40),
    st.lists(st.tuples(st.integers(0, 1), st.floats(0, 1)), min_size=0, max_size=40),
    st.integers(1, 20),
)
def test_score_histograms_merge_and_equal_sklearn_on_binned_scores(a, b, bins) -> None:
    from sklearn.metrics import average_precision_score, roc_auc_score

    from nlpeval.distributed import ScoreHistogram

    def hist(rows):
        return ScoreHistogram.of([r[0] for r in rows], [r[1] for r in rows], bins=bins)

    whole = hist(a + b)
    assert np.array_equal(hist(a).merge(hist(b)).counts, whole.counts)
    assert np.array_equal(ScoreHistogram.zero(bins).merge(hist(a)).counts, hist(a).counts)
    labels = [r[0] for r in a + b]
    if 0 < sum(labels) < len(labels):
        cells = np.minimum((np.array([r[1] for r in a + b]) * bins).astype(int), bins - 1)
        assert whole.roc_auc() == pytest.approx(roc_auc_score(labels, cells), rel=1e-12)
        assert whole.average_precision() == pytest.approx(average_precision_score(labels, cells), rel=1e-12)
        assert whole.result()["signature"] == f"curve:binned|bins:{bins}"
