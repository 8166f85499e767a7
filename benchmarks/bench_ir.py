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
    return out


if __name__ == "__main__":  # python benchmarks/bench_ir.py: these cases alone, one table
    import datetime
    import sys

    from harness import DATA

    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC", file=sys.stderr)
    print("| case | reference | reference s | nlpeval s | speed-up | target |")
    print("|---|---|---:|---:|---:|---|")
    for case in cases(DATA):
        ref_s, ours_s = case.measure()
        ratio = ref_s / ours_s
        verdict = "met" if case.target is None or ratio >= case.target else "NOT met"
        row = [case.name, case.reference_tool, f"{ref_s:.3f}", f"{ours_s:.3f}", f"{ratio:.1f}x"]
        print("| " + " | ".join([*row, f">= {case.target:g}x {verdict}"]) + " |")
        sys.stdout.flush()
