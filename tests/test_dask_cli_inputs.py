"""``nlpeval score --engine dask``: paired tests, line-aligned partitions of large files, and the options
and errors it shares with the single-machine path (each case runs both paths on a real LocalCluster)."""

from __future__ import annotations

import json
import random

import distributed
import pytest

from distributed_data import wmt17
from nlpeval.cli.main import main

BASELINE, SYSTEMS = "FBK.4870", ("KIT.4950", "LIUM-NMT.4900")


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _systems(text: str) -> dict[str, dict]:
    return {system["name"]: system["scores"] for system in json.loads(text)["systems"]}


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        yield ["--scheduler", cluster.scheduler_address]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    data = wmt17()
    folder = tmp_path_factory.mktemp("inputs")
    paths = {}
    for name in ("reference", BASELINE, *SYSTEMS):
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("".join(f"{line}\n" for line in data[name]), encoding="utf-8")
    # a long table sharded over two files: rows in a shuffled order, string ids, a blank line
    order = list(range(3004))
    random.Random(3).shuffle(order)
    for shard, rows in enumerate((order[:1700], order[1700:])):
        with open(folder / f"long-{shard}.jsonl", "w", encoding="utf-8") as out:
            for i in rows:
                for system in (BASELINE, *SYSTEMS):
                    row = {"sid": f"doc{i}", "sys": system, "out": data[system][i], "tgt": [data["reference"][i]]}
                    out.write(json.dumps(row) + "\n")
            out.write("\n")
    paths["folder"] = folder
    return paths


def test_paired_bootstrap_on_dask_equals_one_machine_and_the_api(files, scheduler, capsys) -> None:
    f = files
    argv = ["score", str(f[BASELINE]), *(str(f[s]) for s in SYSTEMS), "-r", str(f["reference"]), "-m", "bleu,chrf",
            "--paired-bs", "--paired-n", "300", "--bootstrap", "40", "--resampling", "poisson", "--seed", "7",
            "-f", "json"]  # fmt: skip
    code, local, _ = _run(argv, capsys)
    assert code == 0
    expected = _systems(local)
    p_values = {m: expected[str(f["KIT.4950"])][m]["p_value"] for m in ("bleu", "chrf")}
    assert 0.05 < p_values["bleu"] < 1 and 0 < p_values["chrf"] < 1  # close systems: a p-value that can move
    assert "ci:poisson|bs:40|rs:7" in expected[str(f[BASELINE])]["bleu"]["signature"]
    for lines in ("1000", "3004"):  # four partitions per file (the last a short one), one partition
        code, remote, err = _run([*argv, *scheduler, "--partition-lines", lines], capsys)
        assert (code, err) == (0, "")
        got = _systems(remote)
        for name, scores in expected.items():
            for metric, entry in scores.items():
                entry = {k: v for k, v in entry.items() if k != "segments"}  # one machine keeps the rows
                assert got[name][metric] == entry, (lines, name, metric)
    # without --bootstrap the signature records the paired test's resampling, on both paths
    short = [a for a in argv if a not in ("--bootstrap", "40")]
    code, local, _ = _run(short, capsys)
    code_dask, remote, _ = _run([*short, *scheduler], capsys)
    assert code == code_dask == 0
    for name, scores in _systems(local).items():
        assert "ci:poisson|bs:300|rs:7" in scores["bleu"]["signature"] and "ci" not in scores["bleu"]
        assert _systems(remote)[name]["bleu"]["signature"] == scores["bleu"]["signature"]
        assert _systems(remote)[name]["bleu"].get("p_value") == scores["bleu"].get("p_value")

    # the Python API on the same cluster
    import dask.dataframe as dd
    import pandas as pd

    import nlpeval
    import nlpeval.dask

    data = wmt17()
    frame = pd.DataFrame({"a": data[BASELINE], "b": data["KIT.4950"], "ref": data["reference"]})
    with distributed.Client(scheduler[1]) as client:
        for metric, name in ((nlpeval.BLEU(), "bleu"), (nlpeval.CHRF(), "chrf")):
            lazy = nlpeval.dask.paired(dd.from_pandas(frame, npartitions=3), metric, baseline="a", system="b",
                                       n_resamples=300, seed=7)  # fmt: skip
            assert client.compute(lazy).result().p_value == p_values[name]


