"""Correlations against SciPy; WMT Kendall-like tau and meta-evaluation against their definitions."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import nlpeval
from nlpeval import InputError, UndefinedMetricWarning
from nlpeval.cli.main import main as cli_main
from nlpeval.correlation import (
    kendall,
    kendall_like,
    meta_evaluate,
    pearson,
    relative_ranking_pairs,
    spearman,
)
from nlpeval.significance.bootstrap import resample_indices

TOL = 1e-10


def close(ours: float, reference: float, tol: float = TOL) -> bool:
    if math.isnan(reference):
        return math.isnan(ours)
    return abs(ours - reference) <= tol


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _reference(method: str, x, y):
    if method == "pearson":
        return stats.pearsonr(x, y)
    if method == "spearman":
        return stats.spearmanr(x, y)
    return stats.kendalltau(x, y, variant=method[-1])


def _ours(method: str, x, y):
    if method == "pearson":
        return pearson(x, y)
    if method == "spearman":
        return spearman(x, y)
    return kendall(x, y, variant=method[-1])


METHODS = ("pearson", "spearman", "kendall_b", "kendall_c")


def _pairs(rng: np.random.Generator, count: int):
    """Paired samples of many shapes: ties, perfect (anti-)correlation, tiny and larger n, odd scales."""
    for case in range(count):
        n = int(rng.choice([2, 3, 4, 5, 8, 20, 33, 34, 60, 150]))
        levels = int(rng.integers(2, 6))
        kind = case % 6
        if kind == 0:
            x, y = rng.integers(0, levels, n).astype(float), rng.integers(0, levels, n).astype(float)
        elif kind == 1:
            x = rng.normal(size=n)
            y = x * rng.normal() + rng.normal(size=n)
        elif kind == 2:
            x = rng.normal(size=n)
            y = 3.0 * x + 1.0
        elif kind == 3:
            x = rng.integers(0, levels, n).astype(float)
            y = -2.0 * x + 5.0
        elif kind == 4:
            x = rng.normal(1e6, 1.0, n)
            y = rng.normal(-3e-4, 1e-5, n) + 1e-6 * x
        else:
            x = np.round(rng.normal(size=n), 1)
            y = np.round(x + rng.normal(scale=0.5, size=n), 1)
        yield x, y


@pytest.mark.parametrize("method", METHODS)
def test_correlations_match_scipy_on_random_data(method):
    rng = np.random.default_rng(METHODS.index(method))
    for x, y in _pairs(rng, 240):
        ours = quiet(_ours, method, x, y)
        reference = quiet(_reference, method, x, y)
        assert close(ours.statistic, float(reference.statistic)), (method, x, y)
        assert close(ours.pvalue, float(reference.pvalue)), (method, x, y, ours, reference)


def test_kendall_large_samples_with_ties_match_scipy():
    rng = np.random.default_rng(21)
    x = rng.integers(0, 50, 20_000).astype(float)
    y = np.round(x / 7 + rng.normal(size=20_000), 0)
    for variant in ("b", "c"):
        ours, reference = kendall(x, y, variant=variant), stats.kendalltau(x, y, variant=variant)
        assert close(ours.statistic, reference.statistic) and close(ours.pvalue, reference.pvalue)
    # no ties, n > 33, one discordant pair: SciPy's exact branch
    x = np.arange(60.0)
    y = x.copy()
    y[[10, 11]] = y[[11, 10]]
    ours, reference = kendall(x, y), stats.kendalltau(x, y)
    assert close(ours.statistic, reference.statistic) and close(ours.pvalue, reference.pvalue, 1e-15)


def test_results_unpack_like_scipy():
    r, p = pearson([1, 2, 3, 4], [2, 1, 4, 3])
    reference = stats.pearsonr([1, 2, 3, 4], [2, 1, 4, 3])
    assert close(r, reference.statistic) and close(p, reference.pvalue)


def test_constant_input_is_nan_with_a_warning():
    for method in METHODS:
        with pytest.warns(UndefinedMetricWarning, match="constant"):
            result = _ours(method, [1, 2, 3], [5, 5, 5])
        assert math.isnan(result.statistic) and math.isnan(result.pvalue)
        assert math.isnan(quiet(_reference, method, [1, 2, 3], [5, 5, 5]).statistic)


def test_bad_input_names_the_position():
    with pytest.raises(InputError, match="y: segment 2: is nan"):
        pearson([1, 2, 3], [1, 2, math.nan])
    with pytest.raises(InputError, match="3 values in x but 2 in y"):
        spearman([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="at least 2"):
        kendall([1], [1])
    with pytest.raises(ValueError, match="variant"):
        kendall([1, 2], [1, 2], variant="a")


def test_correlations_on_real_sentence_scores(wmt17):
    """Sentence BLEU of two WMT17 systems, and against hypothesis length: ties galore."""
    reference = wmt17["reference"]
    first = nlpeval.bleu(wmt17["online-B.0"], reference, segments=True).segments
    second = nlpeval.bleu(wmt17["uedin-nmt.4722"], reference, segments=True).segments
    lengths = np.array([len(line.split()) for line in wmt17["online-B.0"]], dtype=float)
    for x, y in ((first, second), (first, lengths)):
        for method in METHODS:
            ours, ref = _ours(method, x, y), _reference(method, x, y)
            assert close(ours.statistic, float(ref.statistic)) and close(ours.pvalue, float(ref.pvalue))


# ---------------------------------------------------------------- WMT Kendall-like


def wmt_kendall_like(gold, metric, threshold):
    """mt-metrics-eval's KendallLike, restated: pairs with |gold diff| >= threshold; metric ties are discordant."""
    concordant = discordant = 0
    for (g1, m1), (g2, m2) in itertools.combinations(zip(gold, metric, strict=True), 2):
        if math.isnan(g1) or math.isnan(g2):
            continue
        diff = g1 - g2
        if abs(diff) >= threshold:
            if (diff > 0 and m1 > m2) or (diff < 0 and m1 < m2):
                concordant += 1
            else:
                discordant += 1
    return concordant, discordant


