"""``nlpeval score -m meteor``'s NumPy-free path: METEOR 1.5 corpus scores of line files.

A whole ``nlpeval score -m meteor`` process spent a fifth of its instructions importing NumPy.
When METEOR 1.5 is the only metric and only corpus scores are wanted (the conditions of
:func:`nlpeval.cli.fastscore.fast_metrics`), the texts are prepared as the metric object
prepares them (``-norm`` natively, then lowercasing), split and interned natively
(:class:`nlpeval._core.MeteorTokens`), and ``meteor_corpus_totals`` aligns every pair, keeps each
segment's first best-scoring reference and sums the statistics (as ``METEOR.segment_stats``
does); the corpus score and components come from the same native formula the metric object
scores with (:func:`nlpeval.metrics.meteor.config.totals_score`), and the signature from the same
fields. Options this path does not take (another flavor, options the metric object refuses)
go through the metric object as before; tests/test_cli_fastmeteor.py pins both paths to the
same output.
"""

from __future__ import annotations

import argparse
from functools import cached_property
from pathlib import Path
from typing import Any

from nlpeval.cli.fastscore import _FastMetric
from nlpeval.core.plain_score import PlainScore
from nlpeval.core.signature_text import nrefs_field, signature_text
from nlpeval.metrics.meteor.config import MAX_CANDIDATES, MODULES, TASK_ALIASES, TASKS


def fast_meteor(name: str, options: argparse.Namespace) -> FastMETEOR | None:
    """The NumPy-free METEOR 1.5 metric for ``options``, or None when they need the metric object."""
    if name != "meteor" or options.meteor_flavor != "meteor1.5":
        return None
    try:
        params = _numbers(options.meteor_params)
        weights = _numbers(options.meteor_weights)
    except ValueError:
        return None
    modules = tuple(MODULES if options.meteor_modules is None else options.meteor_modules.replace(",", " ").split())
    max_candidates = MAX_CANDIDATES if options.meteor_max_candidates is None else options.meteor_max_candidates
    if (
        not modules
        or any(m not in MODULES for m in modules)
        or len(set(modules)) != len(modules)
        or TASK_ALIASES.get(options.meteor_task, options.meteor_task) not in TASKS
        or (params is not None and len(params) != 4)
        or (weights is not None and len(weights) != len(modules))
        or type(options.meteor_beam) is not int
        or options.meteor_beam < 1
        or type(max_candidates) is not int
        or max_candidates < 0
        or (options.meteor_no_punct and not options.meteor_norm)
    ):
        return None  # the metric object refuses these with its own messages
    return FastMETEOR(name, options, modules, params, weights, max_candidates)


def _numbers(text: str | None) -> tuple[float, ...] | None:
    """``--meteor-params`` / ``--meteor-weights`` as the registry's METEOR entry reads them."""
    return None if text is None else tuple(float(x) for x in text.replace(",", " ").split())


class FastMETEOR(_FastMetric):
    """METEOR 1.5 (``METEOR`` of ``metrics.meteor.meteor15``) from native corpus totals."""

    #: ``--lowercase`` is METEOR's ``-lower``, applied after ``-norm`` (not to the raw lines)
    lowercases_input = False

    def __init__(
        self,
        name: str,
        options: argparse.Namespace,
        modules: tuple[str, ...],
        params: tuple[float, ...] | None,
        weights: tuple[float, ...] | None,
        max_candidates: int,
    ) -> None:
        from nlpeval.metrics.meteor import config

        super().__init__(name, options)
        self.modules, self.max_candidates = modules, max_candidates
        self.parameters = config.parameters(options.meteor_task, params or (None,) * 4)
        self.weights = config.module_weights(options.meteor_task, modules, weights)

    @cached_property
    def wordnet(self) -> Any:
        from nlpeval.metrics.meteor.wordnet import WordNet

        return WordNet.open(self.options.wordnet) if "synonym" in self.modules else None

    @cached_property
    def paraphrase_path(self) -> Path | None:
        from nlpeval.metrics.meteor.paraphrase import find_paraphrases

        return find_paraphrases(self.options.meteor_paraphrases) if "paraphrase" in self.modules else None

    def _prepare(self, texts: list[str]) -> list[str]:
        """``METEOR._prepare``: ``-norm`` then lowercasing (``-norm`` or ``-lower``)."""
        options = self.options
        if options.meteor_norm:
            from nlpeval.metrics.meteor.normalize import normalize_lines

            texts = normalize_lines(texts, keep_punctuation=not options.meteor_no_punct)
        if options.meteor_norm or options.lowercase:
            texts = [text.lower() for text in texts]
        return texts

    def totals(self, hypotheses: list[str], references: list[list[str]]) -> list[int]:
        from nlpeval import _native
        from nlpeval.core.errors import InputError
        from nlpeval.metrics.meteor import config
        from nlpeval.metrics.meteor.language import warn_unless_english

        warn_unless_english(references)
        table = None
        if self.paraphrase_path is not None:
            from nlpeval.metrics.meteor.paraphrase import load_paraphrases

            table = load_paraphrases(self.paraphrase_path)
        counts = list(map(len, references))
        tokens = _native.MeteorTokens(self._prepare([*hypotheses, *(r for seg in references for r in seg)]))
        types = tokens.types()
        word_hash, stem_hash = _native.meteor_word_keys(types, "stem" in self.modules)
        function = config.function_words()
        is_function = [w.lower() in function for w in types]
        synsets: list[int] = []
        synset_lens: list[int] = []
        if self.wordnet is not None:
            synsets, synset_lens = self.wordnet.meteor_synsets_batch(types)
        para_id = table.lookup(types) if table is not None else []
        totals, refused = _native.meteor_corpus_totals(
            tokens,
            counts,
            word_hash,
            stem_hash,
            synsets,
            list(synset_lens),
            para_id,
            is_function,
            [MODULES.index(m) for m in self.modules],
            self.options.meteor_beam,
            table,
            self.max_candidates,
            *self.parameters,
            list(self.weights),
        )
        if refused is not None:
            pair, candidates = refused
            segment = 0
            while pair >= counts[segment]:
                pair -= counts[segment]
                segment += 1
            message = config.refusal_message(pair, candidates, self.max_candidates)
            raise InputError(message, segment=segment, side="hypotheses")
        assert totals is not None  # the kernel returns totals unless it refused a pair
        return totals[:-2]  # the accumulator appends the least and most references

    def score(self, totals: list[int]) -> PlainScore:
        from nlpeval.metrics.meteor import config

        value, components = config.totals_score(totals, self.modules, self.parameters, self.weights)
        nrefs_min, nrefs_max = totals[-2], totals[-1]
        fields = config.signature_fields(
            nrefs=nrefs_field(nrefs_min, nrefs_max) if nrefs_max >= nrefs_min else "0",
            normalize=self.options.meteor_norm,
            keep_punctuation=not self.options.meteor_no_punct,
            lowercase=self.options.lowercase,
            modules=self.modules,
            task=self.options.meteor_task,
            params=self.parameters,
            weights=self.weights,
            beam_size=self.options.meteor_beam,
            wordnet_version=self.wordnet.version if self.wordnet is not None else None,
            paraphrase_path=self.paraphrase_path,
        )
        return PlainScore(name="meteor", score=value, signature=signature_text(**fields), components=components)
