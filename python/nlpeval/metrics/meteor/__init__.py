"""METEOR in the flavors users know: METEOR 1.5 (default) and NLTK's.

* ``meteor1.5``: Denkowski & Lavie (2014), identical to the reference jar
  (``java -jar meteor-1.5.jar … -l en``), without Java: modules exact, stem
  (Snowball), synonym (WordNet 3.0) and paraphrase (METEOR's table), its beam
  search, task parameter sets and ``-norm`` tokenization. The corpus score is
  computed from summed sufficient statistics, as the jar does.
* ``nltk``: ``nltk.translate.meteor_score.meteor_score`` (exact, Porter stem and
  WordNet synonym stages) per segment; the corpus value is the mean.

Bad input: mismatched counts, non-string items and segments without references
raise :class:`~nlpeval.InputError` naming the segment. Empty and whitespace-only
hypotheses or references are valid and score 0 against anything (both reference
implementations do the same); they still count as segments (adding nothing to
METEOR 1.5's statistics, and a 0 to NLTK's mean).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlpeval._lazy import lazy_attributes
from nlpeval.metrics.meteor.config import MAX_CANDIDATES, MODULES, TASKS
from nlpeval.metrics.meteor.paraphrase import ParaphraseTableNotFoundError
from nlpeval.metrics.meteor.wordnet import WordNetNotFoundError

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.score import Score
    from nlpeval.metrics.meteor.meteor15 import METEOR
    from nlpeval.metrics.meteor.nltk_flavor import NltkMETEOR

FLAVORS = ("meteor1.5", "nltk")

#: the metric classes, imported on first use: they import NumPy, which ``nlpeval score``'s
#: NumPy-free METEOR path (``nlpeval.cli.fastmeteor``) does without
_LAZY = {"METEOR": "nlpeval.metrics.meteor.meteor15", "NltkMETEOR": "nlpeval.metrics.meteor.nltk_flavor"}


__getattr__ = lazy_attributes(__name__, _LAZY)


PathLike = str | os.PathLike[str]


def make_meteor(
    *,
    flavor: str = "meteor1.5",
    modules: Sequence[str] | None = None,
    normalize: bool = False,
    wordnet: PathLike | None = None,
    paraphrases: PathLike | None = None,
    task: str = "default",
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    delta: float | None = None,
    weights: Sequence[float] | None = None,
    lowercase: bool = False,
    keep_punctuation: bool = True,
    beam_size: int = 40,
    max_candidates: int | None = MAX_CANDIDATES,
) -> CorpusMetric:
    """The configured METEOR metric object for ``flavor`` (see :func:`meteor` for the options).

    Examples
    --------
    >>> make_meteor(modules=["exact", "stem"], task="hter").parameters
    (0.4, 1.5, 0.35, 0.55)
    >>> make_meteor(flavor="nltk").alpha
    0.9
    """
    from nlpeval.metrics.meteor.meteor15 import METEOR
    from nlpeval.metrics.meteor.nltk_flavor import NltkMETEOR

    wordnet = None if wordnet is None else os.fspath(wordnet)
    if flavor == "meteor1.5":
        return METEOR(
            modules=MODULES if modules is None else tuple(modules),
            task=task,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
            delta=delta,
            weights=None if weights is None else tuple(weights),
            normalize=normalize,
            keep_punctuation=keep_punctuation,
            lowercase=lowercase,
            beam_size=beam_size,
            wordnet=wordnet,
            paraphrases=None if paraphrases is None else os.fspath(paraphrases),
            max_candidates=max_candidates,
        )
    if flavor == "nltk":
        unsupported = {
            "modules": modules is not None and tuple(modules) != ("exact", "stem", "synonym"),
            "normalize": normalize,
            "paraphrases": paraphrases is not None,
            "task": task != "default",
            "delta": delta is not None,
            "weights": weights is not None,
            "keep_punctuation": not keep_punctuation,
            "beam_size": beam_size != 40,
            "max_candidates": max_candidates != MAX_CANDIDATES,
        }
        given = [name for name, used in unsupported.items() if used]
        if given:
            raise ValueError(
                f"{', '.join(given)}: not options of flavor='nltk' (NLTK's METEOR lowercases "
                "whitespace-split words and always uses exact, Porter stem and WordNet synonym matching)"
            )
        return NltkMETEOR(
            alpha=0.9 if alpha is None else alpha,
            beta=3.0 if beta is None else beta,
            gamma=0.5 if gamma is None else gamma,
            wordnet=wordnet,
        )
    raise ValueError(f"unknown METEOR flavor {flavor!r}; choose one of {', '.join(FLAVORS)}")


def meteor(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    flavor: str = "meteor1.5",
    modules: Sequence[str] | None = None,
    normalize: bool = False,
    wordnet: PathLike | None = None,
    paraphrases: PathLike | None = None,
    segments: bool = False,
    task: str = "default",
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    delta: float | None = None,
    weights: Sequence[float] | None = None,
    lowercase: bool = False,
    keep_punctuation: bool = True,
    beam_size: int = 40,
    max_candidates: int | None = MAX_CANDIDATES,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """METEOR of ``hypotheses`` against ``references``.

    Parameters
    ----------
    hypotheses : sequence of str
        One system output per segment.
    references : sequence of (str or sequence of str)
        One item per hypothesis: a reference or a list of references (the count
        may vary); each segment is scored against its best reference.
    flavor : {"meteor1.5", "nltk"}
        ``meteor1.5`` (default) reproduces METEOR 1.5's jar; ``nltk`` reproduces
        ``nltk.translate.meteor_score.meteor_score``.
    modules : sequence of str, optional
        METEOR 1.5 matchers in order, from ``exact``, ``stem``, ``synonym``,
        ``paraphrase`` (default: all four, METEOR's English default).
        ``("exact", "stem")`` needs no external data.
    normalize : bool
        METEOR 1.5's ``-norm``: tokenize punctuation and lowercase (recommended
        for untokenized text).
    wordnet : path, optional
        WordNet 3.0 ``dict`` folder or NLTK ``wordnet.zip`` for synonyms; by
        default ``$NLPEVAL_WORDNET``, NLTK's data folders, then ``/usr/share/wordnet``.
    paraphrases : path, optional
        METEOR 1.5's paraphrase table (``paraphrase-en.gz``); by default
        ``$NLPEVAL_METEOR_PARAPHRASES`` or the one in an installed ``pycocoevalcap``.
    segments : bool
        Also return per-segment scores in ``Score.segments``.
    task : str
        METEOR 1.5 parameter set: ``default`` (= ``rank``), ``adq``, ``hter``, ``li``, ``tune``.
    alpha, beta, gamma, delta : float, optional
        Override parameters (``nltk``: alpha, beta, gamma; defaults 0.9, 3, 0.5).
    weights : sequence of float, optional
        METEOR 1.5 module weights, one per module (default: the task's, by position).
    lowercase : bool
        METEOR 1.5's ``-lower`` (lowercase without tokenizing).
    keep_punctuation : bool
        With ``normalize``, ``False`` is METEOR 1.5's ``-noPunct``.
    beam_size : int
        METEOR 1.5's alignment beam width.
    max_candidates : int or None
        METEOR 1.5: refuse (``InputError``) a hypothesis-reference pair with more candidate
        word matches than this (the alignment search's time grows with them: n repeated
        words against n repeated synonyms give n * n); ``None``: no bound. Never changes a score.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` on the 0–1 scale. ``meteor1.5`` components: ``precision``,
        ``recall``, ``fmean``, ``fragmentation_penalty``, ``chunks``, lengths and
        matches per module; ``nltk``: the number of segments.

    Raises
    ------
    InputError
        Mismatched counts, non-string items, a segment without references, a pair over
        ``max_candidates``.
    FileNotFoundError
        The synonym module without a WordNet database, or the paraphrase module
        without a table (the message says how to get them).

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.meteor(["The cats sat on the mat."], ["A cat sat on the mat."],
    ...                    modules=["exact", "stem"], normalize=True)
    >>> round(s.score, 4), s.components["chunks"], s.components["hyp_matches"]
    (0.4824, 1, {'exact': 5, 'stem': 1})
    >>> s.signature.split("|version")[0]
    'nrefs:1|lang:en|norm:yes|modules:exact+stem|task:rank|params:0.85,0.2,0.6,0.75|weights:1,0.6|flavor:meteor1.5'
    """
    metric = make_meteor(
        flavor=flavor,
        modules=modules,
        normalize=normalize,
        wordnet=wordnet,
        paraphrases=paraphrases,
        task=task,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=delta,
        weights=weights,
        lowercase=lowercase,
        keep_punctuation=keep_punctuation,
        beam_size=beam_size,
        max_candidates=max_candidates,
    )
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = [
    "FLAVORS",
    "MAX_CANDIDATES",
    "METEOR",
    "MODULES",
    "TASKS",
    "NltkMETEOR",
    "ParaphraseTableNotFoundError",
    "WordNetNotFoundError",
    "make_meteor",
    "meteor",
]
