"""GLEU, NIST and RIBES on WMT17 en-de (3,004 segments, two references), against NLTK 3.10.

NLTK takes token lists, so its side includes the whitespace split of the text nlpeval is given.
"""

from __future__ import annotations

from pathlib import Path

from harness import Case, wmt17_systems


def cases(data: Path) -> list[Case]:
    from nltk.translate.gleu_score import corpus_gleu
    from nltk.translate.nist_score import corpus_nist
    from nltk.translate.ribes_score import corpus_ribes

    import nlpeval

    reference, systems = wmt17_systems()
    hyps = systems["uedin-nmt.4722"]
    refs = [[r, b] for r, b in zip(reference, systems["online-B.0"], strict=True)]

    def tokens() -> tuple[list[list[str]], list[list[list[str]]]]:
        return [h.split() for h in hyps], [[r.split() for r in seg] for seg in refs]

    def nltk(function):  # type: ignore[no-untyped-def]
        def run() -> None:
            hyp_tokens, ref_tokens = tokens()
            function(ref_tokens, hyp_tokens)

        return run

    return [
        Case(
            "GLEU, WMT17 3,004 segments x 2 refs",
            "nltk 3.10 corpus_gleu",
            nltk(corpus_gleu),
            lambda: nlpeval.gleu(hyps, refs),
            target=20.0,
        ),
        Case(
            "NIST, WMT17 3,004 segments x 2 refs",
            "nltk 3.10 corpus_nist",
            nltk(corpus_nist),
            lambda: nlpeval.nist(hyps, refs),
            target=20.0,
        ),
        Case(
            "RIBES, WMT17 3,004 segments x 2 refs",
            "nltk 3.10 corpus_ribes",
            nltk(corpus_ribes),
            lambda: nlpeval.ribes(hyps, refs),
            target=20.0,
        ),
    ]
