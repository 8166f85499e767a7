"""nlpeval's side of the ``benchmarks/run.py`` table under two builds of the native core, interleaved.

Usage: ``python benchmarks/core_before_after.py BEFORE_DIR AFTER_DIR [--rounds N] [--repeat R] [--only TEXT]``

Each ``*_DIR`` is a directory holding an ``nlpeval`` package with its built ``_core.abi3.so`` (e.g. a
copy of another commit's ``python/`` with that commit's build in it). One child process per side builds
every case once; then, case by case, the two children take turns (before, after, after, before, ... for
``N`` rounds), each timing nlpeval's side of the case (best of ``R`` after one warm-up run, as ``run.py``
does; whole-process cases start their processes with the child's ``PYTHONPATH``, so they use that side's
code and core). The two sides of a case are timed minutes apart at most, so a shared machine's changing
load hits both alike. The table gives, per case, the median over the rounds of each side's best wall
time and best CPU time (the process's threads plus the child processes it waited for: steadier than wall
time on a loaded machine) and their ratios; each case's times go to stderr as it finishes. The reference
tools are not timed: only nlpeval changed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: the modules of BENCHMARKS.md's main table
MODULES = (
    "agreement",
    "bleu",
    "bleu_flavors",
    "chrf",
    "classification",
    "cli",
    "meteor",
    "overhead",
    "report",
    "report_buckets",
    "rouge",
    "ter",
    "token_ids",
    "wer",
)

CHILD = """
import gc, importlib.util, json, resource, sys, time
sys.path.insert(0, {here!r})
def cpu():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
from harness import DATA
only, repeat = {only!r}, {repeat}
cases = {{}}
for name in {modules!r}:
    path = {here!r} + "/bench_" + name + ".py"
    spec = importlib.util.spec_from_file_location("bench_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for case in module.cases(DATA):
        if not only or any(part.lower() in case.name.lower() for part in only.split("|")):
            cases[case.name] = case
print(json.dumps(list(cases)), flush=True)
for line in sys.stdin:
    case = cases[json.loads(line)]
    case.run_nlpeval()
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        gc.collect()
        start, start_cpu = time.perf_counter(), cpu()
        case.run_nlpeval()
        best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, cpu() - start_cpu)
    print(json.dumps([best, best_cpu]), flush=True)
"""


class Child:
    """One side's process: it builds every case once, then times the case the parent names."""

    def __init__(self, python_dir: str, only: str | None, repeat: int) -> None:
        code = CHILD.format(here=str(HERE), only=only, repeat=repeat, modules=MODULES)
        env = {**os.environ, "PYTHONPATH": python_dir}
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        self.names: list[str] = json.loads(self.readline())

    def readline(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a benchmark child exited with {self.process.wait()}")
        return line

    def time(self, name: str) -> tuple[float, float]:
        """(wall, CPU) seconds of the best of ``repeat`` runs of case ``name`` (each the minimum on its own)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(name) + "\n")
        self.process.stdin.flush()
        wall, cpu = json.loads(self.readline())
        return float(wall), float(cpu)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="cases whose name contains TEXT (several: TEXT|TEXT)")
    args = parser.parse_args()
    children = {side: Child(getattr(args, side), args.only, args.repeat) for side in ("before", "after")}
    times: dict[str, dict[str, list[tuple[float, float]]]] = {}
    try:
        for name in children["before"].names:
            sides = times.setdefault(name, {"before": [], "after": []})
            for round_ in range(args.rounds):  # before, after, after, before, ...: a steady drift cancels
                for side in ("before", "after") if round_ % 2 == 0 else ("after", "before"):
                    sides[side].append(children[side].time(name))
            print(f"{name}: {json.dumps(sides)}", file=sys.stderr, flush=True)
    finally:
        for child in children.values():
            child.close()
    print("| case | before s (wall; CPU) | after s (wall; CPU) | after / before (wall; CPU) |")
    print("|---|---|---|---|")
    for name, sides in times.items():
        before = [statistics.median(run[k] for run in sides["before"]) for k in (0, 1)]
        after = [statistics.median(run[k] for run in sides["after"]) for k in (0, 1)]
        print(
            f"| {name} | {before[0]:.4f}; {before[1]:.4f} | {after[0]:.4f}; {after[1]:.4f} "
            f"| {after[0] / before[0]:.2f}; {after[1] / before[1]:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
