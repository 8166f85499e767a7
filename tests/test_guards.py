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
