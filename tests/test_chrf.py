"""chrF / chrF++: parity with sacreBLEU's CHRF on WMT17 and generated text, pairwise, streaming, CLI."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF as SacreCHRF

import nlpeval
from nlpeval.cli.main import main as cli_main
from textgen import corpus, sentence, streams

WMT17_SYSTEMS = [
    "C-3MA.4959",
    "FBK.4870",
    "KIT.4950",
    "LIUM-NMT.4900",
    "LMU-nmt-reranked.4934",
    "LMU-nmt-single.4893",
    "PROMT-Rule-based.4735",
    "RWTH-nmt-ensemble.4921",
    "SYSTRAN.4847",
    "TALP-UPC.4834",
    "online-A.0",
    "online-B.0",
    "online-F.0",
    "online-G.0",
    "uedin-nmt.4722",
    "xmu.4910",
]

#: option combinations (nlpeval keywords = sacreBLEU CHRF keywords)
OPTIONS = [
    {},
    {"word_order": 2},
    {"lowercase": True},
    {"whitespace": True},
    {"eps_smoothing": True},
    {"beta": 1},
    {"beta": 3},
    {"char_order": 4},
    {"word_order": 2, "lowercase": True, "eps_smoothing": True},
    {"word_order": 1, "whitespace": True, "beta": 1},
    {"char_order": 0, "word_order": 2},
    {"char_order": 2, "word_order": 3, "whitespace": True, "eps_smoothing": True, "lowercase": True},
]


def option_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def ref_signature(metric: SacreCHRF) -> str:
    """sacreBLEU's signature without its version."""
    return metric.get_signature().format().rsplit("|version:", 1)[0]


def our_signature(score: nlpeval.Score) -> str:
    """Our signature without flavor and version (beta is ours only, when not 2)."""
    head = score.signature.split("|flavor:", 1)[0]
    return "|".join(part for part in head.split("|") if not part.startswith("beta:"))


def sentence_values(metric: SacreCHRF, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
    return np.array([metric.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]) / 100


def assert_parity(hyps: list[str], refs: list[list[str]], options: dict, *, segments: bool = True) -> None:
    """Corpus score, signature and (optionally) every sentence score equal sacreBLEU's."""
    metric = SacreCHRF(**options)
    expected = metric.corpus_score(hyps, streams(refs))
    ours = nlpeval.chrf(hyps, refs, segments=segments, **options)
    assert ours.score == expected.score / 100
    assert our_signature(ours) == ref_signature(metric)
    if segments:
        np.testing.assert_array_equal(ours.segments, sentence_values(metric, hyps, refs))


# --- WMT17: all 16 systems, several option combinations, multiple references ---------------------------


@pytest.mark.parametrize("system", WMT17_SYSTEMS)
def test_wmt17_corpus_chrf_equals_sacrebleu(wmt17: dict[str, list[str]], system: str) -> None:
    hyps, reference = wmt17[system], wmt17["reference"]
    metric = SacreCHRF()
    expected = metric.corpus_score(hyps, [reference])
    ours = nlpeval.chrf(hyps, reference)
    assert ours.score == expected.score / 100
    assert ours.signature.startswith(ref_signature(metric) + "|flavor:sacrebleu|version:nlpeval-")


@pytest.mark.parametrize("system", ["online-B.0", "PROMT-Rule-based.4735", "xmu.4910", "TALP-UPC.4834"])
def test_wmt17_sentence_chrf_equals_sacrebleu(wmt17: dict[str, list[str]], system: str) -> None:
    hyps, reference = wmt17[system][:1500], wmt17["reference"][:1500]
    metric = SacreCHRF(word_order=2 if system.startswith("x") else 0)
    ours = nlpeval.chrf(hyps, reference, word_order=metric.word_order, segments=True)
    np.testing.assert_array_equal(ours.segments, sentence_values(metric, hyps, [[r] for r in reference]))


@pytest.mark.parametrize("options", OPTIONS[1:], ids=option_id)
def test_wmt17_options_equal_sacrebleu(wmt17: dict[str, list[str]], options: dict) -> None:
    system = WMT17_SYSTEMS[OPTIONS.index(options) % len(WMT17_SYSTEMS)]
    hyps, reference = wmt17[system][:1000], wmt17["reference"][:1000]
    metric = SacreCHRF(**options)
    expected = metric.corpus_score(hyps, [reference])
    ours = nlpeval.chrf(hyps, reference, segments=True, **options)
    assert ours.score == expected.score / 100
    assert our_signature(ours) == ref_signature(metric)
    np.testing.assert_array_equal(
        ours.segments[:200], sentence_values(metric, hyps[:200], [[r] for r in reference[:200]])
    )


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"eps_smoothing": True, "lowercase": True}], ids=option_id)
def test_wmt17_variable_references_keep_the_best_reference(wmt17: dict[str, list[str]], options: dict) -> None:
    """Other systems' outputs serve as extra references (1-3 per segment): the best one is chosen per segment."""
    others = [wmt17["online-A.0"], wmt17["uedin-nmt.4722"]]
    n = 800
    hyps = wmt17["online-B.0"][:n]
    refs = [[wmt17["reference"][i], *(o[i] for o in others[: i % 3])] for i in range(n)]
    assert_parity(hyps, refs, options, segments=False)
    sub = slice(0, 150)
    metric = SacreCHRF(**options)
    ours = nlpeval.chrf(hyps[sub], refs[sub], segments=True, **options)
    np.testing.assert_array_equal(ours.segments, sentence_values(metric, hyps[sub], refs[sub]))
    assert "nrefs:var" in ours.signature


