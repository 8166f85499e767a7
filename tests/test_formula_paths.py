"""The one-row (Python float) and all-orders (NumPy) paths of the BLEU and chrF formulas give the
same bits as scoring each row through the array path (issue 13), and sacreBLEU's values."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from nlpeval.metrics.bleu.sacrebleu import sacrebleu_values
from nlpeval.metrics.chrf.formula import chrf_parts


def _bleu_rows(rng: np.random.Generator, n: int, max_order: int) -> np.ndarray:
    rows = []
    for _ in range(n):
        length = int(rng.integers(0, 30)) if rng.random() < 0.7 else int(rng.integers(1000, 100_000))
        ref = int(rng.integers(0, 40)) if length < 100 else int(rng.integers(1000, 100_000))
        total = [max(0, length - k) for k in range(max_order)]
        correct = [int(rng.integers(0, t + 1)) if t and rng.random() > 0.4 else 0 for t in total]
        rows.append([length, ref, ref, *correct, *total, 1, 1])
    return np.array(rows)


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_one_row_equals_its_row_in_a_batch(smooth: str, effective_order: bool) -> None:
    rng = np.random.default_rng(11)
    for max_order in (1, 2, 4, 7):
        rows = _bleu_rows(rng, 200, max_order)
        options = {"max_order": max_order, "smooth": smooth, "smooth_value": None, "effective_order": effective_order}
        batch = sacrebleu_values(rows, **options)
        for i, row in enumerate(rows):
            one = sacrebleu_values(row, **options)
            assert one[0] == batch[0][i] and one[2] == batch[2][i]
            assert np.array_equal(one[1], batch[1][i])


def test_bleu_batch_formula_equals_sacrebleu() -> None:
    rows = _bleu_rows(np.random.default_rng(12), 300, 4)
    ours = sacrebleu_values(rows, max_order=4, smooth="exp", smooth_value=None, effective_order=True)[0]
    for row, value in zip(rows, ours, strict=True):
        theirs = sacrebleu.BLEU.compute_bleu(
            list(row[3:7]), list(row[7:11]), int(row[0]), int(row[1]), smooth_method="exp", effective_order=True
        ).score
        assert value == theirs


def test_chrf_one_row_equals_its_row_in_a_batch() -> None:
    rng = np.random.default_rng(13)
    for orders in (1, 6, 8, 11):
        rows = rng.integers(0, 60, size=(150, 3 * orders + 2)) * rng.integers(1, 500, size=(150, 1))
        rows[:, 2 : 3 * orders : 3] = np.minimum(rows[:, 2 : 3 * orders : 3], rows[:, 0 : 3 * orders : 3])
        rows[rng.random(rows.shape) < 0.15] = 0
        for factor in (4, 1.0, 0.0):
            for eps in (False, True):
                batch = chrf_parts(rows, orders=orders, factor=factor, eps_smoothing=eps)
                for i, row in enumerate(rows):
                    one = chrf_parts(row, orders=orders, factor=factor, eps_smoothing=eps)
                    for field in ("score", "precision", "recall", "precisions", "recalls"):
                        assert np.array_equal(getattr(one, field), getattr(batch, field)[i], equal_nan=True)
