"""Guards against super-linear worst cases: each bound trips on a small input with a lowered limit."""

from __future__ import annotations

import pytest

from nlpeval.core.errors import InputError
from nlpeval.metrics.meteor.meteor15 import MAX_CANDIDATES, METEOR

EXACT = ("exact",)


def test_meteor15_refuses_pairs_over_the_candidate_bound() -> None:
    # ten "a" against ten "a" plus one "b": 10 * 10 exact candidate matches in the pair
    hyp, ref = " ".join(["a"] * 10 + ["b"]), " ".join(["a"] * 10)
    unbounded = METEOR(modules=EXACT, max_candidates=None)([hyp], [ref])
    assert METEOR(modules=EXACT, max_candidates=100)([hyp], [ref]).score == unbounded.score
    with pytest.raises(InputError, match=r"segment 1: reference 1: 100 candidate word matches.*max_candidates=99"):
        METEOR(modules=EXACT, max_candidates=99)(["x", hyp], [["x"], ["y", ref]])


def test_meteor15_candidate_bound_is_checked() -> None:
    assert METEOR().max_candidates == MAX_CANDIDATES
    with pytest.raises(ValueError, match="max_candidates must be"):
        METEOR(max_candidates=-1)


def test_meteor_function_passes_the_bound() -> None:
    import nlpeval

    hyp, ref = " ".join(["a"] * 10 + ["b"]), " ".join(["a"] * 10)
    with pytest.raises(InputError, match="segment 0: reference 0: 100 candidate"):
        nlpeval.meteor([hyp], [ref], modules=EXACT, max_candidates=50)
    assert nlpeval.meteor([hyp], [ref], modules=EXACT, max_candidates=None).score > 0
    with pytest.raises(ValueError, match="max_candidates: not options of flavor='nltk'"):
        nlpeval.meteor([hyp], [ref], flavor="nltk", max_candidates=None)


def test_cli_names_the_line_over_the_bound(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from nlpeval.cli.main import main

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("x\n" + " ".join(["a"] * 10) + "\n", encoding="utf-8")
    hyp.write_text("x\n" + " ".join(["a"] * 10 + ["b"]) + "\n", encoding="utf-8")
    args = ["score", "-r", str(ref), "-m", "meteor", "--meteor-modules", "exact", str(hyp)]
    assert main([*args, "--meteor-max-candidates", "99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hyp.txt:2" in err and "100 candidate word matches" in err
    assert main([*args, "--meteor-max-candidates", "100"]) == 0


# WER family, CER and TER: a bound on the product of a pair's token counts


def test_edit_metrics_refuse_pairs_over_the_cell_bound() -> None:
    import jiwer

    import nlpeval
    from nlpeval.metrics.wer.bound import MAX_CELLS

    hyp, ref = "a b c d e f", "a x c d e"  # 6 x 5 = 30 word cells, 11 x 9 = 99 character cells
    assert nlpeval.WER().max_cells == nlpeval.CER().max_cells == MAX_CELLS == 10**10
    expected = jiwer.wer(ref, hyp)
    assert nlpeval.wer([hyp], [ref], max_cells=30).score == nlpeval.wer([hyp], [ref], max_cells=None).score == expected
    with pytest.raises(InputError, match=r"segment 1: reference 1: 6 x 5 words = 30 cells, more than max_cells=29"):
        nlpeval.wer(["x", hyp], [["x"], ["y", ref]], max_cells=29)
    assert nlpeval.cer([hyp], [ref], max_cells=99).score == jiwer.cer(ref, hyp)
    with pytest.raises(InputError, match=r"segment 0: reference 0: 11 x 9 characters = 99 cells"):
        nlpeval.cer([hyp], [ref], max_cells=98)
    with pytest.raises(InputError, match="30 cells"):
        nlpeval.edit_alignment([hyp], [ref], max_cells=29)
    assert nlpeval.mer([hyp + "  "], ["  " + ref], max_cells=30).score == jiwer.mer(ref, hyp)  # counted as jiwer splits
    assert nlpeval.wer([hyp * 3], [hyp * 3], max_cells=1).score == 0.0  # identical texts: linear, never refused
    with pytest.raises(ValueError, match="max_cells must be"):
        nlpeval.WER(max_cells=-1)


def test_default_bound_refuses_a_huge_pair_at_once() -> None:
    import time

    import nlpeval

    hyp, ref = "ab" * 110_000, "ba" * 110_000  # 220,000 x 220,000 characters: minutes of alignment
    start = time.perf_counter()
    with pytest.raises(InputError, match="48,400,000,000 cells, more than max_cells=10,000,000,000"):
        nlpeval.cer([hyp], [ref])
    assert time.perf_counter() - start < 1.0


def test_ter_refuses_pairs_over_the_cell_bound() -> None:
    from sacrebleu.metrics import TER as SacreTER

    import nlpeval

    hyp, ref = "the cat sat on the mat", "on the mat the cat sat ."  # 6 x 7 words
    expected = SacreTER().corpus_score([hyp], [[ref]]).score / 100
    assert nlpeval.ter([hyp], [ref], max_cells=42).score == expected
    assert nlpeval.ter([hyp], [ref], max_cells=None).score == expected
    with pytest.raises(InputError, match=r"segment 0: reference 1: 6 x 7 words = 42 cells, more than max_cells=41"):
        nlpeval.ter([hyp], [["the cat", ref]], max_cells=41)


def test_memory_of_a_long_alignment_stays_linear() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    # 40,000 x 40,000 characters: a full bit matrix would take 400 MB, Hirschberg's split about 1 MB
    code = (
        "import resource, nlpeval\n"
        "h, r = 'abcd' * 10_000, 'bcda' * 10_000\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "nlpeval.cer([h], [r])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    python = str(Path(__import__("nlpeval").__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": python}
    grown_kb = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout)
    assert grown_kb < 50_000


def test_cli_names_the_line_over_the_cell_bound(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from nlpeval.cli.main import main

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("x\na x c d e\n", encoding="utf-8")
    hyp.write_text("x\na b c d e f\n", encoding="utf-8")
    for metric, flag in (("wer", "--wer-max-cells"), ("ter", "--ter-max-cells")):
        args = ["score", "-r", str(ref), "-m", metric, str(hyp)]
        assert main([*args, flag, "29"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "hyp.txt:2" in err and "30 cells" in err and "Traceback" not in err
        assert main([*args, flag, "30"]) == 0
        capsys.readouterr()
    align = ["align", "-r", str(ref), str(hyp), "--wer-max-cells", "29"]
    assert main(align) == 2
    assert "hyp.txt:2" in capsys.readouterr().err
