"""Neural metrics on Dask: a LocalCluster of 2 worker processes scores COMET and BERTScore (tiny fixture
models, MQM TED text) as one process does, each worker loading each model once; the CLI's --engine dask reads
--src beside the line files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dask.bag as db  # noqa: E402
import distributed  # noqa: E402

import nlpeval  # noqa: E402
import nlpeval.dask  # noqa: E402
from nlpeval.cli.main import main  # noqa: E402
from realdata import data_dir, read_lines  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")

N = 32
PARTITION = 6  # rows per partition: 6 partitions, so each worker gets several
#: float32 rounding: partitions batch the sentences differently (tests/test_neural_cli.py)
BOUND = {"comet": 1e-6, "bertscore": 1e-6}


def texts() -> dict[str, list[str]]:
    ted = data_dir() / "mqm-ted-ende"
    names = {"src": "source.en", "ref": "reference.de", "a": "Facebook-AI.de"}
    return {key: read_lines(ted / name)[:N] for key, name in names.items()}


def metrics() -> dict[str, object]:
    return {
        "comet": nlpeval.COMET(model=FIXTURES / "comet-tiny", device="cpu"),
        "bertscore": nlpeval.BERTScore(model=FIXTURES / "bert-tiny", num_layers=2, device="cpu"),
    }


def _created() -> tuple[int, int]:
    from nlpeval.neural import worker

    return worker.created, worker.calls


def _cluster() -> distributed.LocalCluster:
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        worker_dashboard_address=None,
        env={"OMP_NUM_THREADS": "1"},  # two workers on two cores
    )


def test_dask_equals_one_process_and_loads_each_model_once_per_worker(tmp_path: Path, capsys) -> None:
    # one cluster for the library and the command line (a cluster per test would start 2 more processes)
    with _cluster() as cluster, distributed.Client(cluster) as client:
        _library(client)
        _command_line(client.scheduler.address, tmp_path, capsys)


def _library(client: distributed.Client) -> None:
    t = texts()
    rows = [{"hyp": h, "ref": r, "src": s} for h, r, s in zip(t["a"], t["ref"], t["src"], strict=True)]
    bag = db.from_sequence(rows, partition_size=PARTITION)
    assert bag.npartitions >= 6
    remote = nlpeval.dask.score(bag, metrics(), src="src").compute()
    local = {
        "comet": nlpeval.comet(t["a"], t["ref"], sources=t["src"], model=FIXTURES / "comet-tiny"),
        "bertscore": nlpeval.bertscore(t["a"], t["ref"], model=FIXTURES / "bert-tiny", num_layers=2),
    }  # fmt: skip
    for name, score in local.items():
        assert abs(remote[name].score - score.score) <= BOUND[name], name
        assert remote[name].signature == score.signature
        assert remote[name].components["n_segments"] == N
    per_worker = client.run(_created)
    assert len(per_worker) == 2
    # every worker scored several partitions with each metric, and made (so loaded) each model once
    # each worker made (so loaded) each model at most once, however many partitions it scored: with 6 or
    # more partitions on 2 workers, one of them scored 3 or more with each metric
    assert all(created <= 2 and created <= calls for created, calls in per_worker.values()), per_worker
    assert sum(calls for _, calls in per_worker.values()) == 2 * bag.npartitions
    assert max(calls - 2 * created for created, calls in per_worker.values()) >= 2, per_worker


def test_idf_and_missing_sources_are_refused() -> None:
    t = texts()
    bag = db.from_sequence([{"hyp": h, "ref": r} for h, r in zip(t["a"], t["ref"], strict=True)], npartitions=2)
    idf = nlpeval.BERTScore(model=FIXTURES / "bert-tiny", num_layers=2, idf=True)
    with pytest.raises(ValueError, match="idf weights them over every reference at once"):
        nlpeval.dask.score(bag, idf)
    with pytest.raises(ValueError, match=r"comet needs the sources \(--src, sources=, or the source column: src=\)"):
        nlpeval.dask.score(bag, nlpeval.COMET(model=FIXTURES / "comet-tiny")).compute(scheduler="sync")


def _command_line(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--engine dask (--scheduler) reads --src beside the line files."""
    files = {}
    for key, lines in texts().items():
        files[key] = tmp_path / f"{key}.txt"
        files[key].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    argv = ["score", "-m", "comet", "--src", str(files["src"]), "-r", str(files["ref"]), "-f", "json",
            "--comet-model", str(FIXTURES / "comet-tiny"),
            str(files["a"])]  # fmt: skip
    assert main(argv) == 0
    local = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    code = main([*argv, "--scheduler", address, "--partition-lines", str(PARTITION)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    remote = json.loads(captured.out)["systems"][0]["scores"]
    for name in ("comet",):
        assert abs(remote[name]["score"] - local[name]["score"]) <= BOUND[name]
        assert remote[name]["signature"] == local[name]["signature"]
    # a bad source line is named by file and line, as on one machine
    lines = files["src"].read_bytes().split(b"\n")
    lines[9] = b"\xff broken"
    files["src"].write_bytes(b"\n".join(lines))
    code = main([*argv, "--scheduler", address, "--partition-lines", str(PARTITION)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and f"{files['src']}:10:" in err, err
