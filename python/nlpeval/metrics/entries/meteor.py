"""Registry entry of METEOR (``nlpeval score -m meteor``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.entries._shared import LOWERCASE
from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

OPTIONS = (
    Option("meteor_flavor", "--meteor-flavor", "str", "meteor1.5", choices=("meteor1.5", "nltk")),
    Option(
        "meteor_modules",
        "--meteor-modules",
        "str",
        None,
        "meteor1.5 matchers in order, e.g. exact,stem (default exact,stem,synonym,paraphrase)",
        metavar="MODS",
    ),
    Option("meteor_norm", "--meteor-norm", "flag", False, "meteor1.5: tokenize and lowercase (-norm)"),
    Option("meteor_no_punct", "--meteor-no-punct", "flag", False, "meteor1.5: drop punctuation (-noPunct)"),
    Option(
        "meteor_task",
        "--meteor-task",
        "str",
        "default",
        "(-t)",
        choices=("default", "rank", "adq", "hter", "li", "tune"),
    ),
    Option(
        "meteor_params", "--meteor-params", "str", None, "alpha beta gamma delta (-p; nltk: A B G)", metavar="'A B G D'"
    ),
    Option(
        "meteor_weights", "--meteor-weights", "str", None, "module weights, one per module (-w)", metavar="'W1 W2 ..'"
    ),
    Option("meteor_beam", "--meteor-beam", "int", 40, "alignment beam size (-x)", minimum=1, metavar="N"),
    Option(
        "meteor_max_candidates",
        "--meteor-max-candidates",
        "int",
        None,
        "meteor1.5: refuse a pair with more candidate matches than N (default 100 million; bounds the search)",
        minimum=1,
        metavar="N",
    ),
    Option("wordnet", "--wordnet", "path", None, "WordNet 3.0 dict folder or wordnet.zip", metavar="PATH"),
    Option(
        "meteor_paraphrases",
        "--meteor-paraphrases",
        "path",
        None,
        "METEOR 1.5 paraphrase table (paraphrase-en.gz)",
        metavar="PATH",
    ),
    LOWERCASE,
)


def numbers(text: str | None) -> list[float] | None:
    """``--meteor-params`` / ``--meteor-weights``: numbers separated by spaces or commas."""
    return None if text is None else [float(x) for x in text.replace(",", " ").split()]


def build(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """METEOR (``meteor_flavor`` meteor1.5 or nltk) with the ``meteor_*`` options and ``lowercase``."""
    from nlpeval.metrics.meteor import make_meteor

    flavor = options["meteor_flavor"]
    params = numbers(options["meteor_params"])
    flavor_params = 3 if flavor == "nltk" else 4
    if params is not None and len(params) != flavor_params:
        raise ValueError(f"--meteor-params needs {flavor_params} numbers for --meteor-flavor {flavor}")
    padded: list[float | None] = [*(params or []), None, None, None, None]
    alpha, beta, gamma, delta = padded[:4]
    modules = None if options["meteor_modules"] is None else options["meteor_modules"].replace(",", " ").split()
    max_candidates = options["meteor_max_candidates"]
    return make_meteor(
        flavor=flavor,
        modules=modules,
        normalize=options["meteor_norm"],
        keep_punctuation=not options["meteor_no_punct"],
        lowercase=options["lowercase"],
        task=options["meteor_task"],
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=delta,
        weights=numbers(options["meteor_weights"]),
        beam_size=options["meteor_beam"],
        wordnet=options["wordnet"],
        paraphrases=options["meteor_paraphrases"],
        **({} if max_candidates is None else {"max_candidates": max_candidates}),
    )


ENTRIES = (
    MetricEntry(
        "meteor",
        factory="nlpeval.metrics.entries.meteor:build",
        family="meteor",
        card="meteor",
        label="METEOR",
        flavors=("meteor1.5", "nltk"),
        options=OPTIONS,
        option_group="METEOR options (--lowercase is METEOR 1.5's -lower)",
    ),
)
