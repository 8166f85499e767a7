"""``nlpeval score -m meteor``'s NumPy-free path (cli/fastmeteor.py): the metric object's output, no NumPy."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from nlpeval.cli import fastscore
from nlpeval.cli.main import main

_FAST_METRICS = fastscore.fast_metrics
# exact, stem (cats/cat, running/run), synonym (big/large, car/automobile) and paraphrase matches,
# function words, punctuation for -norm, mixed case for -lower, non-ASCII
_WORDS = ["The", "the", "cats", "cat", "running", "run", "big", "large", "car", "automobile", "a", "of",
          "in", "order", "to", "U.S.", "Mr.", "isn't", "\u201cnew\u201d", "--", "Stra\u00dfe", ",", "."]  # fmt: skip


def _lines(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.choice([0, 1, 3, 8, 15, 30]))) for _ in range(n)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("fastmeteor")
    rng = random.Random(11)
    files = {}
    for name in ("ref", "ref2", "sys", "sys2"):
        path = folder / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in _lines(rng, 40)), encoding="utf-8")
        files[name] = str(path)
    ted = shared_data / "compare-mt"
    for name in ("ted.ref.detok.eng", "ted.sys1.detok.eng"):  # real text: the first 300 TED segments
        lines = (ted / name).read_text(encoding="utf-8").split("\n")[:300]
        (folder / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        files[name] = str(folder / name)
    return files


def _both(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(fast path output, metric-object output) of one command line; the fast path must be taken."""
    taken = []

    def spy(names, options):
        taken.append(_FAST_METRICS(names, options))
        return taken[-1]

    monkeypatch.setattr(fastscore, "fast_metrics", spy)
    code = main(args)
    fast = capsys.readouterr()
    assert taken and taken[-1] is not None, "the fast path was not taken"
    monkeypatch.setattr(fastscore, "fast_metrics", lambda names, options: None)
    assert main(args) == code
    slow = capsys.readouterr()
    return fast.out + fast.err, slow.out + slow.err


OPTIONS = [
    [],
    ["--meteor-norm"],
    ["--meteor-norm", "--meteor-no-punct"],
    ["-lc"],
    ["--meteor-norm", "-lc", "--meteor-modules", "exact,stem"],
    ["--meteor-modules", "synonym paraphrase exact"],
    ["--meteor-task", "hter", "--meteor-modules", "exact,synonym"],
    ["--meteor-task", "adq", "--meteor-params", "0.5 1 0.3 0.9"],
    ["--meteor-weights", "1,0.5,0.5,0.25", "--meteor-beam", "3"],
    ["--meteor-norm", "--chunk-size", "7"],
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: " ".join(o) or "defaults")
def test_fast_path_equals_the_metric_object(
    options: list[str], corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    refs = ["-r", corpus["ref"], "-r", corpus["ref2"]]
    for fmt in ("json", "text"):
        args = ["score", *refs, "-m", "meteor", "--format", fmt, *options, corpus["sys"], corpus["sys2"]]
        fast, slow = _both(args, capsys, monkeypatch)
        assert fast == slow


@pytest.mark.parametrize("fmt", ["json", "text", "csv", "markdown", "latex"])
def test_real_data_every_format(
    fmt: str, corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["score", "-r", corpus["ted.ref.detok.eng"], "-m", "meteor,bleu", "--meteor-norm", "-f", fmt]
    fast, slow = _both([*args, corpus["ted.sys1.detok.eng"]], capsys, monkeypatch)
    assert fast == slow


def test_a_refused_pair_is_the_same_error(
    corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["score", "-r", corpus["ref"], "-r", corpus["ref2"], "-m", "meteor", "--meteor-max-candidates", "20"]
    fast, slow = _both([*args, "--chunk-size", "9", corpus["sys"]], capsys, monkeypatch)
    assert fast == slow
    assert "candidate word matches, more than max_candidates=20" in fast
    assert fast.startswith(f"nlpeval score: error: {corpus['sys']}:")


def test_options_outside_the_fast_path_take_the_metric_object(corpus: dict[str, str]) -> None:
    from nlpeval.cli.main import build_parser

    parser = build_parser(["score"])
    base = ["score", "-r", corpus["ref"], corpus["sys"], "-m", "meteor"]
    for extra in (
        ["--segments"],
        ["--bootstrap", "10"],
        ["--meteor-flavor", "nltk"],
        ["--meteor-modules", "exact,exact"],
        ["--meteor-modules", "exact,lemma"],
        ["--meteor-modules", ","],
        ["--meteor-params", "1 2 3"],
        ["--meteor-params", "a b c d"],
        ["--meteor-weights", "1 2"],
        ["--meteor-no-punct"],
    ):
        options = parser.parse_args([*base, *extra])
        assert fastscore.fast_metrics(["meteor"], options) is None, extra
    # values no metric takes never reach either path: the parser refuses them, naming the flag
    for extra in (["--meteor-beam", "0"], ["--meteor-max-candidates", "-1"]):
        with pytest.raises(SystemExit):
            parser.parse_args([*base, *extra])
    options = parser.parse_args([*base, "--meteor-norm", "-lc", "--meteor-task", "li"])
    assert set(fastscore.fast_metrics(["meteor", "chrf"], options)) == {"meteor", "chrf"}


def test_the_native_formula_of_a_list_is_the_metric_objects() -> None:
    """The fast path scores a totals list with the formula the metric object scores its arrays with."""
    import numpy as np

    from nlpeval import _native
    from nlpeval.metrics.meteor import METEOR

    metric = METEOR(modules=("exact", "stem"), task="adq")
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 40, size=(50, 13)).astype(np.float64)
    rows[:5] = 0  # empty segments: 0/0
    arrays = _native.meteor_rows_parts(rows, *metric.parameters, list(metric.module_weights))
    for row, parts in zip(rows, arrays, strict=True):
        one = _native.meteor_row_parts(row.tolist(), *metric.parameters, list(metric.module_weights))
        np.testing.assert_array_equal(np.array(one), parts)
        assert one[0] == float(metric.corpus_values(row))


def test_score_meteor_never_imports_numpy(corpus: dict[str, str]) -> None:
    """The import structure of a whole ``nlpeval score -m meteor`` process: no NumPy, no metric object."""
    code = (
        "import io, sys, contextlib\n"
        "from nlpeval.cli.main import main\n"
        f"args = ['score', '-r', {corpus['ref']!r}, '-m', 'meteor', '--meteor-norm', '-f', 'json', {corpus['sys']!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(args) == 0\n"
        "heavy = ('numpy', 'nlpeval.core.stats', 'nlpeval.core.metric', 'nlpeval.metrics.meteor.meteor15')\n"
        "print('loaded:', *sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(fastscore.__file__).resolve().parents[2])},
    ).stdout
    assert out.split() == ["loaded:"]
