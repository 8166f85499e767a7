"""METEOR 1.5's configuration, signature and corpus score from summed statistics, without NumPy.

What the metric object (:class:`~nlpeval.metrics.meteor.METEOR`) and ``nlpeval score``'s NumPy-free
path (:mod:`nlpeval.cli.fastmeteor`) share: the modules, task presets, function words, the
parameters and weights in effect, the signature fields, the components of a totals row (scored
by the native formula, ``meteor_row_parts``, the one ``METEOR`` scores rows with) and the
message refusing a pair with too many candidate matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from nlpeval import _native

#: METEOR's modules, in its numbering.
MODULES = ("exact", "stem", "synonym", "paraphrase")

#: English task presets: (alpha, beta, gamma, delta) and module weights by position.
TASKS: dict[str, tuple[tuple[float, float, float, float], tuple[float, float, float, float]]] = {
    "rank": ((0.85, 0.20, 0.60, 0.75), (1.0, 0.6, 0.8, 0.6)),
    "adq": ((0.75, 1.40, 0.45, 0.70), (1.0, 1.0, 0.6, 0.8)),
    "hter": ((0.40, 1.50, 0.35, 0.55), (1.0, 0.2, 0.6, 0.8)),
    "li": ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.5)),
    "tune": ((0.5, 1.0, 0.5, 0.5), (1.0, 0.5, 0.5, 0.5)),
}
#: ``default`` is METEOR's default task for English.
TASK_ALIASES = {"default": "rank"}

#: Default bound on the candidate matches of one hypothesis-reference pair (see ``meteor15``).
MAX_CANDIDATES = 100_000_000


@cache
def function_words() -> frozenset[str]:
    """METEOR 1.5's English function words.

    Examples
    --------
    >>> "the" in function_words(), "cat" in function_words()
    (True, False)
    """
    text = resources.files(__package__).joinpath("data/english.function-words").read_text("utf-8")
    return frozenset(line for line in text.split("\n") if line and not line.startswith("## "))


def task_name(task: str) -> str:
    """The preset a task name stands for (``default`` is ``rank``).

    Examples
    --------
    >>> task_name("default"), task_name("hter")
    ('rank', 'hter')
    """
    return TASK_ALIASES.get(task, task)


def parameters(task: str, given: Sequence[float | None]) -> tuple[float, float, float, float]:
    """``(alpha, beta, gamma, delta)`` in effect: the task's, overridden where ``given`` is not None.

    Examples
    --------
    >>> parameters("default", (None, None, 0.5, None))
    (0.85, 0.2, 0.5, 0.75)
    """
    preset = TASKS[task_name(task)][0]
    alpha, beta, gamma, delta = (float(p if g is None else g) for p, g in zip(preset, given, strict=True))
    return alpha, beta, gamma, delta


def module_weights(task: str, modules: Sequence[str], weights: Sequence[float] | None) -> tuple[float, ...]:
    """The module weights in effect: ``weights``, else the task's by position (as METEOR 1.5 takes them).

    Examples
    --------
    >>> module_weights("default", ("exact", "synonym"), None)
    (1.0, 0.6)
    """
    if weights is not None:
        return tuple(weights)
    return tuple(TASKS[task_name(task)][1][: len(modules)])


def signature_fields(
    *,
    nrefs: str,
    normalize: bool,
    keep_punctuation: bool,
    lowercase: bool,
    modules: Sequence[str],
    task: str,
    params: Sequence[float],
    weights: Sequence[float],
    beam_size: int,
    wordnet_version: str | None,
    paraphrase_path: Path | None,
) -> dict[str, Any]:
    """The fields of a METEOR 1.5 signature, in order (``Signature.build(**fields)``).

    Examples
    --------
    >>> fields = signature_fields(nrefs="1", normalize=True, keep_punctuation=True, lowercase=False,
    ...     modules=("exact",), task="default", params=(0.85, 0.2, 0.6, 0.75), weights=(1.0,),
    ...     beam_size=40, wordnet_version=None, paraphrase_path=None)
    >>> fields["norm"], fields["modules"], fields["params"], fields["beam"]
    ('yes', 'exact', '0.85,0.2,0.6,0.75', None)
    """
    norm = "lc" if lowercase else "no"
    if normalize:
        norm = "yes" if keep_punctuation else "nopunct"
    return {
        "nrefs": nrefs,
        "lang": "en",
        "norm": norm,
        "modules": "+".join(modules),
        "task": task_name(task),
        "params": ",".join(f"{p:g}" for p in params),
        "weights": ",".join(f"{w:g}" for w in weights),
        "beam": beam_size if beam_size != 40 else None,
        "wn": wordnet_version,
        "para": None if paraphrase_path is None else Path(str(paraphrase_path)).name,
        "flavor": "meteor1.5",
    }


def totals_score(
    totals: Sequence[float], modules: Sequence[str], params: Sequence[float], weights: Sequence[float]
) -> tuple[float, dict[str, Any]]:
    """The score and components of one row of summed statistics (the native formula).

    Examples
    --------
    >>> score, parts = totals_score([3, 3, 0, 0, 3, 3, 0, 0, 1], ("exact",), (0.85, 0.2, 0.6, 0.75), (1.0,))
    >>> score, parts["fragmentation_penalty"], parts["hyp_matches"]
    (1.0, 0.0, {'exact': 3})
    """
    k = len(modules)
    alpha, beta, gamma, delta = params
    score, precision, recall, fmean, penalty, _, _ = _native.meteor_row_parts(
        [float(t) for t in totals[: 5 + 4 * k]], alpha, beta, gamma, delta, list(weights)
    )
    row = [int(t) for t in totals[: 5 + 4 * k]]
    components = {
        "precision": precision,
        "recall": recall,
        "fmean": fmean,
        "fragmentation_penalty": penalty,
        "chunks": row[4 + 4 * k],
        "hyp_len": row[0],
        "ref_len": row[1],
        "hyp_matches": {m: row[4 + 4 * i] + row[6 + 4 * i] for i, m in enumerate(modules)},
        "ref_matches": {m: row[5 + 4 * i] + row[7 + 4 * i] for i, m in enumerate(modules)},
    }
    return score, components


def refusal_message(reference: int, candidates: int, max_candidates: int | None) -> str:
    """Why a pair with more candidate matches than ``max_candidates`` is not aligned.

    Examples
    --------
    >>> refusal_message(0, 5_000, 1_000).split(" (")[0]
    'reference 0: 5,000 candidate word matches, more than max_candidates=1,000'
    """
    return (
        f"reference {reference}: {candidates:,} candidate word matches, "
        f"more than max_candidates={max_candidates:,} (METEOR's alignment search takes time in "
        "proportion; e.g. n repeated words against n repeated synonyms give n*n); pass a larger "
        "max_candidates, or None for no bound"
    )
