"""``nlpeval score``'s NumPy-free path (cli/fastscore.py): the same output as the metric objects, no NumPy."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

from nlpeval.cli import fastmeteor, fastscore
from nlpeval.cli.main import main
from nlpeval.metrics.bleu.sacrebleu import SMOOTH_DEFAULTS
from nlpeval.tokenizers import NATIVE_TOKENIZERS

_FAST_METRICS = fastscore.fast_metrics
_WORDS = ["the", "cat", "sat", "on", "a", "mat", "Haus", "straße", "über", "naïve", "東京", "是", "!", ",", "."]


def _lines(rng: random.Random, n: int) -> list[str]:
    lines = []
    for _ in range(n):
        length = rng.choice([0, 1, 2, 5, 9, 14, 30])
        lines.append(" ".join(rng.choice(_WORDS) for _ in range(length)) + rng.choice(["", " ", "\r", "  ."]))
    return lines


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("fast")
    rng = random.Random(7)
    files = {}
    for name in ("ref", "ref2", "sys", "sys2"):
        path = folder / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in _lines(rng, 60)), encoding="utf-8")
        files[name] = str(path)
    empty = folder / "empty-lines.txt"  # every hypothesis empty: zero lengths and counts everywhere
    empty.write_text("\n" * 60, encoding="utf-8")
    files["empty"] = str(empty)
    return files


def _both(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(fast path output, metric-object output) of one command line; the fast path must be taken."""
    taken = []
    original = _FAST_METRICS

    def spy(names, options):
        taken.append(original(names, options))
        return taken[-1]

    monkeypatch.setattr(fastscore, "fast_metrics", spy)
    assert main(args) == 0
    fast = capsys.readouterr().out
    assert taken and taken[-1] is not None, "the fast path was not taken"
    monkeypatch.setattr(fastscore, "fast_metrics", lambda names, options: None)
    assert main(args) == 0
    return fast, capsys.readouterr().out


