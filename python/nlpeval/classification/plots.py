"""Plots (optional extra ``plot``: matplotlib): confusion-matrix heatmap, precision-recall and ROC curves.

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot
(no global state, no display needed) and, given ``path``, saves it; the format
follows the suffix (``.png``, ``.svg``, ``.pdf``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from nlpeval.classification._targets import as_array
from nlpeval.classification.matrix import ConfusionMatrix
from nlpeval.classification.ranking import (
    _binary_ap,
    _binary_auc,
    _clf_curve,
    _pr_from_counts,
    _roc_from_counts,
    _scores,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _figure(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'nlpeval[plot]'") from None
    if ax is not None:
        return cast("Figure", ax.figure), ax  # an Axes on a sub-figure draws into its figure as well
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.subplots()


def save_figure(fig: Figure, path: str | os.PathLike[str]) -> None:
    """Save ``fig`` atomically; the format follows the suffix (png, svg, pdf).

    Examples
    --------
    >>> import os, tempfile
    >>> fig = plot_roc([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.4])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_figure(fig, os.path.join(folder, "roc.svg"))
    ...     os.listdir(folder)
    ['roc.svg']
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".nlpeval-{os.getpid()}-{os.path.basename(path)}")
    try:
        fig.savefig(tmp, format=suffix, dpi=150)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def plot_confusion_matrix(
    confusion: ConfusionMatrix | Any,
    y_pred: Any = None,
    *,
    labels: Any = None,
    normalize: str | None = None,
    ax: Axes | None = None,
    cmap: str = "Blues",
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """Heatmap of a confusion matrix (rows observed, columns predicted), counts written in the cells.

    Parameters
    ----------
    confusion : ConfusionMatrix or array-like
        A :class:`ConfusionMatrix`, or ``y_true`` when ``y_pred`` is given.
    y_pred : array-like, optional
        Predicted labels (then ``confusion`` holds the true labels).
    labels : sequence, optional
        Classes in display order (with ``y_pred``).
    normalize : {"true", "pred", "all"}, optional
        Show proportions instead of counts.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure.
    cmap : str
        Colour map.
    path : path, optional
        Save the figure here (png/svg/pdf by suffix).

    Examples
    --------
    >>> fig = plot_confusion_matrix(["a", "b", "b"], ["a", "a", "b"])
    >>> [ax.get_title() for ax in fig.axes][:1]
    ['Confusion matrix']
    """
    cm = confusion if y_pred is None else ConfusionMatrix.from_predictions(confusion, y_pred, labels=labels)
    if not isinstance(cm, ConfusionMatrix):
        cm = ConfusionMatrix(cm)
    values = cm.normalized(normalize) if normalize else cm.matrix
    names = [str(label) for label in cm.labels.tolist()]
    k = len(names)
    fig, ax = _figure(ax, (1.6 + 0.6 * k, 1.2 + 0.6 * k))
    image = ax.imshow(values, cmap=cmap, interpolation="nearest")
    fig.colorbar(image, ax=ax)
    ax.set_xticks(range(k), labels=names, rotation=45 if max(map(len, names)) > 3 else 0, ha="right")
    ax.set_yticks(range(k), labels=names)
    ax.set_xlabel("predicted")
    ax.set_ylabel("observed")
    ax.set_title("Confusion matrix" + (f" (normalised by {normalize})" if normalize else ""))
    threshold = (values.max() + values.min()) / 2 if values.size else 0
    for i in range(k):
        for j in range(k):
            value = values[i, j]
            text = f"{value:.2f}" if normalize or values.dtype.kind == "f" else f"{value:d}"
            ax.text(j, i, text, ha="center", va="center", color="white" if value > threshold else "black")
    if path is not None:
        save_figure(fig, path)
    return fig


def _curves(y_true: Any, y_score: Any, labels: Any, pos_label: Any) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, truth, score) for each curve: one for binary scores, one per class for a score matrix."""
    truth = as_array(y_true, "y_true").reshape(-1)
    scores = _scores(y_score)
    if scores.shape[0] != truth.shape[0]:
        raise ValueError(f"{scores.shape[0]} scores for {truth.shape[0]} samples")
    classes = np.unique(truth) if labels is None else np.asarray(labels)
    if scores.ndim == 1 or scores.shape[1] == 1:
        positive = (classes[-1] if classes.size else 1) if pos_label is None else pos_label
        return [(str(positive), truth == positive, scores.reshape(-1))]
    if scores.shape[1] != classes.size:
        raise ValueError(f"y_score has {scores.shape[1]} columns for {classes.size} classes; pass labels=")
    return [(str(label), truth == label, scores[:, c]) for c, label in enumerate(classes.tolist())]


def plot_precision_recall(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    pos_label: Any = None,
    ax: Axes | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """Precision-recall curve(s) (step, as AP integrates them), with the average precision in the legend.

    One curve for one score per sample (class ``pos_label``, default the larger
    label), one per class (one-vs-rest) for a score matrix with columns in
    ``labels`` order (default sorted).

    Examples
    --------
    >>> fig = plot_precision_recall([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['1 (AP = 0.833)']
    """
    fig, ax = _figure(ax, (5.5, 4.5))
    for name, truth, score in _curves(y_true, y_score, labels, pos_label):
        precision, recall, _ = _pr_from_counts(*_clf_curve(truth, score, None), warn=False)
        ap = _binary_ap(truth, score, None)
        ax.step(recall, precision, where="post", label=f"{name} (AP = {ap:.3f})")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.05)
    ax.set_title("Precision-recall curve")
    ax.legend(loc="lower left")
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_roc(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    pos_label: Any = None,
    ax: Axes | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """ROC curve(s) with the area under each in the legend and the chance diagonal.

    Examples
    --------
    >>> fig = plot_roc(["b", "a", "b", "a"], [0.9, 0.1, 0.4, 0.6])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['b (AUC = 0.750)', 'chance']
    """
    import warnings

    fig, ax = _figure(ax, (5.5, 4.5))
    for name, truth, score in _curves(y_true, y_score, labels, pos_label):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fpr, tpr, _ = _roc_from_counts(*_clf_curve(truth, score, None), True)
            area = _binary_auc(truth, score, None)
        ax.plot(fpr, tpr, label=f"{name} (AUC = {area:.3f})")
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_title("ROC curve")
    ax.legend(loc="lower right")
    if path is not None:
        save_figure(fig, path)
    return fig
