"""Run every benchmark case and print (or write) the ratio table.

Usage: ``python benchmarks/run.py [--only TEXT] [--modules NAME,...] [--write BENCHMARKS.md]``
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import DATA, Case  # noqa: E402


def discover(modules: list[str] | None = None) -> list[Case]:
    """The cases of every ``bench_*.py`` (or of ``bench_NAME.py`` for each of ``modules``)."""
    cases: list[Case] = []
    paths = sorted(HERE.glob("bench_*.py")) if modules is None else [HERE / f"bench_{m}.py" for m in modules]
    for path in paths:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "cases"):  # bench_dask.py is a standalone script (it starts its own cluster)
            cases.extend(module.cases(DATA))
    return cases


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="run cases whose name contains TEXT")
    parser.add_argument(
        "--modules",
        help="run only these bench_NAME.py modules (comma-separated; 'main': those of BENCHMARKS.md's main table)",
    )
    parser.add_argument("--write", metavar="FILE", help="also write the Markdown table to FILE")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"benchmark data not found at {DATA}", file=sys.stderr)
        return 2
    rows = []
    failed = []
    modules = None
    if args.modules == "main":
        from core_before_after import MODULES

        modules = list(MODULES)
    elif args.modules:
        modules = args.modules.split(",")
    for case in discover(modules):
        if args.only and args.only.lower() not in case.name.lower():
            continue
        ref_s, ours_s = case.measure()
        ratio = ref_s / ours_s
        ok = (case.target is None or ratio >= case.target) and (case.budget is None or ours_s <= case.budget)
        per_call = (ours_s - ref_s) / case.calls
        ok = ok and (case.overhead is None or per_call <= case.overhead)
        if not ok:
            failed.append(case.name)
        targets = []
        if case.target:
            targets.append(f">= {case.target:g}x")
        if case.budget:
            targets.append(f"<= {case.budget:g} s")
        if case.overhead:
            targets.append(f"<= {case.overhead * 1e6:g} us/call above the kernels")
        target = ", ".join(targets) or "-"
        rows.append(
            (
                case.name,
                case.reference_tool,
                f"{ref_s:.3f}",
                f"{ours_s:.4f}",
                f"+{per_call * 1e6:.0f} us/call" if case.overhead else f"{ratio:.1f}x",
                target,
                "yes" if ok else "NO",
            )
        )
        print(
            f"{case.name}: {case.reference_tool} {ref_s:.3f}s, nlpeval {ours_s:.4f}s -> {ratio:.1f}x ({target})",
            flush=True,
        )
    header = ("case", "reference tool", "reference s", "nlpeval s", "speed-up", "target", "met")
    table = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    text = (
        f"Measured {datetime.date.today().isoformat()} on {machine()}; best of 3 runs per side, "
        "both sides in the same process, alternating.\n\n" + "\n".join(table) + "\n"
    )
    print("\n" + text)
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
