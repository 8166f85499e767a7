"""CLI: ``nlpeval merge`` of partial files, ``nlpeval score --engine dask`` / ``--scheduler`` / ``--scheduler-file``
on text, JSONL and Parquet input, the Poisson option on one machine, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import distributed
import pytest

from distributed_data import wmt17
from nlpeval.cli.main import main

SYSTEM = "uedin-nmt.4722"


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _scores(text: str) -> list[dict]:
    payload = json.loads(text)
    return [{k: v for k, v in system.items() if k != "name"} for system in payload["systems"]]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    data = wmt17()
    folder = tmp_path_factory.mktemp("cli")
    hyps, refs, other = data[SYSTEM], data["reference"], data["online-A.0"]
    paths = {}
    for name, lines in (("sys", hyps), ("ref", refs), ("a", hyps[:1200]), ("ra", refs[:1200])):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    paths["b"], paths["rb"] = folder / "b.txt", folder / "rb.txt"
    paths["b"].write_text("".join(f"{line}\n" for line in hyps[1200:]), encoding="utf-8")
    paths["rb"].write_text("".join(f"{line}\n" for line in refs[1200:]), encoding="utf-8")
    for shard, (start, stop) in enumerate(((0, 1000), (1000, 1001), (1001, 3004))):
        with open(folder / f"shard-{shard}.jsonl", "w", encoding="utf-8") as out:
            for i in range(start, stop):
                for system, lines in (("uedin", hyps), ("online-A", other)):
                    out.write(json.dumps({"sid": i, "sys": system, "out": lines[i], "tgt": refs[i]}) + "\n")
    paths["folder"] = folder
    return paths


def test_merge_of_saved_partials_equals_whole_run(files, capsys) -> None:
    f = files
    metrics = "bleu,chrf,ter,rougeL"
    code, whole, _ = _run(["score", str(f["sys"]), "-r", str(f["ref"]), "-m", metrics, "-f", "json"], capsys)
    assert code == 0
    for part, ref in (("a", "ra"), ("b", "rb")):
        pattern = str(f["folder"] / f"part-{part}-{{metric}}.npz")
        assert (
            _run(["score", str(f[part]), "-r", str(f[ref]), "-m", metrics, "--save-partial", pattern], capsys)[0] == 0
        )
    parts = sorted(str(p) for p in f["folder"].glob("part-*.npz"))
    assert len(parts) == 8
    code, merged, err = _run(["merge", *parts, "-f", "json"], capsys)
    assert code == 0 and err == ""
    expected, got = _scores(whole)[0]["scores"], _scores(merged)[0]["scores"]
    for name in ("bleu", "chrf", "ter"):
        assert got[name] == expected[name]
    # ROUGE's per-segment F values are floats: summed in another order, they agree to 1e-12
    assert got["rougeL"]["signature"] == expected["rougeL"]["signature"]
    assert got["rougeL"]["score"] == pytest.approx(expected["rougeL"]["score"], rel=1e-12)


def test_merge_refuses_differently_configured_partials(files, capsys) -> None:
    f = files
    one, two = f["folder"] / "lc.npz", f["folder"] / "mixed.npz"
    _run(["score", str(f["a"]), "-r", str(f["ra"]), "-lc", "--save-partial", str(one)], capsys)
    _run(["score", str(f["b"]), "-r", str(f["rb"]), "--save-partial", str(two)], capsys)
    code, out, err = _run(["merge", str(one), str(two)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "mixed.npz: cannot merge partials of differently configured metrics" in err
    assert "lowercase=True vs False" in err
    bad = f["folder"] / "bad.npz"
    bad.write_bytes(b"not a partial")
    code, _, err = _run(["merge", str(bad)], capsys)
    assert code == 2 and err.count("\n") == 1 and "bad.npz: not an nlpeval partial" in err


def test_poisson_option_on_one_machine_equals_dask(files, capsys) -> None:
    f = files
    base = ["score", str(f["sys"]), "-r", str(f["ref"]), "-m", "bleu,chrf", "--bootstrap", "50", "-f", "json"]
    code, local, _ = _run([*base, "--resampling", "poisson"], capsys)
    assert code == 0 and "ci:poisson|bs:50|rs:12345" in local
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", dashboard_address=None
    ) as c:
        code, remote, err = _run([*base, "--resampling", "poisson", "--scheduler", c.scheduler_address], capsys)
        assert code == 0 and err == ""
        assert _scores(remote) == _scores(local)
        assert json.loads(remote)["provenance"]["scheduler"] == c.scheduler_address
        assert "provenance" not in json.loads(local)
        # JSONL shards with named columns, two systems in one file set, ids from a column
        table = [str(f["folder"] / "shard-*.jsonl"), "--hyp-col", "out", "--ref-col", "tgt", "--system-col", "sys"]
        argv = ["score", *table, "--id-col", "sid", "-m", "bleu,chrf", "--bootstrap", "50", "--resampling", "poisson"]
        code, out, _ = _run([*argv, "-f", "json", "--scheduler", c.scheduler_address], capsys)
        assert code == 0
        systems = {s["name"]: s["scores"] for s in json.loads(out)["systems"]}
        assert sorted(systems) == ["online-A", "uedin"]
        # the same options on one machine: the same scores and intervals (segments keyed by the id column)
        code, one, _ = _run([*argv, "-f", "json"], capsys)
        assert code == 0 and {s["name"]: s["scores"] for s in json.loads(one)["systems"]} == systems
        assert systems["uedin"]["bleu"]["score"] == json.loads(local)["systems"][0]["scores"]["bleu"]["score"]
        # the scheduler file form
        path = str(f["folder"] / "scheduler.json")
        with open(path, "w", encoding="utf-8") as out:  # the file's address field, as dask-scheduler writes it
            json.dump({"address": c.scheduler_address}, out)
        code, again, _ = _run([*base[:-2], "-f", "json", "--resampling", "poisson", "--scheduler-file", path], capsys)
        assert code == 0 and _scores(again) == _scores(local)
        # Parquet with named columns
        import pandas as pd

        data = wmt17()
        parquet = f["folder"] / "x.parquet"
        pd.DataFrame({"out": data[SYSTEM], "tgt": data["reference"]}).to_parquet(parquet)
        argv = ["score", str(parquet), "--hyp-col", "out", "--ref-col", "tgt", "-m", "bleu,ter", "-f", "json"]
        code, out, _ = _run([*argv, "--scheduler", c.scheduler_address], capsys)
        code_local, plain, _ = _run(
            ["score", str(f["sys"]), "-r", str(f["ref"]), "-m", "bleu,ter", "-f", "json"], capsys
        )
        assert code == code_local == 0 and _scores(out) == _scores(plain)

        # bad input: one line, exit 2, the file and line named, nothing on stdout
        broken = f["folder"] / "broken.jsonl"
        broken.write_text('{"out": "a b", "tgt": "a b"}\n{"out": "c d"}\n', encoding="utf-8")
        code, out, err = _run(["score", str(broken), "--hyp-col", "out", "--ref-col", "tgt", "--scheduler",
                               c.scheduler_address], capsys)  # fmt: skip
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert f"{broken}:2: no 'tgt' field" in err
        code, out, err = _run(["score", str(broken), "--hyp-col", "text", "--ref-col", "tgt", "--scheduler",
                               c.scheduler_address], capsys)  # fmt: skip
        assert (code, out) == (2, "") and err.count("\n") == 1 and f"{broken}: no column 'text'" in err
        code, out, err = _run([*base, "--scheduler", c.scheduler_address], capsys)
        assert code == 2 and "--resampling poisson" in err
        sched = ["--scheduler", c.scheduler_address]
        code, out, err = _run(["score", str(f["a"]), "-r", str(f["ref"]), *sched], capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1 and "segment counts differ" in err
        code, out, err = _run(["score", str(f["a"]), "-r", str(f["ra"]), "-m", "rouge2", "--rouge-flavor", "rouge155",
                               *sched], capsys)  # fmt: skip
        assert (code, out) == (2, "") and err.count("\n") == 1 and "does not decompose" in err


def test_engine_dask_starts_a_local_cluster_quietly_when_piped(files) -> None:
    f = files
    other = f["folder"] / "other.txt"
    other.write_text("".join(f"{line}\n" for line in wmt17()["online-A.0"][:1200]), encoding="utf-8")
    # worker processes: a paired test over line-aligned partitions of both systems and the references
    paired = ["--paired-bs", "--paired-n", "200", "--resampling", "poisson", "--partition-lines", "500"]
    argv = [
        "score",
        str(f["a"]),
        str(other),
        "-r",
        str(f["ra"]),
        "-m",
        "bleu",
        *paired,
        "--engine",
        "dask",
        "-f",
        "json",
    ]
    done = subprocess.run([sys.executable, "-m", "nlpeval", *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar, no cluster logs when piped
    local = subprocess.run([sys.executable, "-m", "nlpeval", *argv[:-6], "-f", "json"], capture_output=True, text=True)
    expected = [
        {k: v for k, v in s["scores"]["bleu"].items() if k != "segments"} for s in json.loads(local.stdout)["systems"]
    ]
    assert [s["scores"]["bleu"] for s in json.loads(done.stdout)["systems"]] == expected
    assert 0 < expected[1]["p_value"] < 1 and "ci:poisson|bs:200" in expected[1]["signature"]
    assert json.loads(done.stdout)["provenance"]["engine"] == "dask"
    assert "dask" not in json.loads(done.stdout)["systems"][0]["scores"]["bleu"]["signature"]


def test_progress_bar_on_a_terminal(files) -> None:
    import os
    import pty

    f = files
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        argv = ["score", str(f["a"]), "-r", str(f["ra"]), "-m", "bleu", "--scheduler", cluster.scheduler_address]
        leader, follower = pty.openpty()
        done = subprocess.run(
            [sys.executable, "-m", "nlpeval", *argv], stdout=subprocess.PIPE, stderr=follower, timeout=120
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
    assert done.returncode == 0
    assert b"100% Completed" in b"".join(chunks)  # dask's progress bar, on the terminal only
    assert b"Completed" not in done.stdout
