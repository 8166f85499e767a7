"""nlpeval's side of the ``benchmarks/run.py`` table under two builds of the native core, interleaved.

Usage: ``python benchmarks/core_before_after.py BEFORE_DIR AFTER_DIR [--rounds N] [--repeat R] [--only TEXT]``

Each ``*_DIR`` is a directory holding an ``nlpeval`` package with its built ``_core.abi3.so`` (e.g. a
copy of this tree's ``python/`` with another build's module in it), so the same Python code runs on
both cores. A round starts one child process per side (the order alternates from round to round);
each child times nlpeval's side of every case (best of ``R`` after one warm-up run, as ``run.py`` does;
whole-process cases start their processes with the child's ``PYTHONPATH``, so they use that core too).
The table gives, per case, the median over the rounds of each side's best and their ratio. The
reference tools are not timed: only nlpeval changed.
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
import gc, importlib.util, json, sys, time
sys.path.insert(0, {here!r})
from harness import DATA
only, repeat = {only!r}, {repeat}
out = {{}}
for name in {modules!r}:
    path = {here!r} + "/bench_" + name + ".py"
    spec = importlib.util.spec_from_file_location("bench_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for case in module.cases(DATA):
        if only and only.lower() not in case.name.lower():
            continue
        case.run_nlpeval()
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            case.run_nlpeval()
            best = min(best, time.perf_counter() - start)
        out[case.name] = best
print(json.dumps(out))
"""


def child(python_dir: str, only: str | None, repeat: int) -> dict[str, float]:
    code = CHILD.format(here=str(HERE), only=only, repeat=repeat, modules=MODULES)
    env = {**os.environ, "PYTHONPATH": python_dir}
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only")
    args = parser.parse_args()
    times: dict[str, dict[str, list[float]]] = {}
    for round_ in range(args.rounds):
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for side in order:
            got = child(getattr(args, side), args.only, args.repeat)
            for name, seconds in got.items():
                times.setdefault(name, {"before": [], "after": []})[side].append(seconds)
            print(f"round {round_ + 1} {side} done", file=sys.stderr, flush=True)
    print("| case | before s | after s | after / before |")
    print("|---|---|---|---|")
    for name, sides in times.items():
        before, after = statistics.median(sides["before"]), statistics.median(sides["after"])
        print(f"| {name} | {before:.4f} | {after:.4f} | {after / before:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
