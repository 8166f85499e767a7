"""Cohen's kappa for two raters, unweighted or with linear/quadratic weights (scikit-learn's definition)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.agreement._labels import as_array, encode_pair
from nlpeval.agreement._resample import group_sums
from nlpeval.agreement._result import check_bootstrap, make_score, resolve_undefined
from nlpeval.core.errors import InputError
from nlpeval.core.score import Score
from nlpeval.core.zero_division import ZeroDivision, check_zero_division

WEIGHTS = (None, "linear", "quadratic")


def weight_matrix(n_labels: int, weights: str | None) -> np.ndarray:
    """Disagreement weights between label positions ``i`` and ``j``.

    ``None``: 1 off the diagonal; ``"linear"``: ``|i - j|``; ``"quadratic"``: ``(i - j)**2``.
    Positions are those of the sorted labels (or of ``labels``), not the label values.

    Examples
    --------
    >>> weight_matrix(3, "linear").tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    positions = np.arange(n_labels, dtype=np.float64)
    diff = positions[:, None] - positions[None, :]
    if weights is None:
        return (diff != 0).astype(np.float64)
    if weights == "linear":
        return np.abs(diff)
    return diff**2


def kappa_from_confusion(confusion: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Kappa of confusion matrices (leading axes are batches); NaN where undefined."""
    confusion = np.asarray(confusion, dtype=np.float64)
    total = confusion.sum(axis=(-2, -1))
    column_sums = confusion.sum(axis=-2)
    row_sums = confusion.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = column_sums[..., :, None] * row_sums[..., None, :] / total[..., None, None]
        observed_disagreement = (weights * confusion).sum(axis=(-2, -1))
        expected_disagreement = (weights * expected).sum(axis=(-2, -1))
        kappa = 1.0 - observed_disagreement / expected_disagreement
    return np.where((total == 0) | (expected_disagreement == 0), np.nan, kappa)


def _restrict(codes_a: np.ndarray, codes_b: np.ndarray, values: np.ndarray, labels: Sequence[Any]) -> tuple:
    """Re-code to the order of ``labels``, dropping items with a label outside it (as scikit-learn does)."""
    wanted = as_array(labels, ndim=1, what="labels")
    if len(wanted) == 0:
        raise ValueError("labels must not be empty")
    lookup = {value: position for position, value in enumerate(values.tolist())}
    remap = np.full(len(values) + 1, -1, dtype=np.int64)
    for position, label in enumerate(wanted.tolist()):
        key = float(label) if values.dtype.kind == "f" and not isinstance(label, str) else label
        if key in lookup:
            remap[lookup[key]] = position
    new_a, new_b = remap[codes_a], remap[codes_b]
    keep = (new_a >= 0) & (new_b >= 0)
    if not keep.any():
        raise InputError("no item has both labels in `labels`", side="labels")
    return new_a[keep], new_b[keep], np.asarray(wanted)


def cohen_kappa(
    a: Sequence[Any] | np.ndarray,
    b: Sequence[Any] | np.ndarray,
    *,
    weights: str | None = None,
    labels: Sequence[Any] | None = None,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    confidence: float = 0.95,
    zero_division: ZeroDivision = "warn",
) -> Score:
    """Cohen's kappa between two raters' labels of the same items.

    ``kappa = 1 - sum(w * observed) / sum(w * expected)`` where ``observed`` is the
    confusion matrix, ``expected`` the outer product of its margins divided by the
    number of items, and ``w`` the disagreement weights. Equal to
    ``sklearn.metrics.cohen_kappa_score``. The coefficient does not decompose into
    per-item sums (it is a ratio of margins); the bootstrap resamples items.

    Parameters
    ----------
    a, b : sequence
        One label per item from each rater (numbers or strings; no missing values).
    weights : {None, "linear", "quadratic"}
        Disagreement weights by label *position* in the sorted label set (or in
        ``labels``), as scikit-learn defines them.
    labels : sequence, optional
        The labels to use and their order; items with another label are ignored
        (as in scikit-learn).
    n_bootstrap : int
        Resamples of items for a percentile confidence interval (0: none).
    seed : int or None
        Bootstrap seed.
    confidence : float
        Confidence level of the interval.
    zero_division : {"warn", "raise", 0, 1, nan}
        Value when kappa is undefined (expected disagreement 0, e.g. both raters
        always use one and the same label): ``"warn"`` gives NaN with an
        :class:`~nlpeval.UndefinedMetricWarning`.

    Returns
    -------
    Score
        ``score`` is kappa; components ``n_items``, ``labels``,
        ``observed_disagreement`` and ``expected_disagreement`` (weighted, per item),
        ``observed_agreement`` (share of identical labels).

    Raises
    ------
    InputError
        Different lengths, a missing label (naming the item and rater), labels
        of mixed types.

    Examples
    --------
    >>> a = ["yes", "yes", "no", "no", "yes", "no"]
    >>> b = ["yes", "no", "no", "no", "yes", "yes"]
    >>> round(cohen_kappa(a, b).score, 4)
    0.3333
    >>> round(cohen_kappa([1, 2, 3, 3], [1, 3, 3, 2], weights="quadratic").score, 4)
    0.6364
    """
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic'; got {weights!r}")
    check_bootstrap(n_bootstrap, confidence)
    check_zero_division(zero_division)
    codes_a, codes_b, values = encode_pair(a, b)
    if labels is not None:
        codes_a, codes_b, values = _restrict(codes_a, codes_b, values, labels)
    n_labels = len(values)
    if len(codes_a) == 0:
        raise InputError("no items: Cohen's kappa needs at least one labelled item", side="a")
    cells = codes_a * n_labels + codes_b
    confusion = np.bincount(cells, minlength=n_labels * n_labels).reshape(n_labels, n_labels)
    w = weight_matrix(n_labels, weights)
    value = float(kappa_from_confusion(confusion, w))
    n_items = len(cells)
    expected = np.outer(confusion.sum(axis=0), confusion.sum(axis=1)) / n_items
    components = {
        "n_items": n_items,
        "labels": values.tolist(),
        "observed_agreement": float(np.trace(confusion) / n_items),
        "observed_disagreement": float((w * confusion).sum() / n_items),
        "expected_disagreement": float((w * expected).sum() / n_items),
    }
    value = resolve_undefined(
        value, zero_division, "Cohen's kappa", "the expected disagreement is 0 (the raters use a single label)"
    )

    def statistic(draws: np.ndarray) -> np.ndarray:
        counts = group_sums(draws, cells, n_labels * n_labels)
        return kappa_from_confusion(counts.reshape(-1, n_labels, n_labels), w)

    return make_score(
        "cohen_kappa",
        value,
        signature={"weights": weights or "none"},
        components=components,
        statistic=statistic,
        n_units=n_items,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )
