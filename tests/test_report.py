"""nlpeval.report: numbers against the core tests and reference tools, determinism, edge cases."""

from __future__ import annotations

import json

import numpy as np
import pytest

import nlpeval
from nlpeval.reports.analyses.multitest import benjamini_hochberg, holm
from nlpeval.reports.demo import demo_lines, demo_report
from nlpeval.reports.render import render
from nlpeval.significance.bootstrap import bootstrap_interval
from nlpeval.significance.paired import approximate_randomization, paired_bootstrap

REF = demo_lines("ref.en")
SYSTEMS = {"A": demo_lines("system-a.en"), "B": demo_lines("system-b.en")}
# a third system: A with every other segment replaced by B's output
SYSTEMS["C"] = [a if i % 2 else b for i, (a, b) in enumerate(zip(SYSTEMS["A"], SYSTEMS["B"], strict=True))]


@pytest.fixture(scope="module")
def model():
    return nlpeval.report(SYSTEMS, REF, n_bootstrap=200, n_randomization=300, seed=7)


def test_multiple_testing_matches_statsmodels():
    from statsmodels.stats import multitest

    rng = np.random.default_rng(0)
    for _ in range(100):
        p = rng.random(int(rng.integers(1, 15))) ** 3
        if rng.random() < 0.3:
            p[1:3] = p[0]
        np.testing.assert_allclose(holm(list(p)), multitest.multipletests(p, method="holm")[1], rtol=0, atol=1e-15)
        np.testing.assert_allclose(
            benjamini_hochberg(list(p)), multitest.multipletests(p, method="fdr_bh")[1], rtol=0, atol=1e-15
        )


def test_leaderboard_equals_the_core_tests(model):
    board = model.leaderboard
    for name in ("bleu", "chrf", "ter"):
        metric = {"bleu": nlpeval.BLEU(), "chrf": nlpeval.CHRF(), "ter": nlpeval.TER()}[name]
        stats = {s: metric.segment_stats(h, [[r] for r in REF]) for s, h in SYSTEMS.items()}
        for s in SYSTEMS:
            cell = next(c for c in board.cells if c.system == s and c.metric == name)
            score = metric.score_from_stats(stats[s])
            ci = bootstrap_interval(metric, stats[s], n_resamples=200, seed=7)
            assert (cell.estimate.value, cell.estimate.low, cell.estimate.high) == (score.score, ci.low, ci.high)
            assert cell.estimate.n == len(REF)
        tests = [t for t in board.all_pairs if t.metric == name]
        for test in tests:
            boot = paired_bootstrap(metric, stats[test.other], stats[test.system], n_resamples=200, seed=7)
            ar = approximate_randomization(metric, stats[test.other], stats[test.system], n_trials=300, seed=7)
            assert test.p_bootstrap == boot.p_value
            assert test.p_randomization == ar.p_value
            assert test.difference == pytest.approx(boot.difference, abs=1e-15)
        from statsmodels.stats import multitest

        expected = multitest.multipletests([t.p_bootstrap for t in tests], method="holm")[1]
        np.testing.assert_allclose([t.p_holm for t in tests], expected, rtol=0, atol=1e-15)
    assert [(t.system, t.other) for t in board.vs_baseline if t.metric == "bleu"] == [("B", "A"), ("C", "A")]
    matrix = next(m for m in board.matrices if m.metric == "bleu")
    assert matrix.p_values[0][0] is None and matrix.p_values[0][1] == matrix.p_values[1][0]


def test_sign_test_matches_statsmodels(model):
    from statsmodels.stats import descriptivestats as descriptive

    chrf = nlpeval.CHRF()
    values = {s: chrf(h, [[r] for r in REF], segments=True).segments for s, h in SYSTEMS.items()}
    for pair in (p for p in model.sentences.pairs if p.metric == "chrf"):
        delta = values[pair.system] - values[pair.other]
        assert (pair.wins, pair.ties, pair.losses) == (
            int(np.sum(delta > 0)),
            int(np.sum(delta == 0)),
            int(np.sum(delta < 0)),
        )
        assert pair.p_sign == pytest.approx(descriptive.sign_test(delta[delta != 0])[1], rel=1e-12)


