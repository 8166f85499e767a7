"""The report model: plain, frozen, JSON-ready data that every renderer reads.

The analyses fill these records; the renderers (text, Markdown, JSON, LaTeX, HTML)
only format them. Nothing here formats a number. Scores are on the metric's own
scale (BLEU, chrF and TER from 0 to 1 as :class:`nlpeval.Score` reports them;
``MetricInfo.scale`` is the factor a renderer multiplies by for display).
Undefined numbers (a confidence interval of one segment, a test of a single
system) are ``None``, never NaN.

The JSON layout is documented in ``docs/report-schema.md``; ``SCHEMA_VERSION``
changes whenever a field is renamed or removed (additions bump the minor part).

Examples
--------
>>> cell = Estimate(value=0.5, n=10, low=0.4, high=0.6)
>>> cell.to_dict()
{'value': 0.5, 'n': 10, 'low': 0.4, 'high': 0.6}
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from nlpeval.reports.record import FrozenRecord, record

#: version of the JSON layout (major.minor)
SCHEMA_VERSION = "1.1"


def plain(value: Any) -> Any:
    """A JSON-ready copy of ``value``: records become dicts, tuples lists, NaN/inf ``None``.

    Examples
    --------
    >>> plain((1, float("nan"), {"a": (2.5,)}))
    [1, None, {'a': [2.5]}]
    """
    # the exact types of the model first (a report has tens of thousands of values), then the rest
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if _isfinite(value) else None
    # leaves that stay as they are (str, int, bool, None) are copied without a call
    # finite floats are kept without a call too (most of a report's floats)
    if kind is tuple or kind is list:
        return [
            item if (t := type(item)) in _KEPT or (t is float and _isfinite(item)) else plain(item) for item in value
        ]
    if kind is dict:
        return {
            str(key): item if (t := type(item)) in _KEPT or (t is float and _isfinite(item)) else plain(item)
            for key, item in value.items()
        }
    names = _FIELDS.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return _plain_other(value)
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    out = {}
    for name in names:
        item = getattr(value, name)
        out[name] = item if (t := type(item)) in _KEPT or (t is float and _isfinite(item)) else plain(item)
    return out


_isfinite = math.isfinite

#: exact types :func:`plain` returns unchanged
_KEPT = frozenset({str, int, bool, type(None)})

#: record class -> its field names (``dataclasses.fields`` is slow to call per record)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain_other(value: Any) -> Any:
    """:func:`plain` of anything but a record or a value of an exact built-in type."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return plain(value.item())
    return value


class _Record(FrozenRecord):
    """The method every record of the model shares: ``to_dict`` (and :class:`FrozenRecord`'s equality, hash and
    repr: see :mod:`nlpeval.reports.record`)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (field names as keys, nested records as dicts)."""
        out = plain(self)
        assert isinstance(out, dict)
        return out


# ---------------------------------------------------------------------------- building blocks


@record
class Estimate(_Record):
    """A value with its count and (optional) bootstrap interval.

    ``n`` is what the value was computed from (segments for corpus scores,
    words for word accuracy). ``low``/``high`` are ``None`` when undefined.
    """

    value: float | None
    n: int
    low: float | None = None
    high: float | None = None


