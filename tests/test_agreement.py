"""Agreement coefficients against scikit-learn, statsmodels and the krippendorff package."""

from __future__ import annotations

import json
import math
import time
import warnings

import krippendorff
import numpy as np
import pytest
from sklearn import metrics as sklearn_metrics
from statsmodels.stats import inter_rater

import nlpeval
from nlpeval import InputError, UndefinedMetricWarning
from nlpeval.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
    rating_summary,
)
from nlpeval.cli.main import main as cli_main
from nlpeval.significance.bootstrap import resample_indices

TOL = 1e-10
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def close(ours: float, reference: float, tol: float = TOL) -> bool:
    if math.isnan(reference):
        return math.isnan(ours)
    return abs(ours - reference) <= tol


def quiet(function, *args, **kwargs):
    """Call with undefined-value warnings silenced (references emit their own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------- Cohen


def _label_pairs(rng: np.random.Generator, count: int):
    for case in range(count):
        n = int(rng.integers(1, 150))
        k = int(rng.integers(1, 7))
        a = rng.integers(0, k, n)
        agree = rng.random(n) < rng.random()
        b = np.where(agree, a, rng.integers(0, k, n))
        if case % 3 == 1:
            names = np.array(["bad", "fair", "good", "great", "ok", "poor", "top"])
            yield names[a].tolist(), names[b].tolist()
        elif case % 3 == 2:
            yield (a * 2.0 - 1).tolist(), (b * 2.0 - 1).tolist()
        else:
            yield a, b


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_matches_sklearn_on_random_labels(weights):
    rng = np.random.default_rng(11)
    for a, b in _label_pairs(rng, 60):
        ours = quiet(cohen_kappa, a, b, weights=weights).score
        reference = quiet(sklearn_metrics.cohen_kappa_score, a, b, weights=weights)
        assert close(ours, reference), (a, b, ours, reference)


def test_cohen_labels_option_matches_sklearn():
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 5, 80), rng.integers(0, 5, 80)
    for labels in ([4, 2, 0, 1, 3], [0, 1, 2], [3, 1]):
        for weights in (None, "linear", "quadratic"):
            ours = cohen_kappa(a, b, weights=weights, labels=labels).score
            reference = sklearn_metrics.cohen_kappa_score(a, b, weights=weights, labels=labels)
            assert close(ours, reference)


def test_cohen_components_and_signature():
    score = cohen_kappa(["x", "y", "x", "z"], ["x", "y", "y", "z"], weights="linear")
    assert score.components["labels"] == ["x", "y", "z"]
    assert score.components["n_items"] == 4
    assert score.components["observed_agreement"] == 0.75
    assert score.signature.startswith("weights:linear|version:")


def test_cohen_undefined_follows_zero_division_like_sklearn():
    a = b = ["yes"] * 5
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        value = cohen_kappa(a, b).score
    assert math.isnan(value) and math.isnan(quiet(sklearn_metrics.cohen_kappa_score, a, b))
    assert cohen_kappa(a, b, zero_division=1).score == 1.0
    with pytest.raises(ZeroDivisionError):
        cohen_kappa(a, b, zero_division="raise")


def test_cohen_single_item_matches_sklearn():
    for a, b in (([1], [2]), ([1], [1])):
        assert close(quiet(cohen_kappa, a, b).score, quiet(sklearn_metrics.cohen_kappa_score, a, b))


def test_cohen_bad_input_names_the_item():
    with pytest.raises(InputError, match="b: segment 2: label is missing"):
        cohen_kappa([1, 2, 3], [1, 2, None])
    with pytest.raises(InputError, match="3 labels from rater a but 2"):
        cohen_kappa([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="mix types"):
        cohen_kappa([1, "a"], [1, 2])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(InputError, match="no items"):
        cohen_kappa([], [])


# ---------------------------------------------------------------- Fleiss


def _statsmodels_fleiss(ratings, method="fleiss"):
    table, _ = inter_rater.aggregate_raters(np.asarray(ratings))
    return quiet(inter_rater.fleiss_kappa, table, method=method)


@pytest.mark.parametrize("method", ["fleiss", "randolph"])
def test_fleiss_matches_statsmodels_on_random_ratings(method):
    rng = np.random.default_rng(5)
    for case in range(50):
        units, raters, k = int(rng.integers(1, 80)), int(rng.integers(2, 8)), int(rng.integers(1, 7))
        ratings = rng.integers(0, k, (units, raters))
        if case % 2:
            ratings = np.array([f"c{v}" for v in ratings.ravel()]).reshape(units, raters)
        ours = quiet(fleiss_kappa, ratings, method=method).score
        assert close(ours, _statsmodels_fleiss(ratings, method)), (units, raters, k)


def test_fleiss_from_counts_matches_statsmodels():
    rng = np.random.default_rng(6)
    for _ in range(20):
        raters, units, k = int(rng.integers(2, 9)), int(rng.integers(1, 40)), int(rng.integers(2, 6))
        table = np.array([np.bincount(rng.integers(0, k, raters), minlength=k) for _ in range(units)])
        for method in ("fleiss", "randolph"):
            ours = quiet(fleiss_kappa, table, from_counts=True, method=method).score
            assert close(ours, quiet(inter_rater.fleiss_kappa, table, method=method))


def test_fleiss_degenerate_inputs():
    one_category = [["a", "a"], ["a", "a"], ["a", "a"]]
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(fleiss_kappa(one_category).score)
    assert math.isnan(_statsmodels_fleiss(one_category))
    single_unit = [[1, 2, 2, 3]]
    assert close(fleiss_kappa(single_unit).score, _statsmodels_fleiss(single_unit))
    with pytest.raises(InputError, match="ratings: segment 1: has 2 ratings but unit 0 has 3"):
        fleiss_kappa([[1, 2, 2], [1, None, 2]])
    with pytest.raises(InputError, match="at least 2"):
        fleiss_kappa([[1], [2]])
    with pytest.raises(InputError, match="non-negative integers"):
        fleiss_kappa([[1, 0.5], [1, 1]], from_counts=True)
    with pytest.raises(InputError, match="no ratings"):
        fleiss_kappa([[None, None], [None, None]])


# ---------------------------------------------------------------- Krippendorff


def _reliability(rng: np.random.Generator, raters: int, units: int, kind: str, missing: float) -> np.ndarray:
    if kind == "small-ints":
        data = rng.integers(1, 6, (raters, units)).astype(float)
        truth = rng.integers(1, 6, units)
        data = np.where(rng.random((raters, units)) < 0.5, truth, data)
    elif kind == "wide-ints":
        data = rng.integers(-40, 60, (raters, units)).astype(float)
    else:
        truth = rng.normal(size=units)
        data = truth + rng.normal(scale=0.7, size=(raters, units))
    data[rng.random(data.shape) < missing] = np.nan
    return data


def _reference_alpha(data, level, **kwargs):
    try:
        return krippendorff.alpha(data, level_of_measurement=level, **kwargs)
    except ValueError:
        return math.nan


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", ["small-ints", "wide-ints", "floats"])
def test_krippendorff_matches_package_with_missing_values(level, kind):
    rng = np.random.default_rng(hash((level, kind)) % 2**32)
    for _ in range(12):
        # the package's cost grows with units x distinct values^2: keep continuous data small
        raters, units = int(rng.integers(2, 7)), int(rng.integers(2, 40 if kind == "floats" else 120))
        data = _reliability(rng, raters, units, kind, missing=float(rng.choice([0.0, 0.1, 0.4])))
        reference = quiet(_reference_alpha, data, level)
        try:
            ours = quiet(krippendorff_alpha, data, level=level).score
        except InputError:
            assert math.isnan(reference)  # nothing pairable: the package refuses too
            continue
        assert close(ours, reference), (raters, units, ours, reference)


def test_krippendorff_many_values_take_the_sparse_path_and_match():
    rng = np.random.default_rng(8)
    data = rng.integers(0, 60, (4, 300)).astype(float)
    data[:, :150] = data[0, :150]
    data[rng.random(data.shape) < 0.2] = np.nan
    for level in LEVELS:
        assert close(krippendorff_alpha(data, level=level).score, krippendorff.alpha(data, level_of_measurement=level))


def test_krippendorff_string_labels_and_value_domain_match_package():
    rng = np.random.default_rng(9)
    scale = np.array(["very low", "low", "mid", "high", "very high"])
    codes = rng.integers(0, 5, (3, 60))
    labels = scale[codes].astype(object)
    labels[rng.random(labels.shape) < 0.2] = None
    with_nan = np.where(labels == None, np.nan, labels)  # noqa: E711 - element-wise
    ours = krippendorff_alpha(labels.tolist(), level="nominal").score
    assert close(ours, krippendorff.alpha(with_nan.astype(str), level_of_measurement="nominal"))
    ours = krippendorff_alpha(labels.tolist(), level="ordinal", value_domain=scale.tolist()).score
    reference = krippendorff.alpha(with_nan.astype(str), level_of_measurement="ordinal", value_domain=scale)
    assert close(ours, reference)
    with pytest.raises(InputError, match="needs numbers"):
        krippendorff_alpha(labels.tolist(), level="ordinal")
    with pytest.raises(InputError, match="not in value_domain"):
        krippendorff_alpha([["a", "b"], ["a", "c"]], value_domain=["a", "b"])


def test_krippendorff_degenerate_inputs():
    nan = math.nan
    with pytest.raises(InputError, match="no unit has values from two raters"):
        krippendorff_alpha([[nan, nan], [nan, nan]])
    with pytest.raises(InputError, match="no unit has values from two raters"):
        krippendorff_alpha([[1, 2, 3]])
    # one value only: undefined (the package raises instead; we follow zero_division)
    with pytest.warns(UndefinedMetricWarning, match="do not vary"):
        assert math.isnan(krippendorff_alpha([[3, 3, nan], [3, 3, 3]], level="interval").score)
    with pytest.raises(ValueError):
        krippendorff.alpha([[3, 3, nan], [3, 3, 3]], level_of_measurement="interval")
    assert krippendorff_alpha([[3, 3], [3, 3]], zero_division=1).score == 1.0
    # a single unit with two different values is defined
    for level in LEVELS:
        assert close(
            krippendorff_alpha([[1], [2]], level=level).score,
            krippendorff.alpha([[1], [2]], level_of_measurement=level),
        )
    with pytest.raises(InputError, match="infinite"):
        krippendorff_alpha([[1, math.inf], [1, 2]])


def test_krippendorff_five_by_forty_thousand_is_fast():
    rng = np.random.default_rng(0)
    data = _reliability(rng, 5, 40_000, "small-ints", missing=0.1)
    for level in LEVELS:
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            ours = krippendorff_alpha(data, level=level).score
            best = min(best, time.perf_counter() - start)
        assert best < 1.0, f"{level}: {best:.3f}s"
        assert abs(ours - krippendorff.alpha(data, level_of_measurement=level)) < 1e-10


# ---------------------------------------------------------------- percent agreement and summary


def test_percent_agreement_two_raters_is_accuracy():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 3, 70), rng.integers(0, 3, 70)
    assert close(percent_agreement(a, b).score, sklearn_metrics.accuracy_score(a, b))


def test_percent_agreement_units_by_raters_with_missing():
    rng = np.random.default_rng(4)
    ratings = rng.integers(0, 3, (40, 4)).astype(object)
    ratings[rng.random(ratings.shape) < 0.3] = None
    shares = []
    for row in ratings:
        given = [v for v in row if v is not None]
        pairs = [(i, j) for i in range(len(given)) for j in range(i + 1, len(given))]
        if pairs:
            shares.append(sum(given[i] == given[j] for i, j in pairs) / len(pairs))
    assert close(percent_agreement(ratings).score, float(np.mean(shares)))
    full = rng.integers(0, 3, (30, 3))
    table, _ = inter_rater.aggregate_raters(full)
    n = 3
    p_mean = ((table * table).sum(axis=1) - n).mean() / (n * (n - 1))
    assert close(percent_agreement(full).score, p_mean)
    with pytest.raises(InputError, match="no unit has two or more ratings"):
        percent_agreement([[1, None], [None, 2]])


def test_rating_summary_against_numpy():
    rng = np.random.default_rng(12)
    ratings = rng.integers(1, 6, (4, 50)).astype(float)
    ratings[rng.random(ratings.shape) < 0.25] = np.nan
    summary = rating_summary(ratings, scale=(1, 5))
    present = ratings[~np.isnan(ratings)]
    assert summary.n_ratings == present.size
    assert close(summary.mean, present.mean()) and close(summary.std, present.std(ddof=1))
    assert summary.counts == {float(v): int((present == v).sum()) for v in np.unique(present)}
    for i, rater in enumerate(summary.raters):
        mine = ratings[i][~np.isnan(ratings[i])]
        assert rater.n == mine.size and close(rater.mean, mine.mean()) and close(rater.std, mine.std(ddof=1))
        deltas = []
        for u in range(ratings.shape[1]):
            others = np.delete(ratings[:, u], i)
            others = others[~np.isnan(others)]
            if not np.isnan(ratings[i, u]) and others.size:
                deltas.append(ratings[i, u] - others.mean())
        assert close(rater.bias, float(np.mean(deltas)))
    unit_stds = [np.std(c[~np.isnan(c)], ddof=1) for c in ratings.T if (~np.isnan(c)).sum() >= 2]
    assert close(summary.unit_std, float(np.mean(unit_stds)))
    with pytest.raises(InputError, match="rater 1: rating 7 of unit 0 is outside the scale 1–5"):
        rating_summary([[1, 2], [7, 3]], scale=(1, 5))
    with pytest.raises(InputError, match="no ratings"):
        rating_summary([[math.nan], [math.nan]])


# ---------------------------------------------------------------- bootstrap


def _naive_interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    finite = np.sort([v for v in values if not math.isnan(v)])
    lower = int(len(finite) * (1.0 - level) / 2.0)
    return float(finite[lower]), float(finite[len(finite) - lower - 1]), float(finite.mean())


def _check_bootstrap(score, resampled_values):
    ci = score.ci
    low, high, mean = _naive_interval(resampled_values)
    assert close(ci.low, low, 1e-12) and close(ci.high, high, 1e-12) and close(ci.mean, mean, 1e-9)
    assert f"|bs:{ci.n_resamples}|rs:{ci.seed}|" in score.signature


def test_bootstrap_intervals_equal_recomputing_each_resample():
    rng = np.random.default_rng(13)
    n_res, seed = 60, 7
    a, b = rng.integers(0, 4, 90), rng.integers(0, 4, 90)
    score = cohen_kappa(a, b, weights="quadratic", n_bootstrap=n_res, seed=seed)
    idx = resample_indices(90, n_res, seed)
    _check_bootstrap(score, [quiet(cohen_kappa, a[i], b[i], weights="quadratic").score for i in idx])

    ratings = rng.integers(0, 3, (50, 4))
    score = fleiss_kappa(ratings, n_bootstrap=n_res, seed=seed)
    idx = resample_indices(50, n_res, seed)
    _check_bootstrap(score, [quiet(fleiss_kappa, ratings[i]).score for i in idx])

    table = rng.integers(0, 3, (40, 3)).astype(object)
    table[rng.random(table.shape) < 0.3] = None
    score = percent_agreement(table, n_bootstrap=n_res, seed=seed)
    eligible = np.flatnonzero((table != None).sum(axis=1) >= 2)  # noqa: E711
    idx = resample_indices(len(eligible), n_res, seed)
    _check_bootstrap(score, [percent_agreement(table[eligible[i]]).score for i in idx])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n_values", [5, 30])
def test_krippendorff_bootstrap_resamples_pairable_units(level, n_values):
    rng = np.random.default_rng(14)
    data = rng.integers(1, n_values + 1, (3, 60)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    n_res, seed = 40, 3
    score = quiet(krippendorff_alpha, data, level=level, n_bootstrap=n_res, seed=seed)
    pairable = np.flatnonzero((~np.isnan(data)).sum(axis=0) >= 2)
    idx = resample_indices(len(pairable), n_res, seed)
    values = [quiet(krippendorff_alpha, data[:, pairable[i]], level=level, zero_division=math.nan).score for i in idx]
    _check_bootstrap(score, values)


def test_bootstrap_is_seeded():
    rng = np.random.default_rng(15)
    data = rng.integers(1, 6, (3, 80)).astype(float)
    first = krippendorff_alpha(data, n_bootstrap=100, seed=1).ci
    assert first == krippendorff_alpha(data, n_bootstrap=100, seed=1).ci
    assert first != krippendorff_alpha(data, n_bootstrap=100, seed=2).ci
    with pytest.raises(ValueError, match="n_bootstrap"):
        krippendorff_alpha(data, n_bootstrap=1)


def test_public_names_are_lazy_exports():
    assert nlpeval.agreement.cohen_kappa is cohen_kappa
    assert nlpeval.krippendorff_alpha is krippendorff_alpha
    assert {"agreement", "correlation", "fleiss_kappa", "meta_evaluate"} <= set(dir(nlpeval))


# ---------------------------------------------------------------- CLI


def _write(path, rows, sep=","):
    path.write_text("".join(sep.join(map(str, row)) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_cli_agree_matches_the_api(tmp_path, capsys):
    rng = np.random.default_rng(16)
    matrix = rng.integers(1, 6, (3, 25)).astype(float)
    matrix[rng.random(matrix.shape) < 0.2] = np.nan
    rows = [("rater", "label", "unit")]
    rows += [(f"r{r}", int(matrix[r, u]), f"u{u}") for u in range(25) for r in range(3) if not np.isnan(matrix[r, u])]
    path = _write(tmp_path / "ratings.tsv", rows, sep="\t")
    assert cli_main(["agree", path, "--format", "json", "--level", "nominal,interval,ratio"]) == 0
    payload = json.loads(capsys.readouterr().out)
    values = {c["coefficient"]: c["score"] for c in payload["coefficients"]}
    kept = ~np.isnan(matrix).all(axis=0)
    for level in ("nominal", "interval", "ratio"):
        expected = krippendorff_alpha(matrix[:, kept], level=level).score
        assert close(values[f"Krippendorff's alpha ({level})"], expected)
    assert payload["n_raters"] == 3 and payload["summary"]["n_ratings"] == int((~np.isnan(matrix)).sum())
    assert cli_main(["agree", path, "--format", "csv", "--bootstrap", "20"]) == 0
    assert capsys.readouterr().out.startswith("coefficient,value,ci_low,ci_high,signature\n")


def test_cli_agree_two_raters_text(tmp_path, capsys):
    a = ["pos", "neg", "pos", "neu", "pos", "neg"]
    b = ["pos", "neg", "neu", "neu", "neg", "neg"]
    rows = [(i, "x", label) for i, label in enumerate(a)] + [(i, "y", label) for i, label in enumerate(b)]
    path = _write(tmp_path / "two.csv", rows)
    assert cli_main(["agree", path]) == 0
    out = capsys.readouterr().out
    assert f"{cohen_kappa(a, b).score:.4f}" in out and "Fleiss' kappa" in out and "12 ratings of 6 units" in out


@pytest.mark.parametrize(
    ("rows", "args", "message"),
    [
        ([("unit", "rater", "label"), ("1", "a", "3"), ("1", "b")], [], ":3: expected at least 3 columns"),
        ([("1", "a", "3"), ("2", "a", "4"), ("1", "a", "5")], [], ":3: rater 'a' already rated unit '1' (line 1)"),
        ([("1", "a", "3"), ("1", "b", "")], [], ":2: empty label"),
        ([("1", "a", "3"), ("1", "b", "x")], ["--level", "interval"], ":2: label 'x' is not a number"),
        ([("1", "a", "3"), ("2", "b", "4")], [], "no unit has two or more ratings"),
    ],
)
def test_cli_agree_bad_input_exits_2_with_file_and_line(tmp_path, capsys, rows, args, message):
    path = _write(tmp_path / "bad.csv", rows)
    assert cli_main(["agree", path, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_agreement_on_real_data(wmt17):
    """The 16 WMT17 systems as 'raters' of each segment's quality: sentence BLEU bucketed into 1-5."""
    reference = wmt17["reference"]
    systems = [name for name in wmt17 if name != "reference"]
    scores = np.array([nlpeval.bleu(wmt17[name], reference, segments=True).segments for name in systems])
    buckets = np.digitize(scores, [0.1, 0.2, 0.35, 0.5]) + 1.0  # raters x units, 1..5
    data = buckets.copy()
    data[np.random.default_rng(17).random(data.shape) < 0.15] = np.nan  # some raters skip units
    for level in LEVELS:
        assert close(krippendorff_alpha(data, level=level).score, krippendorff.alpha(data, level_of_measurement=level))
    units_by_raters = buckets.T.astype(int)
    assert close(fleiss_kappa(units_by_raters).score, _statsmodels_fleiss(units_by_raters))
    for weights in (None, "linear", "quadratic"):
        expected = sklearn_metrics.cohen_kappa_score(buckets[0], buckets[1], weights=weights)
        assert close(cohen_kappa(buckets[0], buckets[1], weights=weights).score, expected)
