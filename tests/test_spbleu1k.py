"""spBLEU-1K (sacreBLEU 2.6.0's SentencePiece tokenizer): parity with sacreBLEU's own tokenizer class.

The real spBLEU-1K model is downloaded by sacreBLEU at first use, and tests never download: a tiny
SentencePiece model is trained here and placed where sacreBLEU 2.6.0 caches the spBLEU-1K model, then
sacreBLEU (live) and nlpeval both load that same file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import sacrebleu
import sacrebleu.tokenizers.tokenizer_spm as reference_spm
from sacrebleu.metrics import BLEU as SacreBLEU

import nlpeval
from nlpeval.cli.main import main as cli_main
from nlpeval.tokenizers import resolve_tokenizer, tokenize_lines
from nlpeval.tokenizers.sentencepiece import sacrebleu_cache_path
from textgen import corpus, sentence, streams

ADVERSARIAL = [
    "",
    " ",
    "\t",
    "Straße — naïve café, 12.5 % of 1,000 € ?!",
    "  leading and trailing  ",
    "日本語のテキスト、そして中文。",
    "emoji 🙂🙃 and ZWJ 👩\u200d💻",
    "tab\tseparated\u00a0nbsp\u3000ideographic",
    "a" * 300,
    "ÀÉÎÕÜ àéîõü Ǆǅǆ ﬁ ﬂ",
]


@pytest.fixture(scope="module")
def sacrebleu_home(tmp_path_factory: pytest.TempPathFactory, wmt17: dict[str, list[str]]) -> Path:
    """A sacreBLEU home whose models/ holds a tiny model under spBLEU-1K's cached file name."""
    import sentencepiece as spm

    folder = tmp_path_factory.mktemp("spbleu1k")
    rng = random.Random(5)
    lines = wmt17["reference"][:700] + [sentence(rng, 20) for _ in range(700)] + ADVERSARIAL
    training = folder / "train.txt"
    training.write_text("\n".join(line.replace("\n", " ") for line in lines), encoding="utf-8")
    prefix = folder / "tiny"
    spm.SentencePieceTrainer.train(
        input=str(training), model_prefix=str(prefix), vocab_size=400, character_coverage=0.9995, minloglevel=2
    )
    home = folder / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "spbleu-1k_tokenizer_spm.model").write_bytes(prefix.with_suffix(".model").read_bytes())
    return home


