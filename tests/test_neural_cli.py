"""The neural metrics in ``nlpeval score``: registry entries, --src, models, errors, the segment cache, offline
loading, embedding reuse across systems, and batch/order invariance (tiny fixture models, real MQM TED text)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "neural"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import nlpeval  # noqa: E402
from nlpeval.cli.main import main  # noqa: E402
from nlpeval.metrics import registry  # noqa: E402
from realdata import data_dir, read_lines  # noqa: E402

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings("ignore:.*longer than .* tokens")

N = 24
#: float32 rounding: batch composition and order change the scores by no more than this; the tiny MetricX's score
#: row has large weights that amplify the last bits of its decoder output to ~2e-5 on scores of 0-25 (~1e-6
#: relative; see tests/test_metricx.py)
FLOAT32_BOUND = {"comet": 1e-6, "bertscore": 1e-6, "metricx": 5e-5}

COMET_TINY = FIXTURES / "comet-tiny"
MODEL_FLAGS = [
    "--comet-model", str(COMET_TINY),
    "--bertscore-model", str(FIXTURES / "bert-tiny"), "--bertscore-num-layers", "2",
    "--metricx-model", str(FIXTURES / "metricx-tiny"), "--metricx-tokenizer", str(FIXTURES / "metricx-tokenizer"),
    "--metricx-max-input-length", "48",
]  # fmt: skip


@cache
def texts() -> dict[str, list[str]]:
    ted = data_dir() / "mqm-ted-ende"
    names = {"src": "source.en", "ref": "reference.de", "a": "Facebook-AI.de", "b": "Nemo.de"}
    return {key: read_lines(ted / name)[:N] for key, name in names.items()}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for key, lines in texts().items():
        path = tmp_path / f"{key}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        out[key] = str(path)
    return out


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    code = main(["score", "-f", "json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return {s["name"]: s["scores"] for s in json.loads(captured.out)["systems"]}


def run_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["score", *args])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "\n" not in err and "Traceback" not in err, err
    return err


def test_entries_say_what_the_metrics_need() -> None:
    comet, bertscore, metricx = registry.get("comet"), registry.get("bertscore"), registry.get("metricx")
    assert comet.needs_model and comet.needs_sources and comet.higher_is_better
    assert bertscore.needs_model and not bertscore.needs_sources
    assert metricx.needs_model and metricx.needs_sources and not metricx.higher_is_better
    assert registry.get("metricx-qe").family == "metricx"
    options = registry.options()
    assert options["comet_model"].type == options["metricx_model"].type == "path"
    assert options["bertscore_idf"].type == "flag" and options["bertscore_num_layers"].type == "int"
    assert options["dtype"].choices == ("float32", "bfloat16", "float16")
    metric = registry.build("comet", {"comet_model": COMET_TINY, "comet_batch_size": 3, "dtype": "float32"})
    assert isinstance(metric, nlpeval.COMET) and metric.batch_size == 3


def test_score_equals_the_library_for_every_system(files: dict[str, str], capsys) -> None:
    args = ["-m", "bleu,comet,bertscore,metricx", "--src", files["src"], "-r", files["ref"], *MODEL_FLAGS]
    scores = run_json([*args, "--segments", files["a"], files["b"]], capsys)
    t = texts()
    for key in ("a", "b"):
        got = scores[files[key]]
        comet = nlpeval.comet(t[key], t["ref"], sources=t["src"], model=COMET_TINY, segments=True)
        bert = nlpeval.bertscore(t[key], [[r] for r in t["ref"]], model=FIXTURES / "bert-tiny", num_layers=2,
                                 segments=True)  # fmt: skip
        metricx = nlpeval.metricx(t[key], t["ref"], sources=t["src"], model=FIXTURES / "metricx-tiny",
                                  tokenizer=FIXTURES / "metricx-tokenizer", max_input_length=48, segments=True)  # fmt: skip
        for name, expected in (("comet", comet), ("bertscore", bert), ("metricx", metricx)):
            # MetricX is computed as the library computes it; COMET and BERTScore embed the texts of all systems
            # ahead in one pool (other batches than the library's call: float32 rounding)
            bound = 1e-12 if name == "metricx" else FLOAT32_BOUND[name]
            assert got[name]["score"] == pytest.approx(expected.score, abs=bound), name
            assert got[name]["signature"] == expected.signature
            assert np.abs(np.asarray(got[name]["segments"]) - expected.segments).max() <= bound, name
        assert got["bleu"]["score"] == pytest.approx(nlpeval.bleu(t[key], t["ref"]).score, abs=1e-12)


def test_sources_and_references_are_embedded_once_for_all_systems(files: dict[str, str], capsys, monkeypatch) -> None:
    from nlpeval.metrics.bertscore.encoder import Encoder
    from nlpeval.metrics.comet import model as comet_model

    seen: dict[str, int] = {"comet": 0, "bertscore": 0}
    pooled, embed = comet_model.pooled_embeddings, Encoder.embed

    def count_pooled(model, ids, **kwargs):
        seen["comet"] += len(ids)
        return pooled(model, ids, **kwargs)

    def count_embed(self, ids, *args, **kwargs):
        seen["bertscore"] += len(ids)
        return embed(self, ids, *args, **kwargs)

    monkeypatch.setattr(comet_model, "pooled_embeddings", count_pooled)
    monkeypatch.setattr(Encoder, "embed", count_embed)
    t = texts()
    run_json(["-m", "comet,bertscore", "--src", files["src"], "-r", files["ref"], *MODEL_FLAGS, files["a"],
              files["b"], files["a"]], capsys)  # fmt: skip
    a, b = set(t["a"]), set(t["b"])
    # every distinct text of the three systems (the third is the first again), the sources and the references once,
    # in one pool
    assert seen["comet"] == len(set(t["src"]) | set(t["ref"]) | a | b)
    assert seen["bertscore"] == len(set(t["ref"]) | a | b)


def test_needs_sources_and_models_are_one_line_errors(files: dict[str, str], capsys, tmp_path: Path) -> None:
    ref, a = files["ref"], files["a"]
    assert "comet needs the sources: give --src SRC" in run_error(["-m", "comet", "-r", ref, *MODEL_FLAGS, a], capsys)
    assert "metricx needs the sources" in run_error(["-m", "bleu,metricx", "-r", ref, *MODEL_FLAGS, a], capsys)
    err = run_error(["-m", "bertscore", "-r", ref, a], capsys)
    assert "BERTScore needs a model: give --bertscore-model PATH" in err
    err = run_error(["-m", "comet", "--src", files["src"], "-r", ref, a], capsys)
    assert "COMET needs a model: give --comet-model PATH" in err
    broken = tmp_path / "no-encoder"
    shutil.copytree(COMET_TINY, broken, ignore=shutil.ignore_patterns("encoder"))
    err = run_error(["-m", "comet", "--src", files["src"], "-r", ref, "--comet-model", str(broken), a], capsys)
    assert "COMET encoder './encoder'" in err and "not found: looked for" in err
    err = run_error(["-m", "comet", "--src", files["src"], "-r", ref, "-r", ref, "--comet-model", str(COMET_TINY), a],
                    capsys)  # fmt: skip
    assert "comet takes one reference per segment" in err


def test_bad_sources_name_the_file_and_line(files: dict[str, str], capsys, tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("".join(line + "\n" for line in texts()["src"][:-1]), encoding="utf-8")
    args = ["-m", "comet", "-r", files["ref"], "--comet-model", str(COMET_TINY), files["a"]]
    err = run_error(["--src", str(short), *args], capsys)
    assert f"{short} has {N - 1} lines" in err and "segment counts differ" in err
    bad = tmp_path / "bad.txt"
    lines = [line.encode() for line in texts()["src"]]
    lines[6] = b"\xff\xfe broken"
    bad.write_bytes(b"".join(line + b"\n" for line in lines))
    err = run_error(["--src", str(bad), *args], capsys)
    assert err.startswith(f"nlpeval score: error: {bad}:7:"), err


def test_metricx_qe_scores_without_references(files: dict[str, str], capsys) -> None:
    scores = run_json(["-m", "metricx-qe", "--src", files["src"], *MODEL_FLAGS, files["a"]], capsys)
    t = texts()
    expected = nlpeval.metricx(t["a"], None, sources=t["src"], model=FIXTURES / "metricx-tiny",
                               tokenizer=FIXTURES / "metricx-tokenizer", max_input_length=48)  # fmt: skip
    assert scores[files["a"]]["metricx-qe"]["score"] == pytest.approx(expected.score, abs=1e-12)


def test_batch_size_and_order_change_scores_only_by_float32_rounding(files: dict[str, str], capsys, tmp_path) -> None:
    t = texts()
    order = np.random.default_rng(7).permutation(N)
    for key in ("src", "ref", "a"):
        (tmp_path / f"shuffled-{key}.txt").write_text("".join(t[key][i] + "\n" for i in order), encoding="utf-8")
    shuffled = {key: str(tmp_path / f"shuffled-{key}.txt") for key in ("src", "ref", "a")}
    base = ["-m", "comet,bertscore,metricx", "--segments", *MODEL_FLAGS]
    runs = []
    for size, inputs in (("1", files), ("64", files), ("64", shuffled)):
        sizes = ["--comet-batch-size", size, "--bertscore-batch-size", size, "--metricx-batch-size", size]
        scores = run_json([*base, *sizes, "--src", inputs["src"], "-r", inputs["ref"], inputs["a"]], capsys)
        runs.append(scores[inputs["a"]])
    for name in ("comet", "bertscore", "metricx"):
        one, many, unsorted = (np.asarray(run[name]["segments"]) for run in runs)
        assert np.abs(one - many).max() <= FLOAT32_BOUND[name], name
        assert np.abs(unsorted - many[order]).max() <= FLOAT32_BOUND[name], name
        assert runs[0][name]["signature"] == runs[1][name]["signature"]  # batch size is not in the signature


def _refuse(*args, **kwargs):
    raise AssertionError("network access attempted")


def test_no_network_request_with_hub_names_from_the_local_cache(files, capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name, folder in (("Unbabel/tiny-comet", COMET_TINY), ("org/bert-tiny", FIXTURES / "bert-tiny"),
                         ("google/metricx-tiny", FIXTURES / "metricx-tiny"),
                         ("google/mt5-tiny", FIXTURES / "metricx-tokenizer")):  # fmt: skip
        repo = tmp_path / "hf" / "hub" / ("models--" + name.replace("/", "--"))
        shutil.copytree(folder, repo / "snapshots" / "abc123")
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    args = ["-m", "comet,bertscore,metricx", "--src", files["src"], "-r", files["ref"], "--comet-model",
            "Unbabel/tiny-comet", "--bertscore-model", "org/bert-tiny", "--bertscore-num-layers", "2",
            "--metricx-model", "google/metricx-tiny", "--metricx-tokenizer", "google/mt5-tiny",
            "--metricx-max-input-length", "48", files["a"]]  # fmt: skip
    by_name = run_json(args, capsys)[files["a"]]
    t = texts()
    assert by_name["comet"]["score"] == pytest.approx(
        nlpeval.comet(t["a"], t["ref"], sources=t["src"], model=COMET_TINY).score, abs=1e-12
    )
    err = run_error([*args[:-1], "--comet-model", "Unbabel/wmt22-comet-da", files["a"]], capsys)
    assert "'Unbabel/wmt22-comet-da' not found" in err and "models--Unbabel--wmt22-comet-da" in err


def test_cache_reuses_segment_scores_privately(files: dict[str, str], capsys, tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "cache"
    args = ["-m", "comet,bertscore", "--segments", "--src", files["src"], "-r", files["ref"], *MODEL_FLAGS]
    first = run_json([*args, "--cache", str(folder), files["a"]], capsys)
    plain = run_json([*args, files["a"]], capsys)
    assert first == plain
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    shards = sorted(folder.glob("*/*.bin"))
    assert len({p.parent for p in shards}) == 2  # one folder per metric identity
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in shards)

    from nlpeval.metrics.bertscore import BERTScore
    from nlpeval.metrics.comet import COMET

    def fail(*args, **kwargs):
        raise AssertionError("a cached segment was computed again")

    with monkeypatch.context() as patch:
        patch.setattr(COMET, "segment_stats", fail)
        patch.setattr(BERTScore, "segment_stats", fail)
        again = run_json([*args, "--cache", str(folder), files["a"]], capsys)
    assert again == first
    shards[0].write_bytes(shards[0].read_bytes()[:-3])  # cut short: ignored and recomputed
    recomputed = run_json([*args, "--cache", str(folder), files["a"]], capsys)[files["a"]]
    # the shard's segments are computed again in other batches than the first run's: float32 rounding
    for name, score in first[files["a"]].items():
        assert recomputed[name]["signature"] == score["signature"]
        gap = np.abs(np.array(recomputed[name]["segments"]) - np.array(score["segments"])).max()
        assert gap <= FLOAT32_BOUND[name], (name, gap)
    # another option is another identity: nothing is reused across it
    other = run_json([*args, "--bertscore-idf", "--cache", str(folder), files["a"]], capsys)
    assert len({p.parent for p in folder.glob("*/*.bin")}) == 3
    assert other[files["a"]]["comet"] == recomputed["comet"]  # COMET read from the cache as it now is


def test_cache_is_bounded_and_keyed_by_the_texts(tmp_path: Path) -> None:
    from nlpeval.metrics.comet import COMET
    from nlpeval.neural.cache import SegmentCache

    t = texts()
    metric = COMET(model=COMET_TINY)
    cache = SegmentCache(tmp_path / "c", max_bytes=1500)
    stats = cache.stats(metric, t["a"], t["ref"], t["src"])
    direct = COMET(model=COMET_TINY).segment_stats(t["a"], t["ref"], sources=t["src"])
    assert np.array_equal(stats.rows, direct.rows)
    size = sum(p.stat().st_size for p in (tmp_path / "c").glob("*/*.bin"))
    assert 0 < size <= 1500
    edited = [*t["a"][:-1], t["a"][-1] + " x"]
    cache.hits = cache.misses = 0
    cache.stats(metric, edited, t["ref"], t["src"])
    assert cache.misses >= 1


def test_progress_bar_on_a_terminal_leaves_the_scores_unchanged(files: dict[str, str], capsys, monkeypatch) -> None:
    args = ["-m", "comet", "--src", files["src"], "-r", files["ref"], "--comet-model", str(COMET_TINY), files["a"]]
    quiet = run_json(args, capsys)
    monkeypatch.setenv("NLPEVAL_PROGRESS", "1")
    assert main(["score", "-f", "json", *args]) == 0
    captured = capsys.readouterr()
    assert "segments" in captured.err and "comet" in captured.err
    assert {s["name"]: s["scores"] for s in json.loads(captured.out)["systems"]} == quiet
    assert os.environ["NLPEVAL_PROGRESS"] == "1"


def test_report_shows_comet_with_intervals_and_paired_tests(files: dict[str, str], capsys, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    argv = ["report", "-q", "-m", "bleu,comet", "--src", files["src"], "-r", files["ref"], files["a"], files["b"],
            "--comet-model", str(COMET_TINY), "-f", "json", "-o", str(out)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    board = json.loads(out.read_text(encoding="utf-8"))["leaderboard"]
    t = texts()
    expected = {key: nlpeval.comet(t[key], t["ref"], sources=t["src"], model=COMET_TINY).score for key in ("a", "b")}
    cells = {(c["system"], c["metric"]): c["estimate"] for c in board["cells"]}
    for key, name in (("a", "a.txt"), ("b", "b.txt")):
        estimate = cells[(name, "comet")]
        # the texts of both systems, sources and references embedded ahead in one pool: float32 rounding
        assert estimate["value"] == pytest.approx(expected[key], abs=FLOAT32_BOUND["comet"])
        assert estimate["n"] == N and estimate["low"] < estimate["value"] < estimate["high"]
    (test,) = [row for row in board["vs_baseline"] if row["metric"] == "comet"]
    assert test["difference"] == pytest.approx(expected["b"] - expected["a"], abs=FLOAT32_BOUND["comet"])
    assert 0 < test["p_bootstrap"] <= 1 and 0 < test["p_randomization"] <= 1
    assert test["ci_low"] < test["difference"] < test["ci_high"]
    # the library's report takes the model as a metric option
    report = nlpeval.report({"a": t["a"], "b": t["b"]}, t["ref"], sources=t["src"], metrics=["comet"],
                            metric_options={"comet_model": COMET_TINY}, n_bootstrap=200, n_randomization=200)  # fmt: skip
    (cell,) = [c for c in report.leaderboard.cells if c.system == "a"]
    # float32 rounding (one pool of both systems' texts, as the CLI's report above)
    assert cell.estimate.value == pytest.approx(expected["a"], abs=FLOAT32_BOUND["comet"])
    code = main(["report", "-q", "-m", "comet", "-r", files["ref"], files["a"], "--comet-model", str(COMET_TINY)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "comet needs the sources" in err, err


def test_comet_with_a_reference_free_checkpoint_needs_no_references(files: dict[str, str], capsys) -> None:
    kiwi = FIXTURES / "cometkiwi-tiny"
    scores = run_json(["-m", "comet", "--src", files["src"], "--comet-model", str(kiwi), files["a"]], capsys)
    t = texts()
    expected = nlpeval.comet(t["a"], None, sources=t["src"], model=kiwi)
    assert scores[files["a"]]["comet"]["score"] == pytest.approx(expected.score, abs=1e-12)
    err = run_error(["-m", "comet", "--src", files["src"], "--comet-model", str(COMET_TINY), files["a"]], capsys)
    assert "needs references" in err  # a reference-based checkpoint says what it misses
