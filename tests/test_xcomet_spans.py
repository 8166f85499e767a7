"""xCOMET's error spans outside the library call: ``nlpeval score --error-spans`` (text and JSON), ``--segments``
with JSON, and Dask (spans of each partition merged in segment order, library and ``--engine dask``), against
unbabel-comet 2.2.7's spans (goldens written by tests/fixtures/neural/make_fixtures.py, stage ``comet-unified``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nlpeval.cli.main import main
from xcomet_data import (
    FIXTURES,
    LONG_SEGMENTS,
    TOLERANCE,
    XCOMET,
    N,
    assert_spans_equal,
    golden,
    golden_spans,
    score_argv,
    ted,
    write_case,
)

pytestmark = LONG_SEGMENTS


def case() -> dict[str, list[str]]:
    return ted("ted-a")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return write_case(tmp_path)


def test_goldens_have_spans_in_the_first_segments() -> None:
    spans = golden_spans()
    assert sum(len(s) for s in spans) >= 10 and sum(not s for s in spans) >= 5


def test_cli_json_and_text_show_the_spans_of_unbabel_comet(files: dict[str, str], capsys) -> None:
    assert main(score_argv(files, "--error-spans", "-f", "json", metrics="comet,bleu")) == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    assert_spans_equal(scores["comet"]["error_spans"], golden_spans())
    assert "error_spans" not in scores["bleu"]
    assert main(score_argv(files, "--error-spans")) == 0
    out = capsys.readouterr().out
    table = out.split("error spans (", 1)[1].splitlines()[1:]
    assert table[0].split("\t") == ["system", "metric", "segment", "severity", "confidence", "start", "end", "text"]
    expected = [
        [files["mt"], "comet", str(i + 1), s["severity"], f"{s['confidence']:.4f}", str(s["start"]), str(s["end"]),
         s["text"]]
        for i, segment in enumerate(scores["comet"]["error_spans"]) for s in segment
    ]  # fmt: skip
    assert [line.split("\t") for line in table[1:] if line] == expected
    # each span's text is the hypothesis' characters start..end (up to sub-word markers)
    mt = case()["mt"]
    for i, segment in enumerate(golden_spans()):
        for s in segment:
            if s["text"] not in ("", "<unk>"):
                assert s["text"].strip() in mt[i][s["start"] : s["end"]]


def test_segments_with_json_keep_the_spans_and_text_segments_list_them(files: dict[str, str], capsys) -> None:
    assert main(score_argv(files, "--segments", "-f", "json")) == 0
    score = json.loads(capsys.readouterr().out)["systems"][0]["scores"]["comet"]
    assert len(score["segments"]) == N
    assert_spans_equal(score["error_spans"], golden_spans())
    gold = golden()
    # segment scores: the reference's at its batch size of 16 over 150 segments; here 32, float32 rounding
    assert np.abs(np.array(score["segments"]) - np.array(gold["scores"][:N])).max() <= TOLERANCE


@pytest.mark.parametrize(
    ("metrics", "model", "extra", "message"),
    [
        ("bleu", XCOMET, (), "--error-spans: none of the metrics (bleu) tags error spans"),
        ("comet", FIXTURES / "comet-tiny", (), "--error-spans: none of the metrics (comet) tags error spans"),
        ("comet", FIXTURES / "cometkiwi-tiny", (), "none of the metrics (comet) tags error spans"),
        ("comet", XCOMET, ("-f", "csv"), "--error-spans is shown in the text and json formats, not csv"),
    ],
)
def test_spans_asked_of_a_metric_without_them_is_one_line_exit_2(files, capsys, metrics, model, extra, message):
    code = main(score_argv(files, "--error-spans", *extra, model=model, metrics=metrics))
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and message in err, err


def test_dask_merges_the_spans_of_partitions_in_segment_order(files: dict[str, str], capsys) -> None:
    import dask.bag as db
    import distributed

    import nlpeval.dask

    t = case()
    metric = nlpeval.COMET(model=XCOMET, device="cpu")
    local = metric(t["mt"], t["ref"], sources=t["src"])
    rows = [{"hyp": h, "ref": r, "src": s} for h, r, s in zip(t["mt"], t["ref"], t["src"], strict=True)]
    bag = db.from_sequence(rows, partition_size=5)
    assert bag.npartitions >= 6
    remote = nlpeval.dask.score(bag, {"comet": metric}, src="src", error_spans=True).compute(scheduler="sync")
    assert_spans_equal(remote["comet"].error_spans, local.error_spans)
    assert_spans_equal(remote["comet"].error_spans, golden_spans())
    assert abs(remote["comet"].score - local.score) <= TOLERANCE
    plain = nlpeval.dask.score(bag, {"comet": metric}, src="src").compute(scheduler="sync")
    assert plain["comet"].error_spans is None and plain["comet"].score == remote["comet"].score
    # by group: each group's spans in its own segment order
    grouped_rows = [{**row, "g": i % 2} for i, row in enumerate(rows)]
    grouped = nlpeval.dask.score(db.from_sequence(grouped_rows, partition_size=5), {"comet": metric}, src="src",
                                 by="g", error_spans=True).compute(scheduler="sync")  # fmt: skip
    assert_spans_equal(grouped[1]["comet"].error_spans, local.error_spans[1::2])
    # the command line's --engine dask, on an in-process cluster
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        code = main(score_argv(files, "--error-spans", "-f", "json", "--scheduler", c.scheduler_address,
                          "--partition-lines", "7"))  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert_spans_equal(json.loads(captured.out)["systems"][0]["scores"]["comet"]["error_spans"], golden_spans())
