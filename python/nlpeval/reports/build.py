"""``nlpeval.report``: build the report's context once, then its sections, and return the
:class:`~nlpeval.reports.model.Report`.

The sections are functions of one frozen :class:`~nlpeval.reports.context.ReportContext`, listed in order in
:data:`nlpeval.reports.sections.SECTIONS`; the resampled ones (leaderboard, word tables) run on a second
thread (:mod:`nlpeval.reports.sections.resampled`) while the others are built.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.reports.background import Background
from nlpeval.reports.context import ReportContext, ReportOptions, build_context, check_inputs, check_options
from nlpeval.reports.model import SCHEMA_VERSION, InputFile, Report
from nlpeval.reports.provenance import memory_inputs, metric_info, provenance
from nlpeval.reports.sections import build_sections
from nlpeval.reports.sections.examples import LARGEST_DIFFERENCES as LARGEST_DIFFERENCES
from nlpeval.reports.sections.ngrams import ngram_section as _ngram_section  # noqa: F401  (tests compare the two)
from nlpeval.reports.sections.ngrams import ngram_section_vectorised as _ngram_section_vectorised  # noqa: F401
from nlpeval.reports.sections.resampled import resampled_sections as _resampled_sections
from nlpeval.reports.settings import Comparison, Resampling
from nlpeval.reports.titles import DEFAULT_TITLE

DEFAULT_METRICS = ("bleu", "chrf", "ter")
TOP_NGRAMS = 50

__all__ = ["DEFAULT_METRICS", "TOP_NGRAMS", "classification_report", "report"]


def _sharing_draws(function: Callable[..., Report]) -> Callable[..., Report]:
    """Run ``function`` with one draw per resample size shared by all its analyses (``shared_draws``)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Report:
        from nlpeval.reports.analyses.resampling import shared_draws

        with shared_draws():
            return function(*args, **kwargs)

    return wrapper


