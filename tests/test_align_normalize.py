"""``edit_alignment(normalize=...)`` and ``nlpeval align --wer-normalize``: Whisper's normaliser before the
alignment, equal to jiwer's alignment of the text that openai-whisper's normaliser (transformers' copy, the
reference of ``tests/test_whisper_normalize.py``) produces, and to ``nlpeval.wer(..., normalize=...)``."""

from __future__ import annotations

import jiwer
import pytest
from transformers.models.whisper.english_normalizer import BasicTextNormalizer, EnglishTextNormalizer

import nlpeval
from nlpeval.cli.main import main as cli_main
from nlpeval.metrics.wer import edit_alignment
from nlpeval.metrics.wer.whisper import spelling_map

REFERENCES = {"whisper-en": EnglishTextNormalizer(spelling_map()), "whisper-basic": BasicTextNormalizer()}


def _kept(refs: list[str], hyps: list[str], name: str) -> tuple[list[str], list[str], list[int]]:
    """Normalised references and hypotheses whose reference is not empty (jiwer refuses empty ones)."""
    norm_refs = [REFERENCES[name](r) for r in refs]
    norm_hyps = [REFERENCES[name](h) for h in hyps]
    keep = [i for i, r in enumerate(norm_refs) if r.split()]
    return [norm_refs[i] for i in keep], [norm_hyps[i] for i in keep], keep


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_alignment_of_normalised_text_equals_jiwer(name: str, compare_mt: dict[str, list[str]]) -> None:
    refs = compare_mt["ted.ref.detok.eng"][:400]
    hyps = compare_mt["ted.sys1.detok.eng"][:400]
    norm_refs, norm_hyps, keep = _kept(refs, hyps, name)
    ours_refs, ours_hyps = [refs[i] for i in keep], [hyps[i] for i in keep]
    out = jiwer.process_words(norm_refs, norm_hyps)
    result = edit_alignment(ours_hyps, ours_refs, normalize=name)
    assert [list(s.reference) for s in result.segments] == out.references
    assert [list(s.hypothesis) for s in result.segments] == out.hypotheses
    assert result.visualize() == jiwer.visualize_alignment(out)
    assert result.measures()["wer"] == pytest.approx(out.wer, abs=1e-12)
    assert f"|norm:{name}|" in result.signature
    score = nlpeval.wer(ours_hyps, ours_refs, normalize=name)
    assert result.measures()["wer"] == pytest.approx(score.score, abs=1e-12)
    chars = jiwer.process_characters(norm_refs[:100], norm_hyps[:100])
    by_char = edit_alignment(ours_hyps[:100], ours_refs[:100], unit="char", normalize=name)
    assert by_char.visualize() == jiwer.visualize_alignment(chars)


def test_normalisation_changes_the_alignment_and_combines_with_the_other_steps() -> None:
    hyps = ["I can't believe it's twenty five dollars, said the colour expert"]
    refs = ["i can not believe it is $25 said the color expert"]
    assert edit_alignment(hyps, refs).measures()["wer"] > 0.5
    assert edit_alignment(hyps, refs, normalize="whisper-en").measures()["wer"] == 0.0
    # whisper-basic keeps words and numbers as they are: lowercased, punctuation to spaces
    basic = edit_alignment(["Hello, World!"], [["hello world", "x"]], normalize="whisper-basic")
    assert basic[0].hypothesis == ("hello", "world") and basic.measures()["wer"] == 0.0
    with_case = edit_alignment(["ÉCOLE"], ["école"], normalize="whisper-basic", nfkc=True, lowercase=True)
    assert with_case.measures()["wer"] == 0.0
    assert edit_alignment([""], ["[noise]"], normalize="whisper-en")[0].reference == ()


def test_unknown_normaliser_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown normalize 'whisper'"):
        edit_alignment(["a"], ["a"], normalize="whisper")


def test_cli_align_with_whisper_normalisation(tmp_path, capsys: pytest.CaptureFixture) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    refs = ["i can not believe it is $25", "the color of money", "mr smith"]
    hyps = ["I can't believe it's twenty five dollars", "the colour of honey", "Mister Smith."]
    ref.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    assert cli_main(["align", "-r", str(ref), "--wer-normalize", "whisper-en", "--no-summary", str(hyp)]) == 0
    norm_refs, norm_hyps, _ = _kept(refs, hyps, "whisper-en")
    want = jiwer.visualize_alignment(jiwer.process_words(norm_refs, norm_hyps), show_measures=False)
    assert capsys.readouterr().out == want + ("" if want.endswith("\n") else "\n")
    assert cli_main(["align", "-r", str(ref), "--wer-normalize", "whisper-en", str(hyp)]) == 0
    assert "norm:whisper-en" in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        cli_main(["align", "-r", str(ref), "--wer-normalize", "english", str(hyp)])
    assert caught.value.code == 2
    assert "invalid choice: 'english'" in capsys.readouterr().err
