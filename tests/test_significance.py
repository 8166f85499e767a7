"""Paired significance tests: the same resamples and p-values as sacreBLEU's --paired-ar / --paired-bs."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.significance import _compute_p_value

import nlpeval


@pytest.fixture(scope="module")
def two_systems(wmt17: dict[str, list[str]]) -> tuple[list[str], list[str], list[str]]:
    n = 500
    return wmt17["reference"][:n], wmt17["online-B.0"][:n], wmt17["KIT.4950"][:n]


def test_approximate_randomization_equals_sacrebleu(two_systems) -> None:
    refs, baseline, system = two_systems
    metric = nlpeval.BLEU()
    ours = nlpeval.approximate_randomization(
        metric, metric.segment_stats(baseline, refs), metric.segment_stats(system, refs), n_trials=300, seed=7
    )
    reference = SacreBLEU()
    bl_stats = reference._extract_corpus_statistics(baseline, [refs])
    sys_stats = reference._extract_corpus_statistics(system, [refs])
    rng = np.random.default_rng(7)
    pos = rng.integers(2, size=(300, len(refs)), dtype=bool)
    shuf_a, shuf_b = pos @ bl_stats + ~pos @ sys_stats, ~pos @ bl_stats + pos @ sys_stats
    null = np.abs(
        [
            reference._compute_score_from_stats(list(a)).score - reference._compute_score_from_stats(list(b)).score
            for a, b in zip(shuf_a, shuf_b, strict=True)
        ]
    )
    observed = abs(reference._aggregate_and_compute(bl_stats).score - reference._aggregate_and_compute(sys_stats).score)
    assert ours.p_value == _compute_p_value(null, observed)
    assert ours.baseline * 100 == pytest.approx(reference._aggregate_and_compute(bl_stats).score, abs=1e-9)
    assert ours.test == "randomization" and ours.n_resamples == 300


def test_paired_bootstrap_equals_sacrebleu_on_exact_sums(two_systems) -> None:
    """sacreBLEU sums in float32; with exact sums of the same resamples the p-value is identical."""
    refs, baseline, system = two_systems
    metric = nlpeval.BLEU()
    ours = nlpeval.paired_bootstrap(
        metric, metric.segment_stats(baseline, refs), metric.segment_stats(system, refs), n_resamples=200, seed=3
    )
    reference = SacreBLEU()
    bl_stats = np.array(reference._extract_corpus_statistics(baseline, [refs]), dtype=np.int64)
    sys_stats = np.array(reference._extract_corpus_statistics(system, [refs]), dtype=np.int64)
    idxs = np.random.default_rng(3).choice(len(refs), size=(200, len(refs)), replace=True)
    bl = np.array([reference._compute_score_from_stats(list(bl_stats[i].sum(0))).score for i in idxs])
    sy = np.array([reference._compute_score_from_stats(list(sys_stats[i].sum(0))).score for i in idxs])
    diffs = np.abs(sy - bl)
    observed = abs(
        reference._aggregate_and_compute(list(sys_stats)).score - reference._aggregate_and_compute(list(bl_stats)).score
    )
    assert ours.p_value == _compute_p_value(diffs - diffs.mean(), observed)
    assert ours.system_ci is not None
    assert ours.system_ci.mean * 100 == pytest.approx(sy.mean(), abs=1e-9)
    assert ours.difference == pytest.approx(ours.system - ours.baseline)


def test_identical_systems_are_not_significant_and_bad_pairs_rejected() -> None:
    metric = nlpeval.BLEU()
    refs = ["a b c d", "e f g", "h i j k l"]
    stats = metric.segment_stats(["a b c", "e f g", "h i k l"], refs)
    assert nlpeval.paired_bootstrap(metric, stats, stats, n_resamples=50).p_value == 1 / 51
    # sacreBLEU's rule counts null differences strictly greater than the observed one
    assert nlpeval.approximate_randomization(metric, stats, stats, n_trials=50).p_value == 1 / 51
    with pytest.raises(ValueError, match="same segments"):
        nlpeval.paired_bootstrap(metric, stats, stats.take([0, 1]))


def test_cli_paired_test_against_the_first_system(tmp_path, capsys) -> None:
    import json

    from nlpeval.cli.main import main

    ref = tmp_path / "ref"
    ref.write_text("the cat sat on the mat\na dog barks loudly\nit rains today\nhello world\n")
    a = tmp_path / "a"
    a.write_text("the cat sat on the mat\na dog barks\nit rains today\nhello world\n")
    b = tmp_path / "b"
    b.write_text("cat\ndog\nrain\nworld\n")
    assert main(["score", "-r", str(ref), "--paired-bs", "--paired-n", "100", "-f", "json", str(a), str(b)]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert "p_value" not in systems[0]["scores"]["bleu"]
    metric = nlpeval.BLEU()
    refs = ref.read_text().splitlines()
    expected = nlpeval.paired_bootstrap(
        metric,
        metric.segment_stats(a.read_text().splitlines(), refs),
        metric.segment_stats(b.read_text().splitlines(), refs),
        n_resamples=100,
    )
    assert systems[1]["scores"]["bleu"]["p_value"] == expected.p_value
    assert main(["score", "-r", str(ref), "--paired-ar", "--paired-n", "100", str(a), str(b)]) == 0
    assert "p = " in capsys.readouterr().out
