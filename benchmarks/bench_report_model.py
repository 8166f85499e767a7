"""The report model's records: generated ``__init__`` code (cached marshalled) against plain frozen dataclasses.

Two trees' ``python`` folders, alternating, in one run (issue 22: keep the generated code only if it saves more
than 5% of a whole ``nlpeval report`` run). Three figures per tree, CPU time (user + system) of fresh child
processes, the steadier figure under load:

* ``import``: ``import nlpeval.reports.model`` alone;
* ``whole``: ``nlpeval report`` of 4 WMT17 systems (default metrics and analyses, 1,000 resamples), HTML written;
* ``warm``: the same report built and rendered again in a process that built it once (median of 3).

    python benchmarks/bench_report_model.py --before /path/to/generated/python [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WARM = """
import sys, time
from pathlib import Path
import nlpeval
from nlpeval.reports.render import render
data = Path(sys.argv[1])
names = sorted(p for p in data.glob("*.de") if p.name != "reference.de")[:4]
read = lambda p: p.read_text(encoding="utf-8").split("\\n")[:-1]
hyps = {p.name: read(p) for p in names}
refs = read(data / "reference.de")
render(nlpeval.report(hyps, refs), "html")
times = []
for _ in range(3):
    start = time.process_time()
    render(nlpeval.report(hyps, refs), "html")
    times.append(time.process_time() - start)
print(sorted(times)[1])
"""


def _cpu(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True)
    out = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"{command}: exit status {status}")
    return usage.ru_utime + usage.ru_stime, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="python/ folder of the tree with the generated code")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parents[1] / "python"))
    parser.add_argument("--data", default=os.environ.get("NLPEVAL_DATA", "/work/shared/data"))
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    data = Path(options.data) / "wmt17-en-de"
    systems = sorted(str(p) for p in data.glob("*.de") if p.name != "reference.de")[:4]
    work = Path(tempfile.mkdtemp(prefix="nlpeval-report-model-"))
    sides = {"generated": options.before, "dataclasses": options.after}
    figures: dict[str, dict[str, list[float]]] = {name: {"import": [], "whole": [], "warm": []} for name in sides}
    for round_ in range(options.rounds + 1):
        for k, (name, path) in enumerate(sides.items()):
            env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=path, PYTHONPYCACHEPREFIX=str(work / f"pyc{k}"), NLPEVAL_CACHE_DIR=str(work / "c"))
            imported, _ = _cpu([sys.executable, "-c", "import nlpeval.reports.model"], env, work)
            report = [sys.executable, "-m", "nlpeval", "report", "-q", "-r", str(data / "reference.de")]
            whole, _ = _cpu([*report, "-o", f"{name}.html", *systems], env, work)
            _, warm = _cpu([sys.executable, "-c", WARM, str(data)], env, work)
            if round_:  # the first round fills the bytecode and template caches
                figures[name]["import"].append(imported)
                figures[name]["whole"].append(whole)
                figures[name]["warm"].append(float(warm))
    for name, rows in figures.items():
        print(
            name, " | ".join(f"{key} median {statistics.median(v):.3f} s min {min(v):.3f} s" for key, v in rows.items())
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
