"""The report's shortcuts give exactly what the plain paths give (shared n-gram counts, shared draws,
the fast ``to_dict``)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import nlpeval
from nlpeval.metrics.bleu import NltkBLEU
from nlpeval.reports import build
from nlpeval.reports.analyses import comparemt as cm
from nlpeval.reports.analyses import ngram_codes as nc
from nlpeval.reports.analyses.resampling import Resamples, shared_draws
from nlpeval.reports.demo import demo_report
from nlpeval.reports.model import plain
from nlpeval.significance.bootstrap import resample_indices


@pytest.fixture(scope="module")
def ted(compare_mt) -> tuple[list[list[str]], list[list[str]]]:
    return [cm.tokenize(x) for x in compare_mt["ted.ref.eng"]], [cm.tokenize(x) for x in compare_mt["ted.sys1.eng"]]


def _odd_corpus(seed: int, n: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = ["a", "b", "c", "<UNK>", "é", "", "日本"]
    return [cm.tokenize(" ".join(rng.choice(words, int(rng.integers(0, 12))))) for _ in range(n)]


@pytest.mark.parametrize("source", ["ted", "odd"])
def test_shared_counts_equal_each_metric_counting_alone(source, ted):
    refs, outs = ted if source == "ted" else (_odd_corpus(1, 300), _odd_corpus(2, 300))
    native = cm.native_rows(outs, refs)
    corpus = nc.Corpus.encode({nc.REF: refs, "out": outs})
    assert [corpus.words[i] for i in corpus.sides["out"][0]] == [w for o in outs for w in o]
    assert np.array_equal(cm.native_rows_ids(corpus.sides["out"], corpus.sides[nc.REF]), native)
    sentbleu = NltkBLEU(smooth="method2")
    alone = sentbleu.segment_stats(outs, [[r] for r in refs])
    shared = cm.sentence_bleu_stats(sentbleu, native)
    assert shared.schema == alone.schema
    assert np.array_equal(shared.rows, alone.rows)
    assert np.array_equal(sentbleu.segment_values(shared), sentbleu.segment_values(alone), equal_nan=True)
    metric = cm.CompareMtBLEU()
    assert np.array_equal(metric.stats_from_native(native).rows, metric.segment_stats(outs, refs).rows)
    as_tuples = metric.segment_stats([tuple(o) for o in outs], [tuple(r) for r in refs])
    assert np.array_equal(as_tuples.rows, metric.segment_stats(outs, refs).rows)


def test_a_longer_draw_starts_with_the_shorter_one():
    for n, short, long in ((2445, 1000, 4800), (7, 2, 3), (3004, 1000, 1001)):
        assert np.array_equal(resample_indices(n, long, 12345)[:short], resample_indices(n, short, 12345))


def test_shared_draws_equal_fresh_draws():
    with shared_draws():
        first = Resamples.draw(500, 300, 7)
        shorter = Resamples.draw(500, 100, 7)
        again = Resamples.draw(500, 300, 7)
        longer = Resamples.draw(500, 400, 7)
        other_size = Resamples.draw(499, 100, 7)
        unseeded = [Resamples.draw(50, 10, None) for _ in range(2)]
    assert again is first
    for got, k, n in ((first, 300, 500), (shorter, 100, 500), (longer, 400, 500), (other_size, 100, 499)):
        fresh = Resamples.draw(n, k, 7)
        assert np.array_equal(got.indices, fresh.indices)
        assert np.array_equal(got.counts, fresh.counts)
    assert not np.array_equal(unseeded[0].indices, unseeded[1].indices)  # no seed: independent draws


def test_report_with_shared_draws_equals_report_without(compare_mt):
    refs = compare_mt["ted.ref.eng"][:400]
    systems = {name: compare_mt[f"ted.{name}.eng"][:400] for name in ("sys1", "sys2")}
    options = {"metrics": ("bleu", "chrf"), "n_bootstrap": 200, "n_randomization": 100, "buckets": "quantile"}
    shared = nlpeval.report(systems, refs, **options)
    alone = build.report.__wrapped__(systems, refs, **options)
    assert shared.to_dict() == alone.to_dict()
    preset = nlpeval.report(systems, refs, preset="compare-mt", n_bootstrap=200)
    assert preset.to_dict() == build.report.__wrapped__(systems, refs, preset="compare-mt", n_bootstrap=200).to_dict()


def _generic(value):
    """The plain recursion ``plain`` replaced: records, mappings, sequences, numpy scalars, NaN -> None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _generic(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _generic(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_generic(v) for v in value]
    if hasattr(value, "item"):
        return _generic(value.item())
    return value


def test_fast_to_dict_equals_the_generic_recursion():
    model = demo_report(n_bootstrap=20)
    fast = model.to_dict()
    generic = _generic(model)
    assert model.human_agreement is None and generic.pop("human_agreement") is None  # left out when absent
    assert generic.pop("error_spans") == [] and generic.pop("span_f1") == []  # left out when empty
    assert fast == generic
    assert repr(fast) == repr(generic)  # same types too (int stays int, bool stays bool)
    odd = (np.float64("nan"), np.int64(3), np.bool_(True), float("inf"), {1: (2.5, None)}, [True, "x"])
    assert plain(odd) == _generic(odd) == [None, 3, True, None, {"1": [2.5, None]}, [True, "x"]]
    assert type(plain(odd)[1]) is int and type(plain(odd)[2]) is bool


#: the recursive template macro that ``svg_markup`` replaced (one macro call per element)
_SVG_MACRO = (
    '{% macro svg_node(e) -%}<{{ e.tag }}{% for k, v in e.attrs %} {{ k }}="{{ v }}"{% endfor %}>{{ e.text }}'
    "{% for c in e.children %}{{ svg_node(c) }}{% endfor %}</{{ e.tag }}>{%- endmacro %}{{ svg_node(root) }}"
)


def test_svg_markup_equals_the_recursive_macro():
    import jinja2

    from nlpeval.reports.html import svg, svg_markup, view

    macro = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(_SVG_MACRO)
    odd = svg.el(
        "svg",
        children=[
            svg.el("text", "<script>alert('x')</script> & \"q\" <UNK> مرحبا 日本 😀", x=1.25, data_x="a\"b'<"),
            svg.el("g", children=[svg.el("rect", width=3.0), svg.el("title", "")]),
        ],
        viewBox="0 0 10 10",
    )
    roots = [odd]
    built = view.build(demo_report(n_bootstrap=20).to_dict())

    def charts(value):
        if isinstance(value, svg.Chart):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from charts(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                yield from charts(item)

    roots += [chart.root for chart in charts(built)]
    assert len(roots) > 5
    for root in roots:
        assert str(svg_markup(root)) == macro.render(root=root)


def test_native_resampled_and_masked_sums_equal_explicit_sums():
    from nlpeval.core.stats import Stats, StatsSchema
    from nlpeval.reports.analyses.resampling import batched_totals, masked_sums

    rng = np.random.default_rng(3)
    draws = Resamples.draw(37, 50, 11)
    schema = StatsSchema.of("a", "b", "c")
    for rows in (
        rng.integers(0, 90, size=(37, 3)),  # the float64 dot-product path
        rng.integers(-(2**56), 2**56, size=(37, 3)),  # sums beyond float64's exact range: the integer path
    ):
        explicit = rows[draws.indices].sum(axis=1)
        assert np.array_equal(draws.sums(rows), explicit)
        stats = {"x": Stats(schema, rows), "y": Stats(schema, rows[::-1].copy())}
        batched = batched_totals(draws, stats)
        assert np.array_equal(batched["x"], explicit)
        assert np.array_equal(batched["y"], rows[::-1][draws.indices].sum(axis=1))
        masks = rng.integers(2, size=(20, 37), dtype=bool)
        assert np.array_equal(masked_sums(masks, rows), np.array([rows[m].sum(axis=0) for m in masks]))
    counts = np.array([np.bincount(row, minlength=37) for row in draws.indices])
    assert np.array_equal(draws.counts, counts)
    floats = rng.random((37, 3))
    assert np.allclose(Resamples.draw(37, 50, 11).totals(Stats(schema, floats)), floats[draws.indices].sum(axis=1))


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1, 2**32, 2**70 + 3, 2**130 + 17, np.int64(9)])
def test_native_draws_equal_numpys_generator(seed):
    from nlpeval.reports.analyses.resampling import randomization_swaps, seeded_indices

    for n, k in ((1, 3), (2, 5), (7, 3), (2445, 40), (3004, 7)):
        drawn = seeded_indices(n, k, seed)
        assert drawn.dtype == np.int64
        assert np.array_equal(drawn, np.random.default_rng(seed).choice(n, size=(k, n), replace=True))
        assert np.array_equal(drawn, resample_indices(n, k, seed))
    for n, k in ((5, 3), (33, 7), (64, 2), (2445, 30)):
        swaps = randomization_swaps(n, k, seed)
        assert swaps.dtype == np.bool_
        assert np.array_equal(swaps, np.random.default_rng(seed).integers(2, size=(k, n), dtype=bool))


