"""Instructions of nlpeval's side of ``benchmarks/run.py`` cases, counted by callgrind, for one or more builds.

Usage: ``python benchmarks/callgrind_cases.py --only TEXT PYTHON_DIR [PYTHON_DIR ...]``

Wall-clock times on a loaded machine swing by more than the 10% a before/after check looks for;
instruction counts do not. For each case whose name contains ``TEXT`` and each ``PYTHON_DIR`` (a
directory holding an ``nlpeval`` package with its built ``_core.abi3.so``, e.g. another commit's
``python/``), the script runs, under ``valgrind --tool=callgrind`` with one rayon thread, a process that
builds the case, runs nlpeval's side once (warm-up) and then once or three times more; half the
difference of the two counts is one warm run (start-up, data loading and the warm-up cancel). Cases that
start their own processes count only the parent's instructions: use ``whole_process.py --instructions``
for those.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from core_before_after import MODULES  # noqa: E402

CHILD = """
import importlib.util, sys
sys.path.insert(0, {here!r})
from harness import DATA
path, wanted, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec = importlib.util.spec_from_file_location("bench_case", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
case = next(case for case in module.cases(DATA) if case.name == wanted)  # a name may head two rows
for _ in range(1 + runs):
    case.run_nlpeval()
"""

#: every case of the main table (``core_before_after.MODULES``): ``[module path, case name]``
NAMES = """
import importlib.util, json, sys
sys.path.insert(0, {here!r})
from harness import DATA
names = []
for name in {modules!r}:
    path = {here!r} + "/bench_" + name + ".py"
    spec = importlib.util.spec_from_file_location("bench_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if hasattr(module, "cases"):
        names += [[path, case.name] for case in module.cases(DATA)]
print(json.dumps(names))
"""


def instructions(python_dir: str, module: str, case: str, runs: int) -> int:
    """Instructions callgrind counts for a process that builds ``case`` (of ``module``) and runs it ``1 + runs``
    times."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(CHILD.format(here=str(HERE)))
        env = {**os.environ, "PYTHONPATH": python_dir, "RAYON_NUM_THREADS": "1"}
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out"]
        command += [os.path.realpath(sys.executable), str(script), module, case, str(runs)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : ([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(done.stderr[-2000:])
    return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dirs", nargs="+", metavar="PYTHON_DIR")
    parser.add_argument("--only", required=True, help="cases whose name contains TEXT")
    args = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": args.dirs[0]}
    listed = subprocess.run(
        [sys.executable, "-c", NAMES.format(here=str(HERE), modules=MODULES)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = [(m, n) for m, n in json.loads(listed.stdout.splitlines()[-1]) if args.only.lower() in n.lower()]
    print("| case | " + " | ".join(f"{d}: instructions per run" for d in args.dirs) + " | last / first |")
    print("|---|" + "---|" * len(args.dirs) + "---|")
    for module, name in found:
        counts = [(instructions(d, module, name, 3) - instructions(d, module, name, 1)) / 2 for d in args.dirs]
        cells = " | ".join(f"{c / 1e6:.1f} M" for c in counts)
        print(f"| {name} | {cells} | {counts[-1] / counts[0]:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
