"""COMET in ``nlpeval score``, two builds of nlpeval side by side at the same moment (same load): CPU time and peak
memory of each whole process (issue 23; BENCHMARKS.md "COMET 1 system: tokenise once...").

Run: ``python benchmarks/comet_before_after.py --work DIR --before OLD/python [--segments 150]``, where ``DIR`` is
``benchmarks/bench_neural.py --work DIR --build-only``'s folder (its XLM-R-base-sized checkpoint and MQM TED
inputs) and ``OLD/python`` the ``python/`` folder of an earlier checkout (with its compiled core).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="bench_neural.py's folder")
    parser.add_argument("--before", required=True, help="python/ folder of the earlier nlpeval")
    parser.add_argument("--segments", type=int, default=150, help="segments of the one system (default 150)")
    args = parser.parse_args()
    inputs = args.work / "inputs"
    files = {}
    for key, name in (("src", "src500.txt"), ("ref", "ref500.txt"), ("sys", "sys500.txt")):
        lines = (inputs / name).read_text(encoding="utf-8").split("\n")[: args.segments]
        files[key] = inputs / f"{key}.{args.segments}.txt"
        files[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "nlpeval", "score", "-f", "json", "-m", "comet", "--comet-model",
               str(args.work / "comet-xlmr-base"), "--device", "cpu", "--src", str(files["src"]), "-r",
               str(files["ref"]), str(files["sys"])]  # fmt: skip
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", NLPEVAL_PROGRESS="0",
               OMP_NUM_THREADS="1")  # fmt: skip
    started = {}
    for label, path in (("before", args.before), ("after", str(ROOT / "python"))):
        process = subprocess.Popen(command, env={**env, "PYTHONPATH": path}, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)  # fmt: skip
        started[label] = process
    for label, process in started.items():
        _, _, usage = os.wait4(process.pid, 0)
        assert process.stdout is not None
        score = json.loads(process.stdout.read().decode())["systems"][0]["scores"]["comet"]["score"]
        print(f"{label}: CPU {usage.ru_utime + usage.ru_stime:.1f} s (user {usage.ru_utime:.1f}), "
              f"peak {usage.ru_maxrss / 1024:,.0f} MiB, score {score!r}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
