"""Scale check: corpus BLEU of 3 million segments through the CLI, peak memory under 1 GB.

Builds a 3,000,000-line system/reference pair by repeating the WMT17 data into a
temporary folder, runs ``nlpeval score -m bleu`` under ``/usr/bin/time -v`` (or
``resource`` when that is absent) and prints wall time and peak resident memory.

Usage: ``python benchmarks/scale_cli.py [--segments N]``
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import DATA  # noqa: E402


def build(path: Path, source: Path, segments: int) -> None:
    lines = source.read_bytes().splitlines(keepends=True)
    with path.open("wb") as out:
        written = 0
        while written < segments:
            block = lines[: segments - written]
            out.writelines(block)
            written += len(block)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--segments", type=int, default=3_000_000)
    args = parser.parse_args()
    folder = DATA / "wmt17-en-de"
    with tempfile.TemporaryDirectory() as tmp:
        sys_file, ref_file = Path(tmp) / "sys.de", Path(tmp) / "ref.de"
        build(sys_file, folder / "online-B.0.de", args.segments)
        build(ref_file, folder / "reference.de", args.segments)
        size_mb = (sys_file.stat().st_size + ref_file.stat().st_size) / 1e6
        nlpeval = shutil.which("nlpeval") or "nlpeval"
        argv = [nlpeval, "score", "-r", str(ref_file), "-m", "bleu", str(sys_file)]
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(result.stdout.strip())
    print(f"\n{args.segments:,} segments ({size_mb:,.0f} MB of text): {wall:.1f} s, peak RSS {peak_mb:,.0f} MB")
    return 0 if peak_mb < 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
