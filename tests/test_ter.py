"""TER parity with sacreBLEU 2.6 ``TER``: corpus and segment level, every tokenizer option.

sacreBLEU's TER is slow (pure Python shift search: about 5-20 s per WMT17 system
of 3,004 segments), so the WMT17 parity test scores two systems (online-B.0 and
PROMT-Rule-based.4735) on the full test set and each of the other 14 systems on
its own window of 150 segments; the windows start 190 segments apart, so together
they cover the whole test set. Option combinations, CJK text, multiple references,
empty segments and 500+-token segments are tested on smaller inputs.

The reference values come from sacreBLEU at test time. ``sacre_stats`` uses
sacreBLEU's own per-segment statistics (``_extract_corpus_statistics``) so that
one pass gives the corpus score and every segment; the first test checks that
this equals the public ``corpus_score`` / ``sentence_score``.
"""

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
from sacrebleu.metrics import lib_ter
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

import nlpeval
from nlpeval.cli.main import main as cli_main
from nlpeval.metrics.ter import TER
from nlpeval.tokenizers.tercom import tercom_reference_tokenizer, tercom_tokenizer
from textgen import corpus, sentence, streams

OPTION_NAMES = ("normalized", "no_punct", "asian_support", "case_sensitive")
ALL_OPTIONS = [dict(zip(OPTION_NAMES, flags, strict=True)) for flags in itertools.product((False, True), repeat=4)]


def option_id(options: dict[str, bool]) -> str:
    return "-".join(name for name, on in options.items() if on) or "default"


def sacre_stats(hyps: list[str], refs: list[list[str]], **options: bool) -> tuple[object, list[list[float]]]:
    """sacreBLEU's corpus TERScore and per-segment ``[num_edits, ref_length]``."""
    metric = sacrebleu.metrics.TER(**options)
    stats = metric._extract_corpus_statistics(hyps, streams(refs))
    return metric._aggregate_and_compute(stats), stats


def assert_parity(hyps: list[str], refs: list[list[str]], **options: bool) -> nlpeval.Score:
    """Corpus score, components and every segment equal sacreBLEU's."""
    expected, expected_rows = sacre_stats(hyps, refs, **options)
    metric = TER(**options)
    stats = metric.segment_stats(hyps, refs)
    # segment statistics: integer edits and exact average reference lengths
    assert stats["num_edits"].tolist() == [row[0] for row in expected_rows]
    assert stats["ref_length"].tolist() == [row[1] for row in expected_rows]
    score = metric.score_from_stats(stats, segments=True)
    single_ref = all(len(r) == 1 for r in refs)
    assert score.components["num_edits"] == expected.num_edits
    assert score.components["ref_length"] == pytest.approx(expected.ref_length, rel=1e-12)
    if single_ref:  # integer sums: bit-identical
        assert score.components["ref_length"] == expected.ref_length
        assert 100 * score.score == expected.score
    assert score.score == pytest.approx(expected.score / 100, rel=1e-12, abs=1e-12)
    # sentence TER of each segment, as sacreBLEU scores a one-segment corpus
    sentence = [sacrebleu.metrics.TER(**options)._compute_score_from_stats(row).score for row in expected_rows]
    assert (100 * score.segments).tolist() == sentence
    return score


# --- the reference helper is sacreBLEU's public behaviour -------------------------------------------


def test_helper_equals_public_sacrebleu_api() -> None:
    hyps, refs = corpus(seed=1, n=40)
    expected, rows = sacre_stats(hyps, refs)
    public = sacrebleu.metrics.TER().corpus_score(hyps, streams(refs))
    assert (expected.score, expected.num_edits, expected.ref_length) == (
        public.score,
        public.num_edits,
        public.ref_length,
    )
    ours = nlpeval.ter(hyps, refs, segments=True)
    for index, (hyp, seg_refs) in enumerate(zip(hyps, refs, strict=True)):
        assert 100 * ours.segments[index] == sacrebleu.sentence_ter(hyp, seg_refs).score
    assert rows[0][0] == sacrebleu.sentence_ter(hyps[0], refs[0]).num_edits


