"""Registry entries of the neural metrics (``nlpeval score -m comet,bertscore,metricx``).

Each needs a local model (``--comet-model``, ``--bertscore-model``, ``--metricx-model``; nothing is
downloaded); COMET and MetricX also need the sources (``--src``). The device and precision options are
shared by the three families (one :class:`~nlpeval.metrics.registry.Option` object each).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpeval.metrics.registry import MetricEntry, Option

if TYPE_CHECKING:
    from nlpeval.core.metric import CorpusMetric

#: torch device of every neural metric (not in the signatures: scores do not depend on it)
DEVICE = Option(
    "device", "--device", "str", None, "torch device of the neural metrics (default cuda when available, else cpu)"
)
#: model precision of every neural metric (recorded in the signatures)
DTYPE = Option(
    "dtype",
    "--dtype",
    "str",
    "float32",
    "precision of the neural metrics' models (recorded in the signature)",
    choices=("float32", "bfloat16", "float16"),
)


def _model_option(family: str, what: str) -> Option:
    """The required ``--<family>-model`` option (a local folder or a hub name in the local cache)."""
    return Option(
        f"{family}_model", f"--{family}-model", "path", None, f"{what} (default none: required)", metavar="MODEL"
    )


def _batch_option(family: str, default: int, what: str) -> Option:
    """The ``--<family>-batch-size`` option."""
    return Option(f"{family}_batch_size", f"--{family}-batch-size", "int", default, what, minimum=1, metavar="N")


COMET_OPTIONS = (
    _model_option(
        "comet",
        "COMET model folder (hparams.yaml + checkpoints/model.ckpt), its .ckpt file, or a hub name in the local "
        "Hugging Face cache",
    ),
    _batch_option("comet", 16, "sentences per encoder batch"),
    DEVICE,
    DTYPE,
)

BERTSCORE_OPTIONS = (
    _model_option("bertscore", "BERTScore model folder, or a hub name in the local Hugging Face cache"),
    Option(
        "bertscore_num_layers",
        "--bertscore-num-layers",
        "int",
        None,
        "layer whose embeddings are matched (default bert-score's tuned layer of a known model name)",
        minimum=0,
        metavar="N",
    ),
    Option("bertscore_idf", "--bertscore-idf", "flag", False, "weight tokens by their idf over the references"),
    Option(
        "bertscore_rescale_with_baseline",
        "--bertscore-rescale-with-baseline",
        "flag",
        False,
        "rescale P, R, F with the baseline of --bertscore-baseline-path",
    ),
    Option(
        "bertscore_baseline_path",
        "--bertscore-baseline-path",
        "path",
        None,
        "bert-score baseline file (LAYER,P,R,F rows; default none)",
        metavar="FILE",
    ),
    Option(
        "bertscore_flavor",
        "--bertscore-flavor",
        "str",
        "bert_score",
        "the implementation reproduced (bert_score: bert-score 0.3.13; torchmetrics: torchmetrics 1.9's defaults)",
        metavar="FLAVOR",
    ),
    _batch_option("bertscore", 64, "sentences per model batch (bert-score's default 64)"),
    DEVICE,
    DTYPE,
)

METRICX_OPTIONS = (
    _model_option("metricx", "MetricX checkpoint folder, or a hub name in the local Hugging Face cache"),
    Option(
        "metricx_tokenizer",
        "--metricx-tokenizer",
        "path",
        "google/mt5-xl",
        "the mT5 tokenizer: a folder or a hub name in the local Hugging Face cache",
        metavar="TOKENIZER",
    ),
    Option("metricx_version", "--metricx-version", "str", "24", "the input format", choices=("24", "23")),
    Option(
        "metricx_max_input_length",
        "--metricx-max-input-length",
        "int",
        None,
        "token limit of the input (default 1536 for MetricX-24, 1024 for MetricX-23)",
        minimum=1,
        metavar="N",
    ),
    _batch_option("metricx", 8, "inputs per batch"),
    DEVICE,
    DTYPE,
)


def _model(options: Mapping[str, Any], key: str, label: str) -> Any:
    """The model option ``key``, or a one-line ValueError naming the flag and the option."""
    model = options[key]
    if model is None or str(model) == "":
        flag = "--" + key.replace("_", "-")
        raise ValueError(
            f"{label} needs a model: give {flag} PATH (option {key}); "
            "nlpeval never downloads models (see 'nlpeval explain " + label.lower() + "')"
        )
    return model


def build_comet(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """COMET from ``comet_model`` (required) with the ``comet_*``, ``device`` and ``dtype`` options."""
    from nlpeval.metrics.comet import COMET

    return COMET(
        model=_model(options, "comet_model", "COMET"),
        batch_size=options["comet_batch_size"],
        device=options["device"],
        dtype=options["dtype"],
    )


def build_bertscore(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """BERTScore from ``bertscore_model`` (required) with the ``bertscore_*``, ``device`` and ``dtype`` options."""
    from nlpeval.metrics.bertscore import BERTScore

    return BERTScore(
        model=_model(options, "bertscore_model", "BERTScore"),
        num_layers=options["bertscore_num_layers"],
        idf=options["bertscore_idf"],
        rescale_with_baseline=options["bertscore_rescale_with_baseline"],
        baseline_path=options["bertscore_baseline_path"],
        flavor=options["bertscore_flavor"],
        batch_size=options["bertscore_batch_size"],
        device=options["device"],
        dtype=options["dtype"],
    )


def build_metricx(name: str, options: Mapping[str, Any]) -> CorpusMetric:
    """MetricX-23/24 from ``metricx_model`` (required) with the ``metricx_*``, ``device`` and ``dtype`` options;
    ``metricx-qe`` is the same model scored without references."""
    from nlpeval.metrics.metricx import MetricX

    version = options["metricx_version"]
    length = options["metricx_max_input_length"]
    return MetricX(
        model=_model(options, "metricx_model", "MetricX"),
        tokenizer=options["metricx_tokenizer"],
        version=version,
        max_input_length=length if length is not None else (1536 if version == "24" else 1024),
        batch_size=options["metricx_batch_size"],
        device=options["device"],
        dtype=options["dtype"],
    )


def _metricx(name: str, label: str, references: str) -> MetricEntry:
    """A MetricX entry (``metricx``: against references; ``metricx-qe``: the same model without them)."""
    return MetricEntry(
        name,
        factory="nlpeval.metrics.entries.neural:build_metricx",
        family="metricx",
        card="metricx",
        label=label,
        scale=1.0,
        higher_is_better=False,
        needs_sources=True,
        needs_model=True,
        flavors=("metricx",),
        options=METRICX_OPTIONS,
        option_group="MetricX options (a local checkpoint and mT5 tokenizer; needs --src; lower is better)",
        references=references,
    )


ENTRIES = (
    MetricEntry(
        "comet",
        factory="nlpeval.metrics.entries.neural:build_comet",
        family="comet",
        card="comet",
        label="COMET",
        needs_sources=True,
        needs_model=True,
        flavors=("unbabel-comet",),
        options=COMET_OPTIONS,
        option_group="COMET options (a local checkpoint; needs --src; --device and --dtype apply too)",
        references="optional",  # a CometKiwi checkpoint scores without references; COMET-22's check names them
    ),
    MetricEntry(
        "bertscore",
        factory="nlpeval.metrics.entries.neural:build_bertscore",
        family="bertscore",
        card="bertscore",
        label="BERTScore",
        needs_model=True,
        flavors=("bert_score", "torchmetrics"),
        options=BERTSCORE_OPTIONS,
        option_group="BERTScore options (a local model; the score is the mean F1)",
    ),
    _metricx("metricx", "MetricX", "required"),
    _metricx("metricx-qe", "MetricX-QE", "none"),
)
