"""Percent (raw) agreement: the share of rater pairs that give a unit the same label."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nlpeval.agreement._labels import as_array, encode
from nlpeval.agreement._result import check_bootstrap, make_score
from nlpeval.core.errors import InputError
from nlpeval.core.score import Score


def percent_agreement(
    ratings: Any,
    other: Sequence[Any] | None = None,
    *,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
    confidence: float = 0.95,
) -> Score:
    """Observed agreement, not corrected for chance.

    For each unit with at least two ratings, the share of its rater pairs that
    agree; the result is the mean over those units. With two raters it is the
    share of items both label the same; with a full units x raters table it is
    Fleiss' ``P``. Not a sum of per-unit statistics when units have different
    numbers of ratings; the bootstrap resamples units.

    Parameters
    ----------
    ratings : array_like
        Units x raters labels (NaN/None for missing), or, with ``other``, the
        first rater's labels (one per item).
    other : sequence, optional
        The second rater's labels, one per item.
    n_bootstrap, seed, confidence
        Percentile bootstrap interval over units (0 resamples: none).

    Returns
    -------
    Score
        Components ``n_units`` (units with two or more ratings), ``n_pairs``
        (rater pairs), ``agreeing_pairs``.

    Raises
    ------
    InputError
        No unit rated twice, different lengths of the two raters' labels,
        labels of mixed types.

    Examples
    --------
    >>> percent_agreement(["a", "b", "b", "c"], ["a", "b", "c", "c"]).score
    0.75
    >>> round(percent_agreement([[1, 1, 2], [2, 2, 2], [1, None, 1]]).score, 4)
    0.7778
    """
    check_bootstrap(n_bootstrap, confidence)
    if other is not None:
        first = as_array(ratings, ndim=1, what="ratings")
        second = as_array(other, ndim=1, what="other")
        if len(first) != len(second):
            raise InputError(f"{len(first)} labels in ratings but {len(second)} in other", side="other")
        table = np.empty((len(first), 2), dtype=object)
        table[:, 0], table[:, 1] = first, second
        ratings = table
    coded = encode(ratings, ndim=2, what="ratings")
    n_units, v = coded.codes.shape[0], max(len(coded.values), 1)
    present = ~coded.missing
    rows = np.broadcast_to(np.arange(n_units)[:, None], coded.codes.shape)[present]
    counts = np.bincount(rows * v + coded.codes[present], minlength=n_units * v).reshape(n_units, v)
    per_unit = present.sum(axis=1)
    keep = per_unit >= 2
    if not keep.any():
        raise InputError("no unit has two or more ratings; agreement needs pairs of ratings", side="ratings")
    pairs = (per_unit * (per_unit - 1) / 2.0)[keep]
    agreeing = (counts * (counts - 1) / 2.0).sum(axis=1)[keep]
    shares = agreeing / pairs
    return make_score(
        "percent_agreement",
        float(shares.mean()),
        signature={"units": "mean"},
        components={
            "n_units": int(keep.sum()),
            "n_pairs": int(pairs.sum()),
            "agreeing_pairs": int(agreeing.sum()),
        },
        statistic=lambda draws: (draws @ shares) / draws.sum(axis=1),
        n_units=len(shares),
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
    )
