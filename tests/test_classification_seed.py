"""The seed's views: worked examples, confusion-matrix metrics, the report, accumulators, divergences, plots, CLI."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as sklearn_metrics

import nlpeval
from nlpeval import classification as clf
from nlpeval.cli.main import main as cli_main

EX1 = [[15, 10, 100], [10, 15, 10], [10, 100, 1000]]
EX2 = [[0, 0, 125], [0, 0, 35], [0, 0, 1110]]
EX3 = [[1, 0, 124], [0, 1, 24], [0, 0, 1110]]


def test_seed_example_1():
    cm = clf.ConfusionMatrix(EX1)
    assert cm.accuracy() == 0.8110236220472441
    assert cm.precision().tolist() == [15 / 35, 15 / 125, 1000 / 1110]
    assert cm.f1(average="macro") == 0.42530030030030036
    assert cm.f1(average="micro") == 0.8110236220472442


def test_seed_example_2():
    cm = clf.ConfusionMatrix(EX2)
    assert cm.accuracy() == 0.8740157480314961
    precision = cm.precision(zero_division=np.nan)
    assert np.isnan(precision[:2]).all() and precision[2] == 1110 / 1270
    assert math.isnan(cm.f1(average="macro", zero_division=np.nan))
    with pytest.warns(nlpeval.UndefinedMetricWarning):
        assert cm.precision()[:2].tolist() == [0.0, 0.0]  # "warn": 0 and a warning


def test_seed_example_3():
    cm = clf.ConfusionMatrix(EX3)
    assert cm.recall().tolist() == [0.008, 0.04, 1.0]
    assert cm.f1(average="macro") == 0.34343203093203095
    assert cm.f1(average="weighted") == 0.828993812624765


def _expand(matrix):
    """Label lists whose confusion matrix is ``matrix``."""
    m = np.asarray(matrix)
    rows, cols = np.indices(m.shape)
    return np.repeat(rows.ravel(), m.ravel()), np.repeat(cols.ravel(), m.ravel())


@pytest.mark.parametrize("matrix", [EX1, EX3, [[5, 2], [1, 7]], [[3, 0, 0], [0, 0, 0], [2, 1, 4]]])
def test_matrix_metrics_agree_with_scikit_learn_where_defined(matrix):
    y_true, y_pred = _expand(matrix)
    labels = list(range(len(matrix)))
    cm = clf.ConfusionMatrix.from_predictions(y_true, y_pred, labels=labels)
    assert cm.matrix.tolist() == np.asarray(matrix).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for beta in (0.5, 1.0, 2.0):
            p, r, f, _ = sklearn_metrics.precision_recall_fscore_support(
                y_true, y_pred, labels=labels, beta=beta, zero_division=0
            )
            np.testing.assert_allclose(cm.precision(zero_division=0), p, atol=1e-12)
            np.testing.assert_allclose(cm.recall(zero_division=0), r, atol=1e-12)
            np.testing.assert_allclose(cm.fbeta(beta, zero_division=0), f, atol=1e-12)
            for average in ("macro", "weighted", "micro"):
                ref = sklearn_metrics.fbeta_score(
                    y_true, y_pred, labels=labels, beta=beta, average=average, zero_division=0
                )
                assert cm.fbeta(beta, average=average, zero_division=0) == pytest.approx(ref, abs=1e-12)
        assert cm.accuracy() == pytest.approx(sklearn_metrics.accuracy_score(y_true, y_pred), abs=1e-15)
        assert cm.matthews() == pytest.approx(sklearn_metrics.matthews_corrcoef(y_true, y_pred), abs=1e-12)
        assert cm.kappa(weights="quadratic") == pytest.approx(
            sklearn_metrics.cohen_kappa_score(y_true, y_pred, labels=labels, weights="quadratic"), abs=1e-12
        )
        assert cm.balanced_accuracy() == pytest.approx(
            sklearn_metrics.balanced_accuracy_score(y_true, y_pred), abs=1e-12
        )
    # one-vs-rest 2x2 matrices: [[tp, fn], [fp, tn]], scikit-learn's in reverse order
    mcm = sklearn_metrics.multilabel_confusion_matrix(y_true, y_pred, labels=labels)
    assert cm.one_vs_rest().tolist() == mcm[:, ::-1, ::-1].tolist()


def test_harmonic_f_differs_from_scikit_learn_only_where_undefined():
    """Deliberate: F from P and R propagates an undefined precision; scikit-learn's F from counts is 0 there."""
    y_true, y_pred = _expand(EX2)
    cm = clf.ConfusionMatrix(EX2)
    ours = cm.f1(zero_division=np.nan)
    ref = sklearn_metrics.f1_score(y_true, y_pred, average=None, zero_division=np.nan)
    assert np.isnan(ours[:2]).all() and ref[:2].tolist() == [0.0, 0.0]
    assert ours[2] == pytest.approx(ref[2], abs=1e-15)


