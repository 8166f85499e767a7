"""``nlpeval report``, whole process, against the ``compare-mt`` command line (HTML written by both).

1. compare-mt's default analyses (BLEU, length ratio, word F by frequency, sentence buckets, salient
   n-grams, sentence examples) of the 2 TED systems: ``compare-mt --output_directory`` against
   ``nlpeval report --preset compare-mt -o report.html``.
2. The full report (all sections, 1,000 bootstrap resamples, 1,000 randomization trials, all 120 pairs,
   bleu, chrf, ter) of the 16 WMT17 systems x 3,004 segments, HTML page, within 30 s and 15 MB; compare-mt
   (default analyses of 2 of those systems) gives the scale.

Both sides run as installed: with compiled bytecode. compare-mt's ``.pyc`` files are in site-packages (pip
compiles at install); nlpeval runs from the source tree, which has none when ``PYTHONDONTWRITEBYTECODE`` is
set, so its side gets a private ``PYTHONPYCACHEPREFIX`` in the benchmark's temporary folder, filled by the
harness's warm-up run (as ``pip install`` would have). The warm-up also fills nlpeval's compiled-template
cache (``NLPEVAL_CACHE_DIR``, here in the same temporary folder), as any earlier report would have.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import Case

PAGE_LIMIT = 15_000_000


def _command(name: str, module: str) -> list[str]:
    found = shutil.which(name)
    return [found] if found else [sys.executable, "-m", module]


def cases(data: Path) -> list[Case]:
    try:
        import compare_mt
    except ImportError:  # pragma: no cover - compare-mt is a test dependency
        return []
    version = getattr(compare_mt, "__version__", "")
    work = Path(tempfile.mkdtemp(prefix="nlpeval-bench-report-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    compare = _command("compare-mt", "compare_mt.compare_mt_main")
    nlpeval = [sys.executable, "-m", "nlpeval"]
    ted = data / "compare-mt"
    ted_files = [str(ted / f"ted.{part}.eng") for part in ("ref", "sys1", "sys2")]
    wmt = data / "wmt17-en-de"
    wmt_systems = sorted(str(p) for p in wmt.glob("*.de") if p.name != "reference.de")

    installed = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    installed.update(PYTHONPYCACHEPREFIX=str(work / "pycache"), NLPEVAL_CACHE_DIR=str(work / "cache"))

    def run(argv: list[str]) -> None:
        env = installed if argv[: len(nlpeval)] == nlpeval else None
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work, env=env)

    def full_report() -> None:
        page = work / "wmt17.html"
        run([*nlpeval, "report", "-q", "-r", str(wmt / "reference.de"), "-o", str(page), *wmt_systems])
        size = page.stat().st_size
        if size >= PAGE_LIMIT:
            raise AssertionError(f"the WMT17 page has {size:,} bytes (limit {PAGE_LIMIT:,})")

    return [
        Case(
            "report: compare-mt default analyses, 2 TED systems, whole process, HTML written",
            f"compare-mt {version} CLI",
            lambda: run([*compare, *ted_files, "--output_directory", str(work / "cm-ted")]),
            lambda: run(
                [
                    *nlpeval,
                    "report",
                    "-q",
                    "--preset",
                    "compare-mt",
                    "-r",
                    ted_files[0],
                    "-o",
                    str(work / "ted.html"),
                    *ted_files[1:],
                ]
            ),
            20,  # best of 3 per side, as every in-process row (one whole process varies by +-30%)
        ),
        Case(
            "report: full report, 16 WMT17 systems x 3,004 segments, 1,000 resamples, all pairs, HTML < 15 MB "
            "(compare-mt: its default analyses of 2 of the systems)",
            f"compare-mt {version} CLI",
            lambda: run(
                [*compare, str(wmt / "reference.de"), *wmt_systems[:2], "--output_directory", str(work / "cm-wmt")]
            ),
            full_report,
            budget=30.0,
            repeat=1,
        ),
    ]
