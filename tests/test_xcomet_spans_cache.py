"""``nlpeval score --cache DIR --error-spans``: xCOMET's error spans are stored beside the segment scores, and a
cached run (no forward pass) prints the same spans and scores as the run that computed them, which are unbabel-comet
2.2.7's spans (goldens of tests/fixtures/neural/make_fixtures.py, stage ``comet-unified``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlpeval.cli.main import main
from nlpeval.metrics.comet import COMET
from xcomet_data import LONG_SEGMENTS, assert_spans_equal, golden_spans, score_argv, write_case

pytestmark = LONG_SEGMENTS


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return write_case(tmp_path)


def _no_forward_pass(monkeypatch) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("a cached segment was computed again")

    monkeypatch.setattr(COMET, "predict", fail)


def test_cached_run_prints_the_same_spans(files: dict[str, str], capsys, monkeypatch, tmp_path: Path) -> None:
    folder = str(tmp_path / "cache")
    assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", folder)) == 0
    first = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert_spans_equal(first["error_spans"], golden_spans())
    assert main(score_argv(files, "--error-spans", "--cache", folder)) == 0
    first_text = capsys.readouterr().out
    assert any(p.name.endswith(".spans.json") for p in Path(folder).glob("*/*"))
    with monkeypatch.context() as patched:
        _no_forward_pass(patched)
        assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", folder)) == 0
        again = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
        assert main(score_argv(files, "--error-spans", "--cache", folder)) == 0
        again_text = capsys.readouterr().out
    assert again["error_spans"] == first["error_spans"]  # exactly, confidences included
    assert again["score"] == first["score"]
    assert again_text == first_text
    assert "error spans (" in again_text


def test_rows_cached_without_spans_are_computed_again_with_them(files, capsys, monkeypatch, tmp_path: Path) -> None:
    folder = str(tmp_path / "cache")
    assert main(score_argv(files, "-f", "json", "--cache", folder)) == 0  # scores only: no spans stored
    plain = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert "error_spans" not in plain
    assert not any(p.name.endswith(".spans.json") for p in Path(folder).glob("*/*"))
    assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", folder)) == 0
    spans = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert_spans_equal(spans["error_spans"], golden_spans())
    assert spans["score"] == plain["score"]
    with monkeypatch.context() as patched:  # now both are stored: nothing computed, same spans
        _no_forward_pass(patched)
        assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", folder)) == 0
    again = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert again["error_spans"] == spans["error_spans"]


def test_a_corrupt_spans_file_is_recomputed(files, capsys, tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", str(folder))) == 0
    first = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    for path in folder.glob("*/*.spans.json"):
        path.write_bytes(path.read_bytes()[:-3] + b"!!!")
    assert main(score_argv(files, "--error-spans", "-f", "json", "--cache", str(folder))) == 0
    again = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert again["error_spans"] == first["error_spans"]
