"""WER family: corpus WER/CER and alignments against jiwer 4 (in the same process and run)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from harness import Case, read_lines, wmt17_systems

#: the issue's scale: "WER over 90,000 segments"
N_SEGMENTS = 90_000


def wmt17_pairs(n: int) -> tuple[list[str], list[str]]:
    """``n`` (hypothesis, reference) pairs: the 16 WMT17 systems against the reference, cycled."""
    reference, systems = wmt17_systems()
    hyps: list[str] = []
    refs: list[str] = []
    while len(hyps) < n:
        for output in systems.values():
            hyps += output
            refs += reference
    return hyps[:n], refs[:n]


def cases(data: Path) -> list[Case]:
    import jiwer

    import nlpeval

    version = f"jiwer {importlib.metadata.version('jiwer')}"
    hyps, refs = wmt17_pairs(N_SEGMENTS)
    ted = data / "compare-mt"
    ted_ref, ted_hyp = read_lines(ted / "ted.ref.eng"), read_lines(ted / "ted.sys1.eng")

    def words_jiwer() -> None:
        jiwer.process_words(refs, hyps)

    def words_ours() -> None:
        nlpeval.wer(hyps, refs)

    def chars_jiwer() -> None:
        jiwer.process_characters(ted_ref, ted_hyp)

    def chars_ours() -> None:
        nlpeval.cer(ted_hyp, ted_ref)

    def align_jiwer() -> None:
        out = jiwer.process_words(ted_ref, ted_hyp)
        jiwer.visualize_alignment(out)
        jiwer.visualize_error_counts(out)

    def align_ours() -> None:
        result = nlpeval.edit_alignment(ted_hyp, ted_ref)
        result.visualize()
        result.visualize_error_counts()

    return [
        Case(f"WER (+MER/WIL/WIP), {N_SEGMENTS:,} WMT17 segments", version, words_jiwer, words_ours, 2, repeat=2),
        Case("CER, TED (2,445 segments)", version, chars_jiwer, chars_ours),
        Case("alignments + visualisation + error counts, TED", version, align_jiwer, align_ours),
    ]
