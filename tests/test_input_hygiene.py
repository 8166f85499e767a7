"""Issue 28's defect table, one case each: bounded reads, inputs read once, strict CSV, deep JSON, ordered inputs."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import nlpeval
from nlpeval.core.errors import InputError

ENV = {**os.environ, "PYTHONPATH": str(Path(nlpeval.__file__).resolve().parents[1])}


def cli(cwd: Path, *args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "nlpeval", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=ENV,
        check=False,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "r.txt").write_text("the cat sat on the mat\nthe dog ran\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("the cat sat on a mat\nthe dog ran\n", encoding="utf-8")
    return tmp_path


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def test_dev_zero_is_refused_after_the_line_limit_with_bounded_memory(folder: Path) -> None:
    # /dev/zero has no newline: the read stops at the limit (1 MiB here) instead of growing without end
    result = cli(folder, "score", "-r", "r.txt", "/dev/zero", "--max-line-bytes", str(2**20), timeout=30)
    assert one_line_error(result) == (
        "nlpeval score: error: /dev/zero:1: line longer than 1,048,576 bytes (raise the limit with --max-line-bytes)\n"
    )


def test_a_long_line_names_its_file_and_line_and_the_limit_can_be_raised(folder: Path) -> None:
    (folder / "long.txt").write_text("short\n" + "x " * 600 + "\n", encoding="utf-8")
    (folder / "two.txt").write_text("a\nb\n", encoding="utf-8")
    refused = cli(folder, "score", "-r", "two.txt", "long.txt", "--max-line-bytes", "1000")
    assert "long.txt:2: line longer than 1,000 bytes" in one_line_error(refused)
    assert cli(folder, "score", "-r", "two.txt", "long.txt", "--max-line-bytes", "2000").returncode == 0
    refused = one_line_error(cli(folder, "score", "-r", "two.txt", "long.txt", "--max-line-bytes", "0"))
    assert "--max-line-bytes" in refused and "at least 1" in refused


def test_stdin_as_reference_is_read_once_and_shared_by_every_system(folder: Path) -> None:
    stdin = (folder / "r.txt").read_bytes()
    result = cli(folder, "score", "-m", "chrf", "-f", "json", "-r", "-", "s.txt", "r.txt", stdin=stdin)
    assert result.returncode == 0, result.stderr
    import json

    scores = {row["name"]: row["scores"]["chrf"]["score"] for row in json.loads(result.stdout)["systems"]}
    assert scores["r.txt"] == 1.0
    assert (
        scores["s.txt"]
        == nlpeval.chrf(["the cat sat on a mat", "the dog ran"], ["the cat sat on the mat", "the dog ran"]).score
    )


def test_a_named_fifo_as_reference_is_read_once_for_every_system(folder: Path) -> None:
    fifo = folder / "ref.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes((folder / "r.txt").read_bytes()))
    writer.start()
    result = cli(folder, "score", "-m", "chrf", "-r", "ref.fifo", "s.txt", "r.txt", timeout=30)
    writer.join(timeout=5)
    assert result.returncode == 0, result.stderr
    assert "100.00" in result.stdout


def test_an_unterminated_csv_quote_is_named_at_its_row(folder: Path) -> None:
    rows = ["hyp,ref"] + [f"h{i},r{i}" for i in range(48)] + ['"h48,r48'] + [f"h{i},r{i}" for i in range(49, 60)]
    (folder / "data.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = cli(folder, "score", "data.csv", "--hyp-col", "hyp", "--ref-col", "ref")
    assert one_line_error(result) == (
        "nlpeval score: error: data.csv:50: unexpected end of data (a quote opened here is never closed)\n"
    )


def test_a_stray_quote_after_a_quoted_cell_is_an_error(folder: Path) -> None:
    (folder / "data.csv").write_text('hyp,ref\n"a"b,c\n', encoding="utf-8")
    assert "data.csv:2: ',' expected after '\"'" in one_line_error(
        cli(folder, "score", "data.csv", "--hyp-col", "hyp", "--ref-col", "ref")
    )


def test_deeply_nested_json_is_one_line(folder: Path) -> None:
    (folder / "deep.jsonl").write_text("[" * 100_000 + "\n", encoding="utf-8")
    result = cli(folder, "score", "deep.jsonl", "--hyp-col", "hyp", "--ref-col", "ref")
    assert one_line_error(result) == "nlpeval score: error: deep.jsonl:1: JSON nested too deeply\n"


def test_a_dataframe_of_references_is_refused_and_its_column_accepted() -> None:
    import pandas

    frame = pandas.DataFrame({"ref": ["a b c", "d e f"]})
    with pytest.raises(InputError, match=r"^references: got a DataFrame, whose items are its column names"):
        nlpeval.ter(["a b c", "d e f"], frame)
    assert nlpeval.ter(["a b c", "d e f"], frame["ref"]).score == 0.0


@pytest.mark.parametrize("unordered", [{"a b", "c d"}, frozenset({"a b", "c d"}), {"a b": 1, "c d": 2}])
def test_unordered_hypotheses_are_refused(unordered: object) -> None:
    with pytest.raises(InputError, match=r"^hypotheses: got a (set|dict), which has no order"):
        nlpeval.bleu(unordered, ["a b", "c d"])  # type: ignore[arg-type]


def test_a_score_matrix_too_large_to_allocate_is_a_memory_error_not_an_abort() -> None:
    sentences = ["a b c d"] * 400_000  # 400,000 x 400,000 doubles: 1.2 TB
    for pairwise in (nlpeval.pairwise_bleu, nlpeval.pairwise_chrf):
        with pytest.raises(MemoryError, match=r"^the 400000 x 400000 score matrix is too large: cannot allocate"):
            pairwise(sentences, sentences)
    assert nlpeval.pairwise_bleu(sentences[:3], sentences[:2]).shape == (3, 2)  # the process lives on


def test_an_absurd_ngram_order_is_refused_before_any_allocation(folder: Path) -> None:
    with pytest.raises(ValueError, match=r"^max_order must be an int from 1 to 100; got 10000000$"):
        nlpeval.bleu(["a b"], ["a b"], max_order=10_000_000)
    with pytest.raises(ValueError, match=r"^weights must hold at most 100 numbers"):
        nlpeval.bleu(["a b"], ["a b"], flavor="nltk", weights=[0.001] * 1000)
    result = cli(folder, "score", "-r", "r.txt", "s.txt", "--max-order", "10000000")
    assert "max_order must be an int from 1 to 100" in one_line_error(result)


@pytest.mark.parametrize("block_cells", [1000, 37 * 33])
def test_resampling_in_bounded_blocks_draws_exactly_what_one_call_draws(
    monkeypatch: pytest.MonkeyPatch, block_cells: int
) -> None:
    from nlpeval.significance import bootstrap

    metric = nlpeval.BLEU()
    refs = [f"the cat sat on the mat number {i}" for i in range(37)]
    a = metric.segment_stats([f"the cat sat on mat {i}" for i in range(37)], refs)
    b = metric.segment_stats([f"a cat sat on the mat number {i}" for i in range(37)], refs)

    def run() -> tuple:
        return (
            nlpeval.bootstrap_interval(metric, a, n_resamples=500, seed=3),
            nlpeval.paired_bootstrap(metric, a, b, n_resamples=500, seed=3),
            nlpeval.approximate_randomization(metric, a, b, n_trials=500, seed=3),
        )

    whole = run()
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", block_cells)  # 27 or 33 resamples a block instead of one block
    assert run() == whole


def test_every_kernel_that_returns_arrays_imports_numpy_from_python_first() -> None:
    """An interrupt during NumPy's first import must be a KeyboardInterrupt, not a panic inside a kernel."""
    import ast

    from nlpeval import _native

    stub = ast.parse((Path(_native.__file__).parent / "_core.pyi").read_text(encoding="utf-8"))
    returning_arrays = {
        node.name
        for node in stub.body
        if isinstance(node, ast.FunctionDef) and "NDArray" in ast.unparse(node.returns or ast.Constant(None))
    }
    assert returning_arrays <= _native.ARRAY_KERNELS
    assert not returning_arrays & _native.NUMPY_FREE
    code = "import sys; from nlpeval import _native; _native.bleu_totals(['a'], [['a']], '13a', 4); "
    code += "print('numpy' in sys.modules); _native.ter_stats(['a b'], [['a b']]); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True).stdout
    assert out.split() == ["False", "True"]