def test_kendall_like_counts_ties_as_discordant():
    better = [0.9, 0.5, 0.4, 0.7, 0.2]
    worse = [0.3, 0.6, 0.4, 0.2, 0.1]
    result = kendall_like(better, worse)
    assert (result.concordant, result.discordant, result.metric_ties) == (3, 2, 1)
    assert result.statistic == pytest.approx(0.2)
    excluded = kendall_like(better, worse, ties="exclude")
    assert excluded.statistic == pytest.approx(0.5) and excluded.n_pairs == 4
    assert math.isnan(kendall_like([], []).statistic)


def test_relative_ranking_pairs_feed_kendall_like():
    rng = np.random.default_rng(22)
    human = rng.uniform(0, 100, 12)
    metric = human / 100 + rng.normal(scale=0.2, size=12)
    better, worse = relative_ranking_pairs(human, threshold=25)
    assert (human[better] - human[worse] >= 25).all()
    result = kendall_like(metric[better], metric[worse])
    concordant, discordant = wmt_kendall_like(human, metric, 25)
    assert (result.concordant, result.discordant) == (concordant, discordant)


# ---------------------------------------------------------------- meta-evaluation


def _data(rng: np.random.Generator, systems: int = 7, items: int = 40, missing: float = 0.25):
    quality = rng.normal(size=systems)[:, None]
    human = 50 + 15 * quality + rng.normal(scale=20, size=(systems, items))
    metric = 0.01 * human + rng.normal(scale=0.25, size=(systems, items))
    metric = np.round(metric, 2)  # ties
    human[rng.random(human.shape) < missing] = np.nan
    return metric, human


def _system_reference(method, metric, human):
    m, h = metric.mean(axis=1), np.nanmean(human, axis=1)
    if method == "pairwise_accuracy":
        pairs = list(itertools.combinations(range(len(m)), 2))
        return sum(np.sign(m[i] - m[j]) == np.sign(h[i] - h[j]) for i, j in pairs) / len(pairs), math.nan
    result = quiet(_reference, "kendall_b" if method == "kendall" else method, m, h)
    return float(result.statistic), float(result.pvalue)