@_sharing_draws
def report(
    hypotheses_by_system: Mapping[str, Sequence[str]],
    references: Sequence[str | Sequence[str]],
    *,
    sources: Sequence[str] | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    baseline: str | None = None,
    labels: Sequence[str] | None = None,
    seed: int | None = 12345,
    n_bootstrap: int = 1000,
    n_randomization: int = 1000,
    alpha: float = 0.05,
    confidence: float = 0.95,
    preset: str | None = None,
    buckets: str = "fixed",
    quantiles: int = 4,
    freq_corpus: Sequence[str] | None = None,
    max_examples: int | None = None,
    top_k: int = TOP_NGRAMS,
    min_segments: int = 10,
    all_pairs: bool = True,
    metric_options: Mapping[str, Any] | Any = None,
    title: str = DEFAULT_TITLE,
    command: str | None = None,
    inputs: Sequence[InputFile] | None = None,
    progress: Callable[[str], None] | None = None,
    human: Mapping[str, Any] | Any = None,
) -> Report:
    """Compare systems on the same test set and return the report model.

    Parameters
    ----------
    hypotheses_by_system : mapping
        System name -> one output per segment (the first system is the default baseline).
    references : sequence
        Per segment a reference string or a list of references.
    sources : sequence of str, optional
        Source segments (copied/untranslated checks, examples).
    metrics : sequence of str
        Any metric name of ``nlpeval score -m`` (``bleu``, ``chrf``, ``ter``, ``rougeL``, ``meteor``, ``wer``...).
        ``["span_f1"]`` gives the sequence labelling report of :func:`nlpeval.reports.spans.span_report` (the
        sources, if given, as each sentence's words; its title "Sequence labelling comparison" unless another
        is given); span F1 with other metrics, labels, human scores, a preset, quantile buckets or a frequency
        corpus is a ``ValueError``.
    baseline : str, optional
        System the others are tested against (default the first).
    labels : sequence of str, optional
        One label per segment (e.g. domain): adds per-label bucket tables.
    seed : int or None
        Seed of every resampling (same inputs and seed give the same report).
    n_bootstrap, n_randomization : int
        Bootstrap resamples and approximate-randomization trials (a Holm family of m paired bootstrap tests
        uses at least ``ceil(2 m / alpha)`` resamples, see ``family_resamples``).
    alpha, confidence : float
        Significance threshold (after Holm / BH) and interval level.
    preset : {None, "compare-mt"}
        ``"compare-mt"``: only compare-mt's default analyses (its BLEU and length ratio, word accuracy by
        frequency, sentence buckets, salient n-grams, sentence examples).
    buckets : {"fixed", "quantile"}
        ``"quantile"`` adds equal-frequency buckets (:mod:`nlpeval.reports.analyses.quantiles`): of reference
        length and source length, scored with every metric; of each system's length difference and sentence
        scores, counted per system with the baseline's edges.
    quantiles : int
        Buckets per quantile feature (from 2 to the number of segments; fewer when values tie).
    freq_corpus : sequence of str, optional
        Lines of a corpus to take word frequencies from (default: the reference).
    max_examples : int, optional
        At most this many segments in the example browser (the first ones).
    top_k : int
        Salient n-grams per direction.
    min_segments : int
        Buckets with fewer segments (words for word tables) are flagged ``few``.
    all_pairs : bool
        Test every pair of systems, not only against the baseline.
    metric_options : mapping or argparse.Namespace, optional
        Options of ``nlpeval score`` (e.g. ``{"tokenize": "intl"}``).
    title, command : str
        Shown in the report (``command`` in the provenance).
    inputs : sequence of InputFile, optional
        Input files for the provenance (the CLI passes them; default: the in-memory texts).
    progress : callable, optional
        Called with the name of each step.
    human : mapping, optional
        Human scores per system: one per segment (``None``/NaN: not judged) or one system-level score
        (or a :class:`~nlpeval.reports.analyses.human_agreement.HumanScores`). Adds the section "Agreement
        with humans": each metric's SPA, acc_eq and system-level Pearson with PERM-BOTH clusters.

    Returns
    -------
    Report

    Examples
    --------
    >>> import nlpeval
    >>> model = nlpeval.report({"A": ["a b c d", "e f"], "B": ["a b c", "e f g"]}, ["a b c d", "e f g"],
    ...                        metrics=("chrf",), n_bootstrap=100, n_randomization=100)
    >>> model.leaderboard.baseline, len(model.leaderboard.cells)
    ('A', 2)
    """
    refs = check_inputs(hypotheses_by_system, references, sources, labels)
    from nlpeval.reports.spans import labelling_report

    generation = {"labels": labels is not None, "human scores": human is not None, "preset": preset is not None,
                  "frequency corpus": freq_corpus is not None, f"{buckets} buckets": buckets != "fixed"}  # fmt: skip
    labelling = labelling_report(
        hypotheses_by_system, refs, metrics, metric_options, sources=sources, generation=generation,
        baseline=baseline, seed=seed, n_bootstrap=n_bootstrap, n_randomization=n_randomization, alpha=alpha,
        confidence=confidence, max_examples=max_examples, title=title, command=command, inputs=inputs,
    )  # fmt: skip
    if labelling is not None:
        return labelling
    systems = tuple(hypotheses_by_system)
    baseline = systems[0] if baseline is None else baseline
    options = ReportOptions(
        preset=preset,
        buckets=buckets,
        quantiles=quantiles,
        max_examples=max_examples,
        top_k=top_k,
        all_pairs=all_pairs,
        metric_options=metric_options,
        title=title,
        command=command,
        inputs=inputs,
        human=_human(human, len(refs)),
    )
    options = check_options(systems, baseline, options, len(refs))
    resampling = Resampling(n_bootstrap, n_randomization, seed, alpha, confidence)
    ctx = build_context(
        hypotheses_by_system,
        refs,
        metrics=metrics,
        compared=Comparison(systems, baseline, resampling, min_segments),
        options=options,
        sources=sources,
        labels=labels,
        freq_corpus=freq_corpus,
        progress=progress,
    )
    # the resampled sections (mostly native, GIL released) run on a second thread meanwhile
    ctx = dataclasses.replace(ctx, background=Background(_resampled_sections, ctx))
    return _assemble(ctx, build_sections(ctx))


def _human(human: Mapping[str, Any] | Any, n_segments: int) -> Any:
    """``report(human=...)`` as :class:`~nlpeval.reports.analyses.human_agreement.HumanScores` (None: none)."""
    if human is None:
        return None
    from nlpeval.reports.analyses.human_agreement import HumanScores, human_scores

    return human if isinstance(human, HumanScores) else human_scores(human, n_segments)


def _assemble(ctx: ReportContext, parts: Mapping[str, Any]) -> Report:
    """The :class:`Report` of the context and its sections' parts."""
    warnings = list(ctx.warnings)
    if ctx.n_segments < 2:
        warnings.append("one segment: confidence intervals and tests are undefined")
    return Report(
        schema_version=SCHEMA_VERSION,
        title=ctx.options.title,
        task="generation",
        systems=ctx.systems,
        provenance=_provenance(ctx),
        **parts,
        warnings=tuple(warnings),
    )


