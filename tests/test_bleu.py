"""BLEU, sacreBLEU flavor: parity with sacreBLEU 2.x on WMT17 and adversarial text; token ids; pairwise."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SacreBLEU

import nlpeval
from nlpeval import InputError
from textgen import corpus, sentence, streams

TOL = 1e-9  # on sacreBLEU's 0-100 scale


def reference_bleu(hyps, refs_per_segment, **options):
    return SacreBLEU(**options).corpus_score(hyps, streams(refs_per_segment))


def assert_same(ours: nlpeval.Score, theirs, max_order: int = 4) -> None:
    assert ours.score * 100 == pytest.approx(theirs.score, abs=TOL)
    comp = ours.components
    assert [p * 100 for p in comp["precisions"]] == pytest.approx(theirs.precisions, abs=TOL)
    assert comp["brevity_penalty"] == pytest.approx(theirs.bp, abs=1e-12)
    assert comp["hyp_len"] == theirs.sys_len
    assert comp["ref_len"] == theirs.ref_len
    assert comp["length_ratio"] == pytest.approx(theirs.ratio, abs=1e-12)


def test_all_wmt17_systems_corpus_bleu(wmt17: dict[str, list[str]]) -> None:
    reference = wmt17["reference"]
    systems = [name for name in wmt17 if name != "reference"]
    assert len(systems) == 16
    for name in systems:
        ours = nlpeval.bleu(wmt17[name], reference)
        theirs = sacrebleu.corpus_bleu(wmt17[name], [reference])
        assert_same(ours, theirs)


OPTION_SETS = [
    {"lowercase": True},
    {"tokenize": "intl"},
    {"tokenize": "char"},
    {"tokenize": "zh"},
    {"tokenize": "none"},
    {"smooth": "floor"},
    {"smooth": "floor", "smooth_value": 0.3},
    {"smooth": "add-k"},
    {"smooth": "add-k", "smooth_value": 2},
    {"smooth": "none"},
    {"max_order": 2},
    {"max_order": 6, "effective_order": True},
    {"effective_order": True, "smooth": "none"},
]


def _sacrebleu_options(options: dict) -> dict:
    mapping = {"smooth": "smooth_method", "max_order": "max_ngram_order"}
    return {mapping.get(key, key): value for key, value in options.items()}


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_wmt17_options_and_sentence_level(wmt17: dict[str, list[str]], options: dict) -> None:
    reference = wmt17["reference"]
    hyps = wmt17["online-B.0"]
    ours = nlpeval.bleu(hyps, reference, segments=True, **options)
    theirs = SacreBLEU(**_sacrebleu_options(options)).corpus_score(hyps, [reference])
    assert_same(ours, theirs, options.get("max_order", 4))
    sentence_metric = SacreBLEU(**{**_sacrebleu_options(options), "effective_order": True})
    expected = [sentence_metric.sentence_score(h, [r]).score for h, r in zip(hyps[:600], reference[:600], strict=True)]
    assert ours.segments[:600] * 100 == pytest.approx(expected, abs=TOL)


def test_sentence_level_equals_sentence_bleu_on_a_whole_system(wmt17: dict[str, list[str]]) -> None:
    reference, hyps = wmt17["reference"], wmt17["uedin-nmt.4722"]
    ours = nlpeval.bleu(hyps, reference, segments=True).segments
    expected = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, reference, strict=True)]
    assert ours * 100 == pytest.approx(expected, abs=TOL)


TOKENIZERS = ["13a", "intl", "zh", "char", "none"]


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_adversarial_multi_reference(tokenize: str, seed: int) -> None:
    hyps, refs = corpus(seed, n=150, max_refs=3)
    for options in ({}, {"lowercase": True}, {"smooth": "floor"}, {"smooth": "add-k"}, {"smooth": "none"}):
        ours = nlpeval.bleu(hyps, refs, tokenize=tokenize, segments=True, **options)
        theirs = reference_bleu(hyps, refs, tokenize=tokenize, **_sacrebleu_options(options))
        assert_same(ours, theirs)
        metric = SacreBLEU(tokenize=tokenize, effective_order=True, **_sacrebleu_options(options))
        expected = [metric.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]
        assert ours.segments * 100 == pytest.approx(expected, abs=TOL)


def test_adversarial_tokenization_matches_sacrebleu_tokenizers() -> None:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    from nlpeval import _native

    rng = random.Random(11)
    lines = [sentence(rng, max_words=20) for _ in range(800)]
    lines += [
        "a.b,c 1.5 2,3 .x ,y 3-4 a-b x.. ,, 1.,2",
        "&amp;&quot;&lt;&gt;& <skipped> -\nq",
        "\u2026\u3002\U00020001",
    ]
    for name, reference in (
        ("13a", Tokenizer13a()),
        ("intl", TokenizerV14International()),
        ("zh", TokenizerZh()),
        ("char", TokenizerChar()),
    ):
        ours = _native.tokenize(lines, name)
        expected = [" ".join(reference(line.rstrip()).split()) for line in lines]
        assert ours == expected, name


def test_signature_matches_sacrebleu_fields() -> None:
    hyps, refs = corpus(5, n=20, max_refs=3)
    ours = nlpeval.bleu(hyps, refs, tokenize="intl", lowercase=True, smooth="floor")
    metric = SacreBLEU(tokenize="intl", lowercase=True, smooth_method="floor")
    metric.corpus_score(hyps, streams(refs))
    theirs = str(metric.get_signature()).split("|version")[0]
    assert ours.signature.split("|flavor")[0] == theirs
    assert "flavor:sacrebleu|version:nlpeval-" in ours.signature
    assert nlpeval.bleu(["a"], ["a"]).signature.startswith("nrefs:1|")


def test_empty_segments_scored_as_sacrebleu() -> None:
    cases = [(["", "a b"], ["", "a b"]), ([""], ["x y"]), (["x y"], [""]), ([""], [""]), (["  "], ["\t"])]
    for hyps, refs in cases:
        ours = nlpeval.bleu(hyps, refs, segments=True)
        assert_same(ours, sacrebleu.corpus_bleu(hyps, [refs]))
        expected = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
        assert ours.segments * 100 == pytest.approx(expected, abs=TOL)


def test_worked_example_precisions() -> None:
    score = nlpeval.bleu(["the cat is running in the fields"], ["the cat is walking in the garden"], smooth="none")
    assert score.components["precisions"] == pytest.approx([5 / 7, 3 / 6, 1 / 5, 0.0], rel=1e-15)
    assert score.components["counts"] == [5, 3, 1, 0]
    assert score.components["totals"] == [7, 6, 5, 4]
    # sacreBLEU reports smoothed precisions: with "exp" the empty 4-gram order becomes 1 / (2 * 4)
    smoothed = nlpeval.bleu(["the cat is running in the fields"], ["the cat is walking in the garden"])
    assert smoothed.components["precisions"][3] == 1 / 8
    ids = nlpeval.bleu([[1, 2, 3, 7, 5, 1, 1]], [[1, 2, 3, 4, 5, 1, 2]], smooth="none")
    assert ids.components["precisions"] == pytest.approx([5 / 7, 3 / 6, 1 / 5, 0.0], rel=1e-15)
    assert ids.signature.split("|")[3] == "tok:ids"
    clipped = nlpeval.bleu(["the the the the the the the"], ["the cat is walking in the garden"], smooth="none")
    assert clipped.components["precisions"][0] == pytest.approx(2 / 7, rel=1e-15)
    assert clipped.components["counts"][0] == 2


def test_token_ids_equal_text_and_accept_arrays() -> None:
    hyps, refs = corpus(9, n=80, max_refs=3)
    vocab: dict[str, int] = {}

    def ids(text: str) -> list[int]:
        return [vocab.setdefault(tok, len(vocab) + 5) for tok in text.split()]

    text_score = nlpeval.bleu(hyps, refs, tokenize="none", segments=True)
    id_hyps = [ids(h) for h in hyps]
    id_refs = [[ids(r) for r in seg] for seg in refs]
    id_score = nlpeval.bleu(id_hyps, id_refs, segments=True)
    assert id_score.score == text_score.score
    assert np.array_equal(id_score.segments, text_score.segments)

    padded = np.zeros((3, 9), dtype=np.int32)
    padded[0, :4] = [7, 8, 9, 2]
    padded[1, :3] = [7, 8, 2]
    padded[2, :5] = [9, 9, 8, 2, 7]
    target = np.zeros((3, 9), dtype=np.int64)
    target[0, :3] = [7, 8, 9]
    target[1, :2] = [7, 8]
    target[2, :3] = [9, 9, 8]
    trimmed = nlpeval.bleu(padded, target, pad_id=0, eos_id=2, max_order=2)
    assert trimmed.score == pytest.approx(1.0, abs=1e-12)
    assert nlpeval.bleu(padded, target, max_order=2).score < 1.0
    multi = nlpeval.bleu([np.array([1, 2, 3])], [np.array([[1, 2, 3], [4, 5, 6]])], max_order=3)
    assert multi.score == pytest.approx(1.0, abs=1e-12) and multi.signature.startswith("nrefs:2")
    with pytest.raises(InputError, match="segment 0"):
        nlpeval.bleu([[1.5, 2.0]], [[1, 2]])


def test_pairwise_matrix_equals_sentence_bleu() -> None:
    rng = random.Random(4)
    hyps = [sentence(rng) for _ in range(25)]
    cands = [sentence(rng) for _ in range(30)]
    for options in ({}, {"tokenize": "intl", "lowercase": True}, {"smooth": "add-k"}, {"smooth": "floor"}):
        matrix = nlpeval.pairwise_bleu(hyps, cands, **options)
        assert matrix.shape == (25, 30)
        metric = SacreBLEU(effective_order=True, **_sacrebleu_options(options))
        expected = [[metric.sentence_score(h, [c]).score for c in cands] for h in hyps]
        assert matrix * 100 == pytest.approx(np.array(expected), abs=TOL)
        # the native pairwise formula and the vectorised Python one agree
        python_side = nlpeval.bleu(
            [h for h in hyps for _ in cands], [c for _ in hyps for c in cands], segments=True, **options
        ).segments.reshape(matrix.shape)
        assert np.array_equal(matrix == 0, python_side == 0)
        assert matrix == pytest.approx(python_side, rel=1e-13, abs=0)


def test_bad_input_is_named() -> None:
    with pytest.raises(InputError, match="references look like 2 reference streams"):
        nlpeval.bleu(["a", "b", "c"], [["a", "b", "c"], ["x", "y", "z"]])
    with pytest.raises(InputError, match="hypotheses: segment 1: is None"):
        nlpeval.bleu(["a", None], ["a", "b"])
    with pytest.raises(InputError, match="got one str"):
        nlpeval.bleu(["a b"], "a b")
    with pytest.raises(ValueError, match="unknown smooth"):
        nlpeval.bleu(["a"], ["a"], smooth="magic")
    with pytest.raises(ValueError, match="unknown tokenizer"):
        nlpeval.bleu(["a"], ["a"], tokenize="moses")
    with pytest.raises(ValueError, match="needs a local SentencePiece model"):
        nlpeval.bleu(["a"], ["a"], tokenize="flores200")


def test_spm_tokenizers_with_a_local_model(tmp_path, monkeypatch) -> None:
    import sentencepiece as spm

    rng = random.Random(3)
    training = tmp_path / "train.txt"
    training.write_text("\n".join(sentence(rng, 25) for _ in range(3000)), encoding="utf-8")
    prefix = tmp_path / "sacrebleu_tokenizer_spm"
    spm.SentencePieceTrainer.train(
        input=str(training), model_prefix=str(prefix), vocab_size=300, character_coverage=1.0, minloglevel=2
    )
    models = tmp_path / "sacrebleu" / "models"
    models.mkdir(parents=True)
    (models / "sacrebleu_tokenizer_spm.model").write_bytes(prefix.with_suffix(".model").read_bytes())
    import sacrebleu.tokenizers.tokenizer_spm as reference_spm

    monkeypatch.setattr(reference_spm, "SACREBLEU_DIR", str(tmp_path / "sacrebleu"))
    hyps, refs = corpus(21, n=60, max_refs=2)
    ours = nlpeval.bleu(hyps, refs, tokenize="flores101", spm_model=str(prefix.with_suffix(".model")))
    theirs = reference_bleu(hyps, refs, tokenize="flores101")
    assert_same(ours, theirs)
    assert "tok:flores101" in ours.signature


@pytest.mark.parametrize(
    ("tokenize", "hyps", "refs"),
    [
        (
            "ja-mecab",
            ["猫がマットの上に座った。", "今日は雨が降っています"],
            ["猫はマットの上に座っていた。", "今日は雨です"],
        ),
        (
            "ko-mecab",
            ["고양이가 매트 위에 앉았다.", "오늘은 비가 온다"],
            ["고양이는 매트 위에 앉아 있었다.", "오늘 비가 옵니다"],
        ),
    ],
)
def test_mecab_tokenizers(tokenize: str, hyps: list[str], refs: list[str]) -> None:
    ours = nlpeval.bleu(hyps, refs, tokenize=tokenize, segments=True)
    theirs = sacrebleu.corpus_bleu(hyps, [refs], tokenize=tokenize)
    assert_same(ours, theirs)
    assert ours.signature.split("|")[3] == "tok:" + SacreBLEU(tokenize=tokenize).tokenizer.signature()
