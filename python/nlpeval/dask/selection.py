"""Minimum Bayes risk selection on Dask: candidates grouped by source id, each group scored pairwise locally."""

from __future__ import annotations

from typing import Any

import numpy as np

UTILITIES = ("chrf", "bleu")


def pairwise_utility(candidates: list[str], utility: str, options: dict[str, Any]) -> np.ndarray:
    """``(n, n)`` sentence utility of every candidate against every other one as its reference."""
    if utility == "chrf":
        from nlpeval.metrics.chrf.pairwise import pairwise_chrf

        return np.asarray(pairwise_chrf(candidates, candidates, **options))
    from nlpeval.metrics.bleu.pairwise import pairwise_bleu

    return np.asarray(pairwise_bleu(candidates, candidates, **options))


def select(candidates: list[str], utility: str = "chrf", **options: Any) -> tuple[int, float]:
    """The MBR choice among ``candidates``: (position, expected utility against the others).

    Each candidate's expected utility is its mean utility with every *other* candidate as the
    reference (a single candidate is chosen with utility ``nan``); ties go to the first.

    Examples
    --------
    >>> best, value = select(["a dog", "the cat sat", "the cat sat"])
    >>> best, round(value, 4)
    (1, 0.525)
    """
    n = len(candidates)
    if n == 1:
        return 0, float("nan")
    matrix = pairwise_utility(list(candidates), utility, options)
    expected = (matrix.sum(axis=1) - np.diag(matrix)) / (n - 1)
    best = int(np.argmax(expected))
    return best, float(expected[best])


def _partition(frame: Any, source: str, candidate: str, order: str, utility: str, options: dict[str, Any]) -> Any:
    import pandas as pd

    rows = []
    for key, group in frame.sort_values([source, order], kind="stable").groupby(source, sort=True):
        texts = group[candidate].tolist()
        best, value = select(texts, utility, **options)
        rows.append({source: key, "candidate": texts[best], "position": int(group[order].iloc[best]),
                     "expected_utility": value, "n_candidates": len(texts)})  # fmt: skip
    columns = [source, "candidate", "position", "expected_utility", "n_candidates"]
    return pd.DataFrame(rows, columns=columns)


def mbr(
    data: Any,
    *,
    source: str = "source_id",
    candidate: str = "hyp",
    utility: str = "chrf",
    shuffle_method: str | None = None,
    **options: Any,
) -> Any:
    """Lazy MBR selection: a dask DataFrame with one row per source id (the chosen candidate,
    its ``position`` among that source's candidates in input order, its expected utility and
    the number of candidates).

    The frame is shuffled on ``source`` so that each source's candidates meet in one
    partition; each group is then scored pairwise by the native kernels.

    Parameters
    ----------
    data : dask.dataframe.DataFrame
        One candidate per row.
    source, candidate : str
        Column names of the source id and the candidate text.
    utility : {"chrf", "bleu"}
        Sentence utility (options such as ``word_order=2`` pass through).
    shuffle_method : {"tasks", "p2p", "disk"}, optional
        Dask's shuffle (default: dask's choice, ``p2p`` when a distributed client is active;
        give ``"tasks"`` to compute with a local scheduler while a client exists).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> frame = pd.DataFrame({"source_id": [1, 1, 1, 2], "hyp": ["a dog", "the cat sat", "the cat sat", "x"]})
    >>> out = mbr(dd.from_pandas(frame, npartitions=2)).compute(scheduler="sync").set_index("source_id")
    >>> out.loc[1, "candidate"], int(out.loc[1, "position"])
    ('the cat sat', 1)
    """
    import pandas as pd

    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {', '.join(UTILITIES)}; got {utility!r}")
    missing = [name for name in (source, candidate) if name not in data.columns]
    if missing:
        raise ValueError(f"no column {missing[0]!r}; columns are {list(data.columns)}")
    order = "__nlpeval_position__"
    # global input order, so positions and ties do not depend on the shuffle
    numbered = data[[source, candidate]].assign(**{order: 1})
    numbered[order] = numbered[order].cumsum() - 1
    meta = pd.DataFrame(
        {
            source: pd.Series([], dtype=data[source].dtype),
            "candidate": pd.Series([], dtype=object),
            "position": pd.Series([], dtype=np.int64),
            "expected_utility": pd.Series([], dtype=np.float64),
            "n_candidates": pd.Series([], dtype=np.int64),
        }
    )
    shuffled = numbered.shuffle(on=source, shuffle_method=shuffle_method)
    return shuffled.map_partitions(_partition, source, candidate, order, utility, options, meta=meta)
