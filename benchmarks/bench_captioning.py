"""CIDEr-D on 5,000 images x 5 references, tokenizer included, against pycocoevalcap 1.2.

pycocoevalcap's side is what ``COCOEvalCap`` does: its ``PTBTokenizer`` (Stanford CoreNLP in
Java, one process per batch: references, then hypotheses) and ``Cider().compute_score``. nlpeval's
side is one ``nlpeval.cider`` call on the raw captions (native PTB tokenization, both corpus
passes). Two caption sets:

* headlines: the compare-mt summaries (short, lower-cased, caption-like): image ``i`` takes item
  ``j = i mod 2000``; its references are the reference and system 2 of item ``j`` and the
  reference and both systems of item ``k = (7j + 3) mod 2000``; the hypothesis is system 1 of ``j``;
* WMT17: German sentences (long, punctuated) of five systems as references of a sixth, segments
  ``i mod 3004``.
"""

from __future__ import annotations

from pathlib import Path

from harness import Case, read_lines, wmt17_systems

IMAGES = 5000


def headline_captions(data: Path) -> tuple[list[str], list[list[str]]]:
    folder = data / "compare-mt"
    ref, sys1, sys2 = (read_lines(folder / f"sum.{name}.eng") for name in ("ref", "sys1", "sys2"))
    n = len(ref)
    hyps, refs = [], []
    for i in range(IMAGES):
        j = i % n
        k = (7 * j + 3) % n
        hyps.append(sys1[j])
        refs.append([ref[j], sys2[j], ref[k], sys1[k], sys2[k]])
    return hyps, refs


def wmt_captions() -> tuple[list[str], list[list[str]]]:
    reference, systems = wmt17_systems()
    names = sorted(systems)
    n = len(reference)
    hyps = [systems[names[6]][i % n] for i in range(IMAGES)]
    refs = [[systems[name][i % n] for name in names[:4]] + [reference[i % n]] for i in range(IMAGES)]
    return hyps, refs


def cases(data: Path) -> list[Case]:
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    import nlpeval

    def pair(hyps: list[str], refs: list[list[str]]) -> tuple:
        gts = {i: [{"caption": r} for r in seg] for i, seg in enumerate(refs)}
        res = {i: [{"caption": h}] for i, h in enumerate(hyps)}

        def reference() -> None:
            tokenizer = PTBTokenizer()
            Cider().compute_score(tokenizer.tokenize(gts), tokenizer.tokenize(res))

        def ours() -> None:
            nlpeval.cider(hyps, refs)

        return reference, ours

    headline_ref, headline_ours = pair(*headline_captions(data))
    wmt_ref, wmt_ours = pair(*wmt_captions())
    return [
        Case(
            "CIDEr-D, 5,000 images x 5 refs, headline captions (tokenizer included)",
            "pycocoevalcap 1.2 (PTBTokenizer in Java + Cider)",
            headline_ref,
            headline_ours,
            target=20.0,
            repeat=2,
        ),
        Case(
            "CIDEr-D, 5,000 images x 5 refs, WMT17 German sentences (tokenizer included)",
            "pycocoevalcap 1.2 (PTBTokenizer in Java + Cider)",
            wmt_ref,
            wmt_ours,
            target=20.0,
            repeat=2,
        ),
    ]
