"""conlleval.pl's printed report, from a span F1 :class:`~nlpeval.Score` of ``mode="conlleval"``."""

from __future__ import annotations

from nlpeval.core.score import Score


def _percent(numerator: int, denominator: int) -> float:
    return 100 * numerator / denominator if denominator > 0 else 0.0


def _fb1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def conlleval_report(score: Score) -> str:
    """The text conlleval.pl prints (without ``-l``/``-r``), computed as it computes it.

    Parameters
    ----------
    score : Score
        The result of ``nlpeval.span_f1(..., mode="conlleval")``.

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.span_f1([["B-NP", "I-NP", "O"]], [["B-NP", "B-NP", "O"]], mode="conlleval")
    >>> print(nlpeval.conlleval_report(s))
    processed 3 tokens with 2 phrases; found: 1 phrases; correct: 0.
    accuracy:  66.67%; precision:   0.00%; recall:   0.00%; FB1:   0.00
                   NP: precision:   0.00%; recall:   0.00%; FB1:   0.00  1
    <BLANKLINE>
    """
    if "mode:conlleval" not in score.signature:
        raise ValueError("conlleval_report needs a span F1 score of mode='conlleval'")
    c = score.components
    tokens, found_correct, found_guessed, correct = c["tokens"], c["support"], c["predicted"], c["correct"]
    lines = [
        f"processed {tokens} tokens with {found_correct} phrases; found: {found_guessed} phrases; correct: {correct}."
    ]
    if tokens > 0:
        precision = _percent(correct, found_guessed)
        recall = _percent(correct, found_correct)
        lines.append(
            f"accuracy: {100 * c['correct_tokens'] / tokens:6.2f}%; precision: {precision:6.2f}%; "
            f"recall: {recall:6.2f}%; FB1: {_fb1(precision, recall):6.2f}"
        )
    for kind, row in c["per_type"].items():
        if not row["support"] and not row["predicted"]:
            continue  # counted only as correct (never in conlleval's found lists)
        # conlleval.pl de-duplicates the sorted keys of both its hashes with `not($lastType) or ...`: the
        # empty type is false in Perl, so a type-less chunk found on both sides is printed twice
        repeat = 2 if kind == "" and row["support"] and row["predicted"] else 1
        for _ in range(repeat):
            lines.append(_type_line(kind, row))
    return "\n".join(lines) + "\n"


def _type_line(kind: str, row: dict[str, float]) -> str:
    """One per-type line of conlleval.pl's report."""
    correct, predicted, support = int(row["correct"]), int(row["predicted"]), int(row["support"])
    precision = _percent(correct, predicted)
    recall = _percent(correct, support)
    return (
        f"{kind:>17}: precision: {precision:6.2f}%; recall: {recall:6.2f}%; "
        f"FB1: {_fb1(precision, recall):6.2f}  {predicted}"
    )


def seqeval_report(score: Score, digits: int = 2) -> str:
    """The text of seqeval 1.2.2's ``classification_report`` (its mode and scheme are the score's).

    Parameters
    ----------
    score : Score
        A span F1 score (any mode; ``conlleval`` gives conlleval.pl's counts in seqeval's layout).
    digits : int
        Decimals of the values (seqeval's ``digits``, default 2).

    Examples
    --------
    >>> import nlpeval
    >>> s = nlpeval.span_f1([["B-PER", "O", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-LOC"]])
    >>> print(nlpeval.seqeval_report(s, digits=4))
                  precision    recall  f1-score   support
    <BLANKLINE>
             LOC     1.0000    1.0000    1.0000         1
             PER     0.0000    0.0000    0.0000         1
    <BLANKLINE>
       micro avg     0.5000    0.5000    0.5000         2
       macro avg     0.5000    0.5000    0.5000         2
    weighted avg     0.5000    0.5000    0.5000         2
    <BLANKLINE>
    """
    if "mode:" not in score.signature or "per_type" not in score.components:
        raise ValueError("seqeval_report needs a span F1 score")
    c = score.components
    rows = {kind: row for kind, row in sorted(c["per_type"].items()) if row["support"] or row["predicted"]}
    width = max([len(kind) for kind in rows] + [len("weighted avg"), digits])
    header = f"{'':>{width}s} " + "".join(f" {h:>9}" for h in ("precision", "recall", "f1-score", "support"))

    def line(name: str, p: float, r: float, f: float, support: int) -> str:
        return f"{name:>{width}s} " + "".join(f" {v:>9.{digits}f}" for v in (p, r, f)) + f" {support:>9}"

    lines = [line(kind, row["precision"], row["recall"], row["f1"], row["support"]) for kind, row in rows.items()]
    lines.append("")
    for average, row in c["averages"].items():
        lines.append(line(f"{average} avg", row["precision"], row["recall"], row["f1"], c["support"]))
    lines.append("")
    return header + "\n\n" + "\n".join(lines)
