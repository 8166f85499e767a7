"""Side-by-side timing of nlpeval against a reference tool, in the same process and run.

Each ``benchmarks/bench_*.py`` module defines ``cases(data: Path) -> list[Case]``;
``benchmarks/run.py`` discovers them, times both sides alternately and prints
the speed-up ratios (machines are noisy: ratios, not absolute times, compare).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: the shared data folder (``NLPEVAL_BENCH_DATA`` overrides it, e.g. when running from a worktree)
DATA = Path(os.environ.get("NLPEVAL_BENCH_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")


@dataclass
class Case:
    """One benchmark: the same work done by the reference tool and by nlpeval."""

    name: str
    reference_tool: str
    run_reference: Callable[[], object]
    run_nlpeval: Callable[[], object]
    target: float | None = None
    repeat: int = 3
    #: the reference side ran 1/reference_scale of the work (too slow in full); its time is scaled up
    reference_scale: float = 1.0
    #: an absolute target: nlpeval's side must take at most this many seconds (for work the
    #: reference tool cannot do at this size, whose row shows it on a smaller input for scale)
    budget: float | None = None
    #: a per-call overhead target: the reference side runs the native kernels alone on the same
    #: batches (the work itself), the nlpeval side makes ``calls`` public calls; the row reports
    #: (nlpeval - reference) / calls and meets its target when that is at most ``overhead`` seconds
    overhead: float | None = None
    calls: int = 1

    def measure(self) -> tuple[float, float]:
        """Best-of-``repeat`` seconds for (reference, nlpeval), alternating the two."""
        self.run_nlpeval()  # warm up lazy imports and caches on our side only once
        best_ref = best_ours = float("inf")
        for _ in range(self.repeat):
            for which in ("reference", "ours"):
                gc.collect()
                start = time.perf_counter()
                (self.run_reference if which == "reference" else self.run_nlpeval)()
                elapsed = time.perf_counter() - start
                if which == "reference":
                    best_ref = min(best_ref, elapsed)
                else:
                    best_ours = min(best_ours, elapsed)
        return best_ref * self.reference_scale, best_ours


#: what a side-by-side child runs after its set-up: ``call`` (warm) timed best of ``repeats``, then one JSON line
_CHILD_TIMER = """
best = float("inf")
for _ in range(repeats):
    start = time.perf_counter()
    value = call()
    best = min(best, time.perf_counter() - start)
print(json.dumps({"seconds": best, "value": float(value)}))
"""


def child_timing(setup: str, python_path: str | None, repeats: int) -> dict[str, float]:
    """Time a call in a child process of its own: ``setup`` (Python source run with this folder on ``sys.path``
    and ``json``, ``sys``, ``time`` and ``repeats`` defined) defines ``call``, a warm zero-argument function
    returning a number; the child runs it best of ``repeats`` with ``PYTHONPATH=python_path`` (``None``: as this
    process) and the result is ``{"seconds": best, "value": float(call())}``."""
    env = dict(os.environ)
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    here = str(Path(__file__).resolve().parent)
    code = f"import json, sys, time\nsys.path.insert(0, {here!r})\nrepeats = {repeats}\n{setup}\n{_CHILD_TIMER}"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 segment file without newlines."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def wmt17_systems() -> tuple[list[str], dict[str, list[str]]]:
    """The WMT17 en-de reference and the 16 system outputs."""
    folder = DATA / "wmt17-en-de"
    reference = read_lines(folder / "reference.de")
    systems = {
        p.name.removesuffix(".de"): read_lines(p) for p in sorted(folder.glob("*.de")) if p.name != "reference.de"
    }
    return reference, systems