def _provenance(ctx: ReportContext) -> Any:
    """The generation report's provenance: the inputs (their digests when in memory), every metric's
    signature on the baseline, the options and the resample counts of the two Holm families."""
    from nlpeval.reports.analyses.leaderboard import family_resamples

    options, systems, refs = ctx.options, ctx.systems, ctx.refs
    inputs = options.inputs
    if inputs is None:
        sides: list[tuple[str, str, Sequence[str]]] = [("reference", "reference", [g[0] for g in refs])]
        sides += [("system", s, ctx.hypotheses[s]) for s in systems]
        if ctx.sources is not None:
            sides.append(("source", "source", ctx.sources))
        inputs = memory_inputs(sides)
    baseline, settings = ctx.baseline, ctx.resampling
    n_pairs = len(systems) * (len(systems) - 1) // 2
    metrics = [
        metric_info(name, c.label, c.metric.signature(c.stats[baseline].totals()), c.scale, c.higher_is_better)
        for name, c in ctx.metrics.items()
    ]
    shown = {
        "buckets": options.buckets,
        **({"quantiles": options.quantiles} if options.buckets == "quantile" else {}),
        "top_k": options.top_k,
        "min_segments": ctx.compared.min_segments,
        "all_pairs": options.all_pairs,
        "resamples_vs_baseline": family_resamples(settings.n_bootstrap, len(systems) - 1, settings.alpha),
        "resamples_all_pairs": family_resamples(settings.n_bootstrap, n_pairs, settings.alpha)
        if options.all_pairs
        else None,
    }
    return provenance(
        settings, command=options.command, inputs=inputs, metrics=metrics, options=shown, preset=options.preset
    )


def classification_report(
    gold: Sequence[str],
    predictions_by_system: Mapping[str, Sequence[str]],
    *,
    scores_by_system: Mapping[str, Any] | None = None,
    seed: int | None = 12345,
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    confidence: float = 0.95,
    title: str = "Classifier comparison",
    command: str | None = None,
    inputs: Sequence[InputFile] | None = None,
) -> Report:
    """Compare classifiers on the same items (``nlpeval report --task classify``).

    Parameters
    ----------
    gold : sequence of str
        Gold label per item.
    predictions_by_system : mapping
        System name -> predicted label per item.
    scores_by_system : mapping, optional
        System name -> ``(n, n_classes)`` class scores (columns in sorted label order) for PR/ROC.
    seed, n_bootstrap, alpha, confidence
        Resampling and test settings.
    title, command, inputs
        As in :func:`report`.

    Returns
    -------
    Report
        ``task == "classification"``; the generation sections are ``None``.

    Examples
    --------
    >>> model = classification_report(["a", "b", "b"], {"X": ["a", "b", "a"], "Y": ["b", "b", "b"]}, n_bootstrap=50)
    >>> model.task, model.classification.labels, len(model.classification.mcnemar)
    ('classification', ('a', 'b'), 1)
    """
    from nlpeval.reports.analyses.classification import classification_section

    if not predictions_by_system:
        raise InputError("no system to report on")
    n = len(gold)
    if n == 0:
        raise InputError("the gold labels have no items")
    for name, pred in predictions_by_system.items():
        if len(pred) != n:
            raise InputError(f"system {name!r} has {len(pred)} predictions, the gold labels {n}")
    scores = None
    if scores_by_system is not None:
        scores = {}
        for name, values in scores_by_system.items():
            array = np.asarray(values, dtype=np.float64)
            if array.ndim == 1:
                array = np.column_stack([1.0 - array, array])
            scores[name] = array
    section = classification_section(
        gold, predictions_by_system, scores=scores, n_bootstrap=n_bootstrap, seed=seed, level=confidence
    )
    if scores is not None:
        for name, array in scores.items():
            if array.shape != (n, len(section.labels)):
                raise InputError(
                    f"system {name!r}: scores have shape {array.shape}, expected ({n}, {len(section.labels)})"
                )
    if inputs is None:
        sides = [("gold", "gold", [str(x) for x in gold])]
        sides += [("system", s, [str(x) for x in p]) for s, p in predictions_by_system.items()]
        inputs = memory_inputs(sides)
    settings = Resampling(n_bootstrap=n_bootstrap, n_randomization=0, seed=seed, alpha=alpha, confidence=confidence)
    return Report(
        schema_version=SCHEMA_VERSION,
        title=title,
        task="classification",
        systems=tuple(predictions_by_system),
        provenance=provenance(settings, command=command, inputs=inputs),
        leaderboard=None,
        length=None,
        sentences=None,
        buckets=(),
        ngrams=(),
        examples=None,
        classification=section,
    )
