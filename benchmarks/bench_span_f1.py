"""Span F1 on 100,000 generated CoNLL-style sentences (about 1.35 million tokens), against seqeval 1.2.2.

Reference labels are IOB2 over four entity types; predictions keep about 70% of the labels and
replace the rest (an O, another type, an I- without B-). Both tools take the same lists of label lists.
"""

from __future__ import annotations

import random
from pathlib import Path

from harness import Case

TYPES = ("PER", "LOC", "ORG", "MISC")


def conll_like(n: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """(predictions, references) of ``n`` sentences of 0-27 tokens."""
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        ref: list[str] = []
        for _ in range(rng.randrange(28)):
            if rng.random() < 0.6:
                ref.append("O")
            elif ref and ref[-1] != "O" and rng.random() < 0.5:
                ref.append("I-" + ref[-1][2:])
            else:
                ref.append("B-" + rng.choice(TYPES))
        hyp = []
        for label in ref:
            roll = rng.random()
            if roll < 0.7:
                hyp.append(label)
            elif roll < 0.8:
                hyp.append("O")
            else:
                hyp.append(rng.choice("BI") + "-" + rng.choice(TYPES))
        hyps.append(hyp)
        refs.append(ref)
    return hyps, refs


def cases(data: Path) -> list[Case]:
    from seqeval.metrics import f1_score
    from seqeval.metrics.v1 import precision_recall_fscore_support
    from seqeval.scheme import IOB2

    import nlpeval

    hyps, refs = conll_like(100_000)
    return [
        Case(
            "span F1 (lenient), 100,000 sentences",
            "seqeval 1.2.2 f1_score",
            lambda: f1_score(refs, hyps),
            lambda: nlpeval.span_f1(hyps, refs),
            target=20.0,
        ),
        Case(
            "span F1 (strict IOB2), 100,000 sentences",
            "seqeval 1.2.2 strict IOB2",
            lambda: precision_recall_fscore_support(refs, hyps, average="micro", scheme=IOB2),
            lambda: nlpeval.span_f1(hyps, refs, mode="strict", scheme="IOB2"),
            target=20.0,
        ),
    ]
