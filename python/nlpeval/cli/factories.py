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


def rouge(name: str, options: argparse.Namespace) -> CorpusMetric:
    """One ROUGE type with ``--stemmer``, ``--rouge-flavor``, ``--remove-stopwords``, ``--rouge-data-dir``…

    The table shows F; ``--segments`` lists per-segment F.
    """
    from nlpeval.metrics.rouge import make_rouge

    return make_rouge(
        name,
        flavor=None if options.rouge_flavor == "default" else options.rouge_flavor,
        stemmer=options.stemmer,
        multi_ref=options.rouge_multi_ref,
        alpha=options.rouge_alpha,
        aggregate=options.rouge_aggregate,
        remove_stopwords=options.remove_stopwords,
        word_limit=options.word_limit,
        byte_limit=options.byte_limit,
        data_dir=options.rouge_data_dir,
        sentence_splitter=None if options.sentence_splitter == "newline" else options.sentence_splitter,
        segment_columns="f",
    )


def edit_rate(name: str, options: argparse.Namespace) -> CorpusMetric:
    """WER, CER, MER, WIL or WIP (jiwer flavor) with ``--lowercase`` and the WER/CER normalisation options."""
    from nlpeval.cli.align import normalization_kwargs
    from nlpeval.metrics.wer import make_edit_metric

    kwargs = normalization_kwargs(options)
    if name == "cer" and kwargs.pop("split_unspaced"):
        raise ValueError("--split-unspaced is an option of the word metrics; cer already scores characters")
    return make_edit_metric(name, **kwargs)


def chrf(name: str, options: argparse.Namespace) -> CorpusMetric:
    """chrF (``chrf``) or chrF++ (``chrf++``, word order 2) with the ``--chrf-*`` options and ``--lowercase``."""
    from nlpeval.metrics.chrf import CHRF

    default_word_order = 2 if name == "chrf++" else 0
    return CHRF(
        char_order=options.chrf_char_order,
        word_order=default_word_order if options.chrf_word_order is None else options.chrf_word_order,
        beta=options.chrf_beta,
        lowercase=options.lowercase,
        whitespace=options.chrf_whitespace,
        eps_smoothing=options.chrf_eps_smoothing,
    )


def ter(name: str, options: argparse.Namespace) -> CorpusMetric:
    """TER with ``--ter-normalized``, ``--ter-no-punct``, ``--ter-asian-support``, ``--ter-case-sensitive``."""
    from nlpeval.metrics.ter import TER

    return TER(
        normalized=options.ter_normalized,
        no_punct=options.ter_no_punct,
        asian_support=options.ter_asian_support,
        case_sensitive=options.ter_case_sensitive,
        **({} if options.ter_max_cells is None else {"max_cells": options.ter_max_cells}),
    )


def _numbers(text: str | None) -> list[float] | None:
    return None if text is None else [float(x) for x in text.replace(",", " ").split()]


def meteor(name: str, options: argparse.Namespace) -> CorpusMetric:
    """METEOR (``--meteor-flavor`` meteor1.5 or nltk) with the ``--meteor-*`` options and ``--lowercase``."""
    from nlpeval.metrics.meteor import make_meteor

    params = _numbers(options.meteor_params)
    flavor_params = 3 if options.meteor_flavor == "nltk" else 4
    if params is not None and len(params) != flavor_params:
        raise ValueError(f"--meteor-params needs {flavor_params} numbers for --meteor-flavor {options.meteor_flavor}")
    alpha, beta, gamma, delta = (params or [None] * 4) + [None] * (4 - len(params or [None] * 4))
    weights = _numbers(options.meteor_weights)
    modules = None if options.meteor_modules is None else options.meteor_modules.replace(",", " ").split()
    return make_meteor(
        flavor=options.meteor_flavor,
        modules=modules,
        normalize=options.meteor_norm,
        keep_punctuation=not options.meteor_no_punct,
        lowercase=options.lowercase,
        task=options.meteor_task,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=delta,
        weights=weights,
        beam_size=options.meteor_beam,
        wordnet=options.wordnet,
        paraphrases=options.meteor_paraphrases,
        **({} if options.meteor_max_candidates is None else {"max_candidates": options.meteor_max_candidates}),
    )