def test_json_numbers_equal_the_api_and_output_is_deterministic(model):
    text = render(model, "json")
    data = json.loads(text)
    assert data["schema_version"] == "1.1"
    cells = {(c["system"], c["metric"]): c["estimate"]["value"] for c in data["leaderboard"]["cells"]}
    assert cells == {(c.system, c.metric): c.estimate.value for c in model.leaderboard.cells}
    assert data == json.loads(json.dumps(model.to_dict()))
    assert len({t["id"] for t in data["buckets"]}) == len(data["buckets"])  # ids are anchors of the page
    # the 1.1 fields: per-segment buckets, matched words, n-gram occurrences
    chrf = next(t for t in data["buckets"] if t["id"] == "by-ref-length-chrf")
    assert chrf["segment_buckets"] == list(
        next(t for t in model.buckets if t.id == "by-ref-length-chrf").segment_buckets
    )
    diff = next(t for t in model.buckets if t.id == "count-by-length-diff")
    assert {
        s: tuple(v) for s, v in data["buckets"][model.buckets.index(diff)]["segment_buckets_by_system"].items()
    } == (dict(diff.segment_buckets_by_system))
    assert [e["matched"] for e in data["examples"]["examples"]] == [list(e.matched) for e in model.examples.examples]
    assert [[tuple(x) for x in c["spans"]] for c in data["ngrams"]] == [list(c.spans) for c in model.ngrams]
    again = nlpeval.report(SYSTEMS, REF, n_bootstrap=200, n_randomization=300, seed=7)
    for fmt in ("json", "text", "markdown", "latex"):
        assert render(again, fmt) == render(model, fmt)
    assert "created" in data["provenance"] and data["provenance"]["created"] is None


def test_demo_builder_is_fast():
    import time

    demo_report()
    start = time.perf_counter()
    model = demo_report()
    assert time.perf_counter() - start < 1.0
    assert model.systems == ("system-a", "system-b")


def test_single_system_has_no_pairwise_sections():
    model = nlpeval.report({"only": SYSTEMS["A"]}, REF, metrics=("chrf",), n_bootstrap=50, n_randomization=50)
    assert model.leaderboard.vs_baseline == () and model.leaderboard.all_pairs == ()
    assert model.ngrams == () and model.sentences.pairs == ()
    assert model.leaderboard.clusters[0].systems == ("only",)


def test_one_segment_marks_intervals_and_tests_undefined():
    model = nlpeval.report({"A": ["a b c"], "B": ["a b"]}, ["a b c"], metrics=("chrf",), n_bootstrap=50)
    cell = model.leaderboard.cells[0]
    assert cell.estimate.n == 1 and cell.estimate.low is None and cell.estimate.high is None
    test = model.leaderboard.vs_baseline[0]
    assert test.p_bootstrap is None and test.p_holm is None and not test.significant
    assert any("one segment" in w for w in model.warnings)
    json.loads(render(model, "json"))


def test_raw_text_multiple_references_and_empty_lines():
    hyps = {"A": ["<script>alert(1)</script> <UNK>", "", "same"], "B": ["x & y", "same", "same"]}
    refs = [["<script>alert(1)</script>", "other ref"], ["b", "b b"], ["same", "same too"]]
    model = nlpeval.report(hyps, refs, metrics=("bleu", "chrf"), n_bootstrap=20, n_randomization=20)
    first = model.examples.examples[0]
    assert first.hypotheses == ("<script>alert(1)</script> <UNK>", "x & y")
    assert first.references == ("<script>alert(1)</script>", "other ref")
    sanity = {row.system: row for row in model.length.sanity}
    assert sanity["A"].empty.count == 1 and sanity["A"].empty.example_ids == (1,)
    assert sanity["B"].duplicate.count == 2
    bleu = next(c for c in model.leaderboard.cells if c.system == "A" and c.metric == "bleu")
    assert bleu.estimate.value == nlpeval.bleu(hyps["A"], refs).score


def test_sources_copied_and_untranslated():
    sources = ["Der Hund bellt laut", "Привет мир", "hello"]
    refs = ["The dog barks loudly", "Hello world", "hello"]
    model = nlpeval.report(
        {"A": ["Der Hund bellt laut", "Привет всем", "hello"]}, refs, sources=sources, metrics=("chrf",), n_bootstrap=0
    )
    row = model.length.sanity[0]
    assert row.copied_source.count == 2 and row.copied_source.example_ids == (0, 2)
    assert row.untranslated.count == 1 and row.untranslated.example_ids == (1,)


