"""CPU time of corpus chrF / chrF++ on the 16 WMT17 systems, several builds side by side (issue 13).

Usage: ``python benchmarks/chrf_side_by_side.py [--rounds N] PYTHON_DIR [PYTHON_DIR ...]``

Each ``PYTHON_DIR`` holds an ``nlpeval`` package with its built ``_core.abi3.so`` (e.g. this
tree's ``python/`` and an older checkout's). Every round runs, for each directory in turn, a child
process with one rayon thread that scores the 16 systems with ``nlpeval.chrf`` (the reference
cache emptied first, as ``benchmarks/bench_chrf.py`` does) and reports its CPU time
(``time.process_time``, data loading excluded); the directories alternate so that a loaded machine
slows them alike. Prints the best and median CPU seconds per directory and word order, and checks
that every build gives the same scores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import sys, time
sys.path.insert(0, {here!r})
from harness import wmt17_systems
import nlpeval
from nlpeval.metrics.reference_cache import clear_cache
reference, systems = wmt17_systems()
outputs = list(systems.values())
start = time.process_time()
clear_cache()
scores = [nlpeval.chrf(hyp, reference, word_order={word_order}).score for hyp in outputs]
print(time.process_time() - start, repr(scores))
"""


def run_child(python_dir: str, word_order: int) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=python_dir, RAYON_NUM_THREADS="1")
    code = CHILD.format(here=str(HERE), word_order=word_order)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    seconds, scores = out.stdout.split(" ", 1)
    return float(seconds), scores.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dirs", nargs="+", help="python/ directories holding a built nlpeval")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for word_order in (0, 2):
        times: dict[str, list[float]] = {d: [] for d in args.dirs}
        results: set[str] = set()
        for _ in range(args.rounds):
            for d in args.dirs:
                seconds, scores = run_child(d, word_order)
                times[d].append(seconds)
                results.add(scores)
        name = "chrF++" if word_order else "chrF"
        for d in args.dirs:
            print(f"{name:7} {d}: best {min(times[d]):.4f} s, median {statistics.median(times[d]):.4f} s CPU")
        print(f"{name:7} same scores in every build: {len(results) == 1}")
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