def _segment_reference(method, metric, human, group_by, threshold=25.0):
    judged = ~np.isnan(human)
    name = "kendall_b" if method == "kendall" else method
    if group_by is None:
        result = quiet(_reference, name, metric[judged], human[judged])
        return float(result.statistic), float(result.pvalue)
    vectors = (
        [(metric[judged[:, i], i], human[judged[:, i], i]) for i in range(human.shape[1])]
        if group_by == "item"
        else [(metric[s, judged[s]], human[s, judged[s]]) for s in range(human.shape[0])]
    )
    if method == "kendall_like":
        counts = np.array([wmt_kendall_like(h, m, threshold) for m, h in vectors]).sum(axis=0)
        return (counts[0] - counts[1]) / (counts[0] + counts[1]), math.nan
    if method == "pairwise_accuracy":
        agree = total = 0
        for m, h in vectors:
            for i, j in itertools.combinations(range(len(m)), 2):
                agree += np.sign(m[i] - m[j]) == np.sign(h[i] - h[j])
                total += 1
        return agree / total, math.nan
    values = [float(quiet(_reference, name, m, h).statistic) for m, h in vectors if len(m) >= 2]
    values = [v for v in values if not math.isnan(v)]
    return float(np.mean(values)), math.nan


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall", "kendall_c", "pairwise_accuracy"])
def test_system_level_matches_reference(method):
    metric, human = _data(np.random.default_rng(23))
    result = meta_evaluate(metric, human, level="system", method=method)
    statistic, pvalue = _system_reference(method, metric, human)
    assert close(result.statistic, statistic) and close(result.pvalue, pvalue)
    assert result.n == metric.shape[0] and result.level == "system"


@pytest.mark.parametrize(
    ("method", "group_by"),
    [(m, g) for m in ("pearson", "spearman", "kendall", "kendall_c") for g in (None, "item", "system")]
    + [("kendall_like", "item"), ("pairwise_accuracy", "item")],
)
def test_segment_level_matches_reference(method, group_by):
    metric, human = _data(np.random.default_rng(24))
    result = meta_evaluate(metric, human, level="segment", method=method, group_by=group_by)
    statistic, pvalue = _segment_reference(method, metric, human, group_by)
    assert close(result.statistic, statistic) and close(result.pvalue, pvalue)


@pytest.mark.parametrize(
    ("level", "method", "group_by"),
    [
        ("system", "pearson", None),
        ("system", "kendall", None),
        ("system", "pairwise_accuracy", None),
        ("segment", "spearman", None),
        ("segment", "pearson", None),
        ("segment", "kendall_c", None),
        ("segment", "kendall", "item"),
        ("segment", "pearson", "system"),
        ("segment", "spearman", "system"),
        ("segment", "kendall", "system"),
        ("segment", "kendall_like", "item"),
        ("segment", "pairwise_accuracy", "item"),
    ],
)
def test_bootstrap_over_items_equals_recomputing_each_resample(level, method, group_by):
    metric, human = _data(np.random.default_rng(25), systems=5, items=30)
    if level == "segment":
        human[3] = np.nan  # a system nobody judged
    human[4, :3] = 42.0  # human ties
    n_res, seed = 40, 9
    result = meta_evaluate(metric, human, level=level, method=method, group_by=group_by, n_bootstrap=n_res, seed=seed)
    values = []
    for columns in resample_indices(metric.shape[1], n_res, seed):
        m, h = metric[:, columns], human[:, columns]
        try:
            if level == "system":
                value = _system_reference(method, m, h)[0]
            else:
                value = _segment_reference(method, m, h, group_by)[0]
        except (ValueError, ZeroDivisionError):
            value = math.nan
        values.append(value)
    finite = np.sort([v for v in values if not math.isnan(v)])
    lower = int(len(finite) * 0.05 / 2)
    assert close(result.ci.low, finite[lower], 1e-12) and close(result.ci.high, finite[-lower - 1], 1e-12)
    assert close(result.ci.mean, float(finite.mean()), 1e-9)
    assert f"|bs:{n_res}|rs:{seed}|" in result.signature


def test_meta_evaluate_accepts_mappings_and_system_scores():
    metric, human = _data(np.random.default_rng(26), systems=4, items=10, missing=0.0)
    names = ["a", "b", "c", "d"]
    by_name = meta_evaluate(
        {n: list(row) for n, row in zip(names, metric, strict=True)},
        {n: list(row) for n, row in reversed(list(zip(names, human, strict=True)))},
    )
    assert close(by_name.statistic, meta_evaluate(metric, human).statistic)
    corpus = meta_evaluate({n: float(v) for n, v in zip(names, metric.mean(axis=1), strict=True)}, human)
    assert close(corpus.statistic, by_name.statistic)
    with pytest.raises(InputError, match="systems differ"):
        meta_evaluate({"a": [1.0], "b": [2.0]}, {"a": [1.0], "c": [2.0]})


