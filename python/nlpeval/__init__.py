"""nlpeval: evaluation metrics for NLP that agree exactly with the reference tools.

The public API is loaded lazily so that ``import nlpeval`` (and the CLI) start fast.

Examples
--------
>>> import nlpeval
>>> score = nlpeval.bleu(["the cat sat on the mat"], [["the cat sat on a mat", "a cat sat"]])
>>> round(score.score, 4)
0.5373
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from nlpeval._lazy import lazy_attributes
from nlpeval.core.errors import InputError, UndefinedMetricWarning

#: public name -> module that defines it
_LAZY = {
    "Score": "nlpeval.core.score",
    "ConfidenceInterval": "nlpeval.core.score",
    "Signature": "nlpeval.core.signature",
    "Stats": "nlpeval.core.stats",
    "StatsSchema": "nlpeval.core.stats",
    "Accumulator": "nlpeval.core.accumulator",
    "CorpusMetric": "nlpeval.core.metric",
    "bleu": "nlpeval.metrics.bleu",
    "BLEU": "nlpeval.metrics.bleu",
    "TokenIdBLEU": "nlpeval.metrics.bleu",
    "make_bleu": "nlpeval.metrics.bleu",
    "NltkBLEU": "nlpeval.metrics.bleu",
    "HfBLEU": "nlpeval.metrics.bleu",
    "pairwise_bleu": "nlpeval.metrics.bleu.pairwise",
    "bootstrap_interval": "nlpeval.significance.bootstrap",
    "paired_bootstrap": "nlpeval.significance.paired",
    "approximate_randomization": "nlpeval.significance.paired",
    "PairedTestResult": "nlpeval.significance.paired",
    "rouge": "nlpeval.metrics.rouge",
    "Rouge": "nlpeval.metrics.rouge",
    "RougeScore": "nlpeval.metrics.rouge",
    "make_rouge": "nlpeval.metrics.rouge",
    "perplexity": "nlpeval.lm.logprobs",
    "Perplexity": "nlpeval.lm.logprobs",
    "PerplexityAccumulator": "nlpeval.lm.logprobs",
    "model_perplexity": "nlpeval.lm.causal",
    "ConfusionMatrix": "nlpeval.classification.matrix",
    "ConfusionMatrixAccumulator": "nlpeval.classification.matrix",
    "ClassificationReport": "nlpeval.classification.report",
    "cross_entropy": "nlpeval.classification.probabilistic",
    "kl_divergence": "nlpeval.classification.probabilistic",
    "wer": "nlpeval.metrics.wer",
    "mer": "nlpeval.metrics.wer",
    "wil": "nlpeval.metrics.wer",
    "wip": "nlpeval.metrics.wer",
    "cer": "nlpeval.metrics.wer",
    "WER": "nlpeval.metrics.wer",
    "MER": "nlpeval.metrics.wer",
    "WIL": "nlpeval.metrics.wer",
    "WIP": "nlpeval.metrics.wer",
    "CER": "nlpeval.metrics.wer",
    "edit_alignment": "nlpeval.metrics.wer",
    "EditAlignment": "nlpeval.metrics.wer",
    "chrf": "nlpeval.metrics.chrf",
    "CHRF": "nlpeval.metrics.chrf",
    "pairwise_chrf": "nlpeval.metrics.chrf.pairwise",
    "ter": "nlpeval.metrics.ter",
    "TER": "nlpeval.metrics.ter",
    "meteor": "nlpeval.metrics.meteor",
    "cider": "nlpeval.metrics.cider",
    "CIDEr": "nlpeval.metrics.cider",
    "span_f1": "nlpeval.metrics.span_f1",
    "SpanF1": "nlpeval.metrics.span_f1",
    "conlleval_report": "nlpeval.metrics.span_f1",
    "read_conll": "nlpeval.metrics.span_f1",
    "seqeval_report": "nlpeval.metrics.span_f1",
    "gleu": "nlpeval.metrics.nltk_lexical",
    "GLEU": "nlpeval.metrics.nltk_lexical",
    "nist": "nlpeval.metrics.nltk_lexical",
    "NIST": "nlpeval.metrics.nltk_lexical",
    "MtevalNIST": "nlpeval.metrics.nist_mteval",
    "mteval_nist": "nlpeval.metrics.nist_mteval",
    "ribes": "nlpeval.metrics.nltk_lexical",
    "RIBES": "nlpeval.metrics.nltk_lexical",
    "sari": "nlpeval.metrics.sari",
    "SARI": "nlpeval.metrics.sari",
    "eed": "nlpeval.metrics.eed",
    "character": "nlpeval.metrics.character",
    "CharacTER": "nlpeval.metrics.character",
    "charcut": "nlpeval.metrics.charcut",
    "CharCut": "nlpeval.metrics.charcut",
    "EED": "nlpeval.metrics.eed",
    "METEOR": "nlpeval.metrics.meteor",
    "NltkMETEOR": "nlpeval.metrics.meteor",
    "make_meteor": "nlpeval.metrics.meteor",
    "cohen_kappa": "nlpeval.agreement",
    "fleiss_kappa": "nlpeval.agreement",
    "krippendorff_alpha": "nlpeval.agreement",
    "percent_agreement": "nlpeval.agreement",
    "rating_summary": "nlpeval.agreement",
    "meta_evaluate": "nlpeval.correlation",
    "compare_metrics": "nlpeval.correlation.compare",
    "explain": "nlpeval.cards",
    "report": "nlpeval.reports.build",
    "squad": "nlpeval.metrics.squad",
    "SQuAD": "nlpeval.metrics.squad",
    "exact_match": "nlpeval.metrics.exact_match",
    "ExactMatch": "nlpeval.metrics.exact_match",
    "multiple_choice": "nlpeval.lm.choice",
    "likelihood": "nlpeval.lm.loglikelihood",
    "MultipleChoice": "nlpeval.lm.choice",
    "pass_at_k": "nlpeval.metrics.pass_at_k",
    "PassAtK": "nlpeval.metrics.pass_at_k",
    "retrieval": "nlpeval.ir.api",
    "compare_runs": "nlpeval.ir.compare",
    "RetrievalResult": "nlpeval.ir.api",
    "fisher_randomization_test": "nlpeval.significance.fisher",
    "bertscore": "nlpeval.metrics.bertscore",
    "BERTScore": "nlpeval.metrics.bertscore",
    "comet": "nlpeval.metrics.comet",
    "COMET": "nlpeval.metrics.comet",
    "metricx": "nlpeval.metrics.metricx",
    "MetricX": "nlpeval.metrics.metricx",
    "power": "nlpeval.significance.power",
    "minimum_detectable_effect": "nlpeval.significance.power",
    "required_sample_size": "nlpeval.significance.power",
    "PowerResult": "nlpeval.significance.power",
    "PowerSearch": "nlpeval.significance.power",
}

#: sub-packages reachable as attributes without an explicit import (``nlpeval.classification``)
_SUBMODULES = ("classification", "regression", "lm", "agreement", "correlation")

__all__ = ["InputError", "UndefinedMetricWarning", "__version__", *_LAZY, *_SUBMODULES]

if TYPE_CHECKING:
    from nlpeval import agreement, classification, correlation, lm, regression
    from nlpeval._version import __version__
    from nlpeval.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement, rating_summary
    from nlpeval.cards import explain
    from nlpeval.classification.matrix import ConfusionMatrix, ConfusionMatrixAccumulator
    from nlpeval.classification.probabilistic import cross_entropy, kl_divergence
    from nlpeval.classification.report import ClassificationReport
    from nlpeval.core.accumulator import Accumulator
    from nlpeval.core.metric import CorpusMetric
    from nlpeval.core.score import ConfidenceInterval, Score
    from nlpeval.core.signature import Signature
    from nlpeval.core.stats import Stats, StatsSchema
    from nlpeval.correlation import meta_evaluate
    from nlpeval.correlation.compare import compare_metrics
    from nlpeval.ir.api import RetrievalResult, retrieval
    from nlpeval.ir.compare import compare_runs
    from nlpeval.lm.causal import model_perplexity
    from nlpeval.lm.choice import MultipleChoice, multiple_choice
    from nlpeval.lm.loglikelihood import likelihood
    from nlpeval.lm.logprobs import Perplexity, PerplexityAccumulator, perplexity
    from nlpeval.metrics.bertscore import BERTScore, bertscore
    from nlpeval.metrics.bleu import BLEU, HfBLEU, NltkBLEU, TokenIdBLEU, bleu, make_bleu
    from nlpeval.metrics.bleu.pairwise import pairwise_bleu
    from nlpeval.metrics.character import CharacTER, character
    from nlpeval.metrics.charcut import CharCut, charcut
    from nlpeval.metrics.chrf import CHRF, chrf
    from nlpeval.metrics.chrf.pairwise import pairwise_chrf
    from nlpeval.metrics.cider import CIDEr, cider
    from nlpeval.metrics.comet import COMET, comet
    from nlpeval.metrics.eed import EED, eed
    from nlpeval.metrics.exact_match import ExactMatch, exact_match
    from nlpeval.metrics.meteor import METEOR, NltkMETEOR, make_meteor, meteor
    from nlpeval.metrics.metricx import MetricX, metricx
    from nlpeval.metrics.nltk_lexical.gleu import GLEU, gleu
    from nlpeval.metrics.nltk_lexical.nist import NIST, nist
    from nlpeval.metrics.nltk_lexical.ribes import RIBES, ribes
    from nlpeval.metrics.pass_at_k import PassAtK, pass_at_k
    from nlpeval.metrics.rouge import Rouge, RougeScore, make_rouge, rouge
    from nlpeval.metrics.sari import SARI, sari
    from nlpeval.metrics.squad import SQuAD, squad
    from nlpeval.metrics.ter import TER, ter
    from nlpeval.metrics.wer import CER, MER, WER, WIL, WIP, EditAlignment, cer, edit_alignment, mer, wer, wil, wip
    from nlpeval.significance.bootstrap import bootstrap_interval
    from nlpeval.significance.fisher import fisher_randomization_test
    from nlpeval.significance.paired import PairedTestResult, approximate_randomization, paired_bootstrap
    from nlpeval.significance.power import (
        PowerResult,
        PowerSearch,
        minimum_detectable_effect,
        power,
        required_sample_size,
    )


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read on demand: finding the installed version costs start-up time
        from nlpeval._version import __version__

        return __version__
    if name in _SUBMODULES:
        return import_module(f"nlpeval.{name}")
    return _lazy_attribute(name)


_lazy_attribute = lazy_attributes(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
