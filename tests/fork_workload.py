"""A parent process for the fork-safety tests: ``python fork_workload.py START_METHOD WARM|COLD [TASK ...]``.

It optionally uses every native entry point first (``WARM``: twice, so the reference caches hold prepared
entries), then runs each task in worker processes started with ``START_METHOD`` (``fork``, ``forkserver``,
``spawn``) from a :class:`multiprocessing.Pool` of two, and prints one JSON object: ``{"task": [parent,
child], ...}``, each value a digest of the task's result. A cold parent computes its own values only after
its workers have answered, so the workers are forked from a process that has never touched the native core.
The test kills the whole process group if it does not answer in time: a hang fails the test, never CI.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdata import data_dir, read_lines

SEGMENTS = 400  # above the size from which the kernels use the thread pool


def corpus() -> tuple[list[str], list[str], list[str]]:
    folder = data_dir() / "wmt17-en-de"
    hyps = read_lines(folder / "online-B.0.de")[:SEGMENTS]
    refs = read_lines(folder / "reference.de")[:SEGMENTS]
    other = read_lines(folder / "uedin-nmt.4722.de")[:SEGMENTS]
    return hyps, refs, other


def digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def run_task(task: str) -> str:
    import nlpeval

    name, _, which = task.partition(":")
    hyps, refs, other = corpus()
    references = refs if which == "same" else other
    if name == "bleu":
        score = nlpeval.bleu(hyps, references, segments=True)
        return digest((score.score, score.segments.tolist()))
    if name == "chrf":
        score = nlpeval.chrf(hyps, references, word_order=2, segments=True)
        return digest((score.score, score.segments.tolist()))
    if name == "ter":
        return digest(nlpeval.ter(hyps, references, segments=True).segments.tolist())
    if name == "wer":
        return digest(nlpeval.wer(hyps, references, segments=True).segments.tolist())
    if name == "rouge":
        scores = nlpeval.rouge(hyps, references, types=("rouge1", "rougeL"), segments=True)
        return digest({key: value.segments.tolist() for key, value in scores.items()})
    if name == "meteor":
        score = nlpeval.meteor(hyps, references, modules=["exact"], segments=True)
        return digest((score.score, score.segments.tolist()))
    if name == "pairwise":
        return digest(nlpeval.pairwise_bleu(hyps[:80], references[:80]).tolist())
    if name == "report":
        model = nlpeval.report(
            {"B": hyps[:200], "uedin": other[:200]}, refs[:200], n_bootstrap=200, n_randomization=200
        )
        return digest(json.dumps(model.to_dict(), sort_keys=True, default=str))
    if name == "sari":
        score = nlpeval.sari(hyps, references, sources=other if which == "same" else refs, segments=True)
        return digest((score.score, score.segments.tolist()))
    if name == "nist":
        score = nlpeval.nist(hyps, references, segments=True)
        return digest((score.score, score.segments.tolist()))
    raise ValueError(f"unknown task {task!r}")


TASKS = [
    f"{name}:{which}"
    for name in ("bleu", "chrf", "ter", "wer", "rouge", "meteor", "pairwise", "report", "sari", "nist")
    for which in ("same", "other")
]


def main() -> None:
    method, warmth, *tasks = sys.argv[1:]
    tasks = tasks or TASKS
    parent: dict[str, str] = {}
    if warmth == "WARM":
        for task in tasks:
            run_task(task)
            parent[task] = run_task(task)
    with multiprocessing.get_context(method).Pool(2) as pool:
        children = pool.map(run_task, tasks, chunksize=1)
    if warmth != "WARM":
        parent = {task: run_task(task) for task in tasks}
    print(json.dumps({task: [parent[task], child] for task, child in zip(tasks, children, strict=True)}))


if __name__ == "__main__":
    main()
