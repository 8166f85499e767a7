"""``nlpeval score -m rouge…``: the table shows F, options reach the metric, errors are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nlpeval
from nlpeval.cli.main import main

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW-1.2", "rougeSU4"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path, list[str], list[str], list[str]]:
    hyps = ["The cat sat on the mat", "A dog barked loudly at night", "Stocks fell sharply"]
    refs = ["The cat is on the mat", "The dogs were barking at night", "Markets dropped"]
    refs2 = ["There is a cat on the mat", "Dogs bark", "Stock prices fell"]
    paths = []
    for name, lines in (("sys.txt", hyps), ("ref1.txt", refs), ("ref2.txt", refs2)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return (*paths, hyps, refs, refs2)


def test_score_table_shows_f_of_every_type(files, capsys: pytest.CaptureFixture[str]) -> None:
    sys_path, ref1, ref2, hyps, refs, refs2 = files
    args = ["score", "-r", str(ref1), "-r", str(ref2), "-m", ",".join(TYPES), "--stemmer", "--format", "json"]
    assert main([*args, str(sys_path)]) == 0
    payload = json.loads(capsys.readouterr().out)
    want = nlpeval.rouge(hyps, [list(p) for p in zip(refs, refs2, strict=True)], types=TYPES, stemmer=True)
    scores = payload["systems"][0]["scores"]
    for name in TYPES:
        assert scores[name]["score"] == want[name].fmeasure
        assert scores[name]["recall"] == want[name].recall
        assert scores[name]["signature"] == want[name].signature


def test_text_table_and_segments(files, capsys: pytest.CaptureFixture[str]) -> None:
    sys_path, ref1, _, hyps, refs, _ = files
    assert main(["score", "-r", str(ref1), "-m", "rouge1,rougeL", "--segments", str(sys_path)]) == 0
    out = capsys.readouterr().out
    want = nlpeval.rouge(hyps, refs, types=["rouge1"], segments=True)["rouge1"]
    assert f"{want.fmeasure * 100:.2f}" in out
    assert f"rouge1\t1\t{want.segments[0, 2]:.6f}" in out


def test_rouge_options_are_checked(files, capsys: pytest.CaptureFixture[str]) -> None:
    sys_path, ref1, *_ = files
    assert main(["score", "-r", str(ref1), "-m", "rouge1", "--word-limit", "5", str(sys_path)]) == 2
    assert "rouge155" in capsys.readouterr().err
    assert main(["score", "-r", str(ref1), "-m", "rougeX", str(sys_path)]) == 2
    assert "unknown metric 'rougeX'" in capsys.readouterr().err


def test_rouge155_flavor_from_the_command_line(files, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sys_path, ref1, ref2, hyps, refs, refs2 = files
    data = tmp_path / "data"
    data.mkdir()
    (data / "smart_common_words.txt").write_text("the\na\nis\non\nat\n", encoding="utf-8")
    args = ["score", "-r", str(ref1), "-r", str(ref2), "-m", "rouge1,rougeL,rougeSU4", "--rouge-flavor", "rouge155"]
    args += ["--remove-stopwords", "--rouge-data-dir", str(data), "--rouge-multi-ref", "best", "--format", "json"]
    assert main([*args, str(sys_path)]) == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    want = nlpeval.rouge(
        hyps,
        [list(p) for p in zip(refs, refs2, strict=True)],
        types=["rouge1", "rougeL", "rougeSU4"],
        flavor="rouge155",
        remove_stopwords=True,
        data_dir=str(data),
        multi_ref="best",
    )
    for name, score in want.items():
        assert scores[name]["score"] == score.fmeasure
        assert "stop:yes" in scores[name]["signature"] and "flavor:rouge155" in scores[name]["signature"]