# --- real data ------------------------------------------------------------------------------------

WMT17_SYSTEMS = 16
FULL_SYSTEMS = ("online-B.0", "PROMT-Rule-based.4735")
WINDOW = 150
WINDOW_STEP = 190


@pytest.mark.parametrize("index", range(WMT17_SYSTEMS))
def test_wmt17_system(wmt17: dict[str, list[str]], index: int) -> None:
    names = sorted(name for name in wmt17 if name != "reference")
    assert len(names) == WMT17_SYSTEMS
    name = names[index]
    hyps, refs = wmt17[name], [[r] for r in wmt17["reference"]]
    if name not in FULL_SYSTEMS:
        start = index * WINDOW_STEP
        hyps, refs = hyps[start : start + WINDOW], refs[start : start + WINDOW]
    score = assert_parity(hyps, refs)
    assert score.signature.startswith("nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|flavor:sacrebleu|")


def test_wmt17_multiple_references_of_varying_count(wmt17: dict[str, list[str]]) -> None:
    """Other systems' outputs serve as extra references: 1, 2 or 3 per segment."""
    extra = [wmt17["uedin-nmt.4722"], wmt17["online-A.0"]]
    hyps = wmt17["KIT.4950"][:100]
    refs = [[wmt17["reference"][i], *(e[i] for e in extra[: i % 3])] for i in range(100)]
    score = assert_parity(hyps, refs)
    assert score.signature.startswith("nrefs:var|")


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=option_id)
def test_wmt17_options(wmt17: dict[str, list[str]], options: dict[str, bool]) -> None:
    hyps = wmt17["PROMT-Rule-based.4735"][1000:1040]
    refs = [[r] for r in wmt17["reference"][1000:1040]]
    score = assert_parity(hyps, refs, **options)
    expected = sacrebleu.metrics.TER(**options)
    expected.corpus_score(hyps[:1], [refs[0]])
    assert score.signature.split("|flavor:")[0] == str(expected.get_signature()).split("|version:")[0]


# --- generated text --------------------------------------------------------------------------------


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=option_id)
def test_adversarial_text_all_options(options: dict[str, bool]) -> None:
    """Many scripts, punctuation, odd whitespace, empty segments, 1-3 references."""
    seed = sum(flag << bit for bit, flag in enumerate(options.values()))
    hyps, refs = corpus(seed=100 + seed, n=150)
    assert_parity(hyps, refs, **options)


#: CJK ideographs, strokes, radicals, compatibility blocks, kana, CJK and full-width punctuation,
#: the edges of Tercom's ranges, mixed with Latin words and ASCII punctuation.
CJK_PIECES = [
    "我们",
    "中文",
    "日本語",
    "漢字",
    "\u3400",
    "\u4dbf",
    "\u9fff",
    "\u31c0",
    "\u2e80",
    "\u3300",
    "\uf900",
    "\ufaff",
    "\ufe30",
    "\u3200",
    "\u3f22",
    "\u3f23",
    "ひらがな",
    "カタカナ",
    "ㇰㇱ",
    "です",
    "한국어",
    "。",
    "、",
    "〈",
    "】",
    "〔",
    "〟",
    "｡",
    "･",
    "・",
    "．",
    "，",
    "？",
    "：",
    "；",
    "！",
    "＂",
    "（",
    "）",
    "ＡＢＣ",
    "NLP",
    "GPU",
    "3.5",
    "1,000",
    "e-mail",
    "it's",
    ",",
    ".",
    "(",
    ")",
    "&amp;",
    "\n-",
]


def cjk_sentence(rng: random.Random) -> str:
    pieces = [rng.choice(CJK_PIECES) for _ in range(rng.randint(0, 14))]
    return "".join(p + (" " if rng.random() < 0.3 else "") for p in pieces)


