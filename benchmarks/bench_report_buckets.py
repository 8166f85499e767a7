"""Report bucket tables (``nlpeval.reports.analyses.buckets``): the resampled totals of 16 systems in one
pass over the draws (``resampling.batched_totals``) against one product per system
(``Resamples.totals``, the previous path), in process, on the WMT17 chrF statistics of each
compare-mt reference-length bucket, 1,000 resamples. Both sides give the same numbers (checked here).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import Case


def cases(data: Path) -> list[Case]:
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses.resampling import Resamples, batched_totals
    from nlpeval.reports.metrics import build_metrics

    wmt = data / "wmt17-en-de"
    files = sorted(p for p in wmt.glob("*.de") if p.name != "reference.de")
    if not files:
        return []
    read = lambda p: p.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    refs = read(wmt / "reference.de")
    chrf = build_metrics(("chrf",))["chrf"][0]
    stats = {p.name: chrf.segment_stats(read(p), [[r] for r in refs]) for p in files}
    buckets = cm.bucket_of(np.array([len(cm.tokenize(r)) for r in refs]), cm.LENGTH_EDGES)
    work = []
    for b in range(len(cm.LENGTH_EDGES) + 1):
        members = np.flatnonzero(buckets == b)
        if len(members) >= 2:
            work.append((Resamples.draw(len(members), 1000, 12345), {s: st.take(members) for s, st in stats.items()}))

    def per_system() -> list:
        return [{s: r.totals(p) for s, p in subsets.items()} for r, subsets in work]

    def batched() -> list:
        return [batched_totals(r, subsets) for r, subsets in work]

    for one, other in zip(per_system(), batched(), strict=True):
        assert all(np.array_equal(one[s], other[s]) for s in one)
    return [
        Case(
            "report buckets: resampled chrF totals of 16 WMT17 systems per length bucket, in process",
            "nlpeval per system (previous path)",
            per_system,
            batched,
            1.5,
        )
    ]
