"""Fork, forkserver, spawn and threads: the native core gives the same numbers in every process and thread.

The parent of each scenario is a fresh process (``tests/fork_workload.py``) so that "cold" means a parent that
never touched the native core; each scenario is bounded by a timeout that kills its whole process group, so a
hang fails the test instead of stalling CI.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import nlpeval
from nlpeval.metrics.reference_cache import cache_info, cache_limits, clear_cache

HERE = Path(__file__).resolve().parent
WORKLOAD = HERE / "fork_workload.py"
TIMEOUT = 120  # seconds for one whole scenario (it takes a few on an idle machine)

sys.path.insert(0, str(HERE))
from fork_workload import TASKS  # noqa: E402


def run_bounded(args: list[str], timeout: float = TIMEOUT) -> str:
    """The standard output of ``args``; fails the test (killing the process group) past ``timeout``."""
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=HERE
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{' '.join(args[1:])} did not finish within {timeout} s: a worker hangs")
    assert process.returncode == 0, err[-3000:]
    return out


@pytest.mark.parametrize("warmth", ["WARM", "COLD"])
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_pool_workers_give_the_parents_numbers(method: str, warmth: str) -> None:
    results = json.loads(run_bounded([sys.executable, str(WORKLOAD), method, warmth]))
    assert sorted(results) == sorted(TASKS)
    different = {task: pair for task, pair in results.items() if pair[0] != pair[1]}
    assert not different, different


def test_a_forked_child_of_a_warm_parent_is_not_slowed_to_one_thread() -> None:
    """The child rebuilds a pool of the same size instead of falling back to serial work.

    The scripts run with the tests folder as working directory, so ``fork_workload`` imports.
    """
    script = textwrap.dedent(
        """
        import os
        from fork_workload import corpus
        import nlpeval
        from nlpeval import _native
        hyps, refs, _ = corpus()
        nlpeval.bleu(hyps, refs); nlpeval.bleu(hyps, refs)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, str(_native.native_threads()).encode()); os._exit(0)
        os.waitpid(pid, 0)
        print(_native.native_threads(), os.read(read, 100).decode())
        """
    )
    parent, child = run_bounded([sys.executable, "-c", script]).split()
    assert parent == child
    assert int(parent) >= 1


def test_a_torch_dataloader_computes_bleu_in_its_workers_after_the_main_process_did() -> None:
    script = textwrap.dedent(
        """
        import torch
        from torch.utils.data import DataLoader, Dataset
        from fork_workload import corpus
        import nlpeval

        hyps, refs, _ = corpus()
        chunks = [(hyps[i:i + 100], refs[i:i + 100]) for i in range(0, len(hyps), 100)]
        expected = [nlpeval.bleu(h, r).score for h, r in chunks]
        expected = [nlpeval.bleu(h, r).score for h, r in chunks]  # the cache now holds prepared references

        class Chunks(Dataset):
            def __len__(self):
                return len(chunks)
            def __getitem__(self, index):
                return torch.tensor(nlpeval.bleu(*chunks[index]).score, dtype=torch.float64)

        loader = DataLoader(Chunks(), batch_size=None, num_workers=2, multiprocessing_context="fork")
        got = [float(value) for value in loader]
        print(got == expected, len(got))
        """
    )
    assert run_bounded([sys.executable, "-c", script]).split() == ["True", "4"]


def test_the_core_refuses_a_sub_interpreter_clearly() -> None:
    script = textwrap.dedent(
        """
        import nlpeval._core
        import _xxsubinterpreters as interpreters
        interp = interpreters.create()
        try:
            interpreters.run_string(interp, "import nlpeval._core")
        except Exception as exc:
            print(type(exc).__name__, exc)
        else:
            print("imported")
        """
    )
    out = run_bounded([sys.executable, "-c", script])
    assert "imported" not in out
    assert "subinterpreter" in out.lower(), out


def test_threads_racing_a_small_cache_get_the_single_threaded_numbers(wmt17: dict[str, list[str]]) -> None:
    """8 threads x 2,000 calls over 16 reference sets with a cache bound of 3 entries: evictions race lookups."""
    systems = [name for name in wmt17 if name != "reference"]
    batches = []
    for index in range(16):
        start = 70 * index
        refs = wmt17[systems[index]][start : start + 70]
        hyps = wmt17["reference"][start : start + 70]
        batches.append((hyps, refs))
    expected = {
        (kind, index): (nlpeval.bleu(h, r).score if kind == "bleu" else nlpeval.chrf(h, r).score)
        for index, (h, r) in enumerate(batches)
        for kind in ("bleu", "chrf")
    }
    old = cache_limits()
    clear_cache()
    cache_limits(max_entries=3)
    mismatches: list[tuple[str, int, float]] = []
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for call in range(2000):
                index = (call * 7 + offset) % 16
                kind = "bleu" if (call + offset) % 2 else "chrf"
                hyps, refs = batches[index]
                got = nlpeval.bleu(hyps, refs).score if kind == "bleu" else nlpeval.chrf(hyps, refs).score
                if got != expected[kind, index]:
                    mismatches.append((kind, index, got))
        except BaseException as exc:  # reported on the main thread
            errors.append(exc)

    try:
        threads = [threading.Thread(target=worker, args=(offset,)) for offset in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        info = cache_info()
    finally:
        cache_limits(*old)
        clear_cache()
    assert not errors, errors[:3]
    assert not mismatches, mismatches[:5]
    assert info["bleu"]["entries"] <= 3 and info["chrf"]["entries"] <= 3
    assert info["bleu"]["hits"] > 0 and info["chrf"]["hits"] > 0  # prepared entries were really used
