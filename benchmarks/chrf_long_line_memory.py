"""Peak memory of chrF on one long line, nlpeval against sacreBLEU (issue 28).

Usage: ``python benchmarks/chrf_long_line_memory.py [--mb 1 10] [--word-order 0 2] [PYTHON_DIR ...]``

For each size, a child process per implementation joins the WMT17 en-de reference into one line of
about ``--mb`` megabytes (the hypothesis: one system's output joined the same way), then scores the
pair with ``nlpeval.chrf`` (one per ``PYTHON_DIR``, default this tree's ``python/``) and with
sacreBLEU's ``CHRF``. Printed per child: the whole process's peak RSS (``ru_maxrss``), the peak RSS
before the call (interpreter, imports and the two strings) and the difference, in MB, with the
wall time of the call and the statistics (which must be the same for every implementation).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {here!r})
from harness import wmt17_systems
reference, systems = wmt17_systems()
system = sorted(systems)[0]
size = int({mb} * 1_000_000)
def long_line(lines):
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(lines[i % len(lines)])
        total += len(parts[-1].encode()) + 1
        i += 1
    return " ".join(parts)
ref, hyp = long_line(reference), long_line(systems[system])
del reference, systems
if {impl!r} == "sacrebleu":
    from sacrebleu.metrics import CHRF
    metric = CHRF(word_order={word_order})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    stats = [int(x) for x in metric._extract_corpus_statistics([hyp], [[ref]])[0]]
else:
    sys.path.insert(0, {impl!r})
    from nlpeval.metrics.chrf import CHRF
    metric = CHRF(word_order={word_order})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    stats = [int(x) for x in metric.segment_stats([hyp], [ref]).rows[0]]
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"bytes": len(hyp.encode()), "before": before / 1024, "peak": peak / 1024, "wall": wall,
                  "stats": stats}}))
"""


def run(impl: str, mb: float, word_order: int) -> dict[str, object]:
    code = CHILD.format(here=str(HERE), impl=impl, mb=mb, word_order=word_order)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", default=[str(HERE.parent / "python")])
    parser.add_argument("--mb", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--word-order", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--no-sacrebleu", action="store_true", help="only the PYTHON_DIRs")
    args = parser.parse_args()
    for word_order in args.word_order:
        for mb in args.mb:
            stats = None
            for impl in [*args.dirs, *([] if args.no_sacrebleu else ["sacrebleu"])]:
                r = run(impl, mb, word_order)
                line_mb = float(r["bytes"]) / 1e6  # type: ignore[arg-type]
                added = float(r["peak"]) - float(r["before"])  # type: ignore[arg-type]
                print(
                    f"word_order={word_order} line={line_mb:.2f} MB {impl}: peak {float(r['peak']):.0f} MB"  # type: ignore[arg-type]
                    f" (before the call {float(r['before']):.0f} MB, added {added:.0f} MB ="  # type: ignore[arg-type]
                    f" {added / line_mb:.0f} B/byte), {float(r['wall']):.2f} s",  # type: ignore[arg-type]
                    flush=True,
                )
                # sacreBLEU's statistics end with two extra values (not chrF's)
                row = list(r["stats"])[: 3 * (6 + word_order)]  # type: ignore[call-overload]
                if stats is not None and row != stats:
                    print(f"  statistics differ: {row} != {stats}", flush=True)
                stats = row


if __name__ == "__main__":
    main()
