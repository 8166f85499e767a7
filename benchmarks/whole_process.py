"""Whole-process timings, side by side in one run: nlpeval's command line against the reference tools' own.

Each row is a fresh process on both sides (interpreter or JVM start, imports, data
loading, scoring, output), timed by ``hyperfine`` (``apt-get install hyperfine``):

* ``nlpeval score -m bleu,chrf`` vs ``sacrebleu -m bleu chrf`` on one WMT17 system;
* ``nlpeval score -m meteor --meteor-norm`` (METEOR 1.5, all modules) vs
  ``java -jar meteor-1.5.jar ... -l en -norm`` on TED (2,445 segments);
* ``nlpeval score -m meteor --meteor-flavor nltk`` vs a fresh interpreter that
  imports NLTK, opens its WordNet reader (``WordNetCorpusReader`` over the same
  WordNet 3.0 files, as ``nltk.corpus.wordnet`` does on first use) and runs
  ``meteor_score`` over the TED segments (``--nltk`` mode of this script).

nlpeval's caches (parsed WordNet index, paraphrase table) are warmed first: a
first run after installation builds them (a few seconds for the paraphrase
table, a fraction of a second for WordNet); ``--cold`` also times one run of each
METEOR row with an empty cache folder (what that first run costs). Both sides run with their
compiled bytecode, as installed packages do (``PYTHONDONTWRITEBYTECODE`` is dropped and
``PYTHONPYCACHEPREFIX`` points into the run's temporary folder). ``--instructions`` adds a row of
instruction counts per command (valgrind's callgrind, every thread; steady on a loaded machine, where
wall times are not). Usage:
``python benchmarks/whole_process.py [--runs N] [--only TEXT] [--cold] [--before PYTHONPATH] [--instructions]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

DATA = Path(os.environ.get("NLPEVAL_DATA", harness.DATA))


def nltk_process(hyp: str, ref: str, wordnet_dir: str) -> None:
    """The NLTK side: score every segment with ``meteor_score`` and print the mean."""
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.translate.meteor_score import meteor_score

    class Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:  # no sense index in Debian's copy: no remapping
            return None

    nltk.data.path.append(wordnet_dir)  # NLTK opens corpora only under its data path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wordnet = Reader(wordnet_dir, None)
    hyps = Path(hyp).read_text(encoding="utf-8").splitlines()
    refs = Path(ref).read_text(encoding="utf-8").splitlines()
    scores = [meteor_score([r.split()], h.split(), wordnet=wordnet) for h, r in zip(hyps, refs, strict=True)]
    print(sum(scores) / len(scores))


def _cells(reference: tuple[float, float], wall: float, cpu: float) -> str:
    """Wall (CPU) seconds and the reference's ratio to them, as table cells."""
    return f" {wall:.3f} s ({cpu:.3f} s) | {reference[0] / wall:.1f}x ({reference[1] / cpu:.1f}x) |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", metavar="PYTHONPATH", help="also time an older nlpeval tree (PYTHONPATH to use)")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N rows")
    parser.add_argument("--only", metavar="TEXT", help="run only the rows whose name contains TEXT")
    parser.add_argument("--cold", action="store_true", help="also time METEOR once with an empty cache folder")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each command's instructions once (valgrind's callgrind, all threads): steady under load",
    )
    parser.add_argument("--nltk", nargs=3, metavar=("HYP", "REF", "WORDNET_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nltk:
        nltk_process(*args.nltk)
        return
    from bench_meteor import _jar, _nltk_wordnet

    python = sys.executable
    wmt, ted = DATA / "wmt17-en-de", DATA / "compare-mt"
    work = Path(tempfile.mkdtemp(prefix="nlpeval-whole-"))
    _nltk_wordnet(work)  # a copy of the WordNet files NLTK's reader can open
    sacrebleu = shutil.which("sacrebleu", path=os.path.dirname(python)) or "sacrebleu"
    ours = [python, "-m", "nlpeval", "score"]
    rows = [
        (
            "score -m bleu,chrf, one WMT17 system (3,004 segments)",
            [sacrebleu, wmt / "reference.de", "-i", wmt / "online-B.0.de", "-m", "bleu", "chrf"],
            [*ours, "-r", wmt / "reference.de", "-m", "bleu,chrf", wmt / "online-B.0.de"],
        ),
        (
            "METEOR nltk flavor, TED (2,445 segments)",
            [python, __file__, "--nltk", ted / "ted.sys1.eng", ted / "ted.ref.eng", work],
            [*ours, "-r", ted / "ted.ref.eng", "-m", "meteor", "--meteor-flavor", "nltk", ted / "ted.sys1.eng"],
        ),
    ]
    jar = _jar()
    if jar is not None:
        detok = (ted / "ted.sys1.detok.eng", ted / "ted.ref.detok.eng")
        rows.append(
            (
                "METEOR 1.5, all modules, -norm, TED (2,445 segments)",
                ["java", "-Xmx2G", "-jar", jar, *detok, "-l", "en", "-norm"],
                [*ours, "-r", detok[1], "-m", "meteor", "--meteor-norm", detok[0]],
            )
        )
    # wall time, and CPU time (user + system) in brackets: on a loaded machine CPU time is the steadier figure
    if args.before:
        print("| whole process | reference tool | nlpeval before | ratio before | nlpeval | ratio |")
        print("|---|---|---|---|---|---|")
    else:
        print("| whole process | reference tool | nlpeval | ratio |\n|---|---|---|---|")
    # Both sides run as installed packages do: with their compiled bytecode. pip writes nlpeval's
    # and sacreBLEU's .pyc files at installation; a source tree run with PYTHONDONTWRITEBYTECODE=1
    # (as on the development machine) would recompile every nlpeval module in every process. The
    # warm-up runs write the bytecode of both sides into one cache outside the source tree.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    cold: list[tuple[str, tuple[float, float], float, float]] = []
    for name, theirs, mine in rows[args.skip :]:
        if args.only and args.only not in name:
            continue
        commands = [" ".join(map(str, c)) for c in (theirs, mine)]
        if args.before:
            commands.append(f"env PYTHONPATH={args.before} {commands[1]}")
        for command in commands:
            subprocess.run(command, shell=True, check=True, capture_output=True, env=env)  # warm the caches
        out = work / "hyperfine.json"
        runs = max(2, args.runs // 2) if "java" in commands[0] else args.runs
        subprocess.run(
            ["hyperfine", "-N", "-w", "1", "-r", str(runs), "--export-json", str(out), *commands],
            check=True,
            capture_output=True,
            env=env,
        )
        results = json.loads(out.read_text())["results"]
        (theirs_s, mine_s, *before_s) = (r["mean"] for r in results)
        (theirs_c, mine_c, *before_c) = (r["user"] + r["system"] for r in results)

        ref = (theirs_s, theirs_c)
        before = "".join(_cells(ref, w, c) for w, c in zip(before_s, before_c, strict=True))
        print(f"| {name} | {theirs_s:.3f} s ({theirs_c:.3f} s) |{before}{_cells(ref, mine_s, mine_c)}", flush=True)
        if args.instructions:
            counts = [_instructions(command, env, work) for command in commands]
            # the table's order: the reference tool, "before" (if any), nlpeval
            cells = " | ".join(f"{n / 1e6:,.0f} M ({counts[0] / n:.1f}x)" for n in [*counts[2:], counts[1]])
            print(f"| {name}, instructions | {counts[0] / 1e6:,.0f} M | {cells} |", flush=True)
        if args.cold and "METEOR" in name:
            cold.append((name, ref, *_cold_run(mine)))
    for name, ref, wall, cpu in cold:
        print(f"| {name}, first run (empty cache folder: builds the caches) | {ref[0]:.3f} s ({ref[1]:.3f} s) |"
              f"{_cells(ref, wall, cpu)}")  # fmt: skip


def _instructions(command: str, env: dict[str, str], work: Path) -> int:
    """Instructions of one run of ``command`` (a shell command line), all its threads, under callgrind."""
    out = work / "callgrind.out"
    prefix = ""
    if command.startswith("env "):  # "env VAR=value program ...": valgrind the program, not env
        _, assignment, command = command.split(" ", 2)
        prefix = f"env {assignment} "
    run = subprocess.run(
        f"{prefix}valgrind --tool=callgrind --callgrind-out-file={out} {command}",
        shell=True,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    line = next(line for line in run.stderr.splitlines() if "Collected :" in line)
    return int(line.split("Collected :")[1].replace(",", "").strip())


def _cold_run(command: list) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` with a fresh, empty ``NLPEVAL_CACHE_DIR``."""
    import time

    with tempfile.TemporaryDirectory(prefix="nlpeval-cold-") as folder:
        env = {**os.environ, "NLPEVAL_CACHE_DIR": folder}
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([str(c) for c in command], check=True, capture_output=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)


if __name__ == "__main__":
    main()