def test_merge_aligns_labels():
    a = clf.ConfusionMatrix.from_predictions(["a", "c"], ["a", "a"])
    b = clf.ConfusionMatrix.from_predictions(["b", "c"], ["c", "c"])
    merged = a + b
    assert merged.labels.tolist() == ["a", "b", "c"]
    assert merged == clf.ConfusionMatrix.from_predictions(["a", "c", "b", "c"], ["a", "a", "c", "c"])
    with pytest.raises(AttributeError):
        merged.matrix = None


labels_st = st.lists(st.sampled_from(["pos", "neg", "neu", "n/a"]), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(labels_st, st.randoms()), min_size=1, max_size=5))
def test_streaming_equals_one_shot(batches):
    acc = clf.ConfusionMatrixAccumulator()
    all_true, all_pred = [], []
    for y_true, rnd in batches:
        y_pred = [rnd.choice(["pos", "neg", "neu", "other"]) for _ in y_true]
        acc.update(y_true, y_pred)
        all_true += y_true
        all_pred += y_pred
    assert acc.compute() == clf.ConfusionMatrix.from_predictions(all_true, all_pred)
    assert acc.n_samples == len(all_true)


@settings(max_examples=60, deadline=None)
@given(a=labels_st, b=labels_st, c=labels_st)
def test_accumulator_merge_is_associative_and_commutative(a, b, c):
    def acc(y):
        return clf.ConfusionMatrixAccumulator().update(y, y[::-1])

    left = acc(a).merge(acc(b)).merge(acc(c)).compute()
    right = acc(a).merge(acc(b).merge(acc(c))).compute()
    swapped = acc(c).merge(acc(a)).merge(acc(b)).compute()
    assert left == right == swapped
    assert left.f1(average="macro", zero_division=0) == pytest.approx(
        sklearn_metrics.f1_score(a + b + c, a[::-1] + b[::-1] + c[::-1], average="macro", zero_division=0),
        abs=1e-12,
    )


def test_accumulator_with_fixed_labels_and_reset():
    acc = clf.ConfusionMatrixAccumulator(labels=["pos", "neg"])
    acc.update(["pos"], ["neg"], sample_weight=[2.5])
    assert acc.compute().labels.tolist() == ["pos", "neg"]
    assert acc.compute().matrix.tolist() == [[0, 2.5], [0, 0]]
    with pytest.raises(nlpeval.InputError, match="segment 2") as info:
        acc.update(["pos", "neg"], ["pos", "maybe"])
    assert info.value.side == "y_pred"
    acc.reset()
    assert acc.compute().total == 0
    with pytest.raises(ValueError):
        clf.ConfusionMatrixAccumulator().compute()


def test_report_warns_in_words():
    y_true = ["spam"] * 5 + ["ham"] * 95
    y_pred = ["ham"] * 100
    rep = clf.report(y_true, y_pred)
    text = str(rep)
    assert "rows observed, columns predicted" in text
    assert rep.summary["accuracy"] == 0.95
    assert any("imbalanced" in w and "'ham'" in w for w in rep.warnings)
    assert any("'spam' is never predicted" in w for w in rep.warnings)
    assert any("does not beat the majority-class baseline" in w for w in rep.warnings)
    assert any("Few gold samples for 'spam'" in w for w in rep.warnings)
    assert math.isnan(rep.rows[1].precision)  # spam: undefined precision shown as n/a
    assert "n/a" in text
    balanced = clf.report(["a", "b"] * 20, ["a", "b"] * 20)
    assert balanced.warnings == ()


