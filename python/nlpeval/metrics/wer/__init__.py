"""The WER family (WER, MER, WIL, WIP, CER) and word/character alignments, identical to jiwer 4.

Argument order: nlpeval takes ``(hypotheses, references)``; jiwer takes
``(reference, hypothesis)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nlpeval.core.score import Score
from nlpeval.metrics.wer.alignment import (
    AlignedPair,
    AlignmentChunk,
    EditAlignment,
    SegmentAlignment,
    edit_alignment,
)
from nlpeval.metrics.wer.bound import MAX_CELLS
from nlpeval.metrics.wer.metric import CER, FLAVORS, MER, WER, WIL, WIP, EditRate, make_edit_metric

_OPTIONS_DOC = """
    Parameters
    ----------
    hypotheses : sequence of str
        One system output (transcript) per segment.
    references : sequence of (str or sequence of str)
        One reference per hypothesis, or a list of references (each segment is then
        scored against the one needing the fewest edits, the first on ties).
    normalize : {"whisper-en", "whisper-basic"} or None
        OpenAI Whisper's text normaliser (openai-whisper 20250625), applied to both sides
        before the other options: ``whisper-en`` is ``EnglishTextNormalizer`` (numbers and
        currencies as digits, contractions, British to American spelling, fillers and
        bracketed spans removed), ``whisper-basic`` is ``BasicTextNormalizer``. Recorded in
        the signature (``norm:``).
    lowercase : bool
        Lowercase both sides first.
    remove_punctuation : bool
        Delete Unicode punctuation (categories ``P*``), as jiwer's ``RemovePunctuation``.
    nfkc : bool
        Apply Unicode NFKC normalisation first.
    whitespace : {"jiwer", "collapse", "remove"}
        ``jiwer`` (default): jiwer's transform (a lone tab or no-break space between
        two words does not split them); ``collapse``: any whitespace separates words;
        ``remove`` (CER only): ignore whitespace altogether.
    split_unspaced : bool
        (Word metrics.) Score each character of Han, Kana, Thai, Lao, Khmer, Myanmar
        and Tibetan text as a word, for scripts written without spaces.
    flavor : {"jiwer"}
        The reference behaviour reproduced.
    max_cells : int or None
        Refuse (:class:`~nlpeval.InputError`, naming the segment) a hypothesis-reference
        pair whose token counts multiply to more than this, default 10 billion (seconds of
        alignment; the time grows with the product); ``None``: no bound. Never changes a value.
    segments : bool
        Also return each segment's value (scored alone) in ``Score.segments``.
    n_bootstrap : int
        If > 0, add a bootstrap 95% confidence interval from this many resamples.
    seed : int or None
        Seed of the bootstrap.
"""


_UNSPACED_DOC = """    split_unspaced : bool
        (Word metrics.) Score each character of Han, Kana, Thai, Lao, Khmer, Myanmar
        and Tibetan text as a word, for scripts written without spaces.
