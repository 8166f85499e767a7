"""Retrieval measures: every value per query equal to trec_eval 9.0.8 (pytrec_eval 0.5.11, run live)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import nlpeval
from nlpeval.core.errors import InputError
from nlpeval.ir import Measure, RetrievalMeasure, compare_runs
from nlpeval.ir.trecfiles import read_qrels, read_run

#: our names -> the trec_eval measure strings that produce them
MEASURES = (
    "P@1,P@3,P@5,P@10,P@200,recall@1,recall@5,recall@20,recall@200,Rprec,recip_rank,map,map@1,map@5,map@20,"
    "ndcg,ndcg@1,ndcg@3,ndcg@10,ndcg@200,success@1,success@3,success@10"
)
TREC = {"P.1,3,5,10,200", "recall.1,5,20,200", "Rprec", "recip_rank", "map", "map_cut.1,5,20", "ndcg"}
TREC |= {"ndcg_cut.1,3,10,200", "success.1,3,10"}


def _generate(seed: int, n_queries: int = 120, pool: int = 40, tie_grid: float | None = 0.5):
    """Graded qrels (levels -1..4, some queries without relevant docs) and runs with ties, unjudged documents,
    empty rankings, queries missing on either side."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        query = f"q{q:03d}"
        judged = rng.choice(pool, int(rng.integers(1, pool // 2)), replace=False)
        qrels[query] = {f"d{d}": int(rng.integers(-1, 5)) for d in judged}
        if q % 17 == 5:
            qrels[query] = {f"d{d}": 0 for d in judged}  # judged, nothing relevant
        n = int(rng.integers(0, pool))
        docs = rng.choice(pool + 20, n, replace=False)  # some never judged
        scores = rng.normal(size=n)
        if tie_grid is not None:
            scores = np.round(scores / tie_grid) * tie_grid
        if q % 13 == 0:
            scores[:] = 1.0  # one big tie: document ids decide
        if q % 11 == 3 and n:
            continue  # judged, not ranked
        run[query] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
    run["only-in-run"] = {"d1": 1.0, "d2": 0.5}
    return qrels, run


def _reference(qrels, run, level=1, judged_only=False, measures=TREC):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


def _assert_equal(result, reference, measures=MEASURES) -> None:
    assert list(result.queries) == sorted(reference)
    for name in nlpeval.ir.parse_measures(measures):
        ours = result[name.name].segments
        theirs = np.array([reference[q][name.name] for q in result.queries])
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12, err_msg=name.name)
        assert result[name.name].score == pytest.approx(theirs.mean(), abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_equals_trec_eval(seed, level, judged_only) -> None:
    qrels, run = _generate(seed)
    result = nlpeval.retrieval(qrels, run, MEASURES, relevance_level=level, judged_only=judged_only)
    _assert_equal(result, _reference(qrels, run, level, judged_only))
    assert result.skipped == ("only-in-run",)
    assert set(result.unranked) == set(qrels) - set(run)


def test_realistic_size_equals_trec_eval() -> None:
    """600 queries x 1,000 documents with BM25-like scores (distinct doubles, some equal in float32)."""
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(600):
        docs = [f"doc{x}" for x in rng.choice(50_000, 1000, replace=False)]
        scores = 12.0 + 3.0 * rng.standard_normal(1000)
        scores[rng.integers(0, 1000, 30)] += 1e-9  # distinct doubles that are equal floats
        run[f"{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        judged = rng.choice(1000, 80, replace=False)
        qrels[f"{q}"] = {docs[i]: int(rng.choice([0, 0, 0, 1, 2, 3])) for i in judged}
        qrels[f"{q}"].update({f"other{x}": 1 for x in range(int(rng.integers(0, 5)))})
    result = nlpeval.retrieval(qrels, run, MEASURES)
    _assert_equal(result, _reference(qrels, run))


def test_ties_are_broken_by_document_id_descending_after_float32_rounding() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    # a and c tie (c first: greater id); b and c differ as doubles but not as floats
    run = {"q": {"a": 0.5, "c": 0.5, "b": 0.5 + 1e-12, "z": 0.1}}
    reference = _reference(qrels, run, measures={"recip_rank", "ndcg", "map"})
    ours = nlpeval.retrieval(qrels, run, "recip_rank,ndcg,map")
    for name in ("recip_rank", "ndcg", "map"):
        assert ours[name].segments[0] == reference["q"][name]
    assert ours["recip_rank"].score == 1.0  # c, b, a: c is ranked first
    doubles = nlpeval.retrieval(qrels, run, "recip_rank", flavor="trec_eval10")
    assert doubles["recip_rank"].score == 0.5  # b first (a higher double), then c


def test_trec_eval10_flavor_equals_trec_eval_when_scores_are_floats() -> None:
    qrels, run = _generate(3, tie_grid=0.25)  # multiples of 1/4: exact in float32
    result = nlpeval.retrieval(qrels, run, MEASURES, flavor="trec_eval10")
    _assert_equal(result, _reference(qrels, run))


def test_exponential_gain_equals_trec_eval_with_gains() -> None:
    """ndcg_exp@k is trec_eval's ndcg_cut on levels mapped to 2**rel - 1; ndcg_exp its full-ranking form."""
    qrels, run = _generate(4)
    exp_qrels = {q: {d: (2**r - 1 if r > 0 else r) for d, r in judged.items()} for q, judged in qrels.items()}
    reference = _reference(exp_qrels, run, measures={"ndcg", "ndcg_cut.1,5,10"})
    result = nlpeval.retrieval(qrels, run, "ndcg_exp,ndcg_exp@1,ndcg_exp@5,ndcg_exp@10")
    for ours, theirs in [("ndcg_exp", "ndcg"), ("ndcg_exp_cut_1", "ndcg_cut_1"), ("ndcg_exp_cut_10", "ndcg_cut_10")]:
        expected = np.array([reference[q][theirs] for q in result.queries])
        np.testing.assert_allclose(result[ours].segments, expected, rtol=0, atol=1e-12)


def test_complete_mode_scores_unranked_queries_zero_as_an_empty_ranking() -> None:
    qrels, run = _generate(5)
    result = nlpeval.retrieval(qrels, run, MEASURES, complete=True)
    assert list(result.queries) == sorted(qrels)
    # trec_eval -c evaluates an empty ranking for a judged query the run lacks
    filled = {q: run.get(q, {}) for q in qrels}
    _assert_equal(result, _reference(qrels, filled))
    assert result["map"].score == pytest.approx(sum(result["map"].segments) / len(qrels), abs=1e-15)


def test_ranked_lists_and_tuples_are_rankings() -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    as_scores = nlpeval.retrieval(qrels, {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}, "map,ndcg")
    for ranking in (["c", "b", "a"], ("c", "b", "a")):
        as_list = nlpeval.retrieval(qrels, {"q": ranking}, "map,ndcg")
        assert [s.score for s in as_list.values()] == [s.score for s in as_scores.values()]


def test_capped_reciprocal_rank_and_hit_rate() -> None:
    qrels, run = _generate(6)
    result = nlpeval.retrieval(qrels, run, "mrr@3,recip_rank,success@3")
    full, capped = result["recip_rank"].segments, result["mrr@3"].segments
    np.testing.assert_array_equal(capped, np.where(full >= 1 / 3, full, 0.0))
    np.testing.assert_array_equal(result["hit@3"].segments, (capped > 0).astype(float))


def test_files_read_as_pytrec_eval_parses_them(tmp_path: Path) -> None:
    qrels, run = _generate(8)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "# a comment line\n" + "".join(f"{q} 0 {d} {r}\n" for q, judged in qrels.items() for d, r in judged.items())
    )
    run_path.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s!r} tag\n" for q, ranked in run.items() for i, (d, s) in enumerate(ranked.items())
        )
    )
    with open(qrels_path) as handle:
        lines = [line for line in handle if not line.startswith("#")]
    assert read_qrels(str(qrels_path)).qrels == pytrec_eval.parse_qrel(lines)
    with open(run_path) as handle:
        parsed = pytrec_eval.parse_run(handle)
    assert read_run(str(run_path)).run == parsed  # (a query with an empty ranking has no line)
    from_files = nlpeval.retrieval(str(qrels_path), run_path, MEASURES)
    _assert_equal(from_files, _reference(qrels, parsed))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 0 d1\n", "qrels:1: expected 4 fields"),
        ("q1 0 d1 1\nq1 0 d1 2\n", "qrels:2: document 'd1' judged twice for query 'q1' (first on line 1)"),
        ("q1 0 d1 x\n", "qrels:1: relevance 'x' is not an integer"),
    ],
)
def test_bad_qrels_lines_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "qrels"
    path.write_text(text)
    with pytest.raises(InputError, match="^" + str(tmp_path).replace("\\", "\\\\") + "/" + _escaped(message)):
        read_qrels(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 d1 1 0.5\n", "run:1: expected 6 fields"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "run:2: document 'd1' ranked twice for query 'q1' (first on line 1)"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 nan t\n", "run:2: score is NaN"),
        ("q1 Q0 d1 1 high t\n", "run:1: score 'high' is not a number"),
    ],
)
def test_bad_run_lines_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(InputError, match=_escaped(message)):
        read_run(str(path))


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ({"q": {"a": 1.5}}, {"q": {"a": 1.0}}, "query 'q', document 'a': relevance must be an integer"),
        ({"q": {"a": 1}}, {"q": {"a": float("nan")}}, "run: query 'q', document 'a': score is NaN"),
        ({"q": {"a": 1}}, {"q": {"a": "high"}}, "run: query 'q', document 'a': score must be a number"),
        ({"q": {"a": 1}}, {"q": ["a", "a"]}, "run: query 'q', document 'a': listed twice"),
        ({"q": {"a": 1}}, {1: {"a": 1.0}}, "run: query ids are str"),
    ],
)
def test_bad_mappings_name_query_and_document(qrels, run, message) -> None:
    with pytest.raises(InputError, match=_escaped(message)):
        nlpeval.retrieval(qrels, run, "map")