def test_meta_evaluate_degenerate_and_bad_input():
    metric, human = _data(np.random.default_rng(27), systems=3, items=6, missing=0.0)
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        assert math.isnan(meta_evaluate(metric, np.full_like(human, 50.0)).statistic)
    with pytest.raises(InputError, match="at least two systems"):
        meta_evaluate(metric[:1], human[:1])
    with pytest.raises(InputError, match="no judged item"):
        meta_evaluate(metric, np.full_like(human, np.nan), level="segment")
    bad = metric.copy()
    bad[1, 2] = np.nan
    with pytest.raises(InputError, match=r"metric score at \(1, 2\) is missing"):
        meta_evaluate(bad, human, level="segment")
    with pytest.raises(ValueError, match="group_by='item'"):
        meta_evaluate(metric, human, level="segment", method="kendall_like")
    with pytest.raises(ValueError, match="per-item scores"):
        meta_evaluate(metric.mean(axis=1), human.mean(axis=1), n_bootstrap=10)


# ---------------------------------------------------------------- CLI


def test_cli_correlate_plain_files(tmp_path, capsys):
    rng = np.random.default_rng(28)
    x = np.round(rng.normal(size=30), 3)
    y = np.round(x + rng.normal(size=30), 3)
    (tmp_path / "m.txt").write_text("".join(f"{v}\n" for v in x))
    (tmp_path / "h.txt").write_text("".join(("NA" if i == 4 else f"{v}") + "\n" for i, v in enumerate(y)))
    assert (
        cli_main(["correlate", "--metric", str(tmp_path / "m.txt"), "--human", str(tmp_path / "h.txt"), "-f", "json"])
        == 0
    )
    results = {r["method"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    keep = np.arange(30) != 4
    for method in ("pearson", "spearman", "kendall"):
        ref = _reference("kendall_b" if method == "kendall" else method, x[keep], y[keep])
        assert close(results[method]["statistic"], float(ref.statistic))
        assert close(results[method]["pvalue"], float(ref.pvalue))
        assert results[method]["n"] == 29


def test_cli_correlate_tables(tmp_path, capsys):
    metric, human = _data(np.random.default_rng(29), systems=4, items=12)
    with open(tmp_path / "metric.csv", "w") as m_file, open(tmp_path / "human.tsv", "w") as h_file:
        m_file.write("item,system,score\n")
        h_file.write("system\tsegment\tscore\n")
        for s in range(4):
            for i in range(12):
                m_file.write(f"{i},sys{s},{float(metric[s, i])!r}\n")
                if not np.isnan(human[s, i]):
                    h_file.write(f"sys{s}\t{i}\t{float(human[s, i])!r}\n")
    args = ["correlate", "--metric", str(tmp_path / "metric.csv"), "--human", str(tmp_path / "human.tsv")]
    assert cli_main([*args, "--group-by", "none,item", "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "level,method,group_by,statistic,pvalue,n,ci_low,ci_high,signature"
    rows = {tuple(line.split(",")[:3]): float(line.split(",")[3]) for line in lines[1:]}
    assert close(rows[("system", "pearson", "none")], meta_evaluate(metric, human).statistic)
    expected = meta_evaluate(metric, human, level="segment", method="kendall", group_by="item").statistic
    assert close(rows[("segment", "kendall", "item")], expected)
    assert cli_main([*args, "--bootstrap", "30"]) == 0
    assert "ci_low" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("metric_text", "human_text", "message"),
    [
        ("0.1\n0.2\nabc\n", "1\n2\n3\n", "m.txt:3: 'abc' is not a number"),
        ("0.1\n\n0.3\n", "1\n2\n3\n", "m.txt:2: score is missing"),
        ("0.1\n0.2\n", "1\n2\n3\n", "m.txt has 2 lines but h.txt has 3"),
        ("system,score\na,1\nb,2\n", "system,score\na,1\nc,2\n", "h.txt:3: system 'c' has no metric scores"),
        ("system,score\na,1\na,2\n", "system,score\na,1\n", "m.txt:3: second score for system 'a'"),
        (
            "system,item,score\na,1,1\nb,1,2\n",
            "system,item,score\na,1,1\nb,2,2\n",
            "h.txt:3: no metric score for system 'b' item '2'",
        ),
        ("foo bar\n", "1\n", "m.txt:1: expected one number per line"),
    ],
)
def test_cli_correlate_bad_input_exits_2(tmp_path, monkeypatch, capsys, metric_text, human_text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.txt").write_text(metric_text)
    (tmp_path / "h.txt").write_text(human_text)
    code = cli_main(["correlate", "--metric", "m.txt", "--human", "h.txt"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
