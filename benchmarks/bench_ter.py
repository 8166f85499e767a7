"""TER: corpus TER of the WMT17 systems and very long segments, against sacreBLEU.

sacreBLEU's TER runs its shift search in Python (several seconds per WMT17
system), so both sides score the same subset: the first 500 segments of each
of the 16 systems.
"""

from __future__ import annotations

import random
from pathlib import Path

from harness import Case, wmt17_systems

SEGMENTS = 500


def long_pairs(n_pairs: int = 4, length: int = 520) -> tuple[list[str], list[str]]:
    """Long segments whose hypotheses have blocks moved and words replaced near the end."""
    rng = random.Random(1)
    hyps, refs = [], []
    for _ in range(n_pairs):
        ref = [f"w{i}" for i in range(length)]
        hyp = list(ref)
        for _ in range(6):
            size = rng.randint(1, 6)
            start = rng.randrange(length - 120, length - size)
            block = hyp[start : start + size]
            del hyp[start : start + size]
            target = max(length - 120, min(len(hyp), start + rng.randint(-30, 30)))
            hyp[target:target] = block
        hyps.append(" ".join(hyp))
        refs.append(" ".join(ref))
    return hyps, refs


def cases(data: Path) -> list[Case]:
    import sacrebleu

    import nlpeval

    reference, systems = wmt17_systems()
    reference = reference[:SEGMENTS]
    outputs = [hyp[:SEGMENTS] for hyp in systems.values()]
    long_hyps, long_refs = long_pairs()
    version = f"sacrebleu {sacrebleu.__version__}"

    def corpus_ref() -> None:
        for hyp in outputs:
            sacrebleu.metrics.TER().corpus_score(hyp, [reference])

    def corpus_ours() -> None:
        for hyp in outputs:
            nlpeval.ter(hyp, reference)

    def long_ref() -> None:
        sacrebleu.metrics.TER().corpus_score(long_hyps, [long_refs])

    def long_ours() -> None:
        nlpeval.ter(long_hyps, long_refs)

    return [
        Case(f"corpus TER, 16 WMT17 systems x {SEGMENTS} segments", version, corpus_ref, corpus_ours, 50, repeat=2),
        Case("TER of 4 segments of 520 tokens with shifts", version, long_ref, long_ours, 50, repeat=1),
    ]