def test_labels_quantile_buckets_and_any_metric():
    labels = ["news" if i % 3 else "talk" for i in range(len(REF))]
    model = nlpeval.report(
        SYSTEMS, REF, metrics=("rougeL", "wer"), labels=labels, buckets="quantile", n_bootstrap=100, seed=1
    )
    table = next(t for t in model.buckets if t.id == "wer-by-label")
    news = [i for i, label in enumerate(labels) if label == "news"]
    row = next(r for r in table.rows if r.label == "news")
    for cell in row.cells:
        expected = nlpeval.wer([SYSTEMS[cell.system][i] for i in news], [REF[i] for i in news]).score
        assert cell.estimate.value == pytest.approx(expected, abs=1e-15)
        assert cell.estimate.n == len(news)
    assert row.cells[0].marker is None and all(c.marker in ("", "+", "-") for c in row.cells[1:])
    quantile = next(t for t in model.buckets if t.id == "rougeL-by-quantile-ref-length")
    assert sum(r.cells[0].estimate.n for r in quantile.rows) == len(REF)
    assert model.summarization is not None and model.summarization.metrics == ("rougeL",)
    assert any(r.few for r in table.rows)  # 6 or 14 segments, fewer than 10 in one of them


def test_bad_input_is_an_input_error():
    with pytest.raises(nlpeval.InputError, match="has 1 segments"):
        nlpeval.report({"A": ["a"]}, ["a", "b"])
    with pytest.raises(nlpeval.InputError, match="no segments"):
        nlpeval.report({"A": []}, [])
    with pytest.raises(nlpeval.InputError, match="labels"):
        nlpeval.report({"A": ["a", "b"]}, ["a", "b"], labels=["x"])
    with pytest.raises(ValueError, match="unknown metric"):
        nlpeval.report({"A": ["a"]}, ["a"], metrics=("nope",))


def test_vectorised_ngrams_and_word_buckets_equal_the_python_path():
    from nlpeval.reports import build
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses import ngram_codes as nc

    rng = np.random.default_rng(5)
    words = ["a", "b", "c", "d", "<UNK>", "é", ""]

    def corpus(n):
        return [list(rng.choice(words, int(rng.integers(0, 9)))) for _ in range(n)]

    ref = corpus(60)
    outs = {"x": corpus(60), "y": corpus(60), "z": corpus(60)}
    codes = nc.Corpus.encode({nc.REF: ref, **outs})
    assert build._ngram_section_vectorised(list(outs), "x", codes, 7) == build._ngram_section(
        list(outs), "x", outs, ref, 7, cm
    )
    freq = cm.frequencies(ref)
    bucket_ids = cm.bucket_of(np.array([freq.get(w, 0) for w in codes.words]), cm.FREQ_EDGES)
    for name, out in outs.items():
        vectorised = nc.word_rows(codes, name, bucket_ids, len(cm.FREQ_EDGES) + 1)
        assert np.array_equal(vectorised, cm.word_bucket_rows(out, ref, freq))


