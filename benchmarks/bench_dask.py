"""Scale and overhead of nlpeval.dask (not a test): BLEU+chrF on a LocalCluster of this machine.

1. **Overhead on a small corpus**: the 3,004-segment WMT17 system (online-B) scored for BLEU+chrF
   in-process (warm), with ``nlpeval.dask`` on an already running LocalCluster, and including the
   cluster's start-up.
2. **Per-core throughput**: one partition of the synthetic corpus scored in this process
   (the single-process path) against the cluster's segments per second per worker core.
3. **Scale**: a synthetic corpus of ``--segments`` segments, generated lazily *inside* the tasks
   (each task draws its partition's segments from the WMT17 outputs with its own seed; no process
   ever holds the corpus), scored for BLEU+chrF with bounded worker memory. The peak RSS of every
   process (client+scheduler, nannies, workers) is sampled every 0.2 s. The merged statistics are
   checked against totals computed independently from per-line statistics and the partitions'
   index draws, so the result is verified exact at scale.

Usage: ``python benchmarks/bench_dask.py [--segments 30000000] [--partition 100000] [--workers 2]``;
``--memory-sweep 1000000,3000000,6000000`` prints only the workers' peak RSS per corpus size.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import DATA  # noqa: E402

#: the shared data folder (a worktree under /work/wt/<name> sits one level deeper than the main checkout)
FOLDER = next((d for d in (DATA, HERE.parents[2] / "shared" / "data") if d.is_dir()), DATA) / "wmt17-en-de"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _corpus() -> tuple[list[list[str]], list[str]]:
    systems = [_lines(p) for p in sorted(FOLDER.glob("*.de")) if p.name != "reference.de"]
    return systems, _lines(FOLDER / "reference.de")


def _draws(partition: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([2026, partition])
    return rng.integers(16, size=size), rng.integers(3004, size=size)


_CACHE: dict[str, tuple[list[list[str]], list[str]]] = {}


def generate(partition: int, size: int, log: str | None = None) -> list[tuple[str, list[str]]]:
    """Partition ``partition`` of the synthetic corpus (run inside a task; the WMT17 files are read once
    per worker). With ``log``, a line (time, partition) is appended when the partition is generated."""
    if "corpus" not in _CACHE:
        _CACHE["corpus"] = _corpus()
    systems, reference = _CACHE["corpus"]
    which, line = _draws(partition, size)
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{time.time()} {partition}\n")
    return [(systems[k][i], [reference[i]]) for k, i in zip(which.tolist(), line.tolist(), strict=True)]


def _task_generate():
    """:func:`generate` as the workers should run it: imported from this module (pickled by reference,
    so its corpus cache lives as long as the worker), not a by-value copy of ``__main__.generate``
    whose cache every task would rebuild (re-reading and holding a copy of the WMT17 outputs per task)."""
    import bench_dask

    return bench_dask.generate


class RssSampler:
    """Peak RSS of this process and all its descendants, sampled in a thread."""

    def __init__(self, period: float = 0.2) -> None:
        import psutil

        self.me = psutil.Process()
        self.period = period
        self.peaks: dict[int, tuple[str, float]] = {}
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            for proc in [self.me, *self.me.children(recursive=True)]:
                try:
                    rss = proc.memory_info().rss / 2**20
                    times = proc.cpu_times()
                    self.cpu[proc.pid] = times.user + times.system
                    name = " ".join(proc.cmdline()[1:4])[:60] if proc.pid != self.me.pid else "client+scheduler"
                except psutil.Error:
                    continue
                old = self.peaks.get(proc.pid, (name, 0.0))
                self.peaks[proc.pid] = (old[0], max(old[1], rss))
            self._stop.wait(self.period)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def expected_totals(metric, systems, reference, n_partitions: int, size: int, last: int) -> np.ndarray:
    """The corpus totals computed without Dask: per-line statistics x how often each line was drawn."""
    rows = np.stack([metric.segment_stats(s, [[r] for r in reference]).rows for s in systems])  # (16, 3004, k)
    counts = np.zeros((16, 3004), dtype=np.int64)
    for p in range(n_partitions):
        which, line = _draws(p, size if p < n_partitions - 1 else last)
        np.add.at(counts, (which, line), 1)
    sums = np.einsum("sl,slk->k", counts, rows)
    schema = metric.schema
    for col, rule in enumerate(schema.merge):
        if rule == "min":
            sums[col] = rows[counts > 0][:, col].min()
        elif rule == "max":
            sums[col] = rows[counts > 0][:, col].max()
    return sums


def memory_sweep(sizes: list[int], partition: int, workers: int, memory_limit: str) -> int:
    """Peak RSS of every process against the corpus size: one fresh LocalCluster per size (a peak only grows)."""
    import dask
    import dask.bag as db
    import distributed

    import nlpeval
    import nlpeval.dask

    metrics = {"bleu": nlpeval.BLEU(), "chrf": nlpeval.CHRF()}
    print(f"load average at start: {os.getloadavg()}  ({os.cpu_count()} cores)")
    rows = []
    for segments in sizes:
        n_partitions = -(-segments // partition)
        sizes_ = [partition] * (n_partitions - 1) + [segments - (n_partitions - 1) * partition]
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
            dashboard_address=None, silence_logs=50, env={"RAYON_NUM_THREADS": "1"},
        )  # fmt: skip
        client = distributed.Client(cluster)
        big = db.from_delayed([dask.delayed(_task_generate(), pure=True)(p, n) for p, n in enumerate(sizes_)])
        worker_pids = sorted(client.run(os.getpid).values())
        with RssSampler() as sampler:
            start = time.perf_counter()
            result = client.compute(nlpeval.dask.partials(big, metrics)).result()
            wall = time.perf_counter() - start
        client.close()
        cluster.close()
        assert result["bleu"].n_segments == segments
        peaks = sorted((sampler.peaks[pid][1] for pid in worker_pids if pid in sampler.peaks), reverse=True)
        rows.append((segments, n_partitions, wall, peaks, sampler.peaks[os.getpid()][1], os.getloadavg()[0]))
        print(
            f"{segments:>12,} segments  {n_partitions:>4} partitions  {wall:7.1f} s  workers' peak RSS "
            + " / ".join(f"{p:.0f}" for p in peaks)
            + f" MiB  client+scheduler {rows[-1][4]:.0f} MiB",
            flush=True,
        )
    print("\n| segments | partitions | workers' peak RSS (MiB) | client+scheduler (MiB) | wall (s) | load |")
    print("|---|---|---|---|---|---|")
    for segments, n_partitions, wall, peaks, client_peak, load in rows:
        print(
            f"| {segments:,} | {n_partitions} | {' / '.join(f'{p:.0f}' for p in peaks)} | {client_peak:.0f} "
            f"| {wall:.0f} | {load:.1f} |"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segments", type=int, default=30_000_000)
    parser.add_argument("--partition", type=int, default=100_000, help="segments per partition (task)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--memory-limit", default="1.5GiB", help="per worker")
    parser.add_argument("--time-limit", type=float, default=0, help="seconds; report progress so far if exceeded")
    parser.add_argument("--log", default="/tmp/nlpeval-bench-dask.log", help="partition progress log")
    parser.add_argument(
        "--memory-sweep",
        metavar="SIZES",
        help="comma-separated corpus sizes (e.g. 1000000,3000000,6000000): only the peak-RSS-per-size table",
    )
    args = parser.parse_args()
    # one core per process for the Rust kernels (chrF and the tokenizers use rayon), here and in each worker,
    # so that "per core" means one core
    os.environ["RAYON_NUM_THREADS"] = "1"
    if args.memory_sweep:
        sizes = [int(size) for size in args.memory_sweep.split(",")]
        return memory_sweep(sizes, args.partition, args.workers, args.memory_limit)

    import dask
    import dask.bag as db
    import distributed

    import nlpeval
    import nlpeval.dask

    metrics = {"bleu": nlpeval.BLEU(), "chrf": nlpeval.CHRF()}
    systems, reference = _corpus()
    print(f"load average at start: {os.getloadavg()}  ({os.cpu_count()} cores)")

    # -- 1. single-process path: in-process, warm --------------------------------------------------
    hyps, refs = systems[10], [[r] for r in reference]  # online-B
    for metric in metrics.values():
        metric(hyps, refs)
    start = time.perf_counter()
    local = {name: metric(hyps, refs) for name, metric in metrics.items()}
    small_local = time.perf_counter() - start
    part = generate(0, args.partition)
    start, cpu_start = time.perf_counter(), sum(os.times()[:2])
    for metric in metrics.values():
        metric.segment_stats([h for h, _ in part], [r for _, r in part]).totals()
    per_core_local = args.partition / (time.perf_counter() - start)
    per_cpu_local = args.partition / (sum(os.times()[:2]) - cpu_start)
    del part

    # -- 2. cluster --------------------------------------------------------------------------------
    start = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
        dashboard_address=None, silence_logs=50, env={"RAYON_NUM_THREADS": "1"},
    )  # fmt: skip
    client = distributed.Client(cluster)
    startup = time.perf_counter() - start
    rows = list(zip(hyps, refs, strict=True))
    bag = db.from_sequence(rows, npartitions=args.workers)
    client.compute(nlpeval.dask.score(bag, metrics)).result()  # warm the workers (imports, tokenizers)
    start = time.perf_counter()
    small = client.compute(nlpeval.dask.score(db.from_sequence(rows, npartitions=args.workers), metrics)).result()
    small_dask = time.perf_counter() - start
    assert all(small[n].to_dict() == local[n].to_dict() for n in metrics)

    # -- 3. scale ----------------------------------------------------------------------------------
    n_partitions = -(-args.segments // args.partition)
    last = args.segments - (n_partitions - 1) * args.partition
    sizes = [args.partition] * (n_partitions - 1) + [last]
    with open(args.log, "w", encoding="utf-8"):
        pass
    big = db.from_delayed([dask.delayed(_task_generate(), pure=True)(p, s, args.log) for p, s in enumerate(sizes)])
    import psutil

    worker_pids = set(client.run(os.getpid).values())
    cpu_before = sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in worker_pids)
    with RssSampler() as sampler:
        start = time.perf_counter()
        started = time.time()
        future = client.compute(nlpeval.dask.partials(big, metrics, split_every=8))
        try:
            result = future.result(timeout=args.time_limit or None)
        except (TimeoutError, distributed.TimeoutError):
            stamps = Path(args.log).read_text(encoding="utf-8").split()[::2]
            # a partition's segments are scored after it is generated: count those generated at least
            # one partition-time ago as done (an estimate), and report the rate between them
            done = max(0, len(stamps) - args.workers)
            elapsed = time.time() - started
            print(f"INCOMPLETE after {elapsed:.0f} s: {len(stamps)} of {n_partitions} partitions generated")
            print(f"estimated {done * args.partition / elapsed:,.0f} segments/s "
                  f"({done * args.partition / elapsed / args.workers:,.0f} per worker core)")  # fmt: skip
            print(f"load average: {os.getloadavg()}; peak RSS (MiB): "
                  + ", ".join(f"{n} {p:.0f}" for n, p in sampler.peaks.values() if p > 20))  # fmt: skip
            return 2
        wall = time.perf_counter() - start
        worker_cpu = sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in worker_pids) - cpu_before
    load = os.getloadavg()
    client.close()
    cluster.close()

    exact = {}
    for name, metric in metrics.items():
        expected = expected_totals(metric, systems, reference, n_partitions, args.partition, last)
        exact[name] = bool(np.array_equal(result[name].totals, expected)) and result[name].n_segments == args.segments
    per_core = args.segments / wall / args.workers

    print("\n## small corpus: WMT17 online-B, 3,004 segments, BLEU+chrF (warm)")
    print(f"in-process                         {small_local * 1000:8.1f} ms")
    print(f"nlpeval.dask, running cluster      {small_dask * 1000:8.1f} ms  ({small_dask / small_local:.1f}x)")
    print(f"LocalCluster start-up              {startup * 1000:8.1f} ms")
    print(f"\n## scale: {args.segments:,} synthetic segments, {n_partitions} partitions, {args.workers} workers")
    for name in metrics:
        print(f"{name}: {result[name].score().score * 100:.2f}  exact totals: {exact[name]}")
    print(f"wall {wall:,.1f} s = {args.segments / wall:,.0f} segments/s = {per_core:,.0f} segments/s per worker core")
    print(f"workers' CPU time {worker_cpu:,.0f} s = {args.segments / worker_cpu:,.0f} segments per worker CPU-second")
    print(f"single-process path: {per_core_local:,.0f} segments/s wall, {per_cpu_local:,.0f} per CPU-second")
    print(f"load average after: {load}")
    print("peak RSS per process (MiB):")
    for pid, (name, peak) in sorted(sampler.peaks.items(), key=lambda kv: -kv[1][1]):
        if peak > 20:
            print(f"  {pid:>8}  {peak:8.0f}  {name}")
    return 0 if all(exact.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
