"""SQuAD v2.0's ``find_best_thresh``, vectorised."""

from __future__ import annotations

import numpy as np


def best_threshold(
    raw_scores: np.ndarray, na_probs: np.ndarray, has_answer: np.ndarray, pred_nonempty: np.ndarray
) -> tuple[float, float]:
    """Best score over no-answer thresholds and that threshold, as the official v2.0 script.

    Questions are taken in increasing no-answer probability (stable: ties in input order);
    answering each one more changes the count of correct questions by its raw score
    (answerable), by -1 (unanswerable, non-empty prediction) or 0. The best running total
    (first reached; starting from the number of unanswerable questions at threshold 0.0)
    over the number of questions.

    Examples
    --------
    >>> best_threshold(np.array([1.0, 0.0]), np.array([0.2, 0.9]), np.array([True, False]), np.array([True, True]))
    (1.0, 0.2)
    """
    n = len(raw_scores)
    order = np.argsort(na_probs, kind="stable")
    diff = np.where(has_answer, raw_scores, np.where(pred_nonempty, -1.0, 0.0))[order]
    start = float(np.count_nonzero(~has_answer))
    # the script adds in Python floats one at a time; cumsum adds in the same order
    running = np.cumsum(np.concatenate(([start], diff)))[1:]
    best, thresh = start, 0.0
    if n:
        at = int(np.argmax(running))
        if running[at] > start:
            best, thresh = float(running[at]), float(na_probs[order[at]])
    return best / n, thresh
