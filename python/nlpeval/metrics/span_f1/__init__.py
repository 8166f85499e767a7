"""Span (chunk) F1 of sequence labelling: conlleval.pl and seqeval 1.2.2, exactly.

``nlpeval.span_f1(predictions, references, mode=...)`` takes one label sequence per sentence on each
side. ``mode="lenient"`` (default) is seqeval's default mode, ``"strict"`` seqeval's
``mode="strict"`` with a ``scheme``, ``"conlleval"`` the CoNLL-2000 Perl script. Statistics are per
sentence, so bootstrap intervals and paired tests resample sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlpeval.core.score import Score
from nlpeval.metrics.span_f1.conll import ConllFile, read_conll
from nlpeval.metrics.span_f1.metric import AVERAGES, SpanF1
from nlpeval.metrics.span_f1.report import conlleval_report, seqeval_report
from nlpeval.metrics.span_f1.rules import MODES, SCHEMES


def span_f1(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    mode: str = "lenient",
    scheme: str | None = None,
    average: str = "micro",
    suffix: bool = False,
    zero_division: float = 0,
    segments: bool = False,
    n_bootstrap: int = 0,
    seed: int | None = 12345,
) -> Score:
    """Chunk precision, recall and F1 of predicted label sequences against reference ones.

    Parameters
    ----------
    predictions, references : sequence of (sequence of str or str)
        One label sequence per sentence (a str is split on whitespace), e.g.
        ``[["B-PER", "I-PER", "O"], ...]``; both sides have the same lengths.
    mode : {"lenient", "strict", "conlleval"}
        ``lenient``: seqeval 1.2.2's default (``f1_score(y_true, y_pred)``, conlleval-like chunks,
        IOBES aware). ``strict``: seqeval's ``mode="strict"``; chunks that break the scheme are
        dropped. ``conlleval``: conlleval.pl (its chunk rules, its accuracy, types split at the first
        hyphen, sentence breaks as its empty lines).
    scheme : {"IOB1", "IOE1", "IOB2", "IOE2", "IOBES", "BILOU"}, optional
        ``strict`` mode only. ``None`` detects IOB2, IOE2, IOBES or BILOU from the references'
        prefixes as seqeval's ``classification_report`` does (its ``f1_score`` would silently fall
        back to the lenient mode).
    average : {"micro", "macro", "weighted"}
        Which F1 is ``score``; ``components["averages"]`` has all three (seqeval's
        ``classification_report`` rows).
    suffix : bool
        Labels are ``TYPE-B`` rather than ``B-TYPE`` (seqeval's ``suffix=True``).
    zero_division : {0, 1}
        A 0/0 precision or recall (seqeval's ``zero_division``; 0 is conlleval's and seqeval's default).
    segments : bool
        Also return each sentence's F1 in ``Score.segments``.
    n_bootstrap : int
        If > 0, a 95% bootstrap interval over sentences from this many resamples.
    seed : int or None
        Seed of the bootstrap.

    Returns
    -------
    Score
        ``score`` is the F1 (0–1); ``components`` has ``precision``, ``recall``, ``f1``, ``accuracy``
        (token accuracy), chunk counts, ``per_type`` (precision, recall, f1, support per type) and
        ``averages`` (micro, macro, weighted).

    Examples
    --------
    >>> import nlpeval
    >>> refs = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG"]]
    >>> hyps = [["B-PER", "I-PER", "O", "O"], ["O", "I-ORG"]]
    >>> s = nlpeval.span_f1(hyps, refs)
    >>> round(s.score, 4), s.components["per_type"]["ORG"]["f1"]
    (0.8, 1.0)
    >>> nlpeval.span_f1(hyps, refs, mode="strict", scheme="IOB2").score
    0.5
    >>> s = nlpeval.span_f1(hyps, refs, mode="conlleval")
    >>> print(nlpeval.conlleval_report(s).splitlines()[1])
    accuracy:  66.67%; precision: 100.00%; recall:  66.67%; FB1:  80.00
    >>> s.signature.split("|version")[0]
    'mode:conlleval|avg:micro'
    """
    if mode == "strict" and scheme is None:
        from nlpeval.metrics.span_f1 import chunks
        from nlpeval.metrics.span_f1.rules import detect_scheme

        data = chunks.layout(predictions, references)
        scheme = detect_scheme(chunks.reference_prefixes(data, suffix))
    metric = SpanF1(mode=mode, scheme=scheme, average=average, suffix=suffix, zero_division=zero_division)
    stats = metric.segment_stats(predictions, references)
    return metric.score_from_stats(stats, segments=segments, n_bootstrap=n_bootstrap, seed=seed)


__all__ = [
    "AVERAGES",
    "MODES",
    "SCHEMES",
    "ConllFile",
    "SpanF1",
    "conlleval_report",
    "read_conll",
    "seqeval_report",
    "span_f1",
]