EVIL = "evil\n\\input{secret}\r.txt"


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv"])
@pytest.mark.parametrize("command", ["score", "report"])
def test_a_file_name_with_a_newline_stays_one_visible_line_in_every_format(
    folder: Path, command: str, fmt: str
) -> None:
    (folder / EVIL).write_bytes((folder / "s.txt").read_bytes())
    (folder / "=cmd.txt").write_bytes((folder / "s.txt").read_bytes())
    if command == "report" and fmt == "csv":
        fmt = "text"  # the report has no CSV: its text tables instead
    args = [command, "-q", "-r", "r.txt", EVIL, "=cmd.txt", "-f", fmt]
    result = cli(folder, *args)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    escaped = "evil\\n\\input{secret}\\r.txt"
    if fmt == "latex":
        escaped = "evil\\textbackslash{}n\\textbackslash{}input\\{secret\\}\\textbackslash{}r.txt"
    assert any(escaped in line for line in lines), result.stdout
    # no line starts with the injected text: every line that mentions it is a whole row or comment
    assert not any(line.startswith(("\\input", "input{")) for line in lines)
    assert "\r" not in result.stdout
    if fmt == "csv":
        assert "'=cmd.txt," in result.stdout and "\n=cmd.txt" not in result.stdout


@pytest.mark.parametrize("flavor", ["meteor1.5", "nltk"])
def test_a_lone_surrogate_in_meteor_input_names_the_segment(flavor: str) -> None:
    with pytest.raises(InputError, match=r"^hypotheses: segment 1: is not valid Unicode text"):
        nlpeval.meteor(
            ["a b", "a \ud800 b"], ["a b", "a b"], flavor=flavor, modules=["exact"] if flavor != "nltk" else None
        )
    with pytest.raises(InputError, match=r"^references: segment 0 \(reference 0\): is not valid Unicode text"):
        nlpeval.meteor(["a b"], ["a \udc80"], flavor=flavor, modules=["exact"] if flavor != "nltk" else None)


def test_a_fractional_bootstrap_count_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^n_bootstrap must be a non-negative integer; got 2.5$"):
        nlpeval.bleu(["a b c d"], ["a b c d"], n_bootstrap=2.5)  # type: ignore[arg-type]


def test_dask_giving_up_on_a_task_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import KilledWorker

    from nlpeval.cli import engine
    from nlpeval.cli.errors import UsageError

    class Future:
        def result(self) -> None:
            raise KilledWorker(task="score-partition-3", last_worker=None, allowed_failures=3)

    class Client:
        def compute(self, lazy: object) -> Future:
            return Future()

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    with pytest.raises(UsageError, match=r"^Dask gave up: the workers running task 'score-partition-3' died 4 times"):
        engine._compute(Client(), None)


def test_zero_randomization_trials_still_give_the_one_call_result() -> None:
    """The blocked draws of zero trials are one empty block, as one generator call was (p = 1, no crash)."""
    metric = nlpeval.BLEU()
    refs = ["the cat sat on the mat"] * 5
    a = metric.segment_stats(["the cat sat"] * 5, refs)
    b = metric.segment_stats(["the cat sat on mat"] * 5, refs)
    assert nlpeval.approximate_randomization(metric, a, b, n_trials=0).p_value == 1.0
