"""The chrF formula of sacreBLEU (``CHRF._compute_f_score``), vectorised over statistics rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from nlpeval import _native
from nlpeval.metrics.chrf.fields import native_factor

#: sacreBLEU's epsilon for undefined precision, recall and F (eps smoothing).
EPS = 1e-16


@dataclass(frozen=True)
class ChrfParts:
    """chrF of statistics rows and its parts (arrays over the leading axes).

    Attributes
    ----------
    score : numpy.ndarray
        chrF on sacreBLEU's 0–100 scale.
    precision, recall : numpy.ndarray
        Precision and recall averaged over the effective orders (those with
        hypothesis and reference n-grams), on the 0–1 scale.
    precisions, recalls : numpy.ndarray
        Per order (last axis), 0 where undefined.
    """

    score: np.ndarray | np.float64
    precision: np.ndarray | np.float64
    recall: np.ndarray | np.float64
    precisions: np.ndarray
    recalls: np.ndarray


def chrf_parts(totals: np.ndarray, *, orders: int, factor: float, eps_smoothing: bool) -> ChrfParts:
    """chrF of ``[hyp, ref, match]`` triples, one per order, in the first ``3 * orders`` columns.

    Follows sacreBLEU's ``CHRF._compute_f_score`` operation by operation (the
    epsilon of undefined ratios, the effective order, the order of the
    floating-point operations) so that values agree to the last bit.

    Parameters
    ----------
    totals : numpy.ndarray
        Statistics of shape ``(..., >= 3 * orders)``.
    orders : int
        Character plus word orders.
    factor : float
        ``beta ** 2``.
    eps_smoothing : bool
        Average the per-order F-scores (chrF++.py) instead of scoring the
        averaged precision and recall of the effective orders.

    Returns
    -------
    ChrfParts

    Examples
    --------
    >>> parts = chrf_parts(np.array([2, 1, 1]), orders=1, factor=4, eps_smoothing=False)
    >>> float(parts.score), float(parts.precision), float(parts.recall)
    (83.33333333333334, 0.5, 1.0)
    """
    t = np.asarray(totals)
    if t.ndim == 1 and t.dtype == np.int64 and type(orders) is int and orders >= 1 and native_factor(factor):
        native = _native.chrf_totals_parts(t, orders, float(factor), bool(eps_smoothing))
        return ChrfParts(
            np.float64(native[0]),
            np.float64(native[1]),
            np.float64(native[2]),
            np.array(native[3]),
            np.array(native[4]),
        )
    t = np.asarray(t, dtype=np.float64)
    if t.ndim == 1:
        scalar = _scalar_parts(t.tolist(), orders=orders, factor=factor, eps_smoothing=eps_smoothing)
        if scalar is not None:
            return scalar
    # every order at once: the same elementwise operations as sacreBLEU's loop over orders, and
    # its running sums as sequential accumulations
    triples = t[..., : 3 * orders].reshape(*t.shape[:-1], orders, 3)
    n_hyp, n_ref, n_match = triples[..., 0], triples[..., 1], triples[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(n_hyp > 0, n_match / n_hyp, EPS)
        rec = np.where(n_ref > 0, n_match / n_ref, EPS)
        denom = factor * prec + rec
        f_scores = np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
        score = np.add.accumulate(f_scores, axis=-1)[..., -1]
        used = (n_hyp > 0) & (n_ref > 0)
        sum_prec = np.add.accumulate(np.where(used, prec, 0.0), axis=-1)[..., -1]
        sum_rec = np.add.accumulate(np.where(used, rec, 0.0), axis=-1)[..., -1]
        effective = used.sum(axis=-1).astype(np.float64)
        precisions = np.where(n_hyp > 0, prec, 0.0)
        recalls = np.where(n_ref > 0, rec, 0.0)
        avg_prec = np.where(effective > 0, sum_prec / effective, 0.0)
        avg_rec = np.where(effective > 0, sum_rec / effective, 0.0)
        if eps_smoothing:
            value = 100 * score / orders
        else:
            f = (1 + factor) * avg_prec * avg_rec
            f = f / (factor * avg_prec + avg_rec)
            value = np.where(avg_prec + avg_rec != 0, 100 * f, 0.0)
    return ChrfParts(value, avg_prec, avg_rec, precisions, recalls)


def _scalar_parts(t: list[float], *, orders: int, factor: float, eps_smoothing: bool) -> ChrfParts | None:
    """:func:`chrf_parts` of one totals vector with Python floats: the same IEEE operations in the
    same order (so the same bits) without NumPy's per-call cost; None where a ratio is undefined."""
    score = sum_prec = sum_rec = effective = 0.0
    precisions: list[float] = []
    recalls: list[float] = []
    try:
        for i in range(orders):
            n_hyp, n_ref, n_match = t[3 * i], t[3 * i + 1], t[3 * i + 2]
            prec = n_match / n_hyp if n_hyp > 0 else EPS
            rec = n_match / n_ref if n_ref > 0 else EPS
            denom = factor * prec + rec
            score = score + ((1 + factor) * prec * rec / denom if denom > 0 else EPS)
            if n_hyp > 0 and n_ref > 0:
                sum_prec = sum_prec + prec
                sum_rec = sum_rec + rec
                effective = effective + 1.0
            precisions.append(prec if n_hyp > 0 else 0.0)
            recalls.append(rec if n_ref > 0 else 0.0)
        avg_prec = sum_prec / effective if effective > 0 else 0.0
        avg_rec = sum_rec / effective if effective > 0 else 0.0
        if eps_smoothing:
            value = 100 * score / orders
        elif avg_prec + avg_rec != 0:
            f = (1 + factor) * avg_prec * avg_rec
            value = 100 * (f / (factor * avg_prec + avg_rec))
        else:
            value = 0.0
    except ZeroDivisionError:
        return None
    return ChrfParts(
        np.float64(value), np.float64(avg_prec), np.float64(avg_rec), np.array(precisions), np.array(recalls)
    )


def sentence_scores(
    rows: np.ndarray, *, orders: int, factor: float, eps_smoothing: bool, divisor: float = 1.0
) -> np.ndarray:
    """chrF (0–100) of each statistics row, divided by ``divisor``: ``chrf_parts(rows, ...).score /
    divisor``, bit for bit.

    Integer rows are scored natively (``_native.chrf_row_scores``: sacreBLEU's steps, the same IEEE
    operations in the same order); float rows take the array path.

    Examples
    --------
    >>> sentence_scores(np.array([[2, 1, 1], [0, 3, 0]]), orders=1, factor=4, eps_smoothing=False).tolist()
    [83.33333333333334, 0.0]
    """
    rows = np.asarray(rows)
    if rows.dtype.kind == "i" and rows.dtype != np.int64:
        rows = rows.astype(np.int64)
    if rows.ndim == 2 and rows.dtype == np.int64 and type(orders) is int and orders >= 1 and native_factor(factor):
        return _native.chrf_row_scores(rows, orders, float(factor), bool(eps_smoothing), float(divisor))
    score = chrf_parts(rows, orders=orders, factor=factor, eps_smoothing=eps_smoothing).score
    return cast("np.ndarray", score / divisor if divisor != 1.0 else score)  # rows: an array
