"""The reference cache of the BLEU, chrF and GLEU kernels: prepared on second sight, exact, never stale, keyed by
options, bounded, thread-safe."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import sacrebleu

import nlpeval
from nlpeval import _native
from nlpeval.metrics.reference_cache import cache_info, cache_limits, clear_cache

#: options of each kernel call: BLEU (tokenizer, max_order), chrF (char, word order, whitespace, beta^2, eps)
BLEU_OPTIONS = [("13a", 4), ("13a", 2), ("intl", 4), ("char", 3), ("none", 1), ("zh", 4)]
CHRF_OPTIONS = [
    (6, 0, False, 4.0, False),
    (6, 2, False, 4.0, False),
    (6, 2, True, 1.0, True),
    (2, 1, False, 9.0, False),
]


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    previous = cache_limits()
    clear_cache()
    yield
    cache_limits(*previous)
    clear_cache()


def uncached(call, *args):  # type: ignore[no-untyped-def]
    """The kernel's rows with the cache turned off (which also empties it: call before the cached calls)."""
    previous = cache_limits(max_entries=0)
    try:
        return call(*args)
    finally:
        cache_limits(*previous)


def prepared(call, *args):  # type: ignore[no-untyped-def]
    """The kernel's rows from a call that finds the references prepared: the first sight of a reference
    set takes the direct kernel and the second prepares them (both calls' rows must agree)."""
    first = call(*args)
    again = call(*args)
    np.testing.assert_array_equal(again, first)
    return again


def bleu_rows(hyps: list[str], refs: list[list[str]], options: tuple) -> np.ndarray:
    return _native.bleu_stats(hyps, refs, *options)


def chrf_rows(hyps: list[str], refs: list[list[str]], options: tuple) -> np.ndarray:
    return _native.chrf_stats(hyps, refs, *options)