@record
class Histogram(_Record):
    """Counts of values in ``[edges[i], edges[i+1])`` (the last bin is closed)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]


@record
class SegmentIds(_Record):
    """A count and up to a few example segment ids (0-based)."""

    count: int
    example_ids: tuple[int, ...] = ()


# ---------------------------------------------------------------------------- 1. provenance


@record
class InputFile(_Record):
    """One input: its role (``system``, ``reference``, ``source``, ``labels``, ``freq-corpus``...)."""

    role: str
    name: str
    path: str | None
    lines: int
    sha256: str


@record
class MetricInfo(_Record):
    """A metric of the report: its ``-m`` name, display label and scale, direction, signature."""

    name: str
    label: str
    signature: str
    scale: float = 100.0
    higher_is_better: bool = True


@record
class Provenance(_Record):
    """Everything needed to reproduce the report (no timestamp unless asked for)."""

    nlpeval_version: str
    command: str | None
    seed: int | None
    n_bootstrap: int
    n_randomization: int
    confidence: float
    alpha: float
    preset: str | None
    inputs: tuple[InputFile, ...]
    metrics: tuple[MetricInfo, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    created: str | None = None


# ---------------------------------------------------------------------------- 2. leaderboard


@record
class LeaderboardCell(_Record):
    """Corpus score of one system on one metric, with its bootstrap interval."""

    system: str
    metric: str
    estimate: Estimate


@record
class PairwiseTest(_Record):
    """Test of ``system`` against ``other`` on one metric: ``difference = system - other``.

    ``ci_low``/``ci_high`` is the paired-bootstrap interval of the difference;
    ``p_bootstrap`` and ``p_randomization`` are two-sided (sacreBLEU's rules);
    ``p_holm`` is the Holm-adjusted bootstrap p-value within its family (the tests
    against the baseline, or all pairs, per metric); ``significant`` compares it with alpha.
    """

    metric: str
    system: str
    other: str
    difference: float
    ci_low: float | None
    ci_high: float | None
    p_bootstrap: float | None
    p_randomization: float | None
    p_holm: float | None
    significant: bool


@record
class Cluster(_Record):
    """Systems not significantly different from each other (rank 1 = best)."""

    metric: str
    rank: int
    systems: tuple[str, ...]


@record
class PValueMatrix(_Record):
    """N x N Holm-adjusted p-values (all pairs) of one metric; ``None`` on the diagonal."""

    metric: str
    systems: tuple[str, ...]
    p_values: tuple[tuple[float | None, ...], ...]


def heatmap_worth_drawing(n_systems: int) -> bool:
    """Whether an all-pairs p-value heatmap says anything the leaderboard does not.

    With two systems the one pair is the leaderboard's own test against the baseline, so the
    HTML page and the exported figures draw no heatmap for it.

    Examples
    --------
    >>> heatmap_worth_drawing(2), heatmap_worth_drawing(3)
    (False, True)
    """
    return n_systems > 2


@record
class Leaderboard(_Record):
    """Systems x metrics, tests against the baseline and between all pairs, clusters, p-value matrices."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    baseline: str
    cells: tuple[LeaderboardCell, ...]
    vs_baseline: tuple[PairwiseTest, ...]
    all_pairs: tuple[PairwiseTest, ...]
    clusters: tuple[Cluster, ...]
    matrices: tuple[PValueMatrix, ...]


# ---------------------------------------------------------------------------- 3. length and sanity


@record
class SystemLength(_Record):
    """Length statistics of one system (whitespace tokens; BLEU's lengths when BLEU is a metric)."""

    system: str
    hyp_length: int
    ref_length: int
    ratio: float | None
    brevity_penalty: float | None
    histogram: Histogram


@record
class SanityRow(_Record):
    """Suspicious outputs of one system; ``copied_source``/``untranslated`` need ``--src`` (else ``None``)."""

    system: str
    empty: SegmentIds
    duplicate: SegmentIds
    copied_source: SegmentIds | None
    untranslated: SegmentIds | None


@record
class LengthSection(_Record):
    """Length ratio, brevity penalty, length histograms and sanity counts."""

    tokenization: str
    reference_histogram: Histogram
    systems: tuple[SystemLength, ...]
    sanity: tuple[SanityRow, ...]


# ---------------------------------------------------------------------------- 4. sentence level


@record
class SentenceScores(_Record):
    """Sentence-level scores of one system on one metric (one per segment; scatter data)."""

    metric: str
    system: str
    values: tuple[float | None, ...]
    histogram: Histogram
    mean: float | None


@record
class WinTieLoss(_Record):
    """Segments where ``system`` beats / ties / loses to ``other`` on a sentence metric; two-sided sign test."""

    metric: str
    system: str
    other: str
    wins: int
    ties: int
    losses: int
    p_sign: float | None


@record
class SentenceSection(_Record):
    """Sentence-score distributions and pairwise win/tie/loss counts."""

    metrics: tuple[str, ...]
    scores: tuple[SentenceScores, ...]
    pairs: tuple[WinTieLoss, ...]


# ---------------------------------------------------------------------------- 5. buckets


@record
class BucketCell(_Record):
    """One system in one bucket.

    ``marker`` is ``"+"``/``"-"`` when the difference with the baseline is
    significant after Benjamini-Hochberg over the table (``p_adjusted``), ``""``
    otherwise, ``None`` for the baseline itself or when no test applies (counts).
    """

    system: str
    estimate: Estimate
    p_value: float | None = None
    p_adjusted: float | None = None
    marker: str | None = None


@record
class BucketRow(_Record):
    """A bucket: its label (compare-mt's spelling under the preset), bounds, cells, few-segments flag."""

    label: str
    lower: float | None
    upper: float | None
    cells: tuple[BucketCell, ...]
    few: bool = False


@record
class BucketTable(_Record):
    """One bucketed analysis.

    ``kind`` is ``"word"`` (cells count words) or ``"sentence"`` (cells count
    segments); ``by`` what the buckets are made of (``frequency``, ``ref-length``,
    ``length-diff``, ``sentence-score:<metric>``, ``label``, ``quantile:<...>``);
    ``statistic`` what a cell shows (``fmeas``, ``prec``, ``rec``, ``count`` or a
    metric name); ``depends_on_hypothesis`` says whether bucket membership
    differs between systems. Sentence tables give each segment's bucket (row index,
    ``-1`` for none): ``segment_buckets`` when membership is the same for every system,
    ``segment_buckets_by_system`` when it depends on the output; both ``None`` for word tables.
    """

    id: str
    title: str
    kind: str
    by: str
    statistic: str
    rows: tuple[BucketRow, ...]
    depends_on_hypothesis: bool = False
    min_segments: int = 0
    note: str | None = None
    segment_buckets: tuple[int, ...] | None = None
    segment_buckets_by_system: Mapping[str, tuple[int, ...]] | None = None


# ---------------------------------------------------------------------------- 6. n-grams


@record
class NgramEntry(_Record):
    """A salient n-gram: compare-mt's score ``(c_system + alpha) / (c_system + c_other + 2 alpha)``,
    its counts on each side, an exact binomial test (BH-adjusted within the list) and example segments."""

    ngram: str
    order: int
    score: float
    count_system: int
    count_other: int
    p_value: float | None
    p_adjusted: float | None
    example_ids: tuple[int, ...]


@record
class NgramComparison(_Record):
    """Salient n-grams of ``system`` vs ``other`` (``compare_type`` match/over/under, as compare-mt).

    ``spans`` lists every occurrence of a listed n-gram in the two outputs of the example browser's
    segments as ``(segment, side, start, entry)``: ``side`` 0 is ``system``'s output, 1 ``other``'s;
    ``start`` the 0-based position of its first whitespace token; ``entry`` indexes ``system_better``
    then ``other_better`` (``entry - len(system_better)``).
    """

    system: str
    other: str
    compare_type: str
    min_order: int
    max_order: int
    alpha: float
    top_k: int
    system_better: tuple[NgramEntry, ...]
    other_better: tuple[NgramEntry, ...]
    spans: tuple[tuple[int, int, int, int], ...] = ()


# ---------------------------------------------------------------------------- 7. examples


@record
class Example(_Record):
    """One segment: source, references, each system's output (in ``Report.systems`` order) and
    sentence scores per metric (``scores[metric][i]`` for system ``i``). Raw text: renderers escape.

    ``matched[i]`` has one character per token of system ``i``'s output (compare-mt's tokens), ``"1"``
    when the word is matched in the first reference, ``"0"`` if not: compare-mt's clipped word matching
    (a word occurring ``k`` times in the reference matches its first ``k`` occurrences in the output),
    the counts behind the word F-measure tables.

    When the report has a word edit-rate metric (WER, MER, WIL, WIP), ``alignments[i]`` is system ``i``'s
    jiwer alignment with the reference (the metric's normalisation), one character per aligned position:
    ``=`` equal, ``S`` substitution, ``D`` deletion, ``I`` insertion; ``alignment_references[i]`` is the
    reference it was aligned with (the one needing the fewest edits). Both empty otherwise."""

    id: int
    source: str | None
    references: tuple[str, ...]
    hypotheses: tuple[str, ...]
    scores: Mapping[str, tuple[float | None, ...]]
    label: str | None = None
    matched: tuple[str, ...] = ()
    alignments: tuple[str, ...] = ()
    alignment_references: tuple[int, ...] = ()


@record
class ExamplesSection(_Record):
    """The example browser's rows (at most ``max_examples``, chosen deterministically) and, per pair,
    the segments with the largest sentence-score differences (compare-mt's ``sentence_examples``)."""

    total: int
    max_examples: int | None
    metric: str
    examples: tuple[Example, ...]
    largest_differences: Mapping[str, tuple[int, ...]] = field(default_factory=dict)


# ---------------------------------------------------------------------------- 8. task sections


@record
class ClassMetrics(_Record):
    """Per-class precision, recall and F1 with bootstrap intervals, and the support."""

    label: str
    precision: Estimate
    recall: Estimate
    f1: Estimate
    support: int


@record
class Curve(_Record):
    """PR or ROC points of one class (one-vs-rest) and the area under the curve."""

    kind: str
    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    area: float | None


@record
class ClassificationSystem(_Record):
    """One classifier: accuracy, macro F1, confusion matrix (rows gold, columns predicted), classes, curves."""

    system: str
    accuracy: Estimate
    macro_f1: Estimate
    confusion: tuple[tuple[int, ...], ...]
    classes: tuple[ClassMetrics, ...]
    curves: tuple[Curve, ...] = ()


@record
class McNemarTest(_Record):
    """McNemar's exact test between two classifiers: segments only ``system`` / only ``other`` got right."""

    system: str
    other: str
    only_system: int
    only_other: int
    p_value: float | None
    p_holm: float | None


@record
class ClassificationSection(_Record):
    """Classification report (``--task classify``)."""

    labels: tuple[str, ...]
    systems: tuple[ClassificationSystem, ...]
    mcnemar: tuple[McNemarTest, ...]


@record
class SentenceSplit(_Record):
    """How ``rougeLsum``'s splitter cut one side's summaries (``side``: ``reference``, the first
    reference of each segment, or a system): sentences in all, and segments with more than one."""

    side: str
    segments: int
    sentences: int
    multi_sentence: int


@record
class SummarizationSection(_Record):
    """ROUGE family scores (cells as in the leaderboard) and how ``rougeLsum`` split sentences:
    per side the sentence counts, and the sentences of one reference (the first one the splitter
    cuts in several, else the first) as an example."""

    metrics: tuple[str, ...]
    cells: tuple[LeaderboardCell, ...]
    lsum_sentence_splitter: str | None
    lsum_splits: tuple[SentenceSplit, ...] = ()
    lsum_example: tuple[str, ...] = ()
    lsum_example_id: int | None = None


# ---------------------------------------------------------------------------- agreement with humans


@record
class HumanAgreementRow(_Record):
    """One metric's agreement with the human scores (``None``: undefined on these data, see the notes) and its
    PERM-BOTH cluster per statistic (1: not significantly worse than the best metric)."""

    metric: str
    spa: float | None
    spa_rank: int | None
    acc_eq: float | None
    acc_eq_epsilon: float | None
    acc_eq_rank: int | None
    pearson: float | None
    pearson_rank: int | None


@record
class HumanAgreement(_Record):
    """Which of the report's metrics agree with human scores here (:mod:`nlpeval.reports.analyses.human_agreement`).

    ``level`` is what the human scores give (``segment`` or ``system``); ``systems`` the judged systems used,
    ``unjudged`` the report's systems without human scores; ``negated`` the lower-is-better metrics."""

    source: str
    level: str
    systems: tuple[str, ...]
    unjudged: tuple[str, ...]
    n_items: int
    n_judged: int
    negated: tuple[str, ...]
    rows: tuple[HumanAgreementRow, ...]
    k: int
    seed: int | None
    alpha: float
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- error spans (xCOMET)


@record
class ErrorSpan(_Record):
    """One error span a metric tagged: characters ``start``..``end`` of the hypothesis, its severity, the
    tagger's mean probability and the span's text as the metric shows it."""

    start: int
    end: int
    severity: str
    confidence: float
    text: str


@record
class ErrorSpanSegment(_Record):
    """A segment of one system with its error spans: its id (from 0, as the examples), the metric's segment
    score, the MQM-like penalty of its spans (minor 1, major 5, critical 10) and the hypothesis."""

    system: str
    id: int
    score: float
    penalty: int
    hypothesis: str
    spans: tuple[ErrorSpan, ...]


@record
class ErrorSpansSection(_Record):
    """A metric's error spans (:mod:`nlpeval.reports.sections.error_spans`): per system the spans and segments
    counted, and the segments with the largest penalty (``top`` per system, most severe first)."""

    metric: str
    top: int
    n_spans: Mapping[str, int]
    n_segments: Mapping[str, int]
    segments: tuple[ErrorSpanSegment, ...]


# ---------------------------------------------------------------------------- span F1 by type


@record
class SpanTypeRow(_Record):
    """One row of a span F1 table: a system's entity type (or ``micro avg``, ``macro avg``, ``weighted avg``),
    its precision, recall and F1 (0-1), reference and predicted chunks, and F1's bootstrap interval over
    sentences (``None`` without resampling)."""

    system: str
    type: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int
    f1_low: float | None = None
    f1_high: float | None = None


@record
class SpanF1Section(_Record):
    """A span F1 metric's per-type table (:mod:`nlpeval.reports.sections.span_f1`): its mode and, per system,
    every entity type then the three averages, with percentile intervals from ``n_bootstrap`` resamples."""

    metric: str
    mode: str
    n_bootstrap: int
    confidence: float
    rows: tuple[SpanTypeRow, ...]


# ---------------------------------------------------------------------------- the report


@record
class Report(_Record):
    """The whole report. Sections that do not apply are ``None`` (or empty)."""

    schema_version: str
    title: str
    task: str
    systems: tuple[str, ...]
    provenance: Provenance
    leaderboard: Leaderboard | None
    length: LengthSection | None
    sentences: SentenceSection | None
    buckets: tuple[BucketTable, ...]
    ngrams: tuple[NgramComparison, ...]
    examples: ExamplesSection | None
    classification: ClassificationSection | None = None
    summarization: SummarizationSection | None = None
    warnings: tuple[str, ...] = ()
    human_agreement: HumanAgreement | None = None
    error_spans: tuple[ErrorSpansSection, ...] = ()
    span_f1: tuple[SpanF1Section, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; ``human_agreement`` only when the report has human scores, ``error_spans`` only when
        a metric tagged them, ``span_f1`` only when span F1 is reported."""
        out = plain(self)
        assert isinstance(out, dict)
        if out.get("human_agreement") is None:
            out.pop("human_agreement", None)
        if not out.get("error_spans"):
            out.pop("error_spans", None)
        if not out.get("span_f1"):
            out.pop("span_f1", None)
        return out