def test_sign_test_matches_scipy_binomtest_for_large_counts():
    from scipy.stats import binomtest

    from nlpeval.reports.analyses.sentences import sign_test

    for n in (1, 2, 7, 40, 399, 401, 3004):
        for k in range(0, n + 1, max(1, n // 37)):
            expected = binomtest(k, n, 0.5).pvalue
            assert sign_test(k, n - k) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_every_sentence_metric_by_reference_length_and_sentence_score(model):
    """The compare-mt sentence analyses for chrF and TER: each bucket's value is sacreBLEU's corpus score on
    exactly its segments, its interval and p-value the core bootstrap on that subset, BH per table."""
    import sacrebleu
    from statsmodels.stats import multitest

    lengths = [len(r.strip().split(" ")) for r in REF]
    systems = list(SYSTEMS)
    for name, metric, reference in (
        ("chrf", nlpeval.CHRF(), lambda h, r: sacrebleu.corpus_chrf(h, [r]).score / 100),
        ("ter", nlpeval.TER(), lambda h, r: sacrebleu.corpus_ter(h, [r]).score / 100),
    ):
        table = next(t for t in model.buckets if t.id == f"by-ref-length-{name}")
        assert table.by == "ref-length" and table.statistic == name and not table.depends_on_hypothesis
        tested = []
        for b, row in enumerate(table.rows):
            low, high = row.lower, row.upper
            members = [i for i, n in enumerate(lengths) if (low is None or n >= low) and (high is None or n < high)]
            assert [i for i, x in enumerate(table.segment_buckets) if x == b] == members
            assert row.few == (len(members) < 10)
            sub_ref = [REF[i] for i in members]
            stats = {s: metric.segment_stats([SYSTEMS[s][i] for i in members], [[r] for r in sub_ref]) for s in systems}
            for cell in row.cells:
                assert cell.estimate.n == len(members)
                if not members:
                    assert cell.estimate.value is None
                    continue
                hyps = [SYSTEMS[cell.system][i] for i in members]
                assert cell.estimate.value == pytest.approx(reference(hyps, sub_ref), abs=1e-12)
                if len(members) >= 2:
                    ci = bootstrap_interval(metric, stats[cell.system], n_resamples=200, seed=7)
                    assert (cell.estimate.low, cell.estimate.high) == (ci.low, ci.high)
                if cell.system != "A" and len(members) >= 2:
                    boot = paired_bootstrap(metric, stats["A"], stats[cell.system], n_resamples=200, seed=7)
                    assert cell.p_value == boot.p_value
                    tested.append((cell, row.few))
        assert tested
        adjusted = multitest.multipletests([c.p_value for c, _ in tested], method="fdr_bh")[1]
        for (cell, few), q in zip(tested, adjusted, strict=True):
            assert cell.p_adjusted == pytest.approx(q, abs=1e-15)
            if few:  # below the trust threshold: "few" instead of a marker
                assert cell.marker is None
            else:
                assert cell.marker in ("", "+", "-") and (cell.marker != "") == (q < 0.05)
    # counts by sentence TER (not bounded by 1: tenths and one bucket >= 1), membership per system
    from fractions import Fraction

    table = next(t for t in model.buckets if t.id == "count-by-sentence-ter")
    assert table.depends_on_hypothesis
    ter = sacrebleu.metrics.TER()
    values = {}
    for s in systems:
        values[s] = []
        for h, r in zip(SYSTEMS[s], REF, strict=True):
            score = ter.sentence_score(h, [r])
            values[s].append(Fraction(round(score.num_edits), round(score.ref_length)))
    above_one = max(max(v) for v in values.values()) > 1
    edges = [Fraction(k, 10) for k in range(1, 11 if above_one else 10)]
    # labels on the leaderboard's scale (TER x 100, as sacreBLEU prints it)
    assert [r.label for r in table.rows][-1] == (">=100" if above_one else ">=90")
    for s in systems:
        expected = [sum(1 for e in edges if v >= e) for v in values[s]]
        assert list(table.segment_buckets_by_system[s]) == expected
        counts = [next(c for c in row.cells if c.system == s).estimate.n for row in table.rows]
        assert counts == [expected.count(b) for b in range(len(table.rows))]


def test_summarization_shows_how_rougelsum_split_the_sentences():
    refs = ["It rained. We stayed in.", "Sunny"]
    systems = {"A": ["It rained.", "Sunny day. Warm. Dry!"], "B": ["Rain", "Sun"]}
    options = {"sentence_splitter": "simple"}
    model = nlpeval.report(systems, refs, metrics=("rougeLsum",), metric_options=options, n_bootstrap=10)
    section = model.summarization
    assert section.lsum_sentence_splitter == "simple"
    assert [(s.side, s.segments, s.sentences, s.multi_sentence) for s in section.lsum_splits] == [
        ("reference", 2, 3, 1),
        ("A", 2, 4, 1),
        ("B", 2, 2, 0),
    ]
    assert (section.lsum_example, section.lsum_example_id) == (("It rained.", "We stayed in."), 0)
    newline = nlpeval.report(systems, refs, metrics=("rougeLsum",), n_bootstrap=10).summarization
    assert [s.multi_sentence for s in newline.lsum_splits] == [0, 0, 0] and newline.lsum_example == (refs[0],)