def test_report_with_scores_labels_both_aps():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, 60)
    proba = rng.dirichlet(np.ones(3), 60)
    y_pred = proba.argmax(axis=1)
    rep = clf.report(y_true, y_pred, y_score=proba)
    for c, row in enumerate(rep.rows):
        truth = y_true == c
        assert row.average_precision == pytest.approx(
            sklearn_metrics.average_precision_score(truth, proba[:, c]), abs=1e-12
        )
        assert row.roc_auc == pytest.approx(sklearn_metrics.roc_auc_score(truth, proba[:, c]), abs=1e-12)
        assert row.interpolated_ap == pytest.approx(clf.interpolated_average_precision(truth, proba[:, c]), abs=1e-12)
    assert rep.summary["roc_auc"] == pytest.approx(
        sklearn_metrics.roc_auc_score(y_true, proba, multi_class="ovr"), abs=1e-12
    )
    text = str(rep)
    assert "average precision (non-interpolated)" in text and "average precision (11-point interpolated)" in text
    for fmt in ("json", "csv", "markdown", "latex"):
        assert rep.render(fmt)
    payload = json.loads(rep.render("json"))
    assert payload["confusion_matrix"] == rep.confusion.matrix.tolist()
    binary = clf.report([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], y_score=[0.1, 0.9, 0.4, 0.3, 0.8])
    assert binary.summary["average_precision"] == sklearn_metrics.average_precision_score(
        [0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.3, 0.8]
    )


def test_cross_entropy_and_kl_against_scipy():
    from scipy import special as scipy_special
    from scipy import stats as scipy_stats

    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(4), 50)
    p[0] = [1, 0, 0, 0]
    q = rng.dirichlet(np.ones(4), 50)
    for base in (math.e, 2, 10):
        kl = scipy_special.rel_entr(p, q).sum(axis=1) / math.log(base)
        assert nlpeval.kl_divergence(p, q, base=base) == pytest.approx(kl.mean(), abs=1e-12)
        assert nlpeval.kl_divergence(p, q, base=base) == pytest.approx(
            scipy_stats.entropy(p, q, base=base, axis=1).mean(), abs=1e-12
        )
        entropy = scipy_stats.entropy(p, base=base, axis=1)
        assert nlpeval.cross_entropy(p, q, base=base) == pytest.approx((entropy + kl).mean(), abs=1e-12)
    weight = rng.random(50)
    assert nlpeval.kl_divergence(p, q, sample_weight=weight) == pytest.approx(
        np.average(scipy_special.rel_entr(p, q).sum(axis=1), weights=weight), abs=1e-12
    )
    # one-hot gold: cross-entropy is the log-loss (with the same clipping, identical)
    y = rng.integers(0, 4, 50)
    assert nlpeval.cross_entropy(y, q, eps=np.finfo(float).eps) == sklearn_metrics.log_loss(y, q)
    assert nlpeval.kl_divergence(y, q) == pytest.approx(sklearn_metrics.log_loss(y, q), abs=1e-12)
    q_zero = q.copy()
    q_zero[0] = [0, 0.5, 0.5, 0]
    assert math.isinf(nlpeval.kl_divergence(p, q_zero))
    with pytest.raises(nlpeval.InputError, match="segment 3"):
        nlpeval.cross_entropy(p, np.vstack([q[:3], [[np.nan, 0, 0, 1]], q[4:]]))