def test_measure_names_and_options() -> None:
    assert [Measure.parse(n).name for n in ("P_5", "P.5", "p@5", "precision@5")] == ["P_5"] * 4
    assert [Measure.parse(n).name for n in ("ndcg_cut_10", "ndcg_cut.10", "nDCG@10")] == ["ndcg_cut_10"] * 3
    assert [Measure.parse(n).name for n in ("mrr", "RR", "recip_rank", "mrr@10")] == ["recip_rank"] * 3 + [
        "recip_rank_cut_10"
    ]
    assert [Measure.parse(n).name for n in ("map@100", "map_cut_100", "R-precision", "hit@1", "recall@5")] == [
        "map_cut_100",
        "map_cut_100",
        "Rprec",
        "success_1",
        "recall_5",
    ]
    for bad, message in [
        ("P", "give a cutoff"),
        ("Rprec@5", "takes no cutoff"),
        ("ndcg@0", "at least 1"),
        ("f1", "unknown"),
    ]:
        with pytest.raises(InputError, match=message):
            Measure.parse(bad)
    with pytest.raises(InputError, match="relevance_level"):
        nlpeval.retrieval({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", relevance_level=0)
    with pytest.raises(InputError, match="flavor"):
        nlpeval.retrieval({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", flavor="ranx")


def test_per_query_values_feed_the_projects_paired_tests() -> None:
    qrels, run_a = _generate(9, n_queries=60)
    _, run_b = _generate(10, n_queries=60)
    metric = RetrievalMeasure("ndcg@10", complete=True)
    stats_a, stats_b = metric.segment_stats(run_a, qrels), metric.segment_stats(run_b, qrels)
    result_a = nlpeval.retrieval(qrels, run_a, "ndcg@10", complete=True)
    a = result_a["ndcg@10"]
    assert metric.score_from_stats(stats_a).score == pytest.approx(a.score, abs=1e-15)
    np.testing.assert_array_equal(result_a.stats("ndcg@10").rows, stats_a.rows)
    assert result_a.metric("ndcg@10") == metric
    bootstrap = nlpeval.paired_bootstrap(metric, stats_a, stats_b, n_resamples=200, seed=3)
    # the bootstrap's resampled scores are means of per-query values: check one resample by hand
    indices = np.random.default_rng(3).choice(len(stats_b), size=(200, len(stats_b)), replace=True)
    assert bootstrap.system_ci is not None
    means = stats_b.rows[indices, 0].mean(axis=1)
    assert bootstrap.system_ci.mean == pytest.approx(means.mean(), abs=1e-12)
    result = compare_runs(
        qrels, {"a": run_a, "b": run_b}, "ndcg@10", test="bootstrap", n_resamples=200, seed=3, complete=True
    )
    assert result.tests[0].p_value == bootstrap.p_value
    ar = nlpeval.approximate_randomization(metric, stats_a, stats_b, n_trials=300, seed=4)
    result = compare_runs(
        qrels, {"a": run_a, "b": run_b}, "ndcg@10", test="randomization", n_resamples=300, seed=4, complete=True
    )
    assert result.tests[0].p_value == ar.p_value


def test_many_runs_are_corrected_as_statsmodels_does() -> None:
    from statsmodels.stats.multitest import multipletests

    qrels, base = _generate(11, n_queries=40)
    runs = {"base": base, **{f"r{i}": _generate(20 + i, n_queries=40)[1] for i in range(4)}}
    for correction, method in (("holm", "holm"), ("bh", "fdr_bh")):
        result = compare_runs(qrels, runs, "map,P@5", test="fisher", n_resamples=500, seed=1, correction=correction)
        for measure in ("map", "P_5"):
            tests = [t for t in result.tests if t.measure == measure]
            expected = multipletests([t.p_value for t in tests], method=method)[1]
            np.testing.assert_allclose([t.p_adjusted for t in tests], expected, rtol=0, atol=1e-15)
    # pairs are formed on the queries both runs were evaluated on
    shared = set(result.results["base"].queries) & set(result.results["r0"].queries)
    assert result.tests[0].queries == len(shared)


def test_card_example_numbers_are_trec_evals(capsys) -> None:
    from nlpeval.cards import explain

    card = explain("ndcg")
    qrels = {"q1": {"d1": 2, "d4": 1, "d9": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d4": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d3": 2.0, "d2": 1.0}}
    reference = _reference(qrels, run, measures={"P.2", "recall.2", "recip_rank", "map", "ndcg_cut.3", "success.1"})
    for name in ("P_2", "recall_2", "recip_rank", "map", "ndcg_cut_3", "success_1"):
        mean = np.mean([reference[q][name] for q in ("q1", "q2")])
        assert f"{name:16s} {mean:.4f}" in card.example_output


def test_unicode_ids_infinities_and_signed_zeros_tie_as_trec_eval() -> None:
    """Document ids compare as UTF-8 bytes in trec_eval (strcmp) and as code points here: the same order."""
    rng = np.random.default_rng(12)
    alphabet = ["a", "Z", "é", "ß", "日本", "😀", "\u00a0", "a\u0301", "Ω", "1", "-"]
    qrels, run = {}, {}
    for q in range(40):
        docs = list({"".join(rng.choice(alphabet, int(rng.integers(1, 4)))) for _ in range(30)})
        values = rng.choice([0.0, -0.0, 1.0, float("inf"), -float("inf"), 2.5, 1e40, -1e40], len(docs))
        run[f"ü{q}"] = {d: float(v) for d, v in zip(docs, values, strict=True)}
        qrels[f"ü{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 10, replace=False)}
    measures = "P@3,P@10,recip_rank,map,ndcg,ndcg@5,Rprec,success@1"
    trec = {"P.3,10", "recip_rank", "map", "ndcg", "ndcg_cut.5", "Rprec", "success.1"}
    # +-1e40 become +-inf in single precision and tie with the infinities
    _assert_equal(nlpeval.retrieval(qrels, run, measures), _reference(qrels, run, measures=trec), measures)
    doubles = {q: {d: (v if abs(v) != 1e40 else v / 1e30) for d, v in r.items()} for q, r in run.items()}
    result = nlpeval.retrieval(qrels, doubles, measures, flavor="trec_eval10")
    _assert_equal(result, _reference(qrels, doubles, measures=trec), measures)
