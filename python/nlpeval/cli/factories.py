"""Build configured metrics from the ``nlpeval score`` options (one function per metric family)."""

from __future__ import annotations

import argparse

from nlpeval.core.metric import CorpusMetric


def bleu(name: str, options: argparse.Namespace) -> CorpusMetric:
    """BLEU with ``--tokenize``, ``--lowercase``, ``--smooth``… (sacreBLEU flavor unless ``--bleu-flavor``;
    ``nltk`` takes ``--bleu-weights`` and ``--auto-reweigh``)."""
    from nlpeval.metrics.bleu import make_bleu

    return make_bleu(
        flavor=options.bleu_flavor,
        tokenize=options.tokenize or "13a",
        lowercase=options.lowercase,
        smooth=options.smooth,
        smooth_value=options.smooth_value,
        max_order=options.max_order,
        effective_order=options.effective_order,
        weights=options.bleu_weights,
        auto_reweigh=options.auto_reweigh,
        spm_model=options.spm_model,
    )