# --- generated adversarial text -------------------------------------------------------------------------


@pytest.mark.parametrize("options", OPTIONS, ids=option_id)
@pytest.mark.parametrize("seed", [1, 2])
def test_adversarial_text_equals_sacrebleu(options: dict, seed: int) -> None:
    hyps, refs = corpus(seed * 100 + OPTIONS.index(options), n=120)
    assert_parity(hyps, refs, options)


def test_adversarial_case_and_punctuation_edge_cases() -> None:
    hyps = ["İSTANBUL ΣΟΦΙΑ Straße", "(hi) a, .b !", "x.y. 'quote' ..", "ǅ ß ﬁ", "a\u200bb\u00a0c\u3000d", "-"]
    refs = [["istanbul σοφια strasse"], ["(hi ) a , . b !"], ["x.y . ' quote '"], ["ǆ SS fi"], ["ab c d"], ["-", "--"]]
    for options in OPTIONS:
        assert_parity(hyps, refs, options)


def sorted_path_text(rng: random.Random, n: int, extra: str = "") -> list[str]:
    """Segments for the sorted-key path of cached references: CJK, combining marks, emoji, runs of
    spaces, empty segments, words longer than any lane, characters the other side lacks."""
    pieces = ["a", "the", "cat", "e\u0301", "日本語", "😀", "👍🏽", "\u3000", "   ", "x" * 40, "ab,", ".", "é", ""]
    pieces += list(extra)
    return [" ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))) for _ in range(n)]


@pytest.mark.parametrize(
    "options", [{}, {"word_order": 2}, {"char_order": 8, "word_order": 1, "whitespace": True}], ids=option_id
)
def test_cached_sorted_keys_equal_sacrebleu_on_adversarial_text(options: dict) -> None:
    # 80 segments: the references are prepared for the cache and kept as sorted n-gram keys
    rng = random.Random(len(options))
    refs = [sorted_path_text(rng, rng.randrange(1, 3)) for _ in range(80)]
    hyps = sorted_path_text(rng, 80, extra="ωψ🙃")  # characters no reference has
    assert_parity(hyps, refs, options)


@pytest.mark.parametrize("options", [{}, {"char_order": 9, "word_order": 2}], ids=option_id)
def test_cached_references_beyond_the_sorted_lanes_equal_sacrebleu(options: dict) -> None:
    # 1,200 distinct reference characters do not fit 10-bit lanes (6 orders), nor do 9 orders
    # fit the sorted keys: the per-hypothesis path runs on the cached references
    rng = random.Random(7)
    wide = [chr(0x4E00 + i) for i in range(1200)]
    refs = [["".join(wide[i * 15 : i * 15 + 15]) + " " + " ".join(sorted_path_text(rng, 1))] for i in range(80)]
    hyps = ["".join(rng.sample(wide, 10)) + " " + h for h in sorted_path_text(rng, 80)]
    assert_parity(hyps, refs, options)


EMPTY_CASES = {
    "all empty": (["", ""], [[""], [""]]),
    "empty hypothesis": (["", "a b c"], [["abc"], ["a b c"]]),
    "empty reference": (["abc", "a b"], [[""], ["b"]]),
    "whitespace only": ([" \t", "\u3000"], [["\u00a0"], [" "]]),
    "empty among references": (["the cat", ""], [["", "the cat"], ["x", ""]]),
    "shorter than the order": (["ab", "a"], [["abc"], ["a"]]),
}


@pytest.mark.parametrize("case", EMPTY_CASES)
@pytest.mark.parametrize("options", OPTIONS[:6], ids=option_id)
def test_empty_segments_are_scored_like_sacrebleu(case: str, options: dict) -> None:
    hyps, refs = EMPTY_CASES[case]
    assert_parity(hyps, refs, options)


# --- pairwise -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, OPTIONS[8], OPTIONS[9], OPTIONS[11]], ids=option_id)
def test_pairwise_equals_sentence_chrf_per_pair(options: dict) -> None:
    rng = random.Random(7)
    hyps = [sentence(rng) for _ in range(14)]
    cands = [sentence(rng) for _ in range(11)] + [hyps[0], ""]
    matrix = nlpeval.pairwise_chrf(hyps, cands, **options)
    assert matrix.shape == (len(hyps), len(cands))
    metric = SacreCHRF(**options)
    expected = np.array([[metric.sentence_score(h, [c]).score / 100 for c in cands] for h in hyps])
    np.testing.assert_array_equal(matrix, expected)


def test_pairwise_on_real_sentences(wmt17: dict[str, list[str]]) -> None:
    hyps, cands = wmt17["online-B.0"][:12], wmt17["reference"][:10] + wmt17["online-A.0"][:5]
    expected = np.array([[sacrebleu.sentence_chrf(h, [c]).score / 100 for c in cands] for h in hyps])
    np.testing.assert_array_equal(nlpeval.pairwise_chrf(hyps, cands), expected)


def test_pairwise_empty_inputs_and_errors() -> None:
    assert nlpeval.pairwise_chrf([], ["a"]).shape == (0, 1)
    assert nlpeval.pairwise_chrf(["a"], []).shape == (1, 0)
    with pytest.raises(nlpeval.InputError, match="candidates: segment 1"):
        nlpeval.pairwise_chrf(["a"], ["b", None])
    with pytest.raises(ValueError, match="char_order"):
        nlpeval.pairwise_chrf(["a"], ["b"], char_order=-1)


# --- streaming, bootstrap, components -------------------------------------------------------------------

_STREAM_HYPS, _STREAM_REFS = corpus(99, n=60)


@settings(max_examples=25, deadline=None)
@given(
    cuts=st.lists(st.integers(0, len(_STREAM_HYPS)), max_size=5),
    options=st.sampled_from(OPTIONS),
)
def test_accumulator_equals_one_shot(cuts: list[int], options: dict) -> None:
    metric = nlpeval.CHRF(**options)
    bounds = [0, *sorted(cuts), len(_STREAM_HYPS)]
    acc = metric.accumulator()
    halves = [metric.accumulator(), metric.accumulator()]
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        acc.update(_STREAM_HYPS[lo:hi], _STREAM_REFS[lo:hi])
        halves[k % 2].update(_STREAM_HYPS[lo:hi], _STREAM_REFS[lo:hi])
    one_shot = nlpeval.chrf(_STREAM_HYPS, _STREAM_REFS, **options)
    streamed = acc.compute()
    merged = halves[0].merge(halves[1]).compute()
    assert streamed.score == merged.score == one_shot.score
    assert streamed.signature == one_shot.signature == merged.signature
    assert dict(streamed.components) == dict(one_shot.components)


def test_accumulator_with_segments_equals_one_shot() -> None:
    acc = nlpeval.CHRF(word_order=2).accumulator(keep_segments=True)
    acc.update(_STREAM_HYPS[:25], _STREAM_REFS[:25]).update(_STREAM_HYPS[25:], _STREAM_REFS[25:])
    np.testing.assert_array_equal(
        acc.compute().segments, nlpeval.chrf(_STREAM_HYPS, _STREAM_REFS, word_order=2, segments=True).segments
    )


def test_bootstrap_interval_matches_sacrebleu_resamples(wmt17: dict[str, list[str]]) -> None:
    """Same seed, same resamples as sacreBLEU; sacreBLEU scores them from float32 sums, hence the tolerance."""
    hyps, reference = wmt17["online-B.0"][:500], wmt17["reference"][:500]
    ours = nlpeval.chrf(hyps, reference, n_bootstrap=200, seed=12345)
    expected = SacreCHRF().corpus_score(hyps, [reference], n_bootstrap=200)
    assert ours.ci is not None
    assert ours.ci.low <= ours.score <= ours.ci.high
    assert ours.ci.half_width == pytest.approx(expected._ci / 100, abs=1e-6)
    assert ours.ci.mean == pytest.approx(expected._mean / 100, abs=1e-6)
    assert "|bs:200|rs:12345|" in ours.signature


def test_components_describe_the_score() -> None:
    hyps, refs = ["the cat sat on the mat"], [["the cat sat on a mat"]]
    score = nlpeval.chrf(hyps, refs, word_order=2)
    parts = score.components
    assert score.name == "chrf++"
    assert len(parts["char_precisions"]) == 6 and len(parts["word_recalls"]) == 2
    assert parts["word_precisions"][0] == 5 / 6  # "the cat sat on the mat": 5 of 6 words match
    beta2 = 4
    f = (1 + beta2) * parts["precision"] * parts["recall"] / (beta2 * parts["precision"] + parts["recall"])
    assert f == pytest.approx(score.score, abs=1e-12)
    assert score.to_dict()["recall"] == parts["recall"]


def test_beta_other_than_two_is_recorded_in_the_signature() -> None:
    """Deliberate addition: sacreBLEU's chrF signature omits beta; ours adds it when it is not the default 2."""
    assert "beta:" not in nlpeval.chrf(["a"], ["a"]).signature
    assert "|beta:1|flavor:sacrebleu|" in nlpeval.chrf(["a"], ["a"], beta=1).signature


# --- bad input and options ------------------------------------------------------------------------------


def test_bad_input_names_the_segment() -> None:
    with pytest.raises(nlpeval.InputError, match="hypotheses: segment 1"):
        nlpeval.chrf(["a", None], ["a", "b"])
    with pytest.raises(nlpeval.InputError, match=r"references: segment 0 \(reference 1\)"):
        nlpeval.chrf(["a"], [["a", 3]])
    with pytest.raises(nlpeval.InputError, match="reference streams"):
        nlpeval.chrf(["a", "b", "c"], [["a", "b", "c"]])
    with pytest.raises(nlpeval.InputError, match="2 hypotheses but 1 references"):
        nlpeval.chrf(["a", "b"], ["a"])


def test_invalid_unicode_names_the_segment() -> None:
    """Deliberate deviation: a lone surrogate is rejected (sacreBLEU would count its code units)."""
    with pytest.raises(nlpeval.InputError, match=r"references: segment 1 \(reference 1\): is not valid Unicode"):
        nlpeval.chrf(["a", "b"], [["a"], ["b", "c\udc80"]])
    with pytest.raises(nlpeval.InputError, match="hypotheses: segment 0: is not valid Unicode"):
        nlpeval.chrf(["\ud800"], ["a"])
    with pytest.raises(nlpeval.InputError, match="candidates: segment 0: is not valid Unicode"):
        nlpeval.pairwise_chrf(["a"], ["\ud800"])


@pytest.mark.parametrize(
    "options",
    [{"char_order": 0}, {"char_order": -1}, {"word_order": 1.5}, {"beta": -1}, {"beta": "2"}, {"char_order": True}],
)
def test_bad_options_raise_value_error(options: dict) -> None:
    with pytest.raises(ValueError):
        nlpeval.chrf(["a"], ["a"], **options)


# --- CLI ------------------------------------------------------------------------------------------------


def test_cli_scores_real_files_like_sacrebleu(shared_data: Path, wmt17: dict[str, list[str]], capsys) -> None:
    folder = shared_data / "wmt17-en-de"
    systems = ["online-B.0", "KIT.4950"]
    code = cli_main(
        ["score", "-r", str(folder / "reference.de"), "-m", "chrf,chrf++", "--format", "json"]
        + [str(folder / f"{s}.de") for s in systems]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    expected = SacreCHRF(word_order=2).corpus_score(wmt17["online-B.0"], [wmt17["reference"]])
    assert result["systems"][0]["scores"]["chrf++"]["score"] == expected.score / 100
    for system, entry in zip(systems, result["systems"], strict=True):
        for name, word_order in (("chrf", 0), ("chrf++", 2)):
            ours = nlpeval.chrf(wmt17[system], wmt17["reference"], word_order=word_order)
            assert entry["scores"][name]["score"] == ours.score
            assert entry["scores"][name]["signature"] == ours.signature


def test_cli_chrf_options(tmp_path: Path, capsys) -> None:
    generated, generated_refs = corpus(5, n=40, max_refs=1)
    hyps = [h.replace("\n", " ") for h in generated]
    refs = [[r[0].replace("\n", " ")] for r in generated_refs]
    (tmp_path / "sys.txt").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    (tmp_path / "ref.txt").write_text("".join(r[0] + "\n" for r in refs), encoding="utf-8")
    args = [
        "--chrf-char-order", "4", "--chrf-word-order", "1", "--chrf-beta", "1",
        "--chrf-whitespace", "--chrf-eps-smoothing", "--lowercase",
    ]  # fmt: skip
    ref_file, sys_file = str(tmp_path / "ref.txt"), str(tmp_path / "sys.txt")
    code = cli_main(["score", "-r", ref_file, "-m", "chrf++", "--format", "json", "--segments", *args, sys_file])
    assert code == 0
    score = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["chrf++"]
    options = {
        "char_order": 4,
        "word_order": 1,
        "beta": 1,
        "whitespace": True,
        "eps_smoothing": True,
        "lowercase": True,
    }
    metric = SacreCHRF(**options)
    assert score["score"] == metric.corpus_score(hyps, streams(refs)).score / 100
    assert score["signature"].startswith(ref_signature(metric) + "|beta:1|flavor:sacrebleu")
    assert score["segments"] == sentence_values(metric, hyps, refs).tolist()


def test_cli_rejects_bad_chrf_options(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.txt").write_text("a b\n", encoding="utf-8")
    # refused while the command line is parsed, naming the flag (exit 2)
    with pytest.raises(SystemExit) as exit_info:
        cli_main(
            ["score", "-r", str(tmp_path / "a.txt"), "-m", "chrf", "--chrf-char-order", "-1", str(tmp_path / "a.txt")]
        )
    assert exit_info.value.code == 2
    assert "argument --chrf-char-order: must be at least 0, got -1" in capsys.readouterr().err
