"""Whisper's text normalisers for WER/CER (normalize="whisper-en" / "whisper-basic"), against transformers'
copy of openai-whisper 20250625's normalisers run live (same code as openai-whisper's, in behaviour; the
spelling map nlpeval ships is openai-whisper's english.json, passed to transformers' class)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jiwer
import pytest
from transformers.models.whisper.english_normalizer import BasicTextNormalizer, EnglishTextNormalizer

import nlpeval
from nlpeval.cli.main import main as cli_main
from nlpeval.metrics.wer.whisper import spelling_map, whisper_basic, whisper_english

REFERENCE_EN = EnglishTextNormalizer(spelling_map())
REFERENCE_BASIC = BasicTextNormalizer()

WORDS = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "nineteen",
    "twenty",
    "thirty",
    "ninety",
    "hundred",
    "thousand",
    "million",
    "billion",
    "first",
    "second",
    "third",
    "fifth",
    "twelfth",
    "twentieth",
    "hundredth",
    "thousands",
    "millions",
    "sixes",
    "ones",
    "twenties",
    "zero",
    "oh",
    "o",
    "point",
    "and",
    "a",
    "half",
    "double",
    "triple",
    "minus",
    "plus",
    "negative",
    "positive",
    "dollars",
    "dollar",
    "cents",
    "cent",
    "pounds",
    "pound",
    "euros",
    "percent",
    "per",
    "cent",
    "the",
    "colour",
    "organise",
    "centre",
    "theatre",
    "mr",
    "mrs",
    "dr",
    "st",
    "won't",
    "can't",
    "it's",
    "i'm",
    "they've",
    "we'd",
    "y'all",
    "gonna",
    "ma'am",
    "hmm",
    "uh",
    "um",
    "mhm",
    "$5",
    "£3",
    "€2",
    "10%",
    "3.5",
    "1,000",
    "2.5.6",
    "1st",
    "2nd",
    "3rd",
    "4th",
    "1960s",
    "12",
    "007",
    ".5",
    "5.",
    "$0.5",
    "¢7",
    "café",
    "naïve",
    "Œuvre",
    "ß",
    "straße",
    "ﬁnal",
    "[noise]",
    "(laughs)",
    "<unk>",
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    "'",
    '"',
    "-",
    "--",
    "...",
    "’",
    "‘",
    "“",
    "”",
    "½",
    "²",
    "٣",
    "日本",
    "ä",
    "ö",
    "ü",
]


def adversarial(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randrange(1, 14))]
        joiner = rng.choice([" ", " ", " ", "", "  ", "\t"])
        texts.append(joiner.join(words))
    return [
        *texts,
        "",
        " ",
        "Mr. Smith paid twenty five dollars and fifty cents, didn't he? Colour!",
        "two thousand and twenty two",
        "one oh one",
        "three and a half million",
        "$20 million",
        "1,234,567.89",
        "point five",
        "double oh seven",
        "it's 5 o'clock",
        "nineteen eighty four",
        "ninety nine percent",
        "the 1990s and the twenty twenties",
        "minus forty degrees, plus or minus",
        "He said [inaudible] that (maybe) it's the organisation's centre",
    ]


def test_spelling_map_is_whispers() -> None:
    mapping = spelling_map()
    assert len(mapping) == 1739
    assert mapping["colour"] == "color" and mapping["organise"] == "organize" and mapping["centre"] == "center"
    path = Path(nlpeval.__file__).parent / "metrics" / "wer" / "data"
    assert "MIT License" in (path / "WHISPER_LICENSE").read_text(encoding="utf-8")


@pytest.mark.parametrize("seed", [0, 1])
def test_english_and_basic_equal_the_reference_on_adversarial_text(seed: int) -> None:
    for text in adversarial(seed, 1200):
        assert whisper_english(text) == REFERENCE_EN(text), text
        assert whisper_basic(text) == REFERENCE_BASIC(text), text


def test_english_and_basic_equal_the_reference_on_real_text(compare_mt: dict[str, list[str]], wmt17) -> None:
    lines = compare_mt["ted.ref.detok.eng"][:700] + compare_mt["sum.ref.eng"][:250] + wmt17["reference"][:250]
    for text in lines:
        assert whisper_english(text) == REFERENCE_EN(text), text
        assert whisper_basic(text) == REFERENCE_BASIC(text), text


def test_wer_and_cer_with_whisper_normalisation_equal_jiwer_on_normalised_text(compare_mt) -> None:
    refs = compare_mt["ted.ref.detok.eng"][700:1300]
    hyps = compare_mt["ted.sys1.detok.eng"][700:1300]
    for name, reference in (("whisper-en", REFERENCE_EN), ("whisper-basic", REFERENCE_BASIC)):
        norm_refs = [reference(r) for r in refs]
        norm_hyps = [reference(h) for h in hyps]
        keep = [i for i, r in enumerate(norm_refs) if r.strip()]  # jiwer refuses empty references
        want_wer = jiwer.wer([norm_refs[i] for i in keep], [norm_hyps[i] for i in keep])
        got = nlpeval.wer([hyps[i] for i in keep], [refs[i] for i in keep], normalize=name)
        assert got.score == pytest.approx(want_wer, abs=1e-12)
        assert f"|norm:{name}|" in got.signature
        want_cer = jiwer.cer([norm_refs[i] for i in keep[:200]], [norm_hyps[i] for i in keep[:200]])
        got_cer = nlpeval.cer([hyps[i] for i in keep[:200]], [refs[i] for i in keep[:200]], normalize=name)
        assert got_cer.score == pytest.approx(want_cer, abs=1e-12)
    plain = nlpeval.wer(hyps, refs)
    assert "norm:" not in plain.signature
    with pytest.raises(ValueError, match="unknown normalize 'whisper'"):
        nlpeval.wer(["a"], ["a"], normalize="whisper")


def test_the_leaderboard_example() -> None:
    # spelled-out numbers, currencies, contractions and British spelling no longer count as errors
    hyps = ["I can't believe it's twenty five dollars, said the colour expert"]
    refs = ["i can not believe it is $25 said the color expert"]
    assert nlpeval.wer(hyps, refs).score > 0.5
    assert nlpeval.wer(hyps, refs, normalize="whisper-en").score == 0.0


def test_cli_option(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("i can not believe it is $25\nthe colour\n", encoding="utf-8")
    hyp.write_text("I can't believe it's twenty five dollars\nthe color\n", encoding="utf-8")
    argv = ["score", "-m", "wer,cer", "-r", str(ref), "--format", "json", "--wer-normalize", "whisper-en", str(hyp)]
    assert cli_main(argv) == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    assert scores["wer"]["score"] == 0.0 and "norm:whisper-en" in scores["wer"]["signature"]
    with pytest.raises(SystemExit) as caught:  # argparse refuses the value: exit 2, one line
        cli_main(["score", "-m", "wer", "-r", str(ref), "--wer-normalize", "english", str(hyp)])
    assert caught.value.code == 2
    assert "invalid choice: 'english'" in capsys.readouterr().err