def test_long_sharded_table_with_ids_and_systems(files, scheduler, capsys) -> None:
    pattern = str(files["folder"] / "long-*.jsonl")
    table = ["score", pattern, "--hyp-col", "out", "--ref-col", "tgt", "--system-col", "sys", "-m", "bleu,ter",
             "--bootstrap", "30", "--resampling", "poisson", "-f", "json"]  # fmt: skip
    for extra in (["--id-col", "sid", "--paired-bs", "--paired-n", "100"], []):
        code, local, err = _run([*table, *extra], capsys)
        assert code == 0, err
        code, remote, err = _run([*table, *extra, *scheduler, "--partition-lines", "1000"], capsys)
        assert (code, err) == (0, "")
        expected = {n: {m: {k: v for k, v in e.items() if k != "segments"} for m, e in s.items()}
                    for n, s in _systems(local).items()}  # fmt: skip
        assert _systems(remote) == expected
    # the shuffled, sharded table holds the line files' segments: the same scores
    lines = ["score", str(files[BASELINE]), *(str(files[s]) for s in SYSTEMS), "-r", str(files["reference"])]
    code, plain, _ = _run([*lines, *table[8:]], capsys)
    assert code == 0
    for system, scores in zip((BASELINE, *SYSTEMS), _systems(plain).values(), strict=True):
        for metric in ("bleu", "ter"):
            assert _systems(remote)[system][metric]["score"] == scores[metric]["score"]


@pytest.mark.parametrize("lines", ["97", "1000", "5000"])
def test_line_partitions_equal_one_machine(files, scheduler, lines, capsys) -> None:
    argv = ["score", str(files["KIT.4950"]), "-r", str(files["reference"]), "-r", str(files[BASELINE]),
            "-m", "bleu,chrf,ter", "--bootstrap", "20", "--resampling", "poisson", "-f", "json"]  # fmt: skip
    code, local, _ = _run(argv, capsys)
    code_dask, remote, _ = _run([*argv, *scheduler, "--partition-lines", lines], capsys)
    assert code == code_dask == 0 and _systems(remote) == _systems(local)


def test_awkward_line_files(tmp_path, scheduler, capsys) -> None:
    hyps = ["a b c", "", "d e\r", "f", "g h i j", "", "k"]
    refs = ["a b", "x", "d e", "", "g h i", "y", "k l"]
    (tmp_path / "h.txt").write_bytes("\n".join(hyps).encode())  # no newline after the last line
    (tmp_path / "r.txt").write_bytes(("\n".join(refs) + "\n").encode())
    argv = ["score", str(tmp_path / "h.txt"), "-r", str(tmp_path / "r.txt"), "-m", "bleu,chrf,wer", "-f", "json"]
    code, local, _ = _run(argv, capsys)
    assert code == 0
    for lines in ("1", "2", "3", "7", "8"):
        code, remote, err = _run([*argv, *scheduler, "--partition-lines", lines], capsys)
        assert (code, err) == (0, "") and _systems(remote) == _systems(local), lines


def _same_error(argv: list[str], scheduler: list[str], capsys, expected: str) -> None:
    """Both paths fail alike: exit 2, nothing on stdout, one line naming ``expected``."""
    for extra in ([], scheduler):
        code, out, err = _run([*argv, *extra], capsys)
        assert (code, out) == (2, ""), (extra, err)
        assert err.count("\n") == 1 and expected in err, (extra, err)


