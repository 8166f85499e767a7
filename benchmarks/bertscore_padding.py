"""Token positions the encoder runs for BERTScore, 16 systems against one reference set: bert-score 0.3.13's calls,
nlpeval's calls one system at a time (before the look-ahead) and nlpeval's pool (issue 23; BENCHMARKS.md "BERTScore
16 systems: one pool").

Run: ``python benchmarks/bertscore_padding.py --work DIR`` where ``DIR`` is ``benchmarks/bench_neural.py --work DIR
--build-only``'s folder (its roberta-base-sized model's tokenizer and WMT17 inputs). bert-score's ``score`` embeds
the distinct references and hypotheses of each call (one per system), sorted by their count of space-separated
words, in batches of 64, each padded to its longest; nlpeval embedded the references once and each system's new
hypotheses per call, sorted by token count; with the look-ahead it embeds the distinct texts of all systems in one
pool sorted by token count. Positions are a proxy of the encoder's cost (every layer's matrix products scale with
them). bert-score's order of texts with equal word counts follows Python's string hashing, so its figure varies a
little from run to run.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="bench_neural.py's folder")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    from transformers import AutoTokenizer

    from nlpeval.neural.batching import padded_positions

    inputs = args.work / "inputs"
    read = lambda path: path.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    refs = read(inputs / "ref16.txt")
    systems = [read(path) for path in sorted(inputs.glob("*.16.txt")) if path.name != "ref16.txt"]
    tokenizer = AutoTokenizer.from_pretrained(str(args.work / "roberta-base-random"))
    texts = list(dict.fromkeys([*refs, *(t for hyps in systems for t in hyps)]))
    stripped = [t.strip() for t in texts]
    encoded = tokenizer([" " + t for t in stripped], add_special_tokens=False)["input_ids"]
    length = {t: 2 + (len(ids) if s else 0) for t, s, ids in zip(texts, stripped, encoded, strict=True)}
    b = args.batch_size
    reference = real = 0
    for hyps in systems:
        sentences = sorted(set(refs + hyps), key=lambda x: len(x.split(" ")), reverse=True)
        for start in range(0, len(sentences), b):
            batch = [length[s] for s in sentences[start : start + b]]
            reference += len(batch) * max(batch)
            real += sum(batch)
    calls = padded_positions([length[t] for t in set(refs) | set(systems[0])], b)  # the references kept from it
    calls += sum(padded_positions([length[t] for t in set(hyps) - set(refs)], b) for hyps in systems[1:])
    pooled = padded_positions(list(length.values()), b)
    distinct = sum(length.values())
    print(f"systems {len(systems)} x {len(refs)} segments; distinct texts {len(texts)} ({distinct} tokens)")
    print(f"bert-score 0.3.13 positions {reference:,} ({100 * (reference - real) / reference:.1f}% padding)")
    print(f"nlpeval one system per call {calls:,}")
    print(f"nlpeval one pool {pooled:,} ({100 * (pooled - distinct) / pooled:.1f}% padding): "
          f"{reference / pooled:.2f}x fewer than bert-score")  # fmt: skip


if __name__ == "__main__":
    main()
