"""The seed's view: every label metric computed directly from a confusion matrix, and its accumulator.

Rows are the observed (true) classes, columns the predicted ones. Precision,
recall and F-beta come from the matrix alone, so a matrix published in a paper
(or accumulated over a stream) gives every figure without the raw labels.

Differences from scikit-learn's label functions, on purpose:

* F-beta is the weighted harmonic mean of precision and recall,
  ``(1 + b²) P R / (b² P + R)`` (0 when P = R = 0), so an undefined precision
  or recall (``zero_division=np.nan``) makes F undefined too, and averages
  propagate NaN instead of skipping it (scikit-learn computes F from counts
  and leaves NaN out of averages);
* micro F1 is the harmonic mean of micro precision and micro recall.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nlpeval.classification._targets import check_targets, check_unique_labels, check_weights, positions
from nlpeval.classification.counts import confusion_counts
from nlpeval.classification.scores import kappa_from_matrix, matthews_from_matrix
from nlpeval.core.errors import InputError
from nlpeval.core.zero_division import ZeroDivision, check_zero_division, safe_divide

if TYPE_CHECKING:
    from typing_extensions import Self

_AVERAGES = (None, "macro", "weighted", "micro")


def _check_average(average: str | None) -> None:
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}; got {average!r}")


class ConfusionMatrix:
    """A confusion matrix with its labels, and the metrics derived from it.

    Parameters
    ----------
    matrix : array-like of shape (k, k)
        Counts (or weighted counts); rows observed, columns predicted.
    labels : sequence, optional
        Class labels of the rows/columns (default ``0..k-1``).

    Examples
    --------
    The seed's first worked example:

    >>> cm = ConfusionMatrix([[15, 10, 100], [10, 15, 10], [10, 100, 1000]])
    >>> cm.accuracy()
    0.8110236220472441
    >>> cm.precision().tolist() == [15 / 35, 15 / 125, 1000 / 1110]
    True
    >>> cm.f1(average="macro"), cm.f1(average="micro")
    (0.42530030030030036, 0.8110236220472442)
    """

    __slots__ = ("labels", "matrix")

    matrix: np.ndarray
    labels: np.ndarray

    def __init__(self, matrix: Any, labels: Sequence[Any] | np.ndarray | None = None) -> None:
        m = np.array(matrix, copy=True)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(f"a confusion matrix must be square; got shape {m.shape}")
        if m.dtype.kind not in "biuf":
            raise ValueError(f"a confusion matrix holds counts; got dtype {m.dtype}")
        if m.dtype.kind == "b":
            m = m.astype(np.int64)
        if not np.all(np.isfinite(m)) or np.any(m < 0):
            raise ValueError("a confusion matrix holds finite, non-negative counts")
        labs = np.arange(m.shape[0]) if labels is None else check_unique_labels(labels)
        if labs.size != m.shape[0]:
            raise ValueError(f"{labs.size} labels for a {m.shape[0]}x{m.shape[0]} matrix")
        m.setflags(write=False)
        labs.setflags(write=False)
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "labels", labs)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ConfusionMatrix is immutable")

    @classmethod
    def from_predictions(
        cls, y_true: Any, y_pred: Any, *, labels: Any = None, sample_weight: Any = None
    ) -> ConfusionMatrix:
        """Count ``(y_true, y_pred)`` pairs (labels as in :func:`confusion_matrix`).

        Examples
        --------
        >>> ConfusionMatrix.from_predictions(["a", "b", "b"], ["a", "a", "b"]).matrix.tolist()
        [[1, 0], [1, 1]]
        """
        targets = check_targets(y_true, y_pred)
        if targets.kind == "multilabel-indicator":
            raise ValueError("multilabel-indicator targets have one 2x2 matrix per label; pass 1-d labels")
        matrix, labs = confusion_counts(targets, check_weights(sample_weight, targets.n_samples), labels)
        return cls(matrix, labs)

    # -------------------------------------------------------------- sums

    @property
    def n_classes(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def total(self) -> float:
        """Number (or total weight) of samples."""
        return self.matrix.sum().item()

    @property
    def support(self) -> np.ndarray:
        """Observed count per class (row sums)."""
        return self.matrix.sum(axis=1)

    @property
    def predicted(self) -> np.ndarray:
        """Predicted count per class (column sums)."""
        return self.matrix.sum(axis=0)

    @property
    def true_positives(self) -> np.ndarray:
        """The diagonal."""
        return np.diag(self.matrix).copy()

    def one_vs_rest(self) -> np.ndarray:
        """The category-versus-rest 2x2 matrices, shape (k, 2, 2).

        Each is ``[[tp, fn], [fp, tn]]``: rows observed (the class, the rest),
        columns predicted (the class, the rest). (scikit-learn's
        ``multilabel_confusion_matrix`` orders them ``[[tn, fp], [fn, tp]]``.)

        Examples
        --------
        >>> ConfusionMatrix([[5, 1], [2, 3]]).one_vs_rest()[0].tolist()
        [[5, 1], [2, 3]]
        """
        tp = self.true_positives
        fn = self.support - tp
        fp = self.predicted - tp
        tn = self.total - tp - fn - fp
        return np.stack([np.stack([tp, fn], axis=-1), np.stack([fp, tn], axis=-1)], axis=1)

    def normalized(self, by: str = "true") -> np.ndarray:
        """Rows (``"true"``), columns (``"pred"``) or everything (``"all"``) divided to sum to 1 (0/0 -> 0)."""
        m = self.matrix.astype(np.float64)
        with np.errstate(all="ignore"):
            if by == "true":
                out = m / m.sum(axis=1, keepdims=True)
            elif by == "pred":
                out = m / m.sum(axis=0, keepdims=True)
            elif by == "all":
                out = m / m.sum()
            else:
                raise ValueError(f'by must be "true", "pred" or "all"; got {by!r}')
        return np.nan_to_num(out)

    # -------------------------------------------------------------- metrics

    def accuracy(self, *, zero_division: ZeroDivision = "warn") -> float:
        """Trace over total."""
        return float(safe_divide(np.trace(self.matrix), self.total, zero_division, what="accuracy"))

    def _averaged(self, values: np.ndarray, average: str | None, micro: float) -> float | np.ndarray:
        _check_average(average)
        if average is None:
            return values
        if average == "macro":
            return float(np.mean(values)) if values.size else math.nan
        if average == "weighted":
            support = self.support.astype(np.float64)
            if support.sum() == 0:
                return math.nan
            return float(np.sum(values * support) / support.sum())
        return micro

    def precision(self, *, average: str | None = None, zero_division: ZeroDivision = "warn") -> float | np.ndarray:
        """Per-class tp / predicted (``average=None``), or its macro/weighted/micro average.

        Examples
        --------
        >>> ConfusionMatrix([[0, 0, 125], [0, 0, 35], [0, 0, 1110]]).precision(zero_division=np.nan).tolist()
        [nan, nan, 0.8740157480314961]
        """
        check_zero_division(zero_division)
        per_class = safe_divide(self.true_positives, self.predicted, zero_division, what="precision")
        if average == "micro":
            micro = float(safe_divide(np.trace(self.matrix), self.predicted.sum(), zero_division, what="precision"))
            return micro
        return self._averaged(per_class, average, math.nan)

    def recall(self, *, average: str | None = None, zero_division: ZeroDivision = "warn") -> float | np.ndarray:
        """Per-class tp / observed, or its macro/weighted/micro average.

        Examples
        --------
        >>> ConfusionMatrix([[1, 0, 124], [0, 1, 24], [0, 0, 1110]]).recall().tolist()
        [0.008, 0.04, 1.0]
        """
        check_zero_division(zero_division)
        per_class = safe_divide(self.true_positives, self.support, zero_division, what="recall")
        if average == "micro":
            return float(safe_divide(np.trace(self.matrix), self.support.sum(), zero_division, what="recall"))
        return self._averaged(per_class, average, math.nan)

    def fbeta(
        self, beta: float = 1.0, *, average: str | None = None, zero_division: ZeroDivision = "warn"
    ) -> float | np.ndarray:
        """F-beta as the weighted harmonic mean of precision and recall (see the module notes).

        Examples
        --------
        >>> cm = ConfusionMatrix([[1, 0, 124], [0, 1, 24], [0, 0, 1110]])
        >>> cm.fbeta(1, average="macro"), cm.fbeta(1, average="weighted")
        (0.34343203093203095, 0.828993812624765)
        >>> ConfusionMatrix([[0, 0, 125], [0, 0, 35], [0, 0, 1110]]).f1(average="macro", zero_division=np.nan)
        nan
        """
        if not beta >= 0:
            raise ValueError(f"beta must be >= 0; got {beta!r}")
        _check_average(average)
        if average == "micro":
            p = np.asarray(self.precision(average="micro", zero_division=zero_division))
            r = np.asarray(self.recall(average="micro", zero_division=zero_division))
            return float(_harmonic(p, r, beta))
        p = np.asarray(self.precision(zero_division=zero_division))
        r = np.asarray(self.recall(zero_division=zero_division))
        return self._averaged(_harmonic(p, r, beta), average, math.nan)

    def f1(self, *, average: str | None = None, zero_division: ZeroDivision = "warn") -> float | np.ndarray:
        """F1 (``fbeta(1)``)."""
        return self.fbeta(1.0, average=average, zero_division=zero_division)

    def balanced_accuracy(self) -> float:
        """Mean recall over the classes that occur (as scikit-learn)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            per_class = self.true_positives / self.support
        per_class = per_class[~np.isnan(per_class)]
        return float(np.mean(per_class)) if per_class.size else math.nan

    def matthews(self) -> float:
        """Matthews correlation coefficient (0 when undefined, as scikit-learn)."""
        return matthews_from_matrix(self.matrix)

    def kappa(self, *, weights: str | None = None) -> float:
        """Cohen's kappa between the observed and predicted labels."""
        return kappa_from_matrix(self.matrix, weights=weights)

    # -------------------------------------------------------------- combining

    def merge(self, other: ConfusionMatrix) -> ConfusionMatrix:
        """The matrix of both samples (labels united, sorted when they were)."""
        labels = _union(self.labels, other.labels)
        return ConfusionMatrix(_embed(self, labels) + _embed(other, labels), labels)

    __add__ = merge

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        return np.array_equal(self.labels, other.labels) and np.array_equal(self.matrix, other.matrix)

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # unhashable: equal by value over arrays (typeshed spells it so)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python ``{"labels": [...], "matrix": [[...]]}``."""
        return {"labels": self.labels.tolist(), "matrix": self.matrix.tolist()}

    def __repr__(self) -> str:
        return f"ConfusionMatrix({self.matrix.tolist()!r}, labels={self.labels.tolist()!r})"


