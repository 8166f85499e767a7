"""Every command that writes a file says so on stderr (``nlpeval report: wrote r.html (0.26 MB)``), silent with -q."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nlpeval
from nlpeval.cli.main import main as cli_main

LINE = re.compile(r"^nlpeval (\w+): wrote (.+) \((\d+ bytes?|[\d.]+ kB|[\d.]+ MB)\)$")

REF = ["the cat sat on the mat", "a dog barked at night", "it is raining in the city", "we walked home late"]
SYS = ["the cat sat on a mat", "the dog barked at night", "it rains in the city", "we went home late"]


def _inputs(folder: Path) -> dict[str, str]:
    files = {
        "ref": "\n".join(REF) + "\n",
        "sys": "\n".join(SYS) + "\n",
        "gold": "a\nb\nc\na\nb\nc\n",
        "pred": "a\nb\nb\na\nc\nc\n",
        "scores": "0.8 0.1 0.1\n0.1 0.8 0.1\n0.2 0.5 0.3\n" * 2,
        "ratings.tsv": "rater\tlabel\tunit\n"
        + "".join(f"r{r}\t{(u * (r + 1)) % 3}\tu{u}\n" for u in range(8) for r in range(3)),
        "lp.txt": "-1.0 -2.0\n-0.5\n",
        "m.txt": "0.1\n0.5\n0.3\n0.9\n0.7\n",
        "h.txt": "1\n3\n2\n5\n4\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: str(folder / name) for name in files}


def _commands(f: dict[str, str], out: str) -> dict[str, list[str]]:
    return {
        "score": ["score", "-r", f["ref"], f["sys"], "-o", out],
        "report": ["report", "-r", f["ref"], f["sys"], f["ref"], "-o", out + ".html"],
        "classify": ["classify", "--gold", f["gold"], "--pred", f["pred"], "-o", out],
        "agree": ["agree", f["ratings.tsv"], "-o", out],
        "perplexity": ["perplexity", "--logprobs", f["lp.txt"], "-o", out],
        "correlate": ["correlate", "--metric", f["m.txt"], "--human", f["h.txt"], "-o", out],
        "align": ["align", "-r", f["ref"], f["sys"], "-o", out],
        "explain": ["explain", "bleu", "-o", out],
        "metrics": ["metrics", "-o", out],
    }


@pytest.mark.parametrize(
    "command", ["score", "report", "classify", "agree", "perplexity", "correlate", "align", "explain", "metrics"]
)
def test_a_written_output_is_announced_once(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _inputs(tmp_path)
    out = str(tmp_path / "out.txt")
    args = _commands(files, out)[command]
    target = args[args.index("-o") + 1]
    assert cli_main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    match = LINE.match(lines[0])
    assert match and match.group(1) == command and match.group(2) == target, lines[0]
    assert os.path.getsize(target) > 0
    os.remove(target)
    assert cli_main([*args, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and os.path.getsize(target) > 0


def test_save_partial_and_figures_name_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _inputs(tmp_path)
    pattern = str(tmp_path / "part-{metric}.npz")
    assert cli_main(["score", "-r", f["ref"], f["sys"], "-m", "bleu,chrf", "--save-partial", pattern]) == 0
    wrote = [LINE.match(line) for line in capsys.readouterr().err.strip().splitlines()]
    assert all(wrote) and sorted(m.group(2) for m in wrote) == sorted(
        pattern.replace("{metric}", m) for m in ("bleu", "chrf")
    )
    plots = tmp_path / "plots"
    args = ["classify", "--gold", f["gold"], "--pred", f["pred"], "--scores", f["scores"], "--plot", str(plots)]
    assert cli_main(args) == 0
    wrote = [LINE.match(line) for line in capsys.readouterr().err.strip().splitlines()]
    assert all(wrote) and sorted(Path(m.group(2)).name for m in wrote) == sorted(p.name for p in plots.iterdir())
    assert len(wrote) == 3


def test_demo_report_says_where_it_wrote(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(nlpeval.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
        ),
    }
    run = subprocess.run(
        [sys.executable, "-m", "nlpeval", "demo", "--report", "demo.html"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    (line,) = run.stderr.strip().splitlines()
    match = LINE.match(line)
    assert match and Path(match.group(2)) == tmp_path / "demo.html" and match.group(3).endswith("MB")
    quiet = subprocess.run(
        [sys.executable, "-m", "nlpeval", "demo", "--report", "demo.html", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_output_to_stdout_or_a_device_is_not_announced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _inputs(tmp_path)
    assert cli_main(["score", "-r", f["ref"], f["sys"]]) == 0
    assert capsys.readouterr().err == ""
    assert cli_main(["score", "-r", f["ref"], f["sys"], "-o", os.devnull]) == 0
    assert capsys.readouterr().err == ""


def test_classify_plot_without_matplotlib_fails_before_the_report(tmp_path: Path) -> None:
    f = _inputs(tmp_path)
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from nlpeval.cli.main import main\n"
        f"sys.exit(main(['classify', '--gold', {f['gold']!r}, '--pred', {f['pred']!r}, '--plot', {str(tmp_path / 'p')!r}]))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(nlpeval.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
        ),
    }
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == "nlpeval classify: error: --plot needs matplotlib: pip install 'nlpeval[plot]'"
    assert not (tmp_path / "p").exists()