"""


def _document_options(function: Callable[..., Score]) -> Callable[..., Score]:
    """Put the shared parameter descriptions where the docstring says ``{options}``."""
    options = _OPTIONS_DOC if function.__name__ != "cer" else _OPTIONS_DOC.replace(_UNSPACED_DOC, "")
    function.__doc__ = (function.__doc__ or "").replace("    {options}\n", options)
    return function


def _score(
    name: str,
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    segments: bool,
    n_bootstrap: int,
    seed: int | None,
    **options: Any,
) -> Score:
    metric = make_edit_metric(name, **options)
    stats = metric.segment_stats(hypotheses, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


@_document_options
def wer(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    split_unspaced: bool = False,
    flavor: str = "jiwer",
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Word error rate: total word edits / total reference words (not a mean of segment rates).

    Identical to ``jiwer.wer(references, hypotheses)`` (jiwer 4, default transform).
    An empty hypothesis deletes every reference word; an empty reference adds no
    reference words and makes every hypothesis word an insertion. When the corpus
    has no reference words at all, jiwer's convention applies: WER is the number of
    inserted words (0 when both sides are empty).
    {options}
    Returns
    -------
    Score
        ``score`` = WER (0–1, can exceed 1); ``components``: ``wer``, ``mer``, ``wil``,
        ``wip``, ``hits``, ``substitutions``, ``deletions``, ``insertions``,
        ``ref_len`` and ``hyp_len`` (words).

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.wer(["the cat sat on mat", "a dog"], ["the cat sat on the mat", "the dog"])
    >>> s.score, s.components["deletions"], s.components["substitutions"]
    (0.25, 1, 1)
    >>> nlpeval.wer(["A", "A", "C"], ["A", "B", "C"]).score  # 1 substitution / 3 words
    0.3333333333333333
    >>> nlpeval.wer(["the cat sat on mat", "a dog"], ["the cat sat on the mat", "the dog"],
    ...             segments=True).segments.tolist()
    [0.16666666666666666, 0.5]
    """
    return _score(
        "wer",
        hypotheses,
        references,
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        split_unspaced=split_unspaced,
        flavor=flavor,
        max_cells=max_cells,
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


@_document_options
def mer(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    split_unspaced: bool = False,
    flavor: str = "jiwer",
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Match error rate: edits / (hits + edits), from corpus totals; identical to ``jiwer.mer``.
    {options}
    Returns
    -------
    Score
        ``score`` = MER (0–1); ``components`` as for :func:`wer`.

    Examples
    --------
    >>> import nlpeval
    >>> nlpeval.mer(["the cat sat on mat", "a dog"], ["the cat sat on the mat", "the dog"]).score
    0.25
    """
    return _score(
        "mer",
        hypotheses,
        references,
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        split_unspaced=split_unspaced,
        flavor=flavor,
        max_cells=max_cells,
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


@_document_options
def wil(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    split_unspaced: bool = False,
    flavor: str = "jiwer",
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Word information lost, ``1 - wip``, from corpus totals; identical to ``jiwer.wil``.
    {options}
    Returns
    -------
    Score
        ``score`` = WIL (0–1); ``components`` as for :func:`wer`.

    Examples
    --------
    >>> import nlpeval
    >>> round(nlpeval.wil(["the cat sat on mat", "a dog"], ["the cat sat on the mat", "the dog"]).score, 6)
    0.357143
    """
    return _score(
        "wil",
        hypotheses,
        references,
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        split_unspaced=split_unspaced,
        flavor=flavor,
        max_cells=max_cells,
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


@_document_options
def wip(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    split_unspaced: bool = False,
    flavor: str = "jiwer",
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Word information preserved, ``(H / N) * (H / P)``, from corpus totals; identical to ``jiwer.wip``.
    {options}
    Returns
    -------
    Score
        ``score`` = WIP (0–1); ``components`` as for :func:`wer`.

    Examples
    --------
    >>> import nlpeval
    >>> round(nlpeval.wip(["the cat sat on mat", "a dog"], ["the cat sat on the mat", "the dog"]).score, 6)
    0.642857
    """
    return _score(
        "wip",
        hypotheses,
        references,
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        split_unspaced=split_unspaced,
        flavor=flavor,
        max_cells=max_cells,
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


@_document_options
def cer(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalize: str | None = None,
    lowercase: bool = False,
    remove_punctuation: bool = False,
    nfkc: bool = False,
    whitespace: str = "jiwer",
    flavor: str = "jiwer",
    max_cells: int | None = MAX_CELLS,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Character error rate: total character edits / total reference characters.

    Identical to ``jiwer.cer(references, hypotheses)``: each side is stripped and
    every remaining character counts, inner spaces included (``whitespace="remove"``
    ignores them, e.g. for Chinese or Japanese references segmented with spaces).
    {options}
    Returns
    -------
    Score
        ``score`` = CER (0–1, can exceed 1); ``components``: ``cer``, ``hits``,
        ``substitutions``, ``deletions``, ``insertions``, ``ref_len`` and ``hyp_len``
        (characters).

    Examples
    --------
    >>> import nlpeval
    >>> nlpeval.cer(["kitten"], ["sitting"]).components["substitutions"]
    2
    >>> round(nlpeval.cer(["我们 爱 中文"], ["我们爱中文"], whitespace="remove").score, 6)
    0.0
    """
    return _score(
        "cer",
        hypotheses,
        references,
        normalize=normalize,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        nfkc=nfkc,
        whitespace=whitespace,
        flavor=flavor,
        max_cells=max_cells,
        segments=segments,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


__all__ = [
    "CER",
    "FLAVORS",
    "MER",
    "WER",
    "WIL",
    "WIP",
    "AlignedPair",
    "AlignmentChunk",
    "EditAlignment",
    "EditRate",
    "SegmentAlignment",
    "cer",
    "edit_alignment",
    "make_edit_metric",
    "mer",
    "wer",
    "wil",
    "wip",
]