@pytest.fixture
def cached(sacrebleu_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """sacreBLEU and nlpeval both pointed at the temporary sacreBLEU home."""
    monkeypatch.setattr(reference_spm, "SACREBLEU_DIR", str(sacrebleu_home))
    monkeypatch.setenv("SACREBLEU", str(sacrebleu_home))
    monkeypatch.delenv("NLPEVAL_SPM_MODEL", raising=False)
    return sacrebleu_home / "models" / "spbleu-1k_tokenizer_spm.model"


def test_the_cache_path_is_sacrebleus(cached: Path) -> None:
    assert sacrebleu_cache_path("spBLEU-1K") == str(cached)


def test_tokenizer_equals_sacrebleus_class(cached: Path, wmt17: dict[str, list[str]]) -> None:
    theirs = reference_spm.spBLEU1KTokenizer()
    assert theirs.signature() == "spBLEU-1K"
    spec = resolve_tokenizer("spBLEU-1K")
    assert spec.signature == "spBLEU-1K"
    lines = wmt17["reference"][1000:1500] + wmt17["online-B.0"][1000:1500] + ADVERSARIAL
    rng = random.Random(11)
    lines += [sentence(rng, 30) for _ in range(500)]
    # sacreBLEU's BLEU rstrips each line before tokenizing; tokenize_lines does the same
    assert tokenize_lines(lines, spec) == [theirs(line.rstrip()) for line in lines]


def test_bleu_equals_sacrebleu_on_wmt17_and_generated(cached: Path, wmt17: dict[str, list[str]]) -> None:
    for name in ("online-B.0", "uedin-nmt.4722"):
        hyps, reference = wmt17[name][:1000], wmt17["reference"][:1000]
        ours = nlpeval.bleu(hyps, reference, tokenize="spBLEU-1K")
        theirs = sacrebleu.corpus_bleu(hyps, [reference], tokenize="spBLEU-1K")
        assert ours.score * 100 == pytest.approx(theirs.score, abs=1e-9)
        assert [p * 100 for p in ours.components["precisions"]] == pytest.approx(theirs.precisions, abs=1e-9)
        assert (ours.components["hyp_len"], ours.components["ref_len"]) == (theirs.sys_len, theirs.ref_len)
        metric = SacreBLEU(tokenize="spBLEU-1K")
        metric.corpus_score(hyps[:2], [reference[:2]])
        assert ours.signature.startswith(str(metric.get_signature()).split("|version")[0] + "|")
    hyps, refs = corpus(31, n=200, max_refs=3)
    hyps += ADVERSARIAL
    refs += [[line[::-1], line.upper()] for line in ADVERSARIAL]
    ours = nlpeval.bleu(hyps, refs, tokenize="spBLEU-1K", segments=True)
    theirs = SacreBLEU(tokenize="spBLEU-1K").corpus_score(hyps, streams(refs))
    assert ours.score * 100 == pytest.approx(theirs.score, abs=1e-9)
    sentence_metric = SacreBLEU(tokenize="spBLEU-1K", effective_order=True)
    expected = [sentence_metric.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]
    assert ours.segments * 100 == pytest.approx(expected, abs=1e-9)
    assert "tok:spBLEU-1K" in ours.signature


def test_an_explicit_model_path_wins_over_the_cache(
    cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "empty"))
    hyps, refs = corpus(7, n=40, max_refs=1)
    ours = nlpeval.bleu(hyps, refs, tokenize="spBLEU-1K", spm_model=str(cached))
    theirs = SacreBLEU(tokenize="spBLEU-1K").corpus_score(hyps, streams(refs))
    assert ours.score * 100 == pytest.approx(theirs.score, abs=1e-9)


def test_missing_model_names_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nowhere"))
    monkeypatch.delenv("NLPEVAL_SPM_MODEL", raising=False)
    with pytest.raises(ValueError) as caught:
        nlpeval.bleu(["a"], ["a"], tokenize="spBLEU-1K")
    message = str(caught.value)
    assert "\n" not in message
    assert str(tmp_path / "nowhere" / "models" / "spbleu-1k_tokenizer_spm.model") in message
    assert reference_spm.SPM_MODELS["spBLEU-1K"]["url"] in message
    assert "--spm-model" in message and "does not download" in message
    with pytest.raises(ValueError, match=r"SentencePiece model not found: .*absent\.model"):
        nlpeval.bleu(["a"], ["a"], tokenize="spBLEU-1K", spm_model=str(tmp_path / "absent.model"))


def test_cli(cached: Path, wmt17: dict[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    n = 120
    ref, hyp = tmp_path / "ref.de", tmp_path / "hyp.de"
    ref.write_text("".join(line + "\n" for line in wmt17["reference"][:n]), encoding="utf-8")
    hyp.write_text("".join(line + "\n" for line in wmt17["online-A.0"][:n]), encoding="utf-8")
    assert cli_main(["score", "-m", "bleu", "-tok", "spBLEU-1K", "-r", str(ref), "--format", "json", str(hyp)]) == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["bleu"]
    theirs = sacrebleu.corpus_bleu(wmt17["online-A.0"][:n], [wmt17["reference"][:n]], tokenize="spBLEU-1K")
    assert 100 * scores["score"] == pytest.approx(theirs.score, abs=1e-9)
    assert "tok:spBLEU-1K" in scores["signature"]


def test_cli_without_the_model_exits_2_with_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nowhere"))
    monkeypatch.delenv("NLPEVAL_SPM_MODEL", raising=False)
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n", encoding="utf-8")
    assert cli_main(["score", "-m", "bleu", "-tok", "spBLEU-1K", "-r", str(ref), str(ref)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "spbleu-1k_tokenizer_spm.model" in err
    assert len(err.strip().splitlines()) == 1
