"""Registry entries of the QA answer metrics (``nlpeval score -m squad,squad_v2,exact_match``).

Multiple choice, the likelihood family and pass@k take numbers, not texts: they have their own commands
(``nlpeval mc``, ``nlpeval pass-at-k``) and no ``score`` entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

SQUAD_OPTIONS = (
    Option(
        "squad_target",
        "--squad-target",
        "str",
        "f1",
        "the score of -m squad/squad_v2: f1 or exact_match",
        choices=("f1", "exact_match"),
    ),
    Option(
        "squad_lang",
        "--squad-lang",
        "str",
        None,
        "MLQA's normalisation for this language (default: SQuAD's)",
        choices=("en", "es", "hi", "vi", "de", "ar", "zh"),
    ),
)

EXACT_MATCH_OPTIONS = (
    Option("em_regex", "--em-regex", "str", None, "a regex removed from both sides (lm-eval's regexes_to_ignore)"),
    Option("em_ignore_case", "--em-ignore-case", "flag", False, "lowercase both sides"),
    Option("em_ignore_punctuation", "--em-ignore-punctuation", "flag", False, "delete string.punctuation"),
    Option("em_ignore_numbers", "--em-ignore-numbers", "flag", False, "delete the digits 0-9"),
)


def build_squad(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """SQuAD v1.1 (``squad``) or v2.0 (``squad_v2``; an empty reference is an unanswerable question)."""
    from nlpeval.metrics.squad import SQuAD

    return SQuAD(
        version="2.0" if name == "squad_v2" else "1.1", target=options["squad_target"], lang=options["squad_lang"]
    )


def build_exact_match(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """lm-eval's exact match with the ``em_*`` options."""
    from nlpeval.metrics.exact_match import ExactMatch

    regex = options["em_regex"]
    return ExactMatch(
        regexes_to_ignore=() if regex is None else (regex,),
        ignore_case=options["em_ignore_case"],
        ignore_punctuation=options["em_ignore_punctuation"],
        ignore_numbers=options["em_ignore_numbers"],
    )


_SQUAD: dict[str, Any] = {
    "factory": "nlpeval.metrics.entries.qa:build_squad",
    "family": "squad",
    "card": "squad",
    "flavors": ("official",),
    "options": SQUAD_OPTIONS,
    "option_group": "SQuAD options (-m squad, squad_v2; several -r files are several gold answers)",
}

ENTRIES = (
    MetricEntry("squad", label="SQuAD F1", **_SQUAD),
    MetricEntry("squad_v2", label="SQuAD v2 F1", **_SQUAD),
    MetricEntry(
        "exact_match",
        factory="nlpeval.metrics.entries.qa:build_exact_match",
        family="exact_match",
        card="exact-match",
        label="EM",
        flavors=("lm-eval",),
        options=EXACT_MATCH_OPTIONS,
        option_group="exact match options (lm-eval's; several -r files: any may match)",
    ),
)
