"""``nlpeval report --task qa`` and ``--task mc``: systems answering the same questions, compared.

QA (SQuAD v1.1/v2.0 exact match and F1, the official scripts' numbers): a leaderboard with bootstrap
intervals and paired tests between systems, F1 by the number of gold answers and, for v2.0, by
HasAns/NoAns (the official split), and the worst and best questions (by F1 averaged over systems) as
examples: gold answers, every system's answer and its scores. Multiple choice (lm-eval's ``acc``; with
the choice texts ``acc_norm`` and ``acc_bytes``; with unconditional log-likelihoods ``acc_mutual_info``;
the Brier score where lm-eval computes it): the same leaderboard, accuracy by number of choices, and the
questions most and least often answered right. The report model is built by
:func:`nlpeval.reports.task.task_report`, so every renderer (text, Markdown, LaTeX, JSON, HTML) draws it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from nlpeval.core.errors import InputError
from nlpeval.reports.model import Example, ExamplesSection, Report

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from nlpeval.lm.choice import Target
    from nlpeval.reports.task import TaskOptions


class SystemInputError(InputError):
    """An :class:`InputError` in one system's input, naming the system (``system``).

    Examples
    --------
    >>> str(SystemInputError("B", InputError("choice 1 is nan", segment=6, side="loglikelihoods")))
    'B: loglikelihoods: segment 6: choice 1 is nan'
    """

    def __init__(self, system: str, error: InputError) -> None:
        self.system = system
        self.error = error  # the system's own error (its class tells a gold index beyond the choices)
        super().__init__(error.message, segment=error.segment, side=error.side, reference=error.reference)

    def _describe(self) -> str:
        return f"{self.system}: {super()._describe()}"


#: buckets of questions by their number of gold answers
ANSWER_BUCKETS = ((1, 1, "1 answer"), (2, 2, "2 answers"), (3, None, "3+ answers"))


def _extremes(values: np.ndarray, count: int) -> list[int]:
    """The ``count`` lowest and ``count`` highest segments by ``values`` (ties by index), lowest first."""
    order = np.lexsort((np.arange(len(values)), values)).tolist()
    if len(order) <= 2 * count:
        return order
    return order[:count] + order[-count:]


def _bounded(label: str, low: int, high: int | None) -> tuple[str, tuple[float, float | None]]:
    return label, (float(low), None if high is None else float(high))


def qa_report(
    answers: Sequence[Sequence[str]],
    systems: Mapping[str, Sequence[str]],
    *,
    version: Literal["1.1", "2.0"] = "1.1",
    no_answer_probs: Mapping[str, Sequence[float]] | None = None,
    no_answer_threshold: float = 1.0,
    questions: Sequence[str] | None = None,
    max_examples: int = 40,
    title: str = "QA system comparison",
    **options: Unpack[TaskOptions],
) -> Report:
    """Compare QA systems on the same questions (SQuAD's exact match and F1): the report model.

    Parameters
    ----------
    answers : sequence of sequence of str
        Gold answers per question (v2.0: an empty list is an unanswerable question).
    systems : mapping of str to sequence of str
        System name -> one answer per question (``""``: no answer).
    version : {"1.1", "2.0"}
        The official script to follow.
    no_answer_probs : mapping of str to sequence of float, optional
        v2.0: per system, the no-answer probability of each question (``no_answer_threshold`` applies:
        above it the answer counts as none). The HasAns/NoAns table's note then gives each such system's
        ``best_exact``/``best_f1`` and their thresholds, as the official v2.0 script prints them.
    questions : sequence of str, optional
        Question texts (or ids) shown with the examples.
    max_examples : int
        The worst and best questions shown, half each (by F1 averaged over the systems).
    **options
        ``baseline``, ``seed``, ``n_bootstrap``, ``n_randomization``, ``alpha``, ``confidence`` (resampling over
        questions), ``command`` and ``inputs``: :class:`~nlpeval.reports.task.TaskOptions`.

    Examples
    --------
    >>> model = qa_report([["Paris"], ["1889"], []], {"A": ["paris", "1889", ""], "B": ["Lyon", "1889", "x"]},
    ...                   version="2.0", n_bootstrap=50, n_randomization=50)
    >>> model.task, model.leaderboard.metrics, [t.id for t in model.buckets]
    ('qa', ('exact_match', 'f1'), ['qa-answers', 'qa-has-answer'])
    """
    from nlpeval.metrics.squad import SQuAD
    from nlpeval.reports.analyses.buckets import Buckets
    from nlpeval.reports.provenance import memory_inputs
    from nlpeval.reports.task import BucketSpec, TaskMetric, named_systems, task_report, task_resampling

    resampling = task_resampling("qa_report", options)
    names, baseline = named_systems(systems, options.get("baseline"))
    golds = [list(a) for a in answers]
    probs = no_answer_probs or {}
    unknown = sorted(set(probs) - set(names))
    if unknown:
        raise InputError(f"no-answer probabilities for {unknown[0]!r}, which is no system")
    if probs and version != "2.0":
        raise InputError("no-answer probabilities need version 2.0")
    if questions is not None and len(questions) != len(golds):
        raise InputError(f"{len(questions)} question texts for {len(golds)} questions", side="questions")
    metrics = {
        target: SQuAD(version=version, target=target, no_answer_threshold=no_answer_threshold)
        for target in ("exact_match", "f1")
    }
    stats = {}
    for name in names:
        predictions = list(systems[name])
        if len(predictions) != len(golds):
            raise InputError(f"{name}: {len(predictions)} answers for {len(golds)} questions")
        try:
            stats[name] = metrics["f1"].segment_stats(predictions, golds, probs.get(name))
        except InputError as exc:
            raise SystemInputError(name, exc) from None
    reported = [
        TaskMetric(
            target,
            "EM" if target == "exact_match" else "F1",
            metric,
            metric.signature(stats[baseline].totals()),
            stats,
        )
        for target, metric in metrics.items()
    ]
    counts = np.array([len(a) for a in golds], dtype=np.int64)
    by_answers = np.full(len(golds), -1, dtype=np.int64)
    for b, (low, high, _) in enumerate(ANSWER_BUCKETS):
        by_answers[(counts >= low) & (counts <= (high if high is not None else np.iinfo(np.int64).max))] = b
    labels, bounds = zip(*(_bounded(label, low, high) for low, high, label in ANSWER_BUCKETS), strict=True)
    buckets = [
        BucketSpec(
            Buckets("qa-answers", "F1 by number of gold answers", "gold-answers", labels, bounds), by_answers, "f1"
        )
    ]
    if version == "2.0":
        has = (counts > 0).astype(np.int64)  # bucket 0: HasAns, 1: NoAns
        split = Buckets("qa-has-answer", "F1 on answerable (HasAns) and unanswerable (NoAns) questions", "has-answer",
                        ["HasAns", "NoAns"], [(1.0, None), (0.0, 0.0)])  # fmt: skip
        buckets.append(
            BucketSpec(split, 1 - has, "f1", _best_note(metrics["f1"], stats, [n for n in names if n in probs]))
        )
    examples = _qa_examples(golds, systems, names, stats, questions, max_examples, probs)
    inputs = options.get("inputs")
    if inputs is None:
        sides = [("reference", "answers", [" | ".join(a) for a in golds])]
        inputs = memory_inputs(sides + [("system", n, [str(x) for x in systems[n]]) for n in names])
    return task_report(
        task="qa",
        title=title,
        systems=names,
        baseline=baseline,
        metrics=reported,
        buckets=buckets,
        resampling=resampling,
        inputs=inputs,
        options={"version": version, "questions": len(golds), "no_answer_threshold": str(no_answer_threshold)},
        command=options.get("command"),
        examples=examples,
    )


def _best_note(metric: Any, stats: Mapping[str, Any], names: Sequence[str]) -> str | None:
    """The official v2.0 script's ``best_exact``/``best_f1`` and thresholds of each system with no-answer
    probabilities, in percent as the script prints them (``None`` without such systems)."""
    parts = []
    for name in names:
        best = metric.best_components(stats[name])
        parts.append(
            f"{name}: best_exact {100 * best['best_exact_match']:.2f} "
            f"at threshold {best['best_exact_match_thresh']:g}, "
            f"best_f1 {100 * best['best_f1']:.2f} at threshold {best['best_f1_thresh']:g}"
        )
    return "with no-answer probabilities, " + "; ".join(parts) if parts else None


def _qa_examples(
    golds: list[list[str]],
    systems: Mapping[str, Sequence[str]],
    names: Sequence[str],
    stats: Mapping[str, Any],
    questions: Sequence[str] | None,
    max_examples: int,
    probs: Mapping[str, Sequence[float]],
) -> ExamplesSection:
    """The worst and best questions (by F1 averaged over the systems) with every system's answer, EM and F1."""
    f1 = np.stack([np.asarray(stats[n]["f1"], dtype=np.float64) for n in names])
    em = np.stack([np.asarray(stats[n]["exact"], dtype=np.float64) for n in names])
    shown = _extremes(f1.mean(axis=0), max_examples // 2)
    texts = list(questions) if questions is not None else [f"question {i + 1}" for i in range(len(golds))]
    return ExamplesSection(
        total=len(golds),
        max_examples=max_examples,
        metric="f1",
        examples=tuple(
            Example(
                id=i,
                source=texts[i],
                references=tuple(golds[i]) or ("(no answer)",),
                hypotheses=tuple(_answer(systems[n][i], probs[n][i] if n in probs else None) for n in names),
                scores={"f1": tuple(f1[:, i].tolist()), "exact_match": tuple(em[:, i].tolist())},
            )
            for i in shown
        ),
    )


def _mc_metrics(
    gold: Sequence[Any],
    systems: Mapping[str, Sequence[Sequence[float]]],
    names: Sequence[str],
    choices: Sequence[Sequence[str]] | None,
    unconditional: Mapping[str, Sequence[Sequence[float]]] | None,
) -> tuple[dict[str, Any], list[tuple[Target, bool, float]]]:
    """Every system's statistics rows and the reported targets ``(name, higher is better, scale)``:
    ``acc``; ``acc_norm`` and ``acc_bytes`` with the choice texts; ``acc_mutual_info`` with every system's
    unconditional log-likelihoods; ``brier_score`` (lower is better, 0-2) when every question has one gold
    choice and every question the same number of choices."""
    from nlpeval.lm.choice import MultipleChoice

    uncond = unconditional or {}
    unknown = sorted(set(uncond) - set(names))
    if unknown:
        raise InputError(f"unconditional log-likelihoods for {unknown[0]!r}, which is no system")
    missing = [n for n in names if n not in uncond]
    if uncond and missing:
        raise InputError(f"{missing[0]}: no unconditional log-likelihoods (give them for every system or none)")
    metric = MultipleChoice(allow_ragged=True)
    stats = {}
    for name in names:
        lls = systems[name]
        if len(lls) != len(gold):
            raise InputError(f"{name}: {len(lls)} questions' log-likelihoods for {len(gold)} gold answers")
        try:
            stats[name] = metric.choice_stats(lls, gold, choices=choices, unconditional=uncond.get(name))
        except InputError as exc:
            raise SystemInputError(name, exc) from None
    targets: list[tuple[Target, bool, float]] = [("acc", True, 100.0)]
    if choices is not None:
        targets += [("acc_norm", True, 100.0), ("acc_bytes", True, 100.0)]
    if uncond:
        targets.append(("acc_mutual_info", True, 100.0))
    if not any(np.isnan(stats[n]["brier_score"]).any() for n in names):
        targets.append(("brier_score", False, 1.0))
    return stats, targets


def _mc_examples(
    gold: Sequence[Any],
    systems: Mapping[str, Sequence[Sequence[float]]],
    names: Sequence[str],
    stats: Mapping[str, Any],
    choices: Sequence[Sequence[str]] | None,
    max_examples: int,
) -> ExamplesSection:
    """The questions most and least often answered right (by ``acc``), with every system's pick."""
    right = np.stack([np.asarray(stats[n]["acc"], dtype=np.float64) for n in names])
    shown = _extremes(right.mean(axis=0), max_examples // 2)

    def answer(name: str, i: int) -> str:
        row = list(systems[name][i])
        pick = int(np.argmax(row))
        return f"{pick}: {choices[i][pick]}" if choices is not None else str(pick)

    def golds(i: int) -> tuple[str, ...]:
        picks = gold[i] if isinstance(gold[i], (list, tuple)) else [gold[i]]
        return tuple(f"{int(g)}: {choices[i][int(g)]}" if choices is not None else str(int(g)) for g in picks)

    return ExamplesSection(
        total=len(gold),
        max_examples=max_examples,
        metric="acc",
        examples=tuple(
            Example(
                id=i,
                source=f"question {i + 1}",
                references=golds(i),
                hypotheses=tuple(answer(n, i) for n in names),
                scores={"acc": tuple(right[:, i].tolist())},
            )
            for i in shown
        ),
    )


def _answer(prediction: str, no_answer_prob: float | None) -> str:
    """A system's answer as shown with the examples (with its no-answer probability, if given)."""
    return str(prediction) if no_answer_prob is None else f"{prediction} [no-answer probability {no_answer_prob:g}]"


def mc_report(
    gold: Sequence[Any],
    systems: Mapping[str, Sequence[Sequence[float]]],
    *,
    choices: Sequence[Sequence[str]] | None = None,
    unconditional: Mapping[str, Sequence[Sequence[float]]] | None = None,
    max_examples: int = 40,
    title: str = "Multiple-choice comparison",
    **options: Unpack[TaskOptions],
) -> Report:
    """Compare models on multiple-choice questions from their per-choice log-likelihoods: the report model.

    The leaderboard has lm-eval's ``acc``; with the choice texts ``acc_norm`` (per character) and
    ``acc_bytes`` (per UTF-8 byte); with ``unconditional`` log-likelihoods ``acc_mutual_info``; and the
    Brier score (lower is better) when every question has one gold choice and all have as many choices.

    Parameters
    ----------
    gold : sequence of (int or list of int)
        The gold choice index per question.
    systems : mapping of str to sequence of sequence of float
        System name -> per question, each choice's log-likelihood.
    choices : sequence of sequence of str, optional
        The choice texts (``acc_norm``, ``acc_bytes``, and the examples).
    unconditional : mapping of str to sequence of sequence of float, optional
        System name -> each choice's log-likelihood after an empty context (every system or none).
    **options
        ``baseline``, ``seed``, ``n_bootstrap``, ``n_randomization``, ``alpha``, ``confidence`` (resampling over
        questions), ``command`` and ``inputs``: :class:`~nlpeval.reports.task.TaskOptions`.

    Examples
    --------
    >>> lls = {"A": [[-1, -2], [-3, -1], [-1, -2, -0.5]], "B": [[-2, -1], [-1, -3], [-1, -2, -3]]}
    >>> model = mc_report([0, 1, 2], lls, n_bootstrap=50, n_randomization=50)
    >>> model.leaderboard.metrics, [row.label for row in model.buckets[0].rows]
    (('acc',), ['2 choices', '3 choices'])
    """
    from nlpeval.lm.choice import MultipleChoice
    from nlpeval.reports.analyses.buckets import Buckets
    from nlpeval.reports.provenance import memory_inputs
    from nlpeval.reports.task import BucketSpec, TaskMetric, named_systems, task_report, task_resampling

    resampling = task_resampling("mc_report", options)
    names, baseline = named_systems(systems, options.get("baseline"))
    stats, targets = _mc_metrics(gold, systems, names, choices, unconditional)
    reported = []
    for target, higher, scale in targets:
        metric = MultipleChoice(target=target, allow_ragged=True)
        signature = metric.signature(stats[baseline].totals())
        reported.append(TaskMetric(target, target, metric, signature, stats, scale, higher))
    sizes = np.array([len(row) for row in systems[baseline]], dtype=np.int64)
    distinct = sorted(set(sizes.tolist()))
    assignment = np.searchsorted(np.array(distinct), sizes)
    per_count = Buckets(
        "mc-choices",
        "Accuracy by number of choices",
        "choices",
        [f"{k} choices" for k in distinct],
        [(float(k), float(k)) for k in distinct],
    )
    examples = _mc_examples(gold, systems, names, stats, choices, max_examples)
    inputs = options.get("inputs")
    if inputs is None:
        sides = [("reference", "gold", [str(g) for g in gold])]
        inputs = memory_inputs(sides + [("system", n, [repr(list(r)) for r in systems[n]]) for n in names])
    shown: dict[str, Any] = {"questions": len(gold), "choices": "given" if choices is not None else "none"}
    if unconditional:
        shown["unconditional"] = "given"
    return task_report(
        task="mc",
        title=title,
        systems=names,
        baseline=baseline,
        metrics=reported,
        buckets=[BucketSpec(per_count, assignment, "acc")],
        resampling=resampling,
        inputs=inputs,
        options=shown,
        command=options.get("command"),
        examples=examples,
    )
