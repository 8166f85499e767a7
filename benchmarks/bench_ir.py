"""Retrieval measures (trec_eval's) on 5,000 queries x 1,000 documents, against pytrec_eval and ranx.

Both sides start from the same Python dicts ({query: {doc: score}}, {query: {doc: level}}) and produce
every measure per query: pytrec_eval's side is ``RelevanceEvaluator(qrels, measures).evaluate(run)``
(trec_eval 9.0.8 in C), nlpeval's ``nlpeval.retrieval(qrels, run, measures)`` (input checks included).
ranx's side is ``evaluate(Qrels(qrels), Run(run), metrics)`` on the measures it shares with
trec_eval (no Rprec/success names differ: r-precision, hit_rate); its numba functions are compiled
before timing and it runs on 1/10 of the queries (its conversion of the dicts is slow), scaled up.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import Case

QUERIES, DOCS, JUDGED = 5000, 1000, 80

TREC = {"P.5,10,20", "recall.10,100", "Rprec", "recip_rank", "map", "map_cut.10,100", "ndcg", "ndcg_cut.10,100"}
TREC |= {"success.1,10"}
OURS = (
    "P@5,P@10,P@20,recall@10,recall@100,Rprec,recip_rank,map,map@10,map@100,ndcg,ndcg@10,ndcg@100,success@1,success@10"
)
RANX = ["precision@10", "recall@100", "r-precision", "mrr", "map", "ndcg", "ndcg@10", "hit_rate@10"]
OURS_AS_RANX = "P@10,recall@100,Rprec,recip_rank,map,ndcg,ndcg@10,success@10"


def collection(seed: int, ties: bool) -> tuple[dict, dict]:
    """BM25-like float scores (``ties``: rounded to 3 decimals, so about 2 in 3 judged documents tie)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(QUERIES):
        docs = [f"doc{x}" for x in rng.choice(200_000, DOCS, replace=False)]
        scores = 15.0 + 4.0 * rng.standard_normal(DOCS)
        if ties:
            scores = np.round(rng.random(DOCS), 3)
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        judged = rng.choice(DOCS, JUDGED, replace=False)
        qrels[f"q{q}"] = {docs[i]: int(rng.choice([0, 0, 0, 1, 1, 2, 3])) for i in judged}
        qrels[f"q{q}"].update({f"unretrieved{x}": 1 for x in range(int(rng.integers(0, 10)))})
    return qrels, run


def write_files(folder: Path, qrels: dict, run: dict, queries: list[str] | None = None) -> tuple[str, str]:
    """The collection as TREC files (run lines in rank order, as a retrieval system writes them)."""
    chosen = list(qrels) if queries is None else queries
    qrels_path, run_path = folder / f"qrels-{len(chosen)}", folder / f"run-{len(chosen)}"
    with open(qrels_path, "w", encoding="utf-8") as handle:
        for q in chosen:
            handle.writelines(f"{q} 0 {doc} {level}\n" for doc, level in qrels[q].items())
    with open(run_path, "w", encoding="utf-8") as handle:
        for q in chosen:
            ranked = sorted(run[q].items(), key=lambda item: -item[1])
            handle.writelines(f"{q} Q0 {doc} {i + 1} {score!r} bm25\n" for i, (doc, score) in enumerate(ranked))
    return str(qrels_path), str(run_path)


