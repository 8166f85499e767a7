"""The salient n-grams section: compare-mt's n-grams one system matches more often than the baseline."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nlpeval.reports.context import ReportContext
from nlpeval.reports.model import NgramComparison, NgramEntry


def section(ctx: ReportContext) -> tuple[NgramComparison, ...]:
    """Every system against the baseline (none for one system), with where each n-gram occurs among the
    example browser's segments."""
    from nlpeval.reports.analyses import ngram_codes as nc

    if len(ctx.systems) < 2:
        return ()
    corpus, shown = ctx.corpus, ctx.shown
    return tuple(
        dataclasses.replace(
            c,
            spans=nc.occurrence_spans(
                corpus, c.system, c.other, [e.ngram.split(" ") for e in c.system_better + c.other_better], shown
            ),
        )
        for c in ngram_section_vectorised(list(ctx.systems), ctx.baseline, corpus, ctx.options.top_k)
    )


def ngram_section(  # the readable reference of ngram_section_vectorised (tests compare the two)
    systems: Sequence[str],
    baseline: str,
    out_tokens: Mapping[str, list[list[str]]],
    ref_tokens: list[list[str]],
    top_k: int,
    cm: Any,
) -> tuple[NgramComparison, ...]:
    """The salient n-grams on token lists, written after compare-mt."""
    from nlpeval.reports.analyses.multitest import benjamini_hochberg
    from nlpeval.reports.analyses.sentences import sign_test

    ref_tables = [cm.ngram_table(ref) for ref in ref_tokens]
    counted = {s: cm.matched_ngrams(out_tokens[s], ref_tokens, ref_tables=ref_tables) for s in systems}
    comparisons = []
    for s in systems:
        if s == baseline:
            continue
        left, right = baseline, s
        match_l, segments_l = counted[left]
        match_r, segments_r = counted[right]
        heads = cm.salient_ngrams(match_l, match_r, alpha=1.0, top=top_k)
        # compare-mt's second list: the lowest scores of the first, lowest first
        tails = cm.salient_ngrams(match_l, match_r, alpha=1.0, top=top_k, lowest=True)
        wanted = {gram for gram, _ in heads + tails}
        where: dict[tuple[str, ...], list[int]] = {gram: [] for gram in wanted}
        for i, (seg_l, seg_r) in enumerate(zip(segments_l, segments_r, strict=True)):
            for gram in wanted:
                if (gram in seg_l or gram in seg_r) and len(where[gram]) < 10:
                    where[gram].append(i)
        entries = []
        for gram, score in heads + tails:
            c1, c2 = match_l.get(gram, 0), match_r.get(gram, 0)
            p = sign_test(c1, c2)
            ids = where[gram]
            entries.append((gram, score, c1, c2, p, tuple(ids)))
        adjusted = benjamini_hochberg([e[4] for e in entries])
        built = [
            NgramEntry(" ".join(g), len(g), sc, c1, c2, p, q, ids)
            for (g, sc, c1, c2, p, ids), q in zip(entries, adjusted, strict=True)
        ]
        comparisons.append(
            NgramComparison(
                left, right, "match", 1, 4, 1.0, top_k, tuple(built[: len(heads)]), tuple(built[len(heads) :])
            )
        )
    return tuple(comparisons)


def _entries(raw: list[tuple[tuple[str, ...], float, int, int, tuple[int, ...]]]) -> list[NgramEntry]:
    """N-gram entries with an exact test per n-gram (BH-adjusted within the list)."""
    from nlpeval.reports.analyses.multitest import benjamini_hochberg
    from nlpeval.reports.analyses.sentences import sign_test

    p_values = [sign_test(c1, c2) for _, _, c1, c2, _ in raw]
    adjusted = benjamini_hochberg(p_values)
    return [
        NgramEntry(" ".join(gram), len(gram), score, c1, c2, p, q, ids)
        for (gram, score, c1, c2, ids), p, q in zip(raw, p_values, adjusted, strict=True)
    ]


def ngram_section_vectorised(
    systems: Sequence[str], baseline: str, corpus: Any, top_k: int
) -> tuple[NgramComparison, ...]:
    """The salient n-grams on integer n-gram codes (same numbers and order as :func:`ngram_section`)."""
    from nlpeval.reports.analyses import ngram_codes as nc

    found = nc.matches(corpus, systems)
    comparisons = []
    for s in systems:
        if s == baseline:
            continue
        heads = nc.salient(corpus, found, baseline, s, top_k)
        tails = nc.salient(corpus, found, baseline, s, top_k, lowest=True)
        wanted = np.array(sorted({row[0] for row in heads + tails}), dtype=np.int64)
        segments: dict[int, set[int]] = {int(d): set() for d in wanted}
        for side in (baseline, s):
            seg, dense = found.where[side]
            keep = np.isin(dense, wanted)
            for d, i in zip(dense[keep].tolist(), seg[keep].tolist(), strict=True):
                segments[d].add(i)
        ids = {d: tuple(sorted(v)[:10]) for d, v in segments.items()}
        entries = _entries([(gram, score, c1, c2, ids[d]) for d, gram, score, c1, c2 in heads + tails])
        comparisons.append(
            NgramComparison(
                baseline, s, "match", 1, 4, 1.0, top_k, tuple(entries[: len(heads)]), tuple(entries[len(heads) :])
            )
        )
    return tuple(comparisons)
