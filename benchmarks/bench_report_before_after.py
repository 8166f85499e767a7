"""``nlpeval report --preset compare-mt`` on the 2 TED systems (or, ``--case wmt17-4``, the default report of
4 WMT17 systems): a previous tree against this one, whole fresh processes alternating (the first round fills
each side's bytecode and template caches), wall and CPU time (user + system of the child, the steadier figure
under load).

    python benchmarks/bench_report_before_after.py --before /path/to/old/python [--rounds 6] [--case wmt17-4]

``--before`` is the ``python`` folder of an older checkout (with a native core copied in).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="python/ folder of the previous tree")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parents[1] / "python"))
    parser.add_argument("--data", default=os.environ.get("NLPEVAL_DATA", "/work/shared/data"))
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--case", choices=("ted-comparemt", "wmt17-4"), default="ted-comparemt")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nlpeval-report-ba-"))
    if options.case == "wmt17-4":
        data = Path(options.data) / "wmt17-en-de"
        systems = sorted(p for p in data.glob("*.de") if p.name != "reference.de")[:4]
        command = ["report", "-q", "-r", str(data / "reference.de"), "-o", "wmt17.html", *map(str, systems)]
    else:
        data = Path(options.data) / "compare-mt"
        command = ["report", "-q", "--preset", "compare-mt", "-r", str(data / "ted.ref.eng"), "-o", "ted.html"]
        command += [str(data / "ted.sys1.eng"), str(data / "ted.sys2.eng")]
    sides = {"before": options.before, "after": options.after}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for round_ in range(options.rounds):
        for k, (name, path) in enumerate(sides.items()):
            env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
            cache = {"PYTHONPYCACHEPREFIX": str(work / f"pyc{k}"), "NLPEVAL_CACHE_DIR": str(work / "cache")}
            env.update(PYTHONPATH=path, **cache)
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-m", "nlpeval", *command], cwd=work, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
            if status:
                raise SystemExit(f"{name}: exit status {status}")
            if round_:
                times[name].append((wall, usage.ru_utime + usage.ru_stime))
    for name, rows in times.items():
        walls, cpus = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
        print(
            f"{name}: wall min {walls[0]:.3f} median {walls[len(walls) // 2]:.3f} s | "
            f"CPU min {cpus[0]:.3f} median {cpus[len(cpus) // 2]:.3f} s ({len(rows)} runs)"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
