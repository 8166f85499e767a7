"""``nlpeval.report``: run every analysis and return the :class:`~nlpeval.reports.model.Report`."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.reports.background import Background
from nlpeval.reports.model import (
    SCHEMA_VERSION,
    BucketTable,
    Example,
    ExamplesSection,
    InputFile,
    MetricInfo,
    NgramComparison,
    NgramEntry,
    Provenance,
    Report,
    SummarizationSection,
)

DEFAULT_METRICS = ("bleu", "chrf", "ter")
TOP_NGRAMS = 50
LARGEST_DIFFERENCES = 10


def _sha256_lines(lines: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()


def _normalise_references(references: Sequence[Any], n_segments: int) -> list[list[str]]:
    refs = [[r] if isinstance(r, str) else list(r) for r in references]
    if len(refs) != n_segments:
        raise InputError(f"{len(refs)} references for {n_segments} segments", side="references")
    for i, group in enumerate(refs):
        if not group:
            raise InputError("no reference", segment=i, side="references")
        for j, ref in enumerate(group):
            if not isinstance(ref, str):
                raise InputError(f"is {type(ref).__name__}, expected str", segment=i, side="references", reference=j)
    return refs


def _validate(hypotheses_by_system: Mapping[str, Sequence[str]], n_segments: int, labels: Sequence[str] | None) -> None:
    if not hypotheses_by_system:
        raise InputError("no system to report on")
    for name, hyps in hypotheses_by_system.items():
        if len(hyps) == 0:
            raise InputError(f"system {name!r} has no segments")
        if len(hyps) != n_segments:
            raise InputError(f"system {name!r} has {len(hyps)} segments, the references {n_segments}")
        for i, hyp in enumerate(hyps):
            if not isinstance(hyp, str):
                raise InputError(f"is {type(hyp).__name__}, expected str", segment=i, side="hypotheses")
    if labels is not None and len(labels) != n_segments:
        raise InputError(f"{len(labels)} labels for {n_segments} segments")


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
    title: str = "System comparison",
    command: str | None = None,
    inputs: Sequence[InputFile] | None = None,
    progress: Callable[[str], None] | None = None,
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
    from nlpeval._version import __version__
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses import ngram_codes as nc
    from nlpeval.reports.analyses.buckets import bounds_of as _bounds
    from nlpeval.reports.analyses.buckets import count_table, metric_table, sentence_metric_tables
    from nlpeval.reports.analyses.sanity import length_section
    from nlpeval.reports.analyses.sentences import sentence_section
    from nlpeval.reports.metrics import build_metrics, higher_is_better

    step = progress or (lambda _name: None)
    systems = list(hypotheses_by_system)
    n_segments = len(references)
    refs = _normalise_references(references, n_segments)
    _validate(hypotheses_by_system, n_segments, labels)
    if n_segments == 0:
        raise InputError("the references have no segments")
    if sources is not None and len(sources) != n_segments:
        raise InputError(f"{len(sources)} source segments for {n_segments} segments")
    if baseline is None:
        baseline = systems[0]
    if baseline not in hypotheses_by_system:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {systems}")
    if preset not in (None, "compare-mt"):
        raise ValueError(f"unknown preset {preset!r}; known: compare-mt")
    if buckets not in ("fixed", "quantile"):
        raise ValueError(f"unknown bucket kind {buckets!r}; known: fixed, quantile")
    if buckets == "quantile":
        from nlpeval.reports.analyses.quantiles import check_quantiles

        quantiles = check_quantiles(quantiles, n_segments)
    warnings: list[str] = []

    # ------------------------------------------------------------------ metrics and statistics
    step("statistics")
    # every side as word ids of compare-mt's tokens (cm.tokenize; one vocabulary): the n-gram counts
    # against the first reference, shared by compare-mt's BLEU and its sentence BLEU, the word buckets
    # and the salient n-grams
    corpus = nc.Corpus.encode_lines({nc.REF: [group[0] for group in refs], **hypotheses_by_system})
    native = {s: cm.native_rows_ids(corpus.sides[s], corpus.sides[nc.REF]) for s in systems}
    cm_bleu = cm.CompareMtBLEU()
    cm_stats = {s: cm_bleu.stats_from_native(native[s]) for s in systems}
    if preset == "compare-mt":
        if any(len(group) > 1 for group in refs):
            warnings.append("compare-mt uses the first reference only")
        built = {"bleu": (cm_bleu, "BLEU", 100.0)}
        stats = {"bleu": cm_stats}
    else:
        built = build_metrics(tuple(metrics), metric_options)
        stats = {}
        for name, (metric, _label, _scale) in built.items():
            stats[name] = {}
            for s in systems:
                try:
                    stats[name][s] = metric.segment_stats(list(hypotheses_by_system[s]), refs)
                except InputError as exc:
                    raise InputError(
                        f"system {s!r}: {exc.message}", segment=exc.segment, side=exc.side, reference=exc.reference
                    ) from None
    higher = {name: higher_is_better(name) for name in built}
    metric_objects = {name: entry[0] for name, entry in built.items()}

    # ------------------------------------------------------------------ leaderboard
    step("leaderboard")
    # the leaderboard, the word tables and the BLEU-by-length table are mostly native resampling (GIL
    # released): they run on a second thread, in this order, while this one builds the other sections
    ref_len = np.diff(corpus.sides[nc.REF][1])
    # compare-mt's matched words ("0"/"1" per output token, per segment): the word tables count them,
    # the example browser highlights them
    matched_all = {s: nc.matched_strings(corpus, s, n_segments) for s in systems}
    resampled = Background(
        _resampled_sections,
        systems,
        metric_objects,
        stats,
        higher,
        baseline,
        corpus,
        freq_corpus,
        ref_len,
        cm_bleu,
        cm_stats,
        matched_all,
        n_bootstrap=n_bootstrap,
        n_randomization=n_randomization,
        seed=seed,
        confidence=confidence,
        alpha=alpha,
        all_pairs=all_pairs,
        min_segments=min_segments,
        compare_mt_bleu_table=preset == "compare-mt",
    )

    # ------------------------------------------------------------------ length and sanity
    step("length")
    bleu_components = None
    if "bleu" in built and preset is None:
        metric = built["bleu"][0]
        components = {s: metric.components(stats["bleu"][s].totals()) for s in systems}
        if all("hyp_len" in c and "brevity_penalty" in c for c in components.values()):
            bleu_components = components
    token_lengths = None
    if preset == "compare-mt":
        token_lengths = (
            np.diff(corpus.sides[nc.REF][1]).tolist(),
            {s: np.diff(corpus.sides[s][1]).tolist() for s in systems},
        )
    length = length_section(systems, hypotheses_by_system, refs, sources, bleu_components, token_lengths)

    # ------------------------------------------------------------------ sentence level
    step("sentences")
    segment_scores: dict[str, dict[str, np.ndarray]] = {}
    sentence_metrics: dict[str, Any] = {}
    if preset == "compare-mt" or "bleu" not in built:
        sentbleu = _sentbleu()
        sentence_metrics["sentbleu"] = sentbleu
        segment_scores["sentbleu"] = {
            s: np.asarray(sentbleu.segment_values(cm.sentence_bleu_stats(sentbleu, native[s]))) for s in systems
        }
        higher["sentbleu"] = True
    if preset is None:
        for name, metric in metric_objects.items():
            segment_scores[name] = {
                s: np.asarray(metric.segment_values(stats[name][s]), dtype=np.float64) for s in systems
            }
    sentences = sentence_section(systems, segment_scores, higher)

    # ------------------------------------------------------------------ buckets
    step("buckets")
    tables: list[BucketTable] = []
    diffs = {s: np.diff(corpus.sides[s][1]) - ref_len for s in systems}
    tables.append(
        count_table(
            id="count-by-length-diff",
            title="segments by len(output) - len(reference)",
            by="length-diff",
            assignments={s: cm.bucket_of(diffs[s], cm.LENGTHDIFF_EDGES) for s in systems},
            labels=cm.bucket_labels(cm.LENGTHDIFF_EDGES),
            bounds=_bounds(cm.LENGTHDIFF_EDGES),
            systems=systems,
            min_segments=min_segments,
        )
    )
    # compare-mt's sentence BLEU (the compare-mt preset, or no BLEU among the metrics): its segment counts;
    # otherwise each metric's own "segments by sentence X" says it once, on the leaderboard's scale
    segment_scores_sb = segment_scores.get("sentbleu")
    if segment_scores_sb is not None:
        tables.append(
            count_table(
                id="count-by-sentbleu",
                title="segments by sentence BLEU (compare-mt)",
                by="sentence-score:sentbleu",
                assignments={s: cm.bucket_of(100.0 * segment_scores_sb[s], cm.SENTBLEU_EDGES) for s in systems},
                labels=cm.bucket_labels(cm.SENTBLEU_EDGES, integer=False),
                bounds=_bounds(cm.SENTBLEU_EDGES),
                systems=systems,
                min_segments=min_segments,
            )
        )
    board, first_tables = resampled.result() if preset is None else (None, [])
    tables[:0] = first_tables
    if preset is None:
        for name, metric in metric_objects.items():
            tables.extend(
                sentence_metric_tables(
                    name=name,
                    label=built[name][1],
                    metric=metric,
                    stats=stats[name],
                    segment_scores=segment_scores[name],
                    ref_lengths=ref_len,
                    length_edges=cm.LENGTH_EDGES,
                    systems=systems,
                    baseline=baseline,
                    n_bootstrap=n_bootstrap,
                    seed=seed,
                    alpha=alpha,
                    level=confidence,
                    higher_is_better=higher[name],
                    min_segments=min_segments,
                    scale=built[name][2],
                )
            )
        if buckets == "quantile":
            from nlpeval.reports.analyses.quantiles import quantile_tables

            tables.extend(
                quantile_tables(
                    n_quantiles=quantiles,
                    ref_lengths=ref_len,
                    sources=sources,
                    length_diffs=diffs,
                    metrics={n: (built[n][1], m, stats[n], higher[n]) for n, m in metric_objects.items()},
                    sentence_scores=[
                        *([("sentbleu", "BLEU (compare-mt)", segment_scores_sb, 100.0)] if segment_scores_sb else []),
                        *((n, built[n][1], segment_scores[n], built[n][2]) for n in metric_objects),
                    ],
                    systems=systems,
                    baseline=baseline,
                    n_bootstrap=n_bootstrap,
                    seed=seed,
                    alpha=alpha,
                    level=confidence,
                    min_segments=min_segments,
                )
            )
        if labels is not None:
            names = sorted(set(labels))
            index = {label: i for i, label in enumerate(names)}
            assignment = np.array([index[label] for label in labels])
            for name, metric in metric_objects.items():
                tables.append(
                    metric_table(
                        id=f"{name}-by-label",
                        title=f"{built[name][1]} by label",
                        by="label",
                        statistic=name,
                        assignment=assignment,
                        labels=names,
                        bounds=[(None, None)] * len(names),
                        metric=metric,
                        stats=stats[name],
                        systems=systems,
                        baseline=baseline,
                        n_bootstrap=n_bootstrap,
                        seed=seed,
                        alpha=alpha,
                        level=confidence,
                        higher_is_better=higher[name],
                        min_segments=min_segments,
                    )
                )

    # ------------------------------------------------------------------ n-grams
    step("n-grams")
    ngrams: tuple[NgramComparison, ...] = ()
    if len(systems) > 1:
        ngrams = _ngram_section_vectorised(systems, baseline, corpus, top_k)

    # ------------------------------------------------------------------ examples
    step("examples")
    example_metric = "sentbleu" if "sentbleu" in segment_scores else next(iter(segment_scores))
    shown = n_segments if max_examples is None else min(max_examples, n_segments)
    aligned = _word_alignments(metric_objects, hypotheses_by_system, refs, shown)
    ngrams = tuple(
        dataclasses.replace(
            c,
            spans=nc.occurrence_spans(
                corpus, c.system, c.other, [e.ngram.split(" ") for e in c.system_better + c.other_better], shown
            ),
        )
        for c in ngrams
    )
    # per metric, the systems' scores of each segment (None where not finite)
    score_rows = {
        m: list(zip(*(_finite_list(by[s][:shown]) for s in systems), strict=True)) for m, by in segment_scores.items()
    }
    # each record's per-system tuples, column by column (zip: no generator per record)
    hypothesis_rows = list(zip(*(hypotheses_by_system[s][:shown] for s in systems), strict=True))
    matched_rows = list(zip(*(matched_all[s][:shown] for s in systems), strict=True))
    score_items = list(score_rows.items())
    examples = tuple(
        Example(
            id=i,
            source=sources[i] if sources is not None else None,
            references=tuple(refs[i]),
            hypotheses=hypothesis_rows[i],
            scores={m: rows[i] for m, rows in score_items},
            label=labels[i] if labels is not None else None,
            matched=matched_rows[i],
            alignments=tuple(aligned[s][i][0] for s in systems) if aligned else (),
            alignment_references=tuple(aligned[s][i][1] for s in systems) if aligned else (),
        )
        for i in range(shown)
    )
    largest = {}
    # compare-mt's token lists are the stripped lines split on spaces: equal lists, equal stripped lines
    stripped = {s: [h.strip() for h in hypotheses_by_system[s]] for s in systems}
    stripped_refs = [group[0].strip() for group in refs]
    for s in systems:
        if s == baseline:
            continue
        # compare-mt's order: (right - left, left, right, segment) ascending, identical triples once
        left = (100.0 * np.asarray(segment_scores[example_metric][baseline], dtype=np.float64)).tolist()
        right = (100.0 * np.asarray(segment_scores[example_metric][s], dtype=np.float64)).tolist()
        seen: set[tuple] = set()
        ranked = []
        for i, key in enumerate(zip(stripped[baseline], stripped[s], stripped_refs, strict=True)):
            if key in seen:
                continue
            seen.add(key)
            a, b = left[i], right[i]
            ranked.append((b - a, a, b, i))
        ranked.sort()
        largest[f"{baseline} > {s}"] = tuple(item[3] for item in ranked[:LARGEST_DIFFERENCES])
        # compare-mt lists this side in ascending order too (largest difference last)
        largest[f"{s} > {baseline}"] = tuple(item[3] for item in ranked[-LARGEST_DIFFERENCES:])
    examples_section = ExamplesSection(n_segments, max_examples, example_metric, examples, largest)

    if board is None:
        board, first_tables = resampled.result()
        tables[:0] = first_tables

    # ------------------------------------------------------------------ summarisation
    summarization = None
    rouge_names = tuple(name for name in built if name.startswith("rouge"))
    if rouge_names:
        splitter = None
        if "rougeLsum" in rouge_names:
            from nlpeval.reports.metrics import default_options

            if metric_options is None:
                namespace = default_options()
            elif isinstance(metric_options, Mapping):
                namespace = default_options(**dict(metric_options))
            else:
                namespace = metric_options
            splitter = str(getattr(namespace, "sentence_splitter", "newline"))
        summarization = SummarizationSection(
            rouge_names, tuple(c for c in board.cells if c.metric in rouge_names), splitter
        )
        if splitter is not None:
            from nlpeval.reports.analyses.sentences import lsum_sentences

            splits, example, at = lsum_sentences(splitter, [g[0] for g in refs], hypotheses_by_system)
            summarization = dataclasses.replace(
                summarization, lsum_splits=splits, lsum_example=example, lsum_example_id=at
            )

    # ------------------------------------------------------------------ provenance
    if inputs is None:
        inputs = [InputFile("reference", "reference", None, n_segments, _sha256_lines([g[0] for g in refs]))]
        inputs += [
            InputFile("system", s, None, len(hypotheses_by_system[s]), _sha256_lines(hypotheses_by_system[s]))
            for s in systems
        ]
        if sources is not None:
            inputs.append(InputFile("source", "source", None, n_segments, _sha256_lines(sources)))
    from nlpeval.reports.analyses.leaderboard import family_resamples

    n_pairs = len(systems) * (len(systems) - 1) // 2
    metric_infos = []
    for name, (metric, label, scale) in built.items():
        signature = str(metric.signature(stats[name][baseline].totals()))
        metric_infos.append(MetricInfo(name, label, signature, scale, higher[name]))
    provenance = Provenance(
        nlpeval_version=__version__,
        command=command,
        seed=seed,
        n_bootstrap=n_bootstrap,
        n_randomization=n_randomization,
        confidence=confidence,
        alpha=alpha,
        preset=preset,
        inputs=tuple(inputs),
        metrics=tuple(metric_infos),
        options={
            "buckets": buckets,
            **({"quantiles": quantiles} if buckets == "quantile" else {}),
            "top_k": top_k,
            "min_segments": min_segments,
            "all_pairs": all_pairs,
            "resamples_vs_baseline": family_resamples(n_bootstrap, len(systems) - 1, alpha),
            "resamples_all_pairs": family_resamples(n_bootstrap, n_pairs, alpha) if all_pairs else None,
        },
    )
    if n_segments < 2:
        warnings.append("one segment: confidence intervals and tests are undefined")
    return Report(
        schema_version=SCHEMA_VERSION,
        title=title,
        task="generation",
        systems=tuple(systems),
        provenance=provenance,
        leaderboard=board,
        length=length,
        sentences=sentences,
        buckets=tuple(tables),
        ngrams=ngrams,
        examples=examples_section,
        summarization=summarization,
        warnings=tuple(warnings),
    )


def _resampled_sections(
    systems: list[str],
    metric_objects: Mapping[str, Any],
    stats: Mapping[str, Mapping[str, Any]],
    higher: Mapping[str, bool],
    baseline: str,
    corpus: Any,
    freq_corpus: Sequence[str] | None,
    ref_len: np.ndarray,
    cm_bleu: Any,
    cm_stats: Mapping[str, Any],
    matched: Mapping[str, Sequence[str]],
    *,
    n_bootstrap: int,
    n_randomization: int,
    seed: int | None,
    confidence: float,
    alpha: float,
    all_pairs: bool,
    min_segments: int,
    compare_mt_bleu_table: bool = True,
) -> tuple[Any, list[BucketTable]]:
    """The leaderboard, then the word tables by frequency and (``compare_mt_bleu_table``, the compare-mt
    preset's) compare-mt's BLEU by reference length: the default report has one BLEU by reference length,
    sacreBLEU's, among every metric's sentence tables, not a second on other tokens."""
    from nlpeval.reports.analyses import comparemt as cm
    from nlpeval.reports.analyses import ngram_codes as nc
    from nlpeval.reports.analyses.buckets import bounds_of as _bounds
    from nlpeval.reports.analyses.buckets import metric_table, word_tables
    from nlpeval.reports.analyses.leaderboard import leaderboard

    board = leaderboard(
        systems,
        metric_objects,
        stats,
        higher_is_better=higher,
        baseline=baseline,
        n_bootstrap=n_bootstrap,
        n_randomization=n_randomization,
        seed=seed,
        level=confidence,
        alpha=alpha,
        all_pairs=all_pairs,
    )
    tables: list[BucketTable] = []
    if freq_corpus is not None:
        freq = cm.frequencies([cm.tokenize(x) for x in freq_corpus])
        frequency = np.array([freq.get(w, 0) if i else 0 for i, w in enumerate(corpus.words)])
    else:
        # the reference's word counts (compare-mt's frequencies of the reference), by word id
        frequency = np.bincount(corpus.sides[nc.REF][0], minlength=len(corpus.words))
        frequency[0] = 0
    freq_labels = cm.bucket_labels(cm.FREQ_EDGES)
    freq_bounds = _bounds(cm.FREQ_EDGES)
    bucket_ids = cm.bucket_of(frequency, cm.FREQ_EDGES)
    word_rows = {s: nc.word_rows(corpus, s, bucket_ids, len(cm.FREQ_EDGES) + 1, matched[s]) for s in systems}
    tables.extend(
        word_tables(
            rows_by_system=word_rows,
            labels=freq_labels,
            bounds=freq_bounds,
            accuracy=cm.word_accuracy,
            systems=systems,
            baseline=baseline,
            n_bootstrap=n_bootstrap,
            seed=seed,
            by="frequency",
            alpha=alpha,
            level=confidence,
            min_words=min_segments,
        )
    )
    if not compare_mt_bleu_table:
        return board, tables
    tables.append(
        metric_table(
            id="bleu-by-ref-length",
            title="BLEU (compare-mt) by reference length",
            by="ref-length",
            statistic="bleu",
            assignment=cm.bucket_of(ref_len, cm.LENGTH_EDGES),
            labels=cm.bucket_labels(cm.LENGTH_EDGES),
            bounds=_bounds(cm.LENGTH_EDGES),
            metric=cm_bleu,
            stats=cm_stats,
            systems=systems,
            baseline=baseline,
            n_bootstrap=n_bootstrap,
            seed=seed,
            alpha=alpha,
            level=confidence,
            min_segments=min_segments,
            empty_value=0.0,
        )
    )
    return board, tables


def _word_alignments(
    metrics: Mapping[str, Any], hypotheses_by_system: Mapping[str, Sequence[str]], refs: list[list[str]], shown: int
) -> dict[str, list[tuple[str, int]]] | None:
    """The example browser's word alignments, when a word edit-rate metric (WER family) is reported."""
    import sys

    if "nlpeval.metrics.wer.metric" not in sys.modules:  # no WER-family metric can exist: skip the import
        return None
    from nlpeval.metrics.wer.metric import EditRate
    from nlpeval.reports.analyses.sentences import word_alignments

    metric = next((m for m in metrics.values() if isinstance(m, EditRate) and m.unit == "word"), None)
    if metric is None:
        return None
    return {s: word_alignments(metric, list(h[:shown]), refs[:shown]) for s, h in hypotheses_by_system.items()}


def _finite_list(values: Any) -> list[float | None]:
    """The values as floats, ``None`` where not finite (NaN, inf)."""
    array = np.asarray(values, dtype=np.float64)
    out: list[float | None] = array.tolist()
    for i in np.flatnonzero(~np.isfinite(array)).tolist():
        out[i] = None
    return out


def _sentbleu() -> Any:
    """compare-mt's sentence BLEU: NLTK ``sentence_bleu`` with ``method2`` on compare-mt's tokens."""
    from nlpeval.metrics.bleu import NltkBLEU

    return NltkBLEU(smooth="method2")


def _ngram_section(  # the readable reference of _ngram_section_vectorised (tests compare the two)
    systems: Sequence[str],
    baseline: str,
    out_tokens: Mapping[str, list[list[str]]],
    ref_tokens: list[list[str]],
    top_k: int,
    cm: Any,
) -> tuple[NgramComparison, ...]:
    from nlpeval.reports.analyses.multitest import benjamini_hochberg
    from nlpeval.reports.analyses.sentences import sign_test

    ref_tables = [cm.ngram_table(ref) for ref in ref_tokens]
    counted = {s: cm.matched_ngrams(out_tokens[s], ref_tokens, ref_tables=ref_tables) for s in systems}
    comparisons = []
    for s in systems:
        if s == baseline:
            continue
        left, right = baseline, s
        match_l, segments_l = counted[left]
        match_r, segments_r = counted[right]
        heads = cm.salient_ngrams(match_l, match_r, alpha=1.0, top=top_k)
        # compare-mt's second list: the lowest scores of the first, lowest first
        tails = cm.salient_ngrams(match_l, match_r, alpha=1.0, top=top_k, lowest=True)
        wanted = {gram for gram, _ in heads + tails}
        where: dict[tuple[str, ...], list[int]] = {gram: [] for gram in wanted}
        for i, (seg_l, seg_r) in enumerate(zip(segments_l, segments_r, strict=True)):
            for gram in wanted:
                if (gram in seg_l or gram in seg_r) and len(where[gram]) < 10:
                    where[gram].append(i)
        entries = []
        for gram, score in heads + tails:
            c1, c2 = match_l.get(gram, 0), match_r.get(gram, 0)
            p = sign_test(c1, c2)
            ids = where[gram]
            entries.append((gram, score, c1, c2, p, tuple(ids)))
        adjusted = benjamini_hochberg([e[4] for e in entries])
        built = [
            NgramEntry(" ".join(g), len(g), sc, c1, c2, p, q, ids)
            for (g, sc, c1, c2, p, ids), q in zip(entries, adjusted, strict=True)
        ]
        comparisons.append(
            NgramComparison(
                left, right, "match", 1, 4, 1.0, top_k, tuple(built[: len(heads)]), tuple(built[len(heads) :])
            )
        )
    return tuple(comparisons)


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
    from nlpeval._version import __version__
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
        inputs = [InputFile("gold", "gold", None, n, _sha256_lines([str(x) for x in gold]))]
        inputs += [
            InputFile("system", s, None, n, _sha256_lines([str(x) for x in p]))
            for s, p in predictions_by_system.items()
        ]
    provenance = Provenance(
        nlpeval_version=__version__,
        command=command,
        seed=seed,
        n_bootstrap=n_bootstrap,
        n_randomization=0,
        confidence=confidence,
        alpha=alpha,
        preset=None,
        inputs=tuple(inputs),
        metrics=(),
        options={},
    )
    return Report(
        schema_version=SCHEMA_VERSION,
        title=title,
        task="classification",
        systems=tuple(predictions_by_system),
        provenance=provenance,
        leaderboard=None,
        length=None,
        sentences=None,
        buckets=(),
        ngrams=(),
        examples=None,
        classification=section,
    )


def _entries(raw: list[tuple[tuple[str, ...], float, int, int, tuple[int, ...]]]) -> list[NgramEntry]:
    """N-gram entries with an exact test per n-gram (BH-adjusted within the list)."""
    from nlpeval.reports.analyses.multitest import benjamini_hochberg
    from nlpeval.reports.analyses.sentences import sign_test

    p_values = [sign_test(c1, c2) for _, _, c1, c2, _ in raw]
    adjusted = benjamini_hochberg(p_values)
    return [
        NgramEntry(" ".join(gram), len(gram), score, c1, c2, p, q, ids)
        for (gram, score, c1, c2, ids), p, q in zip(raw, p_values, adjusted, strict=True)
    ]


def _ngram_section_vectorised(
    systems: Sequence[str], baseline: str, corpus: Any, top_k: int
) -> tuple[NgramComparison, ...]:
    """The salient n-grams on integer n-gram codes (same numbers and order as :func:`_ngram_section`)."""
    from nlpeval.reports.analyses import ngram_codes as nc

    found = nc.matches(corpus, systems)
    comparisons = []
    for s in systems:
        if s == baseline:
            continue
        heads = nc.salient(corpus, found, baseline, s, top_k)
        tails = nc.salient(corpus, found, baseline, s, top_k, lowest=True)
        wanted = np.array(sorted({row[0] for row in heads + tails}), dtype=np.int64)
        segments = {int(d): set() for d in wanted}
        for side in (baseline, s):
            seg, dense = found.where[side]
            keep = np.isin(dense, wanted)
            for d, i in zip(dense[keep].tolist(), seg[keep].tolist(), strict=True):
                segments[d].add(i)
        ids = {d: tuple(sorted(v)[:10]) for d, v in segments.items()}
        entries = _entries([(gram, score, c1, c2, ids[d]) for d, gram, score, c1, c2 in heads + tails])
        comparisons.append(
            NgramComparison(
                baseline, s, "match", 1, 4, 1.0, top_k, tuple(entries[: len(heads)]), tuple(entries[len(heads) :])
            )
        )
    return tuple(comparisons)
