"""Instructions per native BLEU / chrF / chrF++ statistics call, counted by callgrind (issue 13).

Usage: ``python benchmarks/callgrind_kernels.py [PYTHON_DIR ...]``

Instruction counts are repeatable on a loaded machine, where wall-clock times are not. For each
``PYTHON_DIR`` (a directory holding an ``nlpeval`` package with its built ``_core.abi3.so``;
default: this tree's ``python/``) the script runs, under ``valgrind --tool=callgrind`` with one
rayon thread, processes that make 0, 1, 2 and 4 statistics calls on one WMT17 system (3,004
segments with the reference, as ``nlpeval.bleu``/``nlpeval.chrf`` pass them); it prints the
instructions of the first call (the references seen for the first time: the direct kernel), of the
second (which prepares them for the reference cache) and of a repeated call (half the difference
between 4 and 2 calls: a system scored against references already prepared), conversion of the
strings included, free of start-up and data loading. Pass the ``python/`` directory of an older
checkout (with its module built) to compare before and after.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import sys
sys.path.insert(0, {here!r})
from harness import wmt17_systems
from nlpeval import _native
reference, systems = wmt17_systems()
hyps = systems["online-B.0"]
refs = [[r] for r in reference]
calls = {{
    "bleu": lambda: _native.bleu_stats(hyps, refs, "13a", 4),
    "chrf": lambda: _native.chrf_stats(hyps, refs, 6, 0, False, 4.0, False),
    "chrf++": lambda: _native.chrf_stats(hyps, refs, 6, 2, False, 4.0, False),
}}
for _ in range(int(sys.argv[2])):
    calls[sys.argv[1]]()
"""


def instructions(python_dir: str, kernel: str, calls: int) -> int:
    """Instructions callgrind counts for a process making ``calls`` calls of ``kernel``."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(CHILD.format(here=str(HERE)))
        env = {**os.environ, "PYTHONPATH": python_dir, "RAYON_NUM_THREADS": "1"}
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                os.path.realpath(sys.executable),
                str(script),
                kernel,
                str(calls),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : ([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(done.stderr[-2000:])
    return int(found.group(1).replace(",", ""))


def main() -> None:
    dirs = sys.argv[1:] or [str(HERE.parent / "python")]
    print("| kernel | " + " | ".join(f"{d}: first call | second call | repeated call" for d in dirs) + " |")
    print("|---|" + "---|---|---|" * len(dirs))
    for kernel in ("bleu", "chrf", "chrf++"):
        cells = []
        for python_dir in dirs:
            counts = [instructions(python_dir, kernel, calls) for calls in (0, 1, 2, 4)]
            # first sight: the direct kernel; the second call prepares the references; later ones find them
            cells.append(f"{(counts[1] - counts[0]) / 1e6:.1f} M")
            cells.append(f"{(counts[2] - counts[1]) / 1e6:.1f} M")
            cells.append(f"{(counts[3] - counts[2]) / 2 / 1e6:.1f} M")
        print(f"| {kernel} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