@pytest.mark.parametrize("options", [o for o in ALL_OPTIONS if o["asian_support"]], ids=option_id)
def test_cjk_text_with_asian_support(options: dict[str, bool]) -> None:
    rng = random.Random(7)
    hyps = [cjk_sentence(rng) for _ in range(120)]
    refs = [[cjk_sentence(rng) for _ in range(rng.randint(1, 3))] for _ in hyps]
    # related pairs too, so that shifts happen
    for i in range(0, 120, 2):
        words = refs[i][0].split()
        rng.shuffle(words)
        hyps[i] = " ".join(words)
    assert_parity(hyps, refs, **options)


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=option_id)
def test_tercom_tokenizer_matches_sacrebleu(options: dict[str, bool]) -> None:
    rng = random.Random(11)
    lines = [sentence(rng, 20) for _ in range(400)] + [cjk_sentence(rng) for _ in range(200)]
    lines += ["it's", "It's mine's", "A\n-B\nC", "x &amp;quot; y", " \t ", "", "ΣΟΦΙΑΣ İstanbul", "1990-2000 3.5,2"]
    ours, ours_ref = tercom_tokenizer(**options), tercom_reference_tokenizer(**options)
    theirs = TercomTokenizer(**options)
    for line in lines:
        once = theirs(line.rstrip())
        assert ours(line).split() == once.split(), repr(line)
        assert ours_ref(line).split() == theirs(once.rstrip()).split(), repr(line)


def test_references_are_tokenized_twice_as_sacrebleu_does() -> None:
    """sacreBLEU pre-processes references twice; with ``normalized`` the second pass splits more."""
    hyps = ["it's\tmine", "it's，我的", "the cat's toy"]
    refs = [[h] for h in hyps]
    score = assert_parity(hyps, refs, normalized=True, asian_support=True)
    assert score.components["num_edits"] > 0  # identical strings, yet not a perfect match
    once = tercom_tokenizer(normalized=True)("it's\tmine").split()
    assert once != tercom_reference_tokenizer(normalized=True)("it's\tmine").split()


# --- edge cases ------------------------------------------------------------------------------------

EMPTY_CASES = {
    "all empty": ([""], [[""]]),
    "empty hypothesis": (["", "a b"], [["x y z"], ["a b"]]),
    "empty reference": (["a b c", "a"], [[""], ["a"]]),
    "only empty references": (["a b c"], [[""]]),
    "whitespace only": ([" \t", "a\u3000b"], [["\u00a0"], ["a b "]]),
    "some references empty": (["a b", "c"], [["", "a b"], ["", "", "d"]]),
    "empty and non-empty mixed": (["", "", "x"], [[""], ["a"], [""]]),
}


@pytest.mark.parametrize("case", EMPTY_CASES, ids=list(EMPTY_CASES))
def test_empty_segments(case: str) -> None:
    hyps, refs = EMPTY_CASES[case]
    assert_parity(hyps, refs)
    public = sacrebleu.metrics.TER().corpus_score(hyps, streams(refs))
    assert 100 * nlpeval.ter(hyps, refs).score == pytest.approx(public.score, abs=1e-12)


def long_pair(seed: int, n: int, vocab: int, moves: int, subs: int, tail: int) -> tuple[str, str]:
    """A reference of ``n`` tokens and a hypothesis with blocks moved and words replaced in
    its last ``tail`` tokens (so that sacreBLEU's prefix cache keeps its run time to ~1 s)."""
    rng = random.Random(seed)
    ref = [f"w{rng.randrange(vocab)}" if vocab else f"u{i}" for i in range(n)]
    hyp = list(ref)
    for _ in range(moves):
        size = rng.randint(1, 6)
        start = rng.randrange(n - tail, n - size)
        block = hyp[start : start + size]
        del hyp[start : start + size]
        target = max(n - tail, min(len(hyp), start + rng.randint(-30, 30)))
        hyp[target:target] = block
    for _ in range(subs):
        hyp[rng.randrange(n - tail, n)] = "zz"
    return " ".join(hyp), " ".join(ref)


def test_long_segments_with_many_shifts() -> None:
    pairs = [long_pair(1, 520, 0, 6, 3, 120), long_pair(3, 520, 200, 6, 3, 100), long_pair(4, 600, 0, 8, 2, 100)]
    hyps, refs = [h for h, _ in pairs], [[r] for _, r in pairs]
    score = assert_parity(hyps, refs)
    # the shifts really happen: TER is well below the plain edit distance
    plain = [lib_ter.BeamEditDistance(r[0].split())(h.split())[0] for h, r in zip(hyps, refs, strict=True)]
    assert score.components["num_edits"] < sum(plain) - 30


