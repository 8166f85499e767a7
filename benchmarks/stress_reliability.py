"""Reliability stress run (issue 28): fork, threads, interrupts and hostile input, repeated for a time budget.

Each round runs every scenario once and counts runs and failures; a failure prints what went wrong. The
scenarios are the ones the test suite checks once each (``tests/test_fork_safety.py``,
``tests/test_output_safety.py``, ``tests/test_input_hygiene.py``), here with random timings and
repeated, so rare races get their chance:

* ``fork``: a parent that used BLEU/chrF/TER/ROUGE/METEOR forks two pool workers that must return the
  parent's numbers within 60 s (``tests/fork_workload.py``; start method drawn from fork/forkserver/spawn);
* ``threads``: 8 threads x 250 calls of BLEU and chrF over 16 reference sets with a 3-entry cache;
* ``sigint``: ``nlpeval report -o`` interrupted at a random moment (0-2 s after the core loads): exit 130 and one
  line, or a clean finish; the old output intact after an interrupt and no temporary file left;
* ``sigkill``: ``nlpeval score -o`` killed at a random moment: old output intact, the next write cleans up;
* ``dev-zero``: ``nlpeval score`` on ``/dev/zero`` with a 1 MiB line limit: exit 2 within 30 s.

Usage: ``python benchmarks/stress_reliability.py [--minutes 10] [--seed 1]``. Not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))

from realdata import data_dir, read_lines  # noqa: E402
from test_output_safety import interruptible, wait_until_native_core_loaded  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout, check=False)


def scenario_fork(rng: random.Random, folder: Path) -> str | None:
    method = rng.choice(["fork", "fork", "forkserver", "spawn"])
    tasks = rng.sample(["bleu:same", "chrf:other", "ter:same", "rouge:other", "meteor:same", "wer:other"], 3)
    try:
        result = _run([sys.executable, str(TESTS / "fork_workload.py"), method, "WARM", *tasks], TESTS, 60)
    except subprocess.TimeoutExpired:
        return f"fork ({method}, {tasks}): no answer in 60 s"
    if result.returncode:
        return f"fork ({method}): exit {result.returncode}: {result.stderr[-300:]}"
    different = {task: pair for task, pair in json.loads(result.stdout).items() if pair[0] != pair[1]}
    return f"fork ({method}): {different}" if different else None


def scenario_threads(rng: random.Random, folder: Path) -> str | None:
    import nlpeval
    from nlpeval.metrics.reference_cache import cache_limits, clear_cache

    wmt = data_dir() / "wmt17-en-de"
    systems = sorted(path for path in wmt.glob("*.de") if path.name != "reference.de")
    reference = read_lines(wmt / "reference.de")
    batches = []
    for index in range(16):
        start = rng.randrange(0, 2900)
        batches.append((reference[start : start + 70], read_lines(systems[index])[start : start + 70]))
    expected = {(k, i): getattr(nlpeval, k)(*batches[i]).score for i in range(16) for k in ("bleu", "chrf")}
    old = cache_limits()
    clear_cache()
    cache_limits(max_entries=3)
    bad: list[str] = []

    def worker(offset: int) -> None:
        for call in range(250):
            index, kind = (call * 7 + offset) % 16, ("bleu", "chrf")[(call + offset) % 2]
            if getattr(nlpeval, kind)(*batches[index]).score != expected[kind, index]:
                bad.append(f"{kind} batch {index}")

    try:
        threads = [threading.Thread(target=worker, args=(offset,)) for offset in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        cache_limits(*old)
        clear_cache()
    return f"threads: {len(bad)} mismatches ({bad[:3]})" if bad else None


def _systems(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.de") if p.name != "reference.de")


def _temporaries(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.startswith(".nlpeval-")]


#: how the interrupted runs ended (a run may finish before its signal; only interrupted ones test the handler)
OUTCOMES: Counter[str] = Counter()


def scenario_sigint(rng: random.Random, folder: Path) -> str | None:
    output = folder / "page.html"
    output.write_text("old\n", encoding="utf-8")
    args = ["report", "-q", "-r", "reference.de", *_systems(folder)[:4], "-o", output.name]
    process = subprocess.Popen(
        [sys.executable, "-m", "nlpeval", *args],
        cwd=folder,
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,  # Ctrl-C must reach it even when this script runs in the background
    )
    wait_until_native_core_loaded(process.pid)  # past CPython's own start-up (see the test)
    time.sleep(rng.uniform(0.0, 2.0))
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        return "sigint: no exit within 60 s of the signal"
    OUTCOMES["sigint: finished before the signal" if process.returncode == 0 else "sigint: interrupted"] += 1
    if process.returncode == 0:
        return None if output.read_text(encoding="utf-8").startswith("<!DOCTYPE") else "sigint: exit 0, no page"
    if process.returncode != 130 or err not in ("nlpeval report: interrupted\n", "nlpeval: interrupted\n"):
        return f"sigint: exit {process.returncode}: {err[-300:]!r}"
    page = output.read_text(encoding="utf-8")
    if page != "old\n" and not (page.startswith("<!DOCTYPE") and page.rstrip().endswith("</html>")):
        return "sigint: the output is neither the old one nor a whole new page"  # Ctrl-C after the rename: whole
    return f"sigint: temporary files left {_temporaries(folder)}" if _temporaries(folder) else None


def scenario_sigkill(rng: random.Random, folder: Path) -> str | None:
    output = folder / "table.txt"
    output.write_text("old\n", encoding="utf-8")
    args = ["score", "-q", "-r", "reference.de", *_systems(folder)[:6], "--bootstrap", "1000", "-o", output.name]
    process = subprocess.Popen([sys.executable, "-m", "nlpeval", *args], cwd=folder, env=ENV)
    time.sleep(rng.uniform(0.2, 3.0))
    process.kill()
    process.wait(timeout=30)
    text = output.read_text(encoding="utf-8")
    if text != "old\n" and "BLEU" not in text:
        return f"sigkill: the output is neither old nor whole: {text[:80]!r}"
    check = _run([sys.executable, "-m", "nlpeval", "score", "-q", "-r", "reference.de", _systems(folder)[0],
                  "-o", "next.txt"], folder, 60)  # fmt: skip
    if check.returncode or _temporaries(folder):
        return f"sigkill: the next write left {_temporaries(folder)} (exit {check.returncode})"
    return None


def scenario_dev_zero(rng: random.Random, folder: Path) -> str | None:
    try:
        result = _run([sys.executable, "-m", "nlpeval", "score", "-r", "reference.de", "/dev/zero",
                       "--max-line-bytes", str(2**20)], folder, 30)  # fmt: skip
    except subprocess.TimeoutExpired:
        return "dev-zero: no answer in 30 s"
    if result.returncode != 2 or "line longer than" not in result.stderr:
        return f"dev-zero: exit {result.returncode}: {result.stderr[-200:]!r}"
    return None


SCENARIOS = {
    "fork": scenario_fork,
    "threads": scenario_threads,
    "sigint": scenario_sigint,
    "sigkill": scenario_sigkill,
    "dev-zero": scenario_dev_zero,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    folder = Path(tempfile.mkdtemp(prefix="nlpeval-stress-"))
    wmt = data_dir() / "wmt17-en-de"
    for path in [wmt / "reference.de", *sorted(p for p in wmt.glob("*.de") if p.name != "reference.de")[:6]]:
        shutil.copy(path, folder / path.name)
    runs: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    start = time.monotonic()
    try:
        while time.monotonic() - start < options.minutes * 60:
            for name, scenario in SCENARIOS.items():
                problem = scenario(rng, folder)
                runs[name] += 1
                if problem:
                    failures[name] += 1
                    print(f"FAIL {problem}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    minutes = (time.monotonic() - start) / 60
    print(f"{minutes:.1f} minutes, seed {options.seed}")
    print("| scenario | runs | failures |")
    print("|---|---:|---:|")
    for name in SCENARIOS:
        print(f"| {name} | {runs[name]} | {failures[name]} |")
    print(f"| all | {sum(runs.values())} | {sum(failures.values())} |")
    for outcome, count in sorted(OUTCOMES.items()):
        print(f"{outcome}: {count}")


if __name__ == "__main__":
    main()
