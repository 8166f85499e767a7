"""Length and sanity: length ratio, brevity penalty, length histograms, empty/duplicate/copied/untranslated."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from nlpeval.reports.model import Histogram, LengthSection, SanityRow, SegmentIds, SystemLength

MAX_EXAMPLE_IDS = 10


def histogram(values: Sequence[float] | np.ndarray, edges: Sequence[float]) -> Histogram:
    """Counts of ``values`` in the bins of ``edges`` (numpy's rule: last bin closed)."""
    counts, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=np.asarray(edges, dtype=np.float64))
    return Histogram(tuple(float(e) for e in edges), tuple(int(c) for c in counts))


def length_edges(lengths: Sequence[int], bins: int = 20) -> list[float]:
    """Integer-aligned edges from 0 to the longest length (at least one bin)."""
    top = max([1, *lengths])
    step = max(1, int(np.ceil((top + 1) / bins)))
    return [float(x) for x in range(0, top + step + 1, step)]


def _ids(mask: Sequence[bool]) -> SegmentIds:
    hits = [i for i, flag in enumerate(mask) if flag]
    return SegmentIds(len(hits), tuple(hits[:MAX_EXAMPLE_IDS]))


def script(text: str) -> str | None:
    """The most frequent Unicode script (first word of the character name) among the letters of ``text``.

    Examples
    --------
    >>> script("Hello world"), script("Привет"), script("123")
    ('LATIN', 'CYRILLIC', None)
    """
    counts: Counter = Counter()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            counts[name.split(" ")[0] if name else "UNKNOWN"] += 1
    return counts.most_common(1)[0][0] if counts else None


def length_section(
    systems: Sequence[str],
    hypotheses: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    sources: Sequence[str] | None,
    bleu_components: Mapping[str, Mapping] | None = None,
    tokens: tuple[Sequence[int], Mapping[str, Sequence[int]]] | None = None,
) -> LengthSection:
    """Lengths in whitespace tokens (BLEU's lengths and brevity penalty when BLEU is a metric; ``tokens``:
    given reference and system lengths, e.g. compare-mt's).

    Examples
    --------
    >>> section = length_section(["A"], {"A": ["a b", ""]}, [["a b c"], ["d"]], None)
    >>> section.systems[0].ratio, section.sanity[0].empty.count
    (0.5, 1)
    """
    if tokens is not None:
        ref_lengths, hyp_lengths = list(tokens[0]), {s: list(tokens[1][s]) for s in systems}
    else:
        ref_lengths = [len(refs[0].split()) if refs else 0 for refs in references]
        hyp_lengths = {s: [len(h.split()) for h in hypotheses[s]] for s in systems}
    edges = length_edges([*ref_lengths, *(n for v in hyp_lengths.values() for n in v)])
    rows = []
    sanity = []
    src_scripts = [script(x) for x in sources] if sources is not None else None
    ref_scripts = [script(refs[0]) if refs else None for refs in references] if sources is not None else []
    for s in systems:
        hyps = hypotheses[s]
        bp: float | None
        if bleu_components is not None:
            comp = bleu_components[s]
            hyp_len, ref_len = int(comp["hyp_len"]), int(comp["ref_len"])
            bp = float(comp["brevity_penalty"])
        else:
            hyp_len, ref_len = sum(hyp_lengths[s]), sum(ref_lengths)
            bp = None if hyp_len == 0 else float(min(1.0, np.exp(1.0 - ref_len / hyp_len)))
        ratio = hyp_len / ref_len if ref_len else None
        rows.append(SystemLength(s, hyp_len, ref_len, ratio, bp, histogram(hyp_lengths[s], edges)))
        stripped = [h.strip() for h in hyps]
        seen = Counter(x for x in stripped if x)
        empty = _ids([not x for x in stripped])
        duplicate = _ids([bool(x) and seen[x] > 1 for x in stripped])
        copied = untranslated = None
        if sources is not None and src_scripts is not None:
            copied = _ids([bool(x) and x == src.strip() for x, src in zip(stripped, sources, strict=True)])
            untranslated = _ids(
                [
                    bool(x) and x != src.strip() and sc is not None and script(x) == sc and sc != rc
                    for x, src, sc, rc in zip(stripped, sources, src_scripts, ref_scripts, strict=True)
                ]
            )
        sanity.append(SanityRow(s, empty, duplicate, copied, untranslated))
    tokenization = "bleu" if bleu_components is not None else "compare-mt" if tokens is not None else "whitespace"
    return LengthSection(tokenization, histogram(ref_lengths, edges), tuple(rows), tuple(sanity))