OPTIONS = [
    [],
    ["-lc"],
    *(["--tokenize", tok] for tok in NATIVE_TOKENIZERS),
    ["--smooth", "floor"],
    ["--smooth", "floor", "--smooth-value", "0.3"],
    ["--smooth", "add-k", "--smooth-value", "2"],
    ["--smooth", "none", "--effective-order"],
    ["--max-order", "2"],
    ["--max-order", "7", "--effective-order"],
    ["--chrf-char-order", "3", "--chrf-word-order", "1"],
    ["--chrf-beta", "1"],
    ["--chrf-beta", "0"],
    ["--chrf-beta", "1.5", "--chrf-whitespace"],
    ["--chrf-eps-smoothing"],
    ["--chunk-size", "7"],
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: " ".join(o) or "defaults")
def test_fast_path_equals_the_metric_objects(
    options: list[str], corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    refs = ["-r", corpus["ref"], "-r", corpus["ref2"]]
    for fmt in ("json", "text"):
        args = ["score", *refs, "-m", "bleu,chrf,chrf++", "--format", fmt, *options, corpus["sys"], corpus["sys2"]]
        fast, slow = _both(args, capsys, monkeypatch)
        assert fast == slow


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex"])
def test_every_format_and_adversarial_input(
    fmt: str, corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for system, ref in ((corpus["empty"], corpus["ref"]), (corpus["sys"], corpus["empty"])):
        args = ["score", "-r", ref, "-m", "chrf,bleu", "--format", fmt, system]
        fast, slow = _both(args, capsys, monkeypatch)
        assert fast == slow


def test_values_equal_sacrebleu_bit_for_bit(
    corpus: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    hyps = Path(corpus["sys"]).read_text(encoding="utf-8").split("\n")[:-1]
    refs = [Path(corpus[k]).read_text(encoding="utf-8").split("\n")[:-1] for k in ("ref", "ref2")]
    args = ["score", "-r", corpus["ref"], "-r", corpus["ref2"], "-m", "bleu,chrf++", "-f", "json", corpus["sys"]]
    fast, _ = _both(args, capsys, monkeypatch)
    scores = json.loads(fast)["systems"][0]["scores"]
    assert scores["bleu"]["score"] * 100 == pytest.approx(sacrebleu.corpus_bleu(hyps, refs).score, rel=1e-15)
    chrf = sacrebleu.CHRF(word_order=2).corpus_score(hyps, refs).score
    assert scores["chrf++"]["score"] * 100 == pytest.approx(chrf, rel=1e-15)


def test_real_data(shared_data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = shared_data / "wmt17-en-de"
    args = ["score", "-r", str(folder / "reference.de"), "-m", "bleu,chrf", "-f", "json"]
    fast, slow = _both([*args, str(folder / "online-B.0.de"), str(folder / "uedin-nmt.4722.de")], capsys, monkeypatch)
    assert fast == slow


def test_the_native_formulas_take_a_list_as_an_array() -> None:
    """The fast path hands the totals to the metric objects' one-totals formulas as a list."""
    from nlpeval import _native

    bleu_totals = [17, 19, 19, 9, 4, 2, 0, 17, 16, 15, 14, 1, 1]
    for smooth, value in (("exp", None), ("floor", 0.1), ("add-k", 1.0), ("none", None)):
        for effective in (False, True):
            args = (4, smooth, value, effective)
            assert _native.bleu_totals_values(bleu_totals, *args) == _native.bleu_totals_values(
                np.array(bleu_totals, dtype=np.int64), *args
            )
    chrf_totals = [30, 28, 20, 27, 25, 12, 0, 3, 0, 1, 2]
    for eps in (False, True):
        assert _native.chrf_totals_parts(chrf_totals[:9], 3, 4.0, eps) == _native.chrf_totals_parts(
            np.array(chrf_totals[:9], dtype=np.int64), 3, 4.0, eps
        )
    with pytest.raises(TypeError):
        _native.bleu_totals_values([1.5, 2, 3], 1, "exp", None, False)


def test_options_outside_the_fast_path_take_the_metric_objects(corpus: dict[str, str]) -> None:
    from nlpeval.cli.main import build_parser

    parser = build_parser(["score"])
    base = ["score", "-r", corpus["ref"], corpus["sys"]]
    for extra in (
        ["-m", "bleu", "--segments"],
        ["-m", "bleu", "--bootstrap", "10"],
        ["-m", "bleu", "--bleu-flavor", "nltk"],
        ["-m", "bleu", "--smooth", "method1"],
        ["-m", "bleu", "--max-order", "8"],
        ["-m", "chrf", "--chrf-char-order", "0"],
        ["-m", "chrf", "--chrf-beta", str(2**27)],
        ["-m", "bleu,ter"],
    ):
        options = parser.parse_args([*base, *extra])
        assert fastscore.fast_metrics(options.metrics.split(","), options) is None, extra
    # values no metric takes never reach either path: the parser refuses them, naming the flag
    for extra in (
        ["-m", "bleu", "--max-order", "0"],
        ["-m", "bleu", "--smooth", "floor", "--smooth-value", "inf"],
        ["-m", "chrf", "--chrf-beta", "-1"],
        ["-m", "chrf", "--chrf-beta", "nan"],
    ):
        with pytest.raises(SystemExit):
            parser.parse_args([*base, *extra])
    options = parser.parse_args([*base, "-m", "chrf++,bleu", "-lc", "--tokenize", "intl"])
    assert set(fastscore.fast_metrics(["chrf++", "bleu"], options)) == {"chrf++", "bleu"}


def test_settings_have_one_home() -> None:
    """The fast path and the metric objects read the same plain-Python modules (no copies)."""
    from nlpeval.metrics.bleu import fields as bleu_fields
    from nlpeval.metrics.chrf import fields as chrf_fields
    from nlpeval.metrics.chrf import sacrebleu as chrf_sacrebleu

    assert SMOOTH_DEFAULTS is bleu_fields.SMOOTH_DEFAULTS is fastscore.bleu_fields.SMOOTH_DEFAULTS
    assert chrf_sacrebleu.check_options is chrf_fields.check_options is fastscore.chrf_fields.check_options
    assert fastscore._NATIVE == NATIVE_TOKENIZERS
    for module in (fastscore, fastmeteor):
        source = Path(module.__file__).read_text(encoding="utf-8")
        for copied in (
            "SMOOTH_DEFAULTS",
            '"brevity_penalty"',
            '"char_precisions"',
            "def signature_text",
            "class CorpusScore",
        ):
            assert copied not in source, (module.__name__, copied)


@pytest.mark.parametrize(
    "fields",
    [
        {"nrefs": "1", "case": "mixed", "eff": False, "tok": "13a", "smooth": "exp", "flavor": "sacrebleu"},
        {"nrefs": "var", "case": "lc", "eff": True, "nc": 6, "nw": 2, "space": False, "beta": None, "flavor": "x"},
        {"beta": 1.5, "nc": 0, "smooth": "floor[0.10]"},
        {},
    ],
)
def test_signature_text_is_the_signature_of_the_metric_objects(fields: dict) -> None:
    from nlpeval.core.signature import Signature
    from nlpeval.core.signature_text import signature_text

    assert signature_text(**fields) == str(Signature.build(**fields))


def _imports_after(code: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(fastscore.__file__).resolve().parents[2])},
    ).stdout
    return out.split()


def test_score_bleu_chrf_never_imports_numpy(corpus: dict[str, str]) -> None:
    """The import structure of a whole ``nlpeval score -m bleu,chrf`` process: no NumPy, no metric
    module but the families' plain-Python ``fields`` modules (and their packages), no dataclasses
    (nor inspect, which they import)."""
    code = (
        "import io, sys, contextlib\n"
        "from nlpeval.cli.main import main\n"
        f"args = ['score', '-r', {corpus['ref']!r}, '-m', METRICS, '-f', 'json', {corpus['sys']!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(args) == 0\n"
        "heavy = ('numpy', 'nlpeval.core.stats', 'nlpeval.core.metric', 'dataclasses')\n"
        # the registry (nlpeval.metrics.registry and its entry modules) is read; no metric module is imported
        "registry = ('nlpeval.metrics.registry', 'nlpeval.metrics.entries')\n"
        "fields = {f'nlpeval.metrics.{family}{part}' for family in ('bleu', 'chrf') for part in ('', '.fields')}\n"
        "metric_code = [m for m in sys.modules if m.startswith('nlpeval.metrics.') and not m.startswith(registry)\n"
        "               and m not in fields]\n"
        "print('loaded:', *sorted(m for m in heavy if m in sys.modules), *sorted(metric_code))\n"
    )
    for metrics in ("'chrf,chrf++'", "'bleu,chrf'", "'bleu'"):
        assert _imports_after(code.replace("METRICS", metrics)) == ["loaded:"], metrics


@pytest.mark.parametrize(
    "data",
    [b"", b"a\n", b"a", b"a\nb", b"\n\n", b"a\r\n\xc3\xa9\n\n\xe2\x80\xa8x\n", b"ok\nbad \xc3\nmore\n", b"\xff\n"],
)
@pytest.mark.parametrize("size", [1, 2, 20_000])
def test_chunks_are_the_lines_a_line_by_line_decode_reads(data: bytes, size: int, tmp_path: Path) -> None:
    from nlpeval.cli.errors import UsageError
    from nlpeval.cli.io import open_segments

    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    expected: list[str] = []
    error = None
    raw_lines = data.split(b"\n")
    if raw_lines[-1] == b"":  # after the last newline (or an empty file)
        raw_lines.pop()
    for number, raw in enumerate(raw_lines, 1):
        try:
            expected.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            error = f"{path}:{number}: invalid UTF-8 ({exc.reason} at byte {exc.start})"
            break
    got: list[str] = []
    with open_segments(str(path)) as lines:
        try:
            while chunk := lines.read_chunk(size):
                assert len(chunk) <= size
                got += chunk
        except UsageError as exc:
            assert str(exc) == error
            return
    assert error is None and got == expected and lines.lines_read == len(expected)


@pytest.mark.parametrize("ref_key", ["ref", "missing"])
def test_a_whole_process_runs_the_exit_callbacks_and_keeps_its_exit_code(ref_key: str, corpus: dict[str, str]) -> None:
    """``python -m nlpeval score`` ends without the interpreter's teardown, but after its atexit callbacks."""
    ref = corpus.get(ref_key, corpus["ref"] + ".missing")
    code = (
        "import atexit, sys\n"
        "atexit.register(print, 'exit callback')\n"
        f"sys.argv = ['nlpeval', 'score', '-r', {ref!r}, '-m', 'chrf', {corpus['sys']!r}]\n"
        "from nlpeval.cli.main import run\n"
        "run()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(fastscore.__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env)
    assert proc.stdout.endswith("exit callback\n")
    if ref_key == "ref":
        assert proc.returncode == 0 and proc.stdout.startswith("system") and proc.stderr == ""
    else:
        assert proc.returncode == 2 and proc.stdout == "exit callback\n"
        assert proc.stderr == f"nlpeval score: error: cannot read {ref}: No such file or directory\n"


@pytest.mark.parametrize("delay", [60.0, 0.0])
def test_a_terminal_bar_imports_tqdm_only_when_it_is_drawn(delay: float) -> None:
    """At a terminal a bar shows after half a second: a quicker run never imports tqdm."""
    code = (
        "import sys\n"
        "from nlpeval.core.progress import _LateBar\n"
        "options = {'total': 3, 'desc': 'LATE-BAR', 'unit': 'it', 'leave': False, 'file': sys.stderr}\n"
        f"with _LateBar(options, delay={delay}) as bar:\n"
        "    bar.set_postfix_str('POSTFIX')\n"
        "    bar.update(2)\n"
        "    bar.update(1)\n"
        "print('tqdm' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(fastscore.__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    if delay:
        assert proc.stdout == "False\n" and proc.stderr == ""
    else:
        assert proc.stdout == "True\n" and "LATE-BAR" in proc.stderr and "POSTFIX" in proc.stderr
        assert "2/3" in proc.stderr  # drawn at the update that found the delay passed
