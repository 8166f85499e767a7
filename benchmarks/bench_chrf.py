"""chrF / chrF++: corpus, sentence level and the pairwise matrix, against sacreBLEU."""

from __future__ import annotations

from pathlib import Path

from harness import Case, wmt17_systems

#: the sacreBLEU pairwise loop runs on 1/PAIRWISE_SCALE of the rows (it takes minutes in full)
PAIRWISE_SCALE = 10


def cases(data: Path) -> list[Case]:
    import sacrebleu

    import nlpeval
    from nlpeval.metrics.reference_cache import clear_cache

    reference, systems = wmt17_systems()
    outputs = list(systems.values())
    one = systems["online-B.0"]
    pool = one[:1000]
    cands = reference[:1000]
    tool = f"sacrebleu {sacrebleu.__version__}"

    def corpus(word_order: int) -> tuple:
        def ref() -> None:
            for hyp in outputs:
                sacrebleu.corpus_chrf(hyp, [reference], word_order=word_order)

        def ours() -> None:
            # the cache starts empty each repetition: the first system sees the references (direct
            # kernel), the second prepares them, the other 14 find them prepared
            clear_cache()
            for hyp in outputs:
                nlpeval.chrf(hyp, reference, word_order=word_order)

        return ref, ours

    def sentence_ref() -> None:
        for hyp, ref in zip(one, reference, strict=True):
            sacrebleu.sentence_chrf(hyp, [ref])

    def sentence_ours() -> None:
        clear_cache()  # one system: one call that sees its references once, nothing reused
        nlpeval.chrf(one, reference, segments=True)

    def pairwise_ref() -> None:
        for hyp in pool[: len(pool) // PAIRWISE_SCALE]:
            for cand in cands:
                sacrebleu.sentence_chrf(hyp, [cand])

    def pairwise_ours() -> None:
        nlpeval.pairwise_chrf(pool, cands)

    return [
        Case("corpus chrF, 16 WMT17 systems", tool, *corpus(0), 100),
        Case("corpus chrF++, 16 WMT17 systems", tool, *corpus(2), 100),
        Case("sentence chrF, 3,004 pairs", tool, sentence_ref, sentence_ours, 60),
        Case(
            f"pairwise sentence chrF, 1,000 x 1,000 (sacrebleu loop timed on {1000 // PAIRWISE_SCALE} x 1,000, "
            f"scaled x{PAIRWISE_SCALE})",
            f"{tool} loop",
            pairwise_ref,
            pairwise_ours,
            50,
            repeat=1,
            reference_scale=PAIRWISE_SCALE,
        ),
    ]
