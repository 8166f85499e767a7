"""ROUGE: per-segment rouge1/2/L/Lsum with stemming against rouge-score and its Rust port
(rouge-score-rs), and ROUGE-L/Lsum on long documents against rouge-score."""

from __future__ import annotations

from pathlib import Path

from harness import Case, read_lines

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _long_documents(hyps: list[str], refs: list[str], n: int, lines: int) -> tuple[list[str], list[str]]:
    """``n`` documents of ``lines`` consecutive headlines each (about 800 tokens), one per line."""
    size = len(hyps)
    docs, ref_docs = [], []
    for i in range(n):
        start = (i * 7) % size
        window = [(start + k) % size for k in range(lines)]
        docs.append("\n".join(hyps[k] for k in window))
        ref_docs.append("\n".join(refs[(k + 3) % size] for k in window))
    return docs, ref_docs


def cases(data: Path) -> list[Case]:
    import rouge_score
    from rouge_score import rouge_scorer

    import nlpeval

    folder = data / "compare-mt"
    hyps = read_lines(folder / "sum.sys1.eng") * 10
    refs = read_lines(folder / "sum.ref.eng") * 10
    version = getattr(rouge_score, "__version__", "0.1.2")
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)

    def ours() -> None:
        nlpeval.rouge(hyps, refs, types=TYPES, stemmer=True, segments=True)

    def reference() -> None:
        for hyp, ref in zip(hyps, refs, strict=True):
            scorer.score(ref, hyp)

    name = "ROUGE 1/2/L/Lsum + stemming, 20,000 pairs, per segment"
    out = [Case(name, f"rouge-score {version}", reference, ours, 50)]

    try:
        import rouge_score_rs
    except ImportError:  # pragma: no cover - rouge-score-rs is a test dependency
        rouge_score_rs = None
    if rouge_score_rs is not None:
        rs_scorer = rouge_score_rs.RougeScorer(TYPES, use_stemmer=True)

        def rust_port() -> None:
            rs_scorer.score_batch(refs, hyps)

        out.append(
            Case(
                name,
                f"rouge-score-rs {rouge_score_rs.__version__} score_batch",
                rust_port,
                ours,
                5,
            )
        )

        two_refs = [[r, refs[(k + 1) % len(refs)]] for k, r in enumerate(refs)]

        def multi_ours() -> None:
            nlpeval.rouge(hyps, two_refs, types=TYPES, stemmer=True, flavor="rouge-score", segments=True)

        def multi_rust_port() -> None:
            for hyp, targets in zip(hyps, two_refs, strict=True):
                rs_scorer.score_multi(targets, hyp)

        out.append(
            Case(
                "ROUGE 1/2/L/Lsum + stemming, 20,000 segments x 2 references (best F per type), per segment",
                f"rouge-score-rs {rouge_score_rs.__version__} score_multi loop",
                multi_rust_port,
                multi_ours,
                5,
            )
        )

    docs, ref_docs = _long_documents(hyps[:2000], refs[:2000], 1000, 120)
    long_scorer = rouge_scorer.RougeScorer(["rougeL", "rougeLsum"])
    share = 20  # rouge-score needs minutes for all 1,000 documents: time 1/20 of them and scale

    def long_reference() -> None:
        for hyp, ref in zip(docs[:share], ref_docs[:share], strict=True):
            long_scorer.score(ref, hyp)

    def long_ours() -> None:
        nlpeval.rouge(docs, ref_docs, types=["rougeL", "rougeLsum"], segments=True)

    out.append(
        Case(
            "ROUGE-L/Lsum, 1,000 documents of ~800 tokens",
            f"rouge-score {version} (1/{share} of the pairs, scaled)",
            long_reference,
            long_ours,
            50,
            repeat=1,
            reference_scale=len(docs) / share,
        )
    )
    return out
