"""Classification and regression from dask arrays or series: statistics that are sums.

* :func:`confusion_matrix` — per-chunk confusion matrices summed (exact integers);
* :func:`binned_curve` — ROC AUC and average precision from score histograms
  (:class:`~nlpeval.distributed.curves.ScoreHistogram`: exact for the scores quantised to
  the bins; the bin count is in the signature);
* :func:`regression` — MAE, MSE, RMSE and R² from per-chunk sums (two passes for R²).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.distributed.errors import PartitionInputError


def _chunks(y_true: Any, y_pred: Any) -> list[tuple[Any, Any]]:
    """Aligned delayed chunks of two dask arrays or series."""
    if hasattr(y_true, "chunks") and hasattr(y_pred, "chunks"):
        if y_true.chunks != y_pred.chunks:
            raise PartitionInputError(f"y_true and y_pred are chunked differently: {y_true.chunks} vs {y_pred.chunks}")
        return list(zip(y_true.to_delayed().ravel(), y_pred.to_delayed().ravel(), strict=True))
    if y_true.npartitions != y_pred.npartitions:
        raise PartitionInputError(
            f"y_true has {y_true.npartitions} partitions and y_pred {y_pred.npartitions}: "
            "they must be partitioned alike"
        )
    return list(zip(y_true.to_delayed(), y_pred.to_delayed(), strict=True))


def _aligned(index: int, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape[0] != b.shape[0]:
        raise PartitionInputError(f"partition {index}: {a.shape[0]} true values but {b.shape[0]} predictions")
    return a, b


def _reduce(tasks: list[Any], split_every: int = 8) -> Any:
    from nlpeval.dask._graph import tree

    return tree(tasks, _sum_all, split_every)


def _sum_all(items: list[Any]) -> Any:
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def _matrix(index: int, y_true: Any, y_pred: Any, labels: list[Any]) -> np.ndarray:
    from nlpeval.classification.matrix import ConfusionMatrix

    a, b = _aligned(index, y_true, y_pred)
    if a.shape[0] == 0:
        return np.zeros((len(labels), len(labels)), dtype=np.int64)
    known = set(labels)
    for row, value in enumerate([*a.tolist(), *b.tolist()]):
        if value not in known:
            side = "y_true" if row < a.shape[0] else "y_pred"
            row = row if row < a.shape[0] else row - a.shape[0]
            raise PartitionInputError(f"partition {index}, row {row}: {side} label {value!r} is not in labels")
    return np.asarray(ConfusionMatrix.from_predictions(a, b, labels=labels).matrix)


def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Sequence[Any], split_every: int = 8) -> Any:
    """Lazy :class:`~nlpeval.classification.matrix.ConfusionMatrix` of two dask arrays/series.

    ``labels`` must be given (a distributed pass cannot discover them for free); every value
    must be one of them.

    Examples
    --------
    >>> import dask.array as da
    >>> cm = confusion_matrix(da.from_array([0, 1, 1, 2], chunks=2), da.from_array([0, 1, 2, 2], chunks=2),
    ...                       labels=[0, 1, 2]).compute(scheduler="sync")
    >>> cm.matrix.tolist()
    [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    """
    from dask import delayed

    from nlpeval.classification.matrix import ConfusionMatrix

    labels = list(labels)
    tasks = [delayed(_matrix, pure=True)(i, a, b, labels) for i, (a, b) in enumerate(_chunks(y_true, y_pred))]
    return delayed(lambda m: ConfusionMatrix(m, labels), pure=True)(_reduce(tasks, split_every))


def _histogram(index: int, y_true: Any, scores: Any, bins: int) -> Any:
    from nlpeval.distributed.curves import ScoreHistogram

    a, s = _aligned(index, y_true, scores)
    try:
        return ScoreHistogram.of(a, s, bins=bins, where=f"partition {index}, ")
    except ValueError as exc:
        raise PartitionInputError(str(exc)) from None


def binned_curve(y_true: Any, scores: Any, *, bins: int = 1000, split_every: int = 8) -> Any:
    """Lazy ROC AUC and average precision from per-chunk score histograms (binary labels, scores in [0, 1]).

    Exact ROC AUC/AP need all scores sorted and do not decompose; histograms do. The
    result equals scikit-learn's on the scores quantised to ``bins`` equal-width bins
    (``min(floor(score * bins), bins - 1)``), and says so in its ``signature``.

    Examples
    --------
    >>> import dask.array as da
    >>> out = binned_curve(da.from_array([0, 0, 1, 1], chunks=2), da.from_array([0.1, 0.4, 0.35, 0.8], chunks=2),
    ...                    bins=10).compute(scheduler="sync")
    >>> out["roc_auc"], out["signature"]
    (0.75, 'curve:binned|bins:10')
    """
    from dask import delayed

    from nlpeval.distributed.curves import ScoreHistogram

    ScoreHistogram.zero(bins)  # validates bins
    tasks = [delayed(_histogram, pure=True)(i, a, b, bins) for i, (a, b) in enumerate(_chunks(y_true, scores))]
    return delayed(ScoreHistogram.result, pure=True)(_reduce(tasks, split_every))


def _sums(index: int, y_true: Any, y_pred: Any) -> np.ndarray:
    a, b = _aligned(index, y_true, y_pred)
    a, b = a.astype(np.float64), b.astype(np.float64)
    bad = np.flatnonzero(~(np.isfinite(a) & np.isfinite(b)))
    if bad.size:
        raise PartitionInputError(f"partition {index}, row {int(bad[0])}: value is not finite")
    e = b - a
    return np.array([a.shape[0], np.abs(e).sum(), (e * e).sum(), a.sum()])


def _centred(index: int, y_true: Any, mean: float) -> float:
    a = np.asarray(y_true, dtype=np.float64)
    return float(((a - mean) ** 2).sum())


def regression(y_true: Any, y_pred: Any, *, split_every: int = 8) -> Any:
    """Lazy ``{"n", "mae", "mse", "rmse", "r2"}`` of two dask arrays/series (floating-point sums:
    equal to the single-machine values up to summation order, about 1e-15 relative).

    Examples
    --------
    >>> import dask.array as da
    >>> out = regression(da.from_array([1.0, 2.0, 3.0, 4.0], chunks=2),
    ...                  da.from_array([1.0, 2.0, 3.0, 5.0], chunks=2)).compute(scheduler="sync")
    >>> out["mae"], out["mse"], out["r2"]
    (0.25, 0.25, 0.8)
    """
    from dask import delayed

    pairs = _chunks(y_true, y_pred)
    sums = _reduce([delayed(_sums, pure=True)(i, a, b) for i, (a, b) in enumerate(pairs)], split_every)
    mean = delayed(lambda s: float(s[3] / s[0]) if s[0] else float("nan"), pure=True)(sums)
    centred = _reduce([delayed(_centred, pure=True)(i, a, mean) for i, (a, _) in enumerate(pairs)], split_every)

    def finish(s: np.ndarray, total: float) -> dict[str, float]:
        n = s[0]
        if n == 0:
            raise ValueError("nothing to score: no values")
        mse = float(s[2] / n)
        r2 = float(1.0 - s[2] / total) if total != 0 else (1.0 if s[2] == 0 else 0.0)
        return {"n": int(n), "mae": float(s[1] / n), "mse": mse, "rmse": float(np.sqrt(mse)), "r2": r2}

    return delayed(finish, pure=True)(sums, centred)
