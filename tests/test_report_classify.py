"""``--task classify``: confusion, per-class P/R/F, curves and McNemar against scikit-learn and statsmodels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as sklearn_metrics

from nlpeval.cli.main import main
from nlpeval.reports.build import classification_report


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    gold = [str(x) for x in rng.choice(["neg", "neu", "pos"], 300)]
    a = [g if rng.random() < 0.75 else "neu" for g in gold]
    b = [g if rng.random() < 0.6 else "pos" for g in gold]
    scores = rng.random((300, 3))
    return gold, {"A": a, "B": b}, {"A": scores / scores.sum(axis=1, keepdims=True)}


def test_numbers_match_scikit_learn(data):
    gold, preds, scores = data
    model = classification_report(gold, preds, scores_by_system=scores, n_bootstrap=200, seed=1)
    section = model.classification
    assert section.labels == ("neg", "neu", "pos")
    for system in section.systems:
        pred = preds[system.system]
        expected = sklearn_metrics.confusion_matrix(gold, pred, labels=list(section.labels))
        assert np.array_equal(np.array(system.confusion), expected)
        assert system.accuracy.value == sklearn_metrics.accuracy_score(gold, pred)
        assert system.macro_f1.value == pytest.approx(
            sklearn_metrics.f1_score(gold, pred, average="macro", zero_division=0), abs=1e-15
        )
        p, r, f, support = sklearn_metrics.precision_recall_fscore_support(gold, pred, zero_division=0)
        for c, cls in enumerate(system.classes):
            assert (cls.precision.value, cls.recall.value, cls.support) == pytest.approx((p[c], r[c], support[c]))
            assert cls.f1.value == pytest.approx(f[c], abs=1e-15)
            assert cls.f1.low <= cls.f1.value <= cls.f1.high
    curves = {(c.kind, c.label): c for c in section.systems[0].curves}
    truth = np.array(gold) == "pos"
    assert curves[("roc", "pos")].area == pytest.approx(sklearn_metrics.roc_auc_score(truth, scores["A"][:, 2]))
    assert curves[("pr", "pos")].area == pytest.approx(
        sklearn_metrics.average_precision_score(truth, scores["A"][:, 2])
    )


def test_mcnemar_matches_statsmodels(data):
    from statsmodels.stats import contingency_tables as contingency

    gold, preds, _ = data
    model = classification_report(gold, preds, n_bootstrap=0)
    test = model.classification.mcnemar[0]
    a = np.array(preds["A"]) == np.array(gold)
    b = np.array(preds["B"]) == np.array(gold)
    table = [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]
    assert (test.system, test.other, test.only_system, test.only_other) == ("B", "A", table[1][0], table[0][1])
    assert test.p_value == pytest.approx(contingency.mcnemar(table, exact=True).pvalue, rel=1e-12)


def test_cli(tmp_path: Path, data, capsys):
    gold, preds, scores = data
    files = {}
    for name, lines in (("gold", gold), ("a", preds["A"]), ("b", preds["B"])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    score_file = tmp_path / "a.scores"
    score_file.write_text("\n".join(" ".join(str(x) for x in row) for row in scores["A"]) + "\n", encoding="utf-8")
    out = tmp_path / "r.json"
    argv = ["report", "--task", "classify", "--gold", str(files["gold"]), "--pred", str(files["a"])]
    assert main([*argv, "--scores", str(score_file), "--bootstrap", "50", "-o", str(out)]) == 0
    data_out = json.loads(out.read_text(encoding="utf-8"))
    assert data_out["task"] == "classification" and data_out["classification"]["systems"][0]["curves"]
    short = tmp_path / "short.txt"
    short.write_text("neg\n", encoding="utf-8")
    assert main(["report", "--task", "classify", "--gold", str(files["gold"]), "--pred", str(short)]) == 2
    assert "short.txt has 1 lines" in capsys.readouterr().err