def test_very_unequal_lengths_widen_the_beam() -> None:
    long = " ".join(f"t{i % 97}" for i in range(600))
    hyps = ["t1 t2 t3 t50 t7", long, "t5 " * 3 + long]
    refs = [[long], ["t1 t2 t3"], [long + " t9"]]
    assert_parity(hyps, refs)


def test_shift_candidate_budget_is_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two-word vocabularies run out of shift candidates (1,000): in the first search
    for one pair, in the second search (after one shift was applied) for the other."""
    pairs = []
    for seed in (0, 5):
        rng = random.Random(seed)
        pairs.append([" ".join(rng.choice("ab") for _ in range(40)) for _ in range(2)])
    seen: list[int] = []
    original = lib_ter._shift

    def counting(*args: object) -> tuple:
        result = original(*args)
        seen.append(result[2])
        return result

    monkeypatch.setattr(lib_ter, "_shift", counting)
    assert_parity([h for h, _ in pairs], [[r] for _, r in pairs])
    assert seen[0] >= lib_ter._MAX_SHIFT_CANDIDATES
    assert len(seen) == 3 and seen[1] < lib_ter._MAX_SHIFT_CANDIDATES <= seen[2]


# --- streaming, bootstrap, errors ------------------------------------------------------------------


def test_accumulator_equals_one_shot() -> None:
    hyps, refs = corpus(seed=21, n=120)
    metric = TER(no_punct=True)
    whole = metric(hyps, refs, segments=True)
    first, second = metric.accumulator(keep_segments=True), metric.accumulator(keep_segments=True)
    for start in range(0, 70, 13):
        first.update(hyps[start : min(start + 13, 70)], refs[start : min(start + 13, 70)])
    second.update(hyps[70:], refs[70:])
    streamed = first.merge(second).compute()
    assert streamed.components["num_edits"] == whole.components["num_edits"]
    assert streamed.score == pytest.approx(whole.score, rel=1e-12)
    assert streamed.segments.tolist() == whole.segments.tolist()
    assert streamed.signature == whole.signature


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=4))
def test_merge_is_associative_and_streaming_equals_one_shot(cuts: list[int]) -> None:
    hyps, refs = corpus(seed=5, n=60)
    metric = TER()
    bounds = [0, *sorted(cuts), 60]
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        acc = metric.accumulator()
        if hi > lo:
            acc.update(hyps[lo:hi], refs[lo:hi])
        parts.append(acc)
    left = metric.accumulator()
    for part in parts:
        left.merge(part)
    right = metric.accumulator()
    for part in reversed(parts):
        right.merge(part)
    one_shot = metric(hyps, refs)
    for result in (left.compute(), right.compute()):
        assert result.components["num_edits"] == one_shot.components["num_edits"]
        assert result.score == pytest.approx(one_shot.score, rel=1e-12)


def test_bootstrap_interval_matches_sacrebleu(wmt17: dict[str, list[str]]) -> None:
    from sacrebleu.significance import _bootstrap_resample

    hyps, refs = wmt17["xmu.4910"][:300], [[r] for r in wmt17["reference"][:300]]
    metric = sacrebleu.metrics.TER()
    _, rows = sacre_stats(hyps, refs)
    _, resampled = _bootstrap_resample(rows, metric, 200)
    expected = sacrebleu.metrics.TER()._compute_score_from_stats(lib_ter_sum(rows))
    expected.estimate_ci(resampled)
    ours = nlpeval.ter(hyps, refs, n_bootstrap=200, seed=12345)
    # sacreBLEU resamples float32 statistics: agreement to float32 precision
    assert 100 * ours.ci.half_width == pytest.approx(expected._ci, rel=1e-5)
    assert 100 * ours.ci.mean == pytest.approx(expected._mean, rel=1e-5)
    assert "|bs:200|rs:12345|" in ours.signature


def lib_ter_sum(rows: list[list[float]]) -> list[float]:
    return [sum(row[0] for row in rows), sum(row[1] for row in rows)]


def test_bad_input_names_the_segment() -> None:
    with pytest.raises(nlpeval.InputError, match="2 hypotheses but 1 references"):
        nlpeval.ter(["a", "b"], ["a"])
    with pytest.raises(nlpeval.InputError, match="segment 1"):
        nlpeval.ter(["a", None], ["a", "b"])
    with pytest.raises(nlpeval.InputError, match="reference streams"):
        nlpeval.ter(["a", "b", "c"], [["a", "b", "c"]])
    with pytest.raises(nlpeval.InputError, match="has no reference"):
        nlpeval.ter(["a"], [[]])
    with pytest.raises(nlpeval.InputError, match=r"references: segment 1 \(reference 1\): is not valid Unicode"):
        nlpeval.ter(["a", "b"], ["a", ["b", "c\udc80"]])


def test_score_types_and_scale() -> None:
    score = nlpeval.ter(["a b c d e f"], ["x"])
    assert score.score == 6.0  # 1 substitution + 5 deletions over 1 reference word: TER > 1
    assert isinstance(score.components["num_edits"], int)
    assert score.segments is None
    assert np.isclose(nlpeval.ter(["a b"], ["a b"], segments=True).segments, [0.0]).all()
    assert set(score.to_dict()) >= {"name", "score", "signature", "num_edits", "ref_length"}


# --- command line ---------------------------------------------------------------------------------


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_cli_scores_real_files(wmt17: dict[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    n = 80
    ref = write(tmp_path / "ref.de", wmt17["reference"][:n])
    ref2 = write(tmp_path / "ref2.de", wmt17["online-A.0"][:n])
    systems = {name: write(tmp_path / f"{name}.de", wmt17[name][:n]) for name in ("uedin-nmt.4722", "LIUM-NMT.4900")}
    argv = ["score", "-r", ref, "-m", "ter,bleu", "--format", "json", "--chunk-size", "17", *systems.values()]
    assert cli_main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    for system, (name, path) in zip(payload["systems"], systems.items(), strict=True):
        assert system["name"] == path
        expected = sacrebleu.metrics.TER().corpus_score(wmt17[name][:n], [wmt17["reference"][:n]])
        assert 100 * system["scores"]["ter"]["score"] == expected.score
        assert system["scores"]["ter"]["num_edits"] == expected.num_edits

    # options and two references
    argv = ["score", "-r", ref, "-r", ref2, "-m", "ter", "--ter-normalized", "--ter-case-sensitive"]
    assert cli_main([*argv, "--format", "json", "--segments", systems["LIUM-NMT.4900"]]) == 0
    ter = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["ter"]
    metric = sacrebleu.metrics.TER(normalized=True, case_sensitive=True)
    expected = metric.corpus_score(wmt17["LIUM-NMT.4900"][:n], [wmt17["reference"][:n], wmt17["online-A.0"][:n]])
    assert 100 * ter["score"] == pytest.approx(expected.score, rel=1e-12)
    assert ter["signature"].startswith("nrefs:2|case:mixed|tok:tercom|norm:yes|punct:yes|asian:no|")
    assert len(ter["segments"]) == n

    # text output shows TER on sacreBLEU's 0-100 scale
    assert cli_main(["score", "-r", ref, "-m", "ter", systems["LIUM-NMT.4900"]]) == 0
    text = capsys.readouterr().out
    expected = sacrebleu.metrics.TER().corpus_score(wmt17["LIUM-NMT.4900"][:n], [wmt17["reference"][:n]])
    assert f"{expected.score:.2f}" in text


def test_cli_mismatched_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ref = write(tmp_path / "ref.txt", ["a b", "c d"])
    hyp = write(tmp_path / "hyp.txt", ["a b"])
    assert cli_main(["score", "-r", ref, "-m", "ter", hyp]) == 2
    err = capsys.readouterr().err
    assert "segment counts differ" in err and "Traceback" not in err