def file_cases() -> list[Case]:
    """From TREC files on disk (page cache warm): each side reads them its own way. pytrec_eval's with its
    ``parse_qrel``/``parse_run``; ranx's with ``Qrels.from_file``/``Run.from_file`` (1/10 of the queries,
    scaled); nlpeval's ``nlpeval.retrieval(qrels_path, run_path)`` (read and placed natively)."""
    import atexit
    import shutil
    import tempfile

    import pytrec_eval

    import nlpeval

    folder = Path(tempfile.mkdtemp(prefix="nlpeval-bench-ir-"))
    atexit.register(shutil.rmtree, folder, True)
    qrels, run = collection(1, False)
    qrels_path, run_path = write_files(folder, qrels, run)

    def reference() -> None:
        with open(qrels_path, encoding="utf-8") as q_handle, open(run_path, encoding="utf-8") as r_handle:
            judged, ranked = pytrec_eval.parse_qrel(q_handle), pytrec_eval.parse_run(r_handle)
        pytrec_eval.RelevanceEvaluator(judged, TREC).evaluate(ranked)

    def ours() -> None:
        nlpeval.retrieval(qrels_path, run_path, OURS)

    out = [
        Case(
            f"IR from files: 15 trec_eval measures, {QUERIES:,} queries x {DOCS:,} docs",
            "pytrec_eval 0.5.11 (parse_qrel, parse_run, evaluate)",
            reference,
            ours,
            target=2.0,
        )
    ]
    try:
        import ranx
    except ImportError:  # pragma: no cover - ranx is not in the test extra (numba)
        return out
    small_qrels, small_run = write_files(folder, qrels, run, [f"q{q}" for q in range(QUERIES // 10)])
    ranx.evaluate(ranx.Qrels.from_file(small_qrels, kind="trec"), ranx.Run.from_file(small_run, kind="trec"), RANX)

    def ranx_side() -> None:
        ranx.evaluate(ranx.Qrels.from_file(small_qrels, kind="trec"), ranx.Run.from_file(small_run, kind="trec"), RANX)

    def ours_full() -> None:
        nlpeval.retrieval(qrels_path, run_path, OURS_AS_RANX)

    out.append(
        Case(
            f"IR from files: 8 measures ranx shares, {QUERIES:,} queries x {DOCS:,} docs",
            "ranx 0.3.21 from_file (1/10 of the queries, scaled)",
            ranx_side,
            ours_full,
            target=20.0,
            reference_scale=10.0,
        )
    )
    return out


def cases(data: Path) -> list[Case]:
    import pytrec_eval

    import nlpeval

    out = []
    for ties in (False, True):
        qrels, run = collection(1, ties)
        label = "tied scores" if ties else "float scores"

        def reference(qrels=qrels, run=run) -> None:
            pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)

        def ours(qrels=qrels, run=run) -> None:
            nlpeval.retrieval(qrels, run, OURS)

        out.append(
            Case(
                f"IR: 15 trec_eval measures, {QUERIES:,} queries x {DOCS:,} docs, {label}",
                "pytrec_eval 0.5.11",
                reference,
                ours,
                target=2.0,
            )
        )
    try:
        import ranx
    except ImportError:  # pragma: no cover - ranx is not in the test extra (numba)
        return out
    qrels, run = collection(1, False)
    tenth = [f"q{q}" for q in range(QUERIES // 10)]
    small_qrels, small_run = {q: qrels[q] for q in tenth}, {q: run[q] for q in tenth}
    ranx.evaluate(ranx.Qrels(small_qrels), ranx.Run(small_run), RANX)  # compile numba once

    def ranx_side() -> None:
        ranx.evaluate(ranx.Qrels(small_qrels), ranx.Run(small_run), RANX)

    def ours_full() -> None:
        nlpeval.retrieval(qrels, run, OURS_AS_RANX)

    out.append(
        Case(
            f"IR: 8 measures ranx shares, {QUERIES:,} queries x {DOCS:,} docs",
            "ranx 0.3.21 (1/10 of the queries, scaled)",
            ranx_side,
            ours_full,
            target=20.0,
            reference_scale=10.0,
        )
    )
    return out + file_cases()


def before_cases() -> list[Case]:
    """Before/after in one run: ``nlpeval.retrieval`` on the dicts with the Python reader and NumPy measures (what
    main did before the native dict reader) as the reference side, the native reader and measures as nlpeval's."""
    import nlpeval
    from nlpeval import _native

    saved = {name: getattr(_native, name) for name in ("TrecQrels", "trec_place_mapping", "trec_measures")}

    def python_side(qrels: dict, run: dict) -> None:
        for name in saved:
            setattr(_native, name, None)
        try:
            nlpeval.retrieval(qrels, run, OURS_AS_RANX)
        finally:
            for name, value in saved.items():
                setattr(_native, name, value)

    out = []
    for ties in (False, True):
        qrels, run = collection(1, ties)
        out.append(
            Case(
                f"IR before/after: 8 measures, dicts, {'tied' if ties else 'float'} scores",
                "nlpeval with the Python dict reader and NumPy measures",
                lambda qrels=qrels, run=run: python_side(qrels, run),
                lambda qrels=qrels, run=run: nlpeval.retrieval(qrels, run, OURS_AS_RANX),
                target=None,
            )
        )
    return out


def _cpu(run: object, repeat: int = 3) -> float:
    """Best-of CPU seconds of one call (every thread of this process)."""
    import gc
    import time

    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def whole_process(repeat: int = 2) -> list[tuple[str, float, float]]:
    """Wall and CPU seconds (best of ``repeat``) of whole processes on the full files: ``nlpeval ir``,
    a ``python -c`` running ranx from the files, and one running pytrec_eval from the files."""
    import os
    import resource
    import subprocess
    import sys
    import tempfile
    import time

    folder = Path(tempfile.mkdtemp(prefix="nlpeval-bench-ir-"))
    qrels, run = collection(1, False)
    q, r = write_files(folder, qrels, run)
    measures = OURS_AS_RANX
    ranx_code = f"import ranx; ranx.evaluate(ranx.Qrels.from_file({q!r}, kind='trec'), "
    ranx_code += f"ranx.Run.from_file({r!r}, kind='trec'), {RANX!r})"
    trec_code = f"import pytrec_eval; qr = pytrec_eval.parse_qrel(open({q!r})); ru = pytrec_eval.parse_run(open({r!r}))"
    trec_code += f"; pytrec_eval.RelevanceEvaluator(qr, {sorted(TREC)!r}).evaluate(ru)"
    sides = {
        "nlpeval ir (8 measures)": [sys.executable, "-m", "nlpeval", "ir", "-q", q, r, "-m", measures, "-f", "json"],
        "ranx 0.3.21 from_file + evaluate (8 measures)": [sys.executable, "-c", ranx_code],
        "pytrec_eval 0.5.11 parse + evaluate (15 measures)": [sys.executable, "-c", trec_code],
    }
    out = []
    for name, argv in sides.items():
        best_wall = best_cpu = float("inf")
        for _ in range(repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ))
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        out.append((name, best_wall, best_cpu))
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    return out


if __name__ == "__main__":  # python benchmarks/bench_ir.py [--files] [--before] [--only TEXT] [--whole-process]
    import datetime
    import sys

    from harness import DATA

    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC", file=sys.stderr)
    only_files = "--files" in sys.argv
    print(
        "| case | reference | reference s | nlpeval s | speed-up | ref CPU s | nlpeval CPU s | CPU speed-up | target |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    chosen = file_cases() if only_files else cases(DATA)
    if "--before" in sys.argv:
        chosen = before_cases() + chosen
    if "--only" in sys.argv:  # --only TEXT: the cases whose name contains TEXT
        wanted = sys.argv[sys.argv.index("--only") + 1]
        chosen = [case for case in chosen if wanted in case.name]
    for case in chosen:
        ref_s, ours_s = case.measure()
        ref_cpu = _cpu(case.run_reference) * case.reference_scale
        ours_cpu = _cpu(case.run_nlpeval)
        ratio = ref_s / ours_s
        verdict = "met" if case.target is None or ratio >= case.target else "NOT met"
        row = [case.name, case.reference_tool, f"{ref_s:.3f}", f"{ours_s:.3f}", f"{ratio:.1f}x"]
        row += [f"{ref_cpu:.3f}", f"{ours_cpu:.3f}", f"{ref_cpu / ours_cpu:.1f}x"]
        goal = "before/after" if case.target is None else f">= {case.target:g}x {verdict}"
        print("| " + " | ".join([*row, goal]) + " |")
        sys.stdout.flush()
    if "--whole-process" in sys.argv:
        print("\n| whole process, full files | wall s | CPU s |\n|---|---:|---:|")
        for name, wall, cpu in whole_process():
            print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