def test_bad_line_in_the_middle_of_partition_3(files, tmp_path, scheduler, capsys) -> None:
    data = wmt17()
    refs = [line.encode() for line in data["reference"][:600]]
    refs[349] = b"Das ist \xff kaputt"  # line 350: partition 3 of 100-line partitions covers lines 301-400
    (tmp_path / "ref.txt").write_bytes(b"\n".join(refs) + b"\n")
    (tmp_path / "hyp.txt").write_text("".join(f"{line}\n" for line in data["KIT.4950"][:600]), encoding="utf-8")
    argv = ["score", str(tmp_path / "hyp.txt"), "-r", str(tmp_path / "ref.txt"), "--partition-lines", "100"]
    _same_error(argv, scheduler, capsys, f"{tmp_path / 'ref.txt'}:350: invalid UTF-8 (invalid start byte at byte 8)")
    # a JSONL row whose text the metric refuses (a lone surrogate), in the middle of partition 3
    rows = [
        json.dumps({"out": h, "tgt": r}) for h, r in zip(data["KIT.4950"][:600], data["reference"][:600], strict=True)
    ]
    rows[349] = '{"out": "kaputt \\ud800", "tgt": "x"}'
    (tmp_path / "run.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    argv = ["score", str(tmp_path / "run.jsonl"), "--hyp-col", "out", "--ref-col", "tgt", "--partition-lines", "100"]
    _same_error(argv, scheduler, capsys, f"{tmp_path / 'run.jsonl'}:350: is not valid Unicode text")
    # line counts that differ: the single-machine message, before any scoring
    argv = ["score", str(files["KIT.4950"]), "-r", str(tmp_path / "hyp.txt")]
    _same_error(argv, scheduler, capsys, f"segment counts differ: {files['KIT.4950']} has 3004, ")


def test_data_file_options_and_errors_are_shared(files, tmp_path, scheduler, capsys) -> None:
    data = wmt17()
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("".join(json.dumps({"out": h, "tgt": r}) + "\n"
                             for h, r in zip(data["KIT.4950"], data["reference"], strict=True)), encoding="utf-8")  # fmt: skip
    # no references: the same error on both paths (the Dask engine used to default --ref-col to "ref")
    _same_error(["score", str(jsonl), "--hyp-col", "out"], scheduler, capsys, "no references: give -r/--ref")
    _same_error(["score", str(jsonl), "--ref-col", "tgt"], scheduler, capsys, "--ref-col needs --hyp-col")
    _same_error(["score", str(jsonl), "--hyp-col", "text", "--ref-col", "tgt"], scheduler, capsys,
                f"{jsonl}: no column 'text' (columns: out, tgt)")  # fmt: skip
    short = tmp_path / "short.jsonl"
    short.write_text("".join(jsonl.read_text(encoding="utf-8").splitlines(keepends=True)[:10]), encoding="utf-8")
    _same_error(["score", str(jsonl), str(short), "--hyp-col", "out", "--ref-col", "tgt"], scheduler, capsys,
                f"segment counts differ: {jsonl} has 3004, {short} has 10 rows (give --id-col")  # fmt: skip
    # CSV (one partition per file) and Parquet (one per row group): the single-machine scores
    import pandas as pd

    frame = pd.DataFrame({"out": data["KIT.4950"], "tgt": data["reference"]})
    frame.to_csv(tmp_path / "run.csv", index=False)
    frame.to_parquet(tmp_path / "run.parquet", row_group_size=1000)
    for path in (jsonl, tmp_path / "run.csv", tmp_path / "run.parquet"):
        argv = ["score", str(path), "--hyp-col", "out", "--ref-col", "tgt", "-m", "bleu,chrf", "-f", "json"]
        code, local, _ = _run(argv, capsys)
        code_dask, remote, _ = _run([*argv, *scheduler, "--partition-lines", "500"], capsys)
        assert code == code_dask == 0 and _systems(remote) == _systems(local)


def _long_table(folder, rows_by_shard: list[list[tuple[str, int, str]]], name: str = "ids") -> str:
    """Shards ``{name}-{k}.jsonl`` of a long table; a row is (system, segment, reference) with text derived from both."""
    for shard, rows in enumerate(rows_by_shard):
        with open(folder / f"{name}-{shard}.jsonl", "w", encoding="utf-8") as out:
            for system, i, ref in rows:
                out.write(json.dumps({"sys": system, "sid": f"d{i}", "out": f"{system} says {i} {'x' * (i % 3)}",
                                      "tgt": [ref]}) + "\n")  # fmt: skip
    return str(folder / f"{name}-*.jsonl")


def test_systems_on_dask_must_cover_the_same_ids_with_the_same_references(tmp_path, scheduler, capsys) -> None:
    refs = {i: f"the reference of segment {i} is {'long ' * (i % 4)}here" for i in range(40)}
    order = list(range(40))
    random.Random(5).shuffle(order)
    # ids in a different order in each system and shard: the same scores as on one machine
    good = [[("A", i, refs[i]) for i in range(25)] + [("B", i, refs[i]) for i in order[:20]],
            [("B", i, refs[i]) for i in order[20:]] + [("A", i, refs[i]) for i in reversed(range(25, 40))]]  # fmt: skip
    args = ["--hyp-col", "out", "--ref-col", "tgt", "--id-col", "sid", "--system-col", "sys", "-m", "bleu,chrf"]
    pattern = _long_table(tmp_path, good)
    argv = ["score", pattern, *args, "--paired-bs", "--paired-n", "50", "--resampling", "poisson", "-f", "json"]
    code, local, err = _run(argv, capsys)
    assert code == 0, err
    code, remote, err = _run([*argv, *scheduler, "--partition-lines", "7"], capsys)
    assert (code, err) == (0, "")
    expected = {n: {m: {k: v for k, v in e.items() if k != "segments"} for m, e in s.items()}
                for n, s in _systems(local).items()}  # fmt: skip
    assert _systems(remote) == expected and 0 < expected["B"]["bleu"]["p_value"] <= 1
    dask = [*scheduler, "--partition-lines", "7"]

    def fails(shards: list[list[tuple[str, int, str]]], name: str, expected: str, extra=args) -> None:
        _same_error(["score", _long_table(tmp_path, shards, name), *extra], dask, capsys, expected)

    # B lacks one id (d17, in the second shard)
    fails([good[0], [row for row in good[1] if row[:2] != ("B", 17)]], "missing",
          "B lacks id 'd17': every system must cover the same ids")  # fmt: skip
    # B holds another reference for d30: the row of B and the row of A are named
    changed = [(s, i, "another reference" if (s, i) == ("B", 30) else r) for s, i, r in good[1]]
    b_row = 1 + [row[:2] for row in changed].index(("B", 30))
    a_row = 1 + [row[:2] for row in good[1]].index(("A", 30))
    fails([good[0], changed], "other",
          f"{tmp_path / 'other-1.jsonl'}:{b_row}: the references of id 'd30' differ from those at "
          f"{tmp_path / 'other-1.jsonl'}:{a_row}")  # fmt: skip
    # B repeats an id (in another shard than its first row of that id)
    twice = order[0]
    first = 1 + [row[:2] for row in good[0]].index(("B", twice))
    fails([good[0], [*good[1], ("B", twice, refs[twice])]], "repeat",
          f"{tmp_path / 'repeat-1.jsonl'}:{len(good[1]) + 1}: id 'd{twice}' repeats "
          f"{tmp_path / 'repeat-0.jsonl'}:{first}")  # fmt: skip
    # B has an id that A lacks
    fails([good[0], [*good[1], ("B", 77, "new")]], "extra", "every system must cover the same ids")
    # without ids, row counts are compared: the same message on both paths
    fails([good[0], good[1][1:]], "counts", "segment counts differ: A has 40, B has 39 rows (give --id-col",
          extra=[a for a in args if a not in ("--id-col", "sid")])  # fmt: skip
    # one file per system (no --system-col), and a lone system that repeats an id
    split = [a for a in args if a not in ("--system-col", "sys")]
    for system, rows in (("A", good[0][:25]), ("B", [row for row in good[0][25:] if row[1] != order[1]])):
        _long_table(tmp_path, [[(s, i, r) for s, i, r in rows]], f"per-{system}")
    _same_error(["score", str(tmp_path / "per-A-0.jsonl"), str(tmp_path / "per-B-0.jsonl"), *split], dask, capsys,
                f"{tmp_path / 'per-B-0.jsonl'} lacks id ")  # fmt: skip
    lone = _long_table(tmp_path, [[("A", 1, "r"), ("A", 2, "s"), ("A", 1, "r")]], "lone")
    _same_error(["score", lone, *split], dask, capsys, f"{lone[:-7]}0.jsonl:3: id 'd1' repeats {lone[:-7]}0.jsonl:1")


def test_id_fingerprints_merge_in_any_order_and_hash_alike_in_every_process() -> None:
    import os
    import subprocess
    import sys

    from nlpeval.dask._ids import Fingerprint, row_hash

    ids = [f"s{i}" for i in range(300)]
    refs = [[f"ref {i}"] if i % 2 else [f"ref {i}", f"alt {i}"] for i in range(300)]
    whole = Fingerprint.of(ids, refs)
    shuffled = list(range(300))
    random.Random(1).shuffle(shuffled)
    parts = [Fingerprint.of([ids[i] for i in chunk], [refs[i] for i in chunk])
             for chunk in (shuffled[:7], shuffled[7:150], [], shuffled[150:])]  # fmt: skip
    merged = parts[3].merge(parts[0]).merge(parts[2].merge(parts[1])).finish()
    assert merged.same_rows(whole) and merged.n_rows == 300 and merged.repeats == []
    other = Fingerprint.of(ids, [*refs[:-1], ["ref 299 changed"]])
    assert not other.same_rows(whole) and other.n_rows == 300
    assert row_hash("a", ["a", "b"]) != row_hash("a", ["a\x00b"]) != row_hash("b", ["a\x00b"])
    assert whole.merge(Fingerprint.of(["s5"], [["x"]])).finish().repeats != []
    # Python's hash() is salted per process; these hashes are not
    code = "from nlpeval.dask._ids import row_hash; print(row_hash('s1', ['ref 1']))"
    import nlpeval

    env = {**os.environ, "PYTHONHASHSEED": "123", "PYTHONPATH": os.path.dirname(os.path.dirname(nlpeval.__file__))}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert int(out) == row_hash("s1", ["ref 1"])


def test_the_baseline_of_a_long_table_is_its_first_system_on_both_paths(tmp_path, scheduler, capsys) -> None:
    rows = [(system, i, f"Z says {i} {'x' * (i % 3)}") for i in range(30) for system in ("Z", "A")]
    argv = ["score", _long_table(tmp_path, [rows[:25], rows[25:]], "order"), "--hyp-col", "out", "--ref-col", "tgt",
            "--id-col", "sid", "--system-col", "sys", "-m", "chrf", "--paired-bs", "--paired-n", "50",
            "--resampling", "poisson", "-f", "json"]  # fmt: skip
    outputs = []
    for extra in ([], [*scheduler, "--partition-lines", "4"]):
        code, out, err = _run([*argv, *extra], capsys)
        assert (code, err) == (0, "")
        outputs.append([(s["name"], s["scores"]["chrf"].get("p_value")) for s in json.loads(out)["systems"]])
    assert outputs[0] == outputs[1] and outputs[0][0] == ("Z", None) and outputs[0][1][1] < 0.05