def test_plots(tmp_path):
    import matplotlib  # noqa: F401 - the test needs it installed
    from matplotlib.figure import Figure

    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 3, 80)
    proba = rng.dirichlet(np.ones(3), 80)
    cm_fig = clf.plot_confusion_matrix(y_true, proba.argmax(axis=1), path=tmp_path / "cm.png")
    assert isinstance(cm_fig, Figure)
    texts = [t.get_text() for t in cm_fig.axes[0].texts]
    assert texts == [str(v) for v in clf.confusion_matrix(y_true, proba.argmax(axis=1)).ravel()]
    pr = clf.plot_precision_recall(y_true, proba, path=tmp_path / "pr.svg")
    legend = [t.get_text() for t in pr.axes[0].get_legend().get_texts()]
    ap0 = sklearn_metrics.average_precision_score(y_true == 0, proba[:, 0])
    assert legend[0] == f"0 (AP = {ap0:.3f})"
    roc = clf.plot_roc(y_true == 1, proba[:, 1], path=tmp_path / "roc.png")
    auc = sklearn_metrics.roc_auc_score(y_true == 1, proba[:, 1])
    assert roc.axes[0].get_legend().get_texts()[0].get_text() == f"True (AUC = {auc:.3f})"
    assert (tmp_path / "cm.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "pr.svg").read_bytes()[:500]
    assert clf.plot_confusion_matrix(clf.ConfusionMatrix(EX1), normalize="true").axes[0].texts[0].get_text() == "0.12"


def _write(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def test_cli_classify(tmp_path, capsys):
    rng = np.random.default_rng(3)
    names = np.array(["neg", "neu", "pos"])
    y_true = names[rng.integers(0, 3, 40)]
    proba = rng.dirichlet(np.ones(3), 40)
    y_pred = names[proba.argmax(axis=1)]
    gold = _write(tmp_path / "gold.txt", y_true)
    pred = _write(tmp_path / "pred.txt", [f"  {label} " for label in y_pred])  # whitespace is ignored
    scores = _write(tmp_path / "scores.txt", [" ".join(repr(v) for v in row.tolist()) for row in proba])
    assert cli_main(["classify", "--gold", gold, "--pred", pred, "--scores", scores, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == ["neg", "neu", "pos"]
    assert out["confusion_matrix"] == sklearn_metrics.confusion_matrix(y_true, y_pred).tolist()
    assert out["summary"]["macro_f1"] == pytest.approx(
        sklearn_metrics.f1_score(y_true, y_pred, average="macro", zero_division=0), abs=1e-12
    )
    assert out["summary"]["roc_auc"] == pytest.approx(
        sklearn_metrics.roc_auc_score(y_true, proba, multi_class="ovr"), abs=1e-12
    )
    for fmt in ("text", "markdown", "csv", "latex"):
        assert cli_main(["classify", "--gold", gold, "--pred", pred, "--format", fmt]) == 0
        assert "neu" in capsys.readouterr().out


def test_cli_classify_plots(tmp_path):
    import matplotlib  # noqa: F401 - the test needs it installed

    gold = _write(tmp_path / "gold.txt", ["a", "b", "c", "a", "b", "c"])
    pred = _write(tmp_path / "pred.txt", ["a", "b", "b", "a", "c", "c"])
    scores = _write(tmp_path / "scores.txt", ["0.8 0.1 0.1", "0.1 0.8 0.1", "0.2 0.5 0.3"] * 2)
    plots = tmp_path / "plots"
    args = ["classify", "--gold", gold, "--pred", pred, "--scores", scores, "--plot", str(plots), "--plot-format"]
    assert cli_main([*args, "svg", "-o", str(tmp_path / "report.txt")]) == 0
    assert sorted(p.name for p in plots.iterdir()) == ["confusion_matrix.svg", "precision_recall.svg", "roc.svg"]
    assert "Confusion matrix" in (tmp_path / "report.txt").read_text(encoding="utf-8")


def test_cli_classify_binary_scores_and_errors(tmp_path, capsys):
    gold = _write(tmp_path / "gold.txt", ["yes", "no", "yes", "no"])
    pred = _write(tmp_path / "pred.txt", ["yes", "no", "no", "no"])
    scores = _write(tmp_path / "scores.txt", ["0.9", "0.2", "0.4", "0.5"])
    assert cli_main(["classify", "--gold", gold, "--pred", pred, "--scores", scores, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = [1, 0, 1, 0]
    assert out["summary"]["average_precision"] == sklearn_metrics.average_precision_score(truth, [0.9, 0.2, 0.4, 0.5])
    short = _write(tmp_path / "short.txt", ["yes", "no"])
    assert cli_main(["classify", "--gold", gold, "--pred", short]) == 2
    assert "line counts differ" in capsys.readouterr().err
    blank = _write(tmp_path / "blank.txt", ["yes", "", "no", "no"])
    assert cli_main(["classify", "--gold", gold, "--pred", blank]) == 2
    assert f"{blank}:2: empty label" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.txt", ["0.9", "0.2", "x", "0.5"])
    assert cli_main(["classify", "--gold", gold, "--pred", pred, "--scores", bad]) == 2
    assert f"{bad}:3: not a number: 'x'" in capsys.readouterr().err
    wide = _write(tmp_path / "wide.txt", ["0.9 0.1"] * 3 + ["0.5 0.2 0.3"])
    assert cli_main(["classify", "--gold", gold, "--pred", pred, "--scores", wide]) == 2
    assert f"{wide}:4: 3 scores where earlier lines have 2" in capsys.readouterr().err


def test_report_says_when_labels_leave_samples_out():
    rep = clf.report(["a", "b", "c", "a"], ["a", "c", "c", "b"], labels=["a", "b"])
    assert rep.confusion.total == 2
    assert rep.warnings[0].startswith("2 of 4 samples have a gold or predicted label outside labels=")
    with pytest.raises(ValueError, match="pos_label"):
        clf.report([0, 1, 1], [0, 1, 0], y_score=[0.1, 0.8, 0.3], pos_label=2)