def adversarial(rng: random.Random, n: int) -> list[str]:
    pieces = ["a", "the", "cat", "1.5", "x,y", "-", "1-2", "&amp;", "é", "日本", "!", "\u00a0", "\u3000", "", "  "]
    return [" ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 25))) for _ in range(n)]


def test_cached_rows_equal_uncached_rows_on_adversarial_multi_reference_input() -> None:
    rng = random.Random(13)
    refs = [adversarial(rng, rng.randrange(1, 4)) for _ in range(200)]
    systems = [adversarial(rng, 200) for _ in range(3)]
    calls = [(bleu_rows, options) for options in BLEU_OPTIONS] + [(chrf_rows, options) for options in CHRF_OPTIONS]
    expected = [[uncached(call, hyps, refs, options) for call, options in calls] for hyps in systems]
    for hyps, rows in zip(systems, expected, strict=True):
        for (call, options), want in zip(calls, rows, strict=True):
            np.testing.assert_array_equal(call(hyps, refs, options), want, err_msg=str(options))
    info = cache_info()
    assert info["bleu"]["hits"] > 0 and info["chrf"]["hits"] > 0


def test_every_wmt17_system_scores_as_sacrebleu_with_the_references_cached(wmt17: dict[str, list[str]]) -> None:
    reference = wmt17["reference"]
    systems = [name for name in wmt17 if name != "reference"][:5]
    refs = [[r] for r in reference]
    expected = [uncached(bleu_rows, wmt17[name], refs, ("13a", 4)) for name in systems]
    for name, want in zip(systems, expected, strict=True):
        hyp = wmt17[name]
        assert nlpeval.bleu(hyp, reference).score == pytest.approx(
            sacrebleu.corpus_bleu(hyp, [reference]).score / 100, abs=1e-15
        )
        for word_order in (0, 2):
            ours = nlpeval.chrf(hyp, reference, word_order=word_order).score
            assert ours == pytest.approx(sacrebleu.corpus_chrf(hyp, [reference], word_order=word_order).score / 100)
        np.testing.assert_array_equal(bleu_rows(hyp, refs, ("13a", 4)), want)
    info = cache_info()
    # per kernel and option set: a first sight, one preparation, then hits only
    assert info["bleu"]["misses"] == 2 and info["bleu"]["hits"] == 2 * len(systems) - 2
    assert info["chrf"]["misses"] == 4 and info["chrf"]["hits"] == 2 * len(systems) - 4
    assert (info["bleu"]["entries"], info["chrf"]["entries"]) == (1, 2)


def test_a_reference_set_seen_once_is_not_prepared() -> None:
    rng = random.Random(3)
    refs = [adversarial(rng, 1) for _ in range(100)]
    hyps = adversarial(rng, 100)
    rows = bleu_rows(hyps, refs, ("13a", 4))
    np.testing.assert_array_equal(rows, uncached(bleu_rows, hyps, refs, ("13a", 4)))
    chrf_rows(hyps, refs, CHRF_OPTIONS[0])
    info = cache_info()
    assert (info["bleu"]["entries"], info["bleu"]["misses"], info["chrf"]["entries"]) == (0, 1, 0)
    # a training loop's ever-new batches: none is prepared, the cache stays empty
    for _ in range(20):
        batch = [adversarial(rng, 1) for _ in range(64)]
        bleu_rows(adversarial(rng, 64), batch, ("13a", 4))
    assert cache_info()["bleu"]["entries"] == 0 and cache_info()["bleu"]["bytes"] == 0
    # the second sight prepares; the third finds them
    bleu_rows(hyps, refs, ("13a", 4))
    bleu_rows(hyps, refs, ("13a", 4))
    info = cache_info()["bleu"]
    assert (info["entries"], info["hits"]) == (1, 1)


def test_a_mutated_reference_list_is_not_served_stale() -> None:
    refs = [[f"the cat number {i} sat on the mat ."] for i in range(100)]
    hyps = [f"a cat number {i} sat on a mat" for i in range(100)]
    first = prepared(bleu_rows, hyps, refs, ("13a", 4))
    assert cache_info()["bleu"]["entries"] == 1
    refs[37][0] = "a cat number 37 sat on a mat"  # in place: same list objects
    changed = prepared(bleu_rows, hyps, refs, ("13a", 4))
    np.testing.assert_array_equal(changed, uncached(bleu_rows, hyps, refs, ("13a", 4)))
    assert changed[37].tolist() != first[37].tolist()
    refs[50].append("one more reference")  # another reference count in one segment
    np.testing.assert_array_equal(bleu_rows(hyps, refs, ("13a", 4)), uncached(bleu_rows, hyps, refs, ("13a", 4)))
    chrf_before = prepared(chrf_rows, hyps, refs, CHRF_OPTIONS[1])
    refs[3][0] = refs[3][0].replace("cat", "cap")
    chrf_after = prepared(chrf_rows, hyps, refs, CHRF_OPTIONS[1])
    np.testing.assert_array_equal(chrf_after, uncached(chrf_rows, hyps, refs, CHRF_OPTIONS[1]))
    assert chrf_after[3].tolist() != chrf_before[3].tolist()
    assert cache_info()["bleu"]["hits"] == 0


def test_options_that_change_the_prepared_references_do_not_share_entries() -> None:
    refs = [[f"The Cat, number {i}, sat on the mat!"] for i in range(100)]
    hyps = [f"the cat number {i} sat on the mat" for i in range(100)]
    chrf_options = [(6, 0, False, 1.0, True), (6, 0, True, 1.0, False), (6, 2, False, 9.0, True)]
    expected_bleu = uncached(bleu_rows, hyps, refs, ("13a", 2))
    expected_chrf = [uncached(chrf_rows, hyps, refs, options) for options in chrf_options]
    other_orders = [(3, 0, False, 4.0, False), (6, 1, False, 4.0, False)]
    expected_other = [uncached(chrf_rows, hyps, refs, options) for options in other_orders]
    for tokenize in ("13a", "intl", "char", "none"):
        prepared(bleu_rows, hyps, refs, (tokenize, 4))
    assert cache_info()["bleu"]["entries"] == 4
    # max_order does not change the tokens: the 13a entry serves it
    np.testing.assert_array_equal(bleu_rows(hyps, refs, ("13a", 2)), expected_bleu)
    assert cache_info()["bleu"]["hits"] == 1
    # lowercase changes the text the kernel receives: a new entry, and sacreBLEU's value
    lower = prepared(lambda: nlpeval.bleu(hyps, [r[0] for r in refs], lowercase=True).score)
    assert lower == pytest.approx(
        sacrebleu.corpus_bleu(hyps, [[r[0] for r in refs]], lowercase=True).score / 100, abs=1e-15
    )
    assert cache_info()["bleu"]["entries"] == 5
    # chrF: whitespace and the orders are part of the key (the references are kept as sorted keys of
    # the n-grams of those orders); beta and smoothing are not (matching only)
    for options in [(6, 0, False, 4.0, False), (6, 0, True, 4.0, False), (6, 2, False, 4.0, False)]:
        prepared(chrf_rows, hyps, refs, options)
    assert cache_info()["chrf"]["entries"] == 3
    for options, want in zip(chrf_options, expected_chrf, strict=True):
        np.testing.assert_array_equal(chrf_rows(hyps, refs, options), want)
    info = cache_info()["chrf"]
    assert (info["entries"], info["hits"]) == (3, 3)
    for options, want in zip(other_orders, expected_other, strict=True):
        np.testing.assert_array_equal(prepared(chrf_rows, hyps, refs, options), want)
    info = cache_info()["chrf"]
    assert (info["entries"], info["hits"]) == (5, 3)


def test_the_cache_stays_within_its_bounds() -> None:
    hyps = [f"system output {i}" for i in range(80)]
    ref_sets = [[[f"reference {k} of segment {i}"] for i in range(80)] for k in range(5)]
    expected = uncached(bleu_rows, hyps, ref_sets[1], ("13a", 4))
    cache_limits(max_entries=2)
    for refs in ref_sets:
        prepared(bleu_rows, hyps, refs, ("13a", 4))
    assert cache_info()["bleu"]["entries"] == 2
    # the two most recent sets are kept, the older ones evicted (and seen anew)
    bleu_rows(hyps, ref_sets[4], ("13a", 4))
    bleu_rows(hyps, ref_sets[0], ("13a", 4))
    info = cache_info()["bleu"]
    assert (info["entries"], info["hits"], info["misses"]) == (2, 1, 11)
    # a byte budget below one entry keeps nothing, and the values stay exact
    cache_limits(max_entries=8, max_bytes=1000)
    assert cache_info()["bleu"]["entries"] == 0
    np.testing.assert_array_equal(prepared(bleu_rows, hyps, ref_sets[1], ("13a", 4)), expected)
    assert cache_info()["bleu"]["entries"] == 0
    cache_limits(max_bytes=1 << 28)
    prepared(bleu_rows, hyps, ref_sets[1], ("13a", 4))
    assert 0 < cache_info()["bleu"]["bytes"] < 100 * sum(len(r[0]) for r in ref_sets[1])
    # small batches are never cached
    clear_cache()
    bleu_rows(hyps[:10], ref_sets[2][:10], ("13a", 4))
    assert cache_info()["bleu"] == {"entries": 0, "bytes": 0, "hits": 0, "misses": 0}
    with pytest.raises(ValueError, match="max_entries"):
        cache_limits(max_entries=-1)


def test_threads_scoring_concurrently_get_exact_rows() -> None:
    rng = random.Random(5)
    shared = [adversarial(rng, 1) for _ in range(150)]
    other = [adversarial(rng, 2) for _ in range(150)]
    systems = [adversarial(rng, 150) for _ in range(6)]
    jobs = [(hyps, refs, kind) for hyps in systems for refs in (shared, other) for kind in ("bleu", "chrf++")]
    expected = [
        uncached(bleu_rows, h, r, ("13a", 4)) if kind == "bleu" else uncached(chrf_rows, h, r, CHRF_OPTIONS[1])
        for h, r, kind in jobs
    ]
    cache_limits(max_entries=1)  # constant eviction while threads read

    def run(job: tuple) -> np.ndarray:
        hyps, refs, kind = job
        return bleu_rows(hyps, refs, ("13a", 4)) if kind == "bleu" else chrf_rows(hyps, refs, CHRF_OPTIONS[1])

    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            for got, want in zip(pool.map(run, jobs), expected, strict=True):
                np.testing.assert_array_equal(got, want)


def test_non_list_and_invalid_arguments_still_work_or_fail_clearly() -> None:
    hyps = tuple(f"hyp {i}" for i in range(70))
    refs = tuple((f"ref {i}",) for i in range(70))
    np.testing.assert_array_equal(
        _native.bleu_stats(hyps, refs, "13a", 4), uncached(bleu_rows, list(hyps), [list(r) for r in refs], ("13a", 4))
    )
    with pytest.raises(ValueError, match="one list of references per hypothesis"):
        _native.bleu_stats(["a", "b"], [["a"]], "13a", 4)
    with pytest.raises(UnicodeEncodeError):
        _native.chrf_stats(["a \ud800"], [["a"]], 6, 0, False, 4.0, False)
    with pytest.raises(TypeError):
        _native.bleu_stats(["a"], [[3]], "13a", 4)


def test_the_gleu_cache_is_counted_cleared_and_bounded_with_the_others() -> None:
    from nltk.translate.gleu_score import corpus_gleu

    rng = random.Random(11)
    refs = [adversarial(rng, 2) for _ in range(100)]
    systems = [adversarial(rng, 100) for _ in range(3)]
    expected = [
        corpus_gleu([[r.split() for r in group] for group in refs], [h.split() for h in hyps]) for hyps in systems
    ]
    # seen, then prepared, then reused: the same values as NLTK's each time
    got = [nlpeval.gleu(hyps, refs).score for hyps in systems]
    assert got == pytest.approx(expected, abs=1e-12)
    info = cache_info()["gleu"]
    assert (info["entries"], info["misses"], info["hits"]) == (1, 2, 1)
    assert info["bytes"] > 0
    # the limits evict GLEU's entry as the others'
    cache_limits(max_entries=0)
    assert cache_info()["gleu"]["entries"] == 0
    cache_limits(max_entries=8)
    nlpeval.gleu(systems[0], refs)
    nlpeval.gleu(systems[0], refs)
    assert cache_info()["gleu"]["entries"] == 1
    clear_cache()
    assert cache_info()["gleu"] == {"entries": 0, "bytes": 0, "hits": 0, "misses": 0}
