"""BLEU: corpus, sentence level and the pairwise matrix, against sacreBLEU."""

from __future__ import annotations

from pathlib import Path

from harness import Case, wmt17_systems


def cases(data: Path) -> list[Case]:
    import sacrebleu

    import nlpeval
    from nlpeval.metrics.reference_cache import clear_cache

    reference, systems = wmt17_systems()
    outputs = list(systems.values())
    one = systems["online-B.0"]
    pool = one[:1000]
    cands = reference[:1000]

    def corpus_ref() -> None:
        for hyp in outputs:
            sacrebleu.corpus_bleu(hyp, [reference])

    def corpus_ours() -> None:
        # the cache starts empty each repetition, as in a fresh process: the first system sees the
        # references (direct kernel), the second prepares them, the other 14 find them prepared
        clear_cache()
        for hyp in outputs:
            nlpeval.bleu(hyp, reference)

    def sentence_ref() -> None:
        for hyp, ref in zip(one, reference, strict=True):
            sacrebleu.sentence_bleu(hyp, [ref])

    def sentence_ours() -> None:
        clear_cache()  # one system: one call that sees its references once, nothing reused
        nlpeval.bleu(one, reference, segments=True)

    def pairwise_ref() -> None:
        for hyp in pool[:100]:
            for cand in cands:
                sacrebleu.sentence_bleu(hyp, [cand])

    def pairwise_ours() -> None:
        nlpeval.pairwise_bleu(pool, cands)

    return [
        Case("corpus BLEU, 16 WMT17 systems", f"sacrebleu {sacrebleu.__version__}", corpus_ref, corpus_ours, 80),
        Case("sentence BLEU, 3,004 pairs", f"sacrebleu {sacrebleu.__version__}", sentence_ref, sentence_ours, 60),
        Case(
            "pairwise sentence BLEU, 1,000 x 1,000",
            f"sacrebleu {sacrebleu.__version__} loop",
            pairwise_ref,
            pairwise_ours,
            50,
            repeat=1,
        ),
    ]
