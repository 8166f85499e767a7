"""Probabilistic predictions: log-loss (scikit-learn), cross-entropy and KL divergence between distributions.

Cross-entropy generalises log-loss from one-hot gold labels to gold *distributions*
(soft labels, annotator vote shares); KL divergence is cross-entropy minus the
gold distribution's own entropy.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from nlpeval.classification._targets import as_array, check_lengths, check_weights, encode_labels, positions
from nlpeval.core.errors import InputError


def _probabilities(y_proba: Any, side: str = "y_proba") -> np.ndarray:
    arr = np.asarray(y_proba.detach().cpu().numpy() if hasattr(y_proba, "detach") else y_proba)
    if arr.dtype.kind not in "biuf":
        raise InputError(f"has dtype {arr.dtype}; expected probabilities", side=side)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if arr.ndim not in (1, 2):
        raise InputError(f"has {arr.ndim} dimensions; expected (n_samples,) or (n_samples, n_classes)", side=side)
    bad = ~np.isfinite(arr)
    if bad.any():
        index = int(np.flatnonzero(bad.reshape(arr.shape[0], -1).any(axis=1))[0])
        raise InputError("is NaN or infinite; expected probabilities", segment=index, side=side)
    return arr


def _one_hot_targets(y_true: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """One-hot gold labels over the sorted classes (``labels`` or those in ``y_true``), as LabelBinarizer."""
    y = as_array(y_true, "y_true")
    if y.ndim == 2 and y.shape[1] > 1:
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y_true: a 2-d y_true must be a 0/1 indicator matrix")
        return y.astype(np.float64), np.arange(y.shape[1])
    y = y.reshape(-1)
    if labels is not None:
        given = np.asarray(labels).reshape(-1)
        classes = np.unique(given)
        if not np.array_equal(classes, given):
            warnings.warn(
                f"Labels passed were {given.tolist()}, but the columns of y_proba are taken to be in sorted "
                f"order: pass labels={classes.tolist()} and order y_proba's columns accordingly.",
                UserWarning,
                stacklevel=3,
            )
        codes, found = positions(y, classes)
        if not found.all():
            undeclared = sorted(set(y[~found].tolist()))
            raise ValueError(
                f"y_true contains values {undeclared} not belonging to the passed labels {given.tolist()}."
            )
        if classes.size == 1:
            raise ValueError(f"The labels array needs to contain at least two labels, got {classes}.")
    else:
        classes, (codes,) = encode_labels(y)
        if classes.size == 1:
            raise ValueError(
                f"y_true contains only one label ({classes[0]}). Please provide the list of all expected class "
                "labels explicitly through the labels argument."
            )
    onehot = np.zeros((y.shape[0], classes.size), dtype=np.float64)
    onehot[np.arange(y.shape[0]), codes] = 1.0
    return onehot, classes


def _as_columns(proba: np.ndarray) -> np.ndarray:
    if proba.ndim == 1:
        proba = proba[:, None]
    if proba.shape[1] == 1:
        proba = np.concatenate([1 - proba, proba], axis=1)
    return proba


def log_loss(
    y_true: Any,
    y_proba: Any,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """Log-loss (cross-entropy of the one-hot gold labels), as ``sklearn.metrics.log_loss``.

    Probabilities are clipped to [eps, 1 - eps] (eps of their float type), as
    scikit-learn does, so a confident mistake costs a large but finite amount.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Gold labels (or a 0/1 indicator matrix).
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities, columns in sorted label order; a 1-d array is
        the probability of the larger label.
    normalize : bool
        Mean (True) or sum (False) over samples.
    sample_weight : array-like, optional
        Weight of each sample.
    labels : array-like, optional
        All class labels, if ``y_true`` does not contain every one.

    Examples
    --------
    >>> round(log_loss(["spam", "ham", "ham", "spam"], [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]]), 6)
    0.216162
    """
    proba = _probabilities(y_proba)
    if proba.max() > 1:
        raise ValueError(f"y_prob contains values greater than 1: {proba.max()}")
    if proba.min() < 0:
        raise ValueError(f"y_prob contains values lower than 0: {proba.min()}")
    truth, classes = _one_hot_targets(y_true, labels)
    check_lengths(truth, proba)
    weights = check_weights(sample_weight, truth.shape[0])
    if truth.shape[1] == 1:
        truth = np.concatenate([1 - truth, truth], axis=1)
    proba = _as_columns(proba)
    sums = proba.sum(axis=1)
    if not np.all(np.isclose(sums, 1, rtol=math.sqrt(np.finfo(proba.dtype).eps))):
        warnings.warn(
            "The y_prob values do not sum to one. Make sure to pass probabilities.", UserWarning, stacklevel=2
        )
    if classes.size != proba.shape[1]:
        if labels is None:
            raise ValueError(
                f"y_true and y_prob contain different number of classes: {truth.shape[1]} vs {proba.shape[1]}. "
                f"Please provide the true labels explicitly through the labels argument. Classes found in y_true: "
                f"{classes}"
            )
        raise ValueError(
            f"The number of classes in labels is different from that in y_prob. Classes found in labels: {classes}"
        )
    eps = np.finfo(proba.dtype).eps
    proba = np.clip(proba, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(truth.astype(proba.dtype) == 0, 0.0, truth.astype(proba.dtype) * np.log(proba))
    loss = -np.sum(terms.astype(proba.dtype), axis=1)
    if normalize:
        return float(np.average(loss, weights=weights))
    return float(np.dot(loss, weights) if weights is not None else np.sum(loss))


def _one_pair(y_true: Any, q: np.ndarray) -> np.ndarray | None:
    """``y_true`` as one gold distribution when it and ``q`` are 1-D probability vectors, else None.

    Both 1-D, of floats, of equal length and each summing to 1 (as ``scipy.stats.entropy(p, q)``
    takes them) is one pair of distributions; 1-D labels with per-sample probabilities of the
    positive class stay what they were (labels rarely sum to exactly 1 with their probabilities).
    """
    if q.ndim != 1 or hasattr(y_true, "detach"):
        return None
    p = np.asarray(y_true)
    if p.ndim != 1 or p.dtype.kind != "f" or p.shape != q.shape or p.size < 2:
        return None
    if not (np.isclose(p.sum(), 1.0, rtol=0, atol=1e-9) and np.isclose(q.sum(), 1.0, rtol=0, atol=1e-9)):
        return None
    return p


def _distributions(y_true: Any, y_proba: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    q = _probabilities(y_proba)
    pair = _one_pair(y_true, q)
    if pair is not None:
        if labels is not None:
            raise ValueError("labels= is for class labels; y_true here is one probability distribution")
        q, p_one = q.reshape(1, -1), _probabilities(pair, "y_true").reshape(1, -1)
        for side, arr in (("y_proba", q), ("y_true", p_one)):
            if arr.min() < 0:
                raise InputError("has a negative probability", segment=0, side=side)
        return p_one.astype(np.float64), q.astype(np.float64)
    if q.min() < 0:
        raise InputError(
            "has a negative probability",
            segment=int(np.flatnonzero((q < 0).reshape(q.shape[0], -1).any(1))[0]),
            side="y_proba",
        )
    p_arr = np.asarray(y_true)
    if p_arr.ndim == 2 and p_arr.dtype.kind == "f":
        p = _probabilities(p_arr, "y_true")
        if p.min() < 0:
            raise InputError("has a negative probability", side="y_true")
    else:
        p, _ = _one_hot_targets(y_true, labels)
    q = _as_columns(q)
    check_lengths(p, q)
    if p.shape[1] != q.shape[1]:
        raise ValueError(f"y_true has {p.shape[1]} classes but y_proba has {q.shape[1]} columns")
    return p.astype(np.float64), q.astype(np.float64)


def _reduce(values: np.ndarray, normalize: bool, weights: np.ndarray | None) -> float:
    if normalize:
        return float(np.average(values, weights=weights))
    return float(np.dot(values, weights) if weights is not None else np.sum(values))


def cross_entropy(
    y_true: Any,
    y_proba: Any,
    *,
    base: float = math.e,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    eps: float | None = None,
) -> float:
    """Cross-entropy H(p, q) = -sum_c p_c log q_c between gold and predicted distributions.

    ``y_true`` may be class labels (one-hot gold, which makes this the log-loss) or
    an ``(n_samples, n_classes)`` array of gold distributions (soft labels). Terms
    with p_c = 0 contribute 0; q_c = 0 where p_c > 0 gives ``inf`` unless ``eps``
    clips q to [eps, 1 - eps] (``eps=np.finfo(float).eps`` reproduces :func:`log_loss`).

    Parameters
    ----------
    y_true : array-like
        Labels or gold distributions (rows summing to 1).
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted distributions.
    base : float
        Logarithm base (e: nats, 2: bits).
    normalize : bool
        Mean (True) or sum (False) over samples.
    sample_weight : array-like, optional
        Weight of each sample.
    labels : array-like, optional
        All class labels when ``y_true`` holds labels.
    eps : float, optional
        Clip predicted probabilities to [eps, 1 - eps].

    Examples
    --------
    >>> round(cross_entropy([[0.5, 0.5], [0.9, 0.1]], [[0.5, 0.5], [0.6, 0.4]], base=2), 6)
    0.897731
    >>> cross_entropy([0, 1], [[0.5, 0.5], [0.25, 0.75]]) == log_loss([0, 1], [[0.5, 0.5], [0.25, 0.75]])
    True
    """
    if not (base > 0 and base != 1):
        raise ValueError(f"base must be positive and not 1; got {base!r}")
    p, q = _distributions(y_true, y_proba, labels)
    weights = check_weights(sample_weight, p.shape[0])
    if eps is not None:
        q = np.clip(q, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p == 0, 0.0, p * np.log(q))
    per_sample = -np.sum(terms, axis=1)
    if base != math.e:
        per_sample = per_sample / math.log(base)
    return _reduce(per_sample, normalize, weights)


def kl_divergence(
    y_true: Any,
    y_proba: Any,
    *,
    base: float = math.e,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """Kullback-Leibler divergence KL(p || q) = sum_c p_c log(p_c / q_c), averaged over samples.

    The same inputs as :func:`cross_entropy`; equals cross-entropy minus the
    entropy of the gold distributions (so, for one-hot gold labels, the log-loss).
    ``inf`` where q_c = 0 < p_c. Matches ``scipy.special.rel_entr(p, q).sum(axis=1)``.
    Two 1-D probability vectors (floats, equal length, each summing to 1) are one pair of
    distributions, as ``scipy.stats.entropy(p, q)`` takes them.

    Examples
    --------
    >>> round(kl_divergence([[0.5, 0.5], [0.9, 0.1]], [[0.5, 0.5], [0.6, 0.4]]), 6)
    0.113145
    >>> round(kl_divergence([0.5, 0.5], [0.9, 0.1]), 6)  # scipy.stats.entropy([0.5, 0.5], [0.9, 0.1])
    0.510826
    """
    if not (base > 0 and base != 1):
        raise ValueError(f"base must be positive and not 1; got {base!r}")
    p, q = _distributions(y_true, y_proba, labels)
    weights = check_weights(sample_weight, p.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p == 0, 0.0, np.where(q == 0, np.inf, p * np.log(p / q)))
    per_sample = np.sum(terms, axis=1)
    if base != math.e:
        per_sample = per_sample / math.log(base)
    return _reduce(per_sample, normalize, weights)