def test_draws_of_other_seeds_are_numpys_own():
    from nlpeval.reports.analyses.resampling import randomization_swaps, seeded_indices

    # (the rejection branch of the bounded draws, frequent only for bounds near 2^32, is pinned
    # against NumPy's numbers in the Rust unit test seeded_draws_are_numpys)
    for seed in (np.random.SeedSequence(4), [1, 2, 3]):
        assert np.array_equal(seeded_indices(9, 4, seed), np.random.default_rng(seed).choice(9, size=(4, 9)))
        assert np.array_equal(
            randomization_swaps(9, 4, seed), np.random.default_rng(seed).integers(2, size=(4, 9), dtype=bool)
        )
    assert seeded_indices(9, 4, None).shape == randomization_swaps(9, 4, None).shape == (4, 9)
    with pytest.raises(ValueError):
        seeded_indices(9, 4, -1)  # NumPy's error for a negative seed


def test_parallel_sums_equal_explicit_sums_over_many_resamples():
    from nlpeval.reports.analyses.resampling import masked_sums

    rng = np.random.default_rng(8)
    rows = rng.integers(0, 50, size=(301, 7))
    rows[:, 3] = 0
    rows[:, 5] = rows[:, 1]
    draws = Resamples.draw(301, 1003, 2)
    assert np.array_equal(draws.sums(rows), rows[draws.indices].sum(axis=1))
    masks = rng.integers(2, size=(517, 301), dtype=bool)
    assert np.array_equal(masked_sums(masks, rows), masks.astype(np.int64) @ rows)


def test_native_draws_equal_numpys_for_many_random_seeds_and_bounds():
    from nlpeval.reports.analyses.resampling import randomization_swaps, seeded_indices

    picker = np.random.default_rng(2026)
    bounds = [1, 2, 3, 255, 256, 257, 65535, 65536, 65537, *picker.integers(1, 50_000, 40).tolist()]
    for n in bounds:
        seed = int(picker.integers(0, 2**63)) * int(picker.integers(1, 2**20))
        k = int(picker.integers(1, 6))
        assert np.array_equal(
            seeded_indices(n, k, seed), np.random.default_rng(seed).choice(n, size=(k, n), replace=True)
        ), (n, k, seed)
        assert np.array_equal(
            randomization_swaps(n, k, seed), np.random.default_rng(seed).integers(2, size=(k, n), dtype=bool)
        ), (n, k, seed)