def _harmonic(p: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    if np.isposinf(beta):
        return r.astype(np.float64)
    b2 = beta**2
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (1 + b2) * p * r / (b2 * p + r)
    # P = R = 0 (both defined): F is 0, its limit
    return np.where((p == 0) & (r == 0), 0.0, f)


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size and b.size and (a.dtype.kind in "US") != (b.dtype.kind in "US"):
        raise ValueError("cannot merge confusion matrices with string and number labels")
    if np.array_equal(a, b):
        return a
    sorted_a = a.size < 2 or bool(np.all(a[:-1] < a[1:]))
    sorted_b = b.size < 2 or bool(np.all(b[:-1] < b[1:]))
    if sorted_a and sorted_b:
        return np.union1d(a, b)
    _, found = positions(b, np.sort(a))
    return np.concatenate([a, b[~found]])


def _embed(cm: ConfusionMatrix, labels: np.ndarray) -> np.ndarray:
    if np.array_equal(cm.labels, labels):
        return cm.matrix
    order = np.argsort(labels, kind="stable")
    idx, _ = positions(cm.labels, labels[order])
    idx = order[idx]
    out = np.zeros((labels.size, labels.size), dtype=cm.matrix.dtype)
    out[np.ix_(idx, idx)] = cm.matrix
    return out


class ConfusionMatrixAccumulator:
    """Streaming confusion matrix: ``update`` / ``merge`` / ``compute`` / ``reset``.

    Memory is O(k²) in the number of classes, whatever the number of samples.
    Labels are discovered as they arrive (and kept sorted), unless ``labels``
    fixes the classes up front, in which case an unknown label is an error.

    Parameters
    ----------
    labels : sequence, optional
        The classes, in display order.

    Examples
    --------
    >>> acc = ConfusionMatrixAccumulator()
    >>> acc.update(["a", "b"], ["a", "a"]).update(["c"], ["c"])
    ConfusionMatrixAccumulator(3 labels, 3 samples)
    >>> cm = acc.compute()
    >>> cm.labels.tolist(), cm.matrix.tolist()
    (['a', 'b', 'c'], [[1, 0, 0], [1, 0, 0], [0, 0, 1]])
    >>> cm.accuracy()
    0.6666666666666666
    """

    def __init__(self, labels: Sequence[Any] | np.ndarray | None = None) -> None:
        self.fixed_labels = None if labels is None else check_unique_labels(labels)
        self.reset()

    def reset(self) -> None:
        """Forget everything seen so far."""
        self._cm: ConfusionMatrix | None = None
        if self.fixed_labels is not None:
            k = self.fixed_labels.size
            self._cm = ConfusionMatrix(np.zeros((k, k), dtype=np.int64), self.fixed_labels)
        self.n_samples = 0

    def update(self, y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Self:
        """Add a batch of (true, predicted) labels."""
        targets = check_targets(y_true, y_pred)
        if targets.kind == "multilabel-indicator":
            raise ValueError("multilabel-indicator targets are not supported; pass 1-d labels")
        weights = check_weights(sample_weight, targets.n_samples)
        if self.fixed_labels is not None:
            _, found = positions(targets.labels, np.sort(self.fixed_labels))
            if not found.all():
                unknown = targets.labels[~found][0]
                side, codes = ("y_true", targets.y_true)
                index = np.flatnonzero(targets.labels[codes] == unknown)
                if index.size == 0:
                    side, codes = ("y_pred", targets.y_pred)
                    index = np.flatnonzero(targets.labels[codes] == unknown)
                raise InputError(
                    f"label {unknown!r} is not one of the accumulator's labels",
                    segment=self.n_samples + int(index[0]),
                    side=side,
                )
        matrix, labels = confusion_counts(targets, weights)
        batch = ConfusionMatrix(matrix, labels)
        self._merge_matrix(batch)
        self.n_samples += targets.n_samples
        return self

    def _merge_matrix(self, batch: ConfusionMatrix) -> None:
        if self._cm is None:
            self._cm = batch
        elif self.fixed_labels is not None:
            self._cm = ConfusionMatrix(self._cm.matrix + _embed(batch, self.fixed_labels), self.fixed_labels)
        else:
            self._cm = self._cm.merge(batch)

    def merge(self, other: ConfusionMatrixAccumulator) -> Self:
        """Add everything ``other`` has seen (e.g. from another worker)."""
        if (self.fixed_labels is None) != (other.fixed_labels is None) or (
            self.fixed_labels is not None
            and other.fixed_labels is not None
            and not np.array_equal(self.fixed_labels, other.fixed_labels)
        ):
            raise ValueError("cannot merge accumulators with different fixed labels")
        if other._cm is not None:
            self._merge_matrix(other._cm)
        self.n_samples += other.n_samples
        return self

    def compute(self) -> ConfusionMatrix:
        """The confusion matrix of everything seen so far."""
        if self._cm is None:
            raise ValueError("nothing to score: call update() first")
        return self._cm

    def __repr__(self) -> str:
        k = 0 if self._cm is None else self._cm.n_classes
        return f"ConfusionMatrixAccumulator({k} labels, {self.n_samples} samples)"
