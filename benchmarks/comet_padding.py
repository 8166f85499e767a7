"""Padded positions of COMET's batches against nlpeval's pooled batches, one system (issue 23; BENCHMARKS.md
"COMET 1 system x 500, third pass").

Run: ``python benchmarks/comet_padding.py --work DIR [--segments 500]`` where ``DIR`` is
``benchmarks/bench_neural.py --work DIR --build-only``'s folder (its tokenizer and MQM TED inputs). unbabel-comet
2.2.7's ``predict`` sorts the segments by source length in characters and pads src, mt and ref of each batch of
16 to that batch's longest of each side; nlpeval encodes the distinct texts of the call in one pool sorted by
their own token length, in batches of 16.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="bench_neural.py's folder")
    parser.add_argument("--segments", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(args.work / "comet-xlmr-base" / "encoder"))
    sides = {}
    for side, name in (("src", "src500.txt"), ("ref", "ref500.txt"), ("mt", "sys500.txt")):
        sides[side] = (args.work / "inputs" / name).read_text(encoding="utf-8").split("\n")[: args.segments]
    lengths = {side: [len(ids) for ids in tokenizer(texts)["input_ids"]] for side, texts in sides.items()}
    real = sum(sum(values) for values in lengths.values())
    b = args.batch_size
    order = sorted(
        range(args.segments), key=lambda i: len(sides["src"][i])
    )  # ties stable (np.argsort may order ties otherwise)
    comet = sum(
        len(order[i : i + b]) * max(lengths[side][j] for j in order[i : i + b])
        for i in range(0, len(order), b)
        for side in lengths
    )
    distinct = list(dict.fromkeys(sides["src"] + sides["ref"] + sides["mt"]))
    pooled = sorted((len(ids) for ids in tokenizer(distinct)["input_ids"]), reverse=True)
    ours = sum(len(pooled[i : i + b]) * pooled[i] for i in range(0, len(pooled), b))
    print(f"texts {3 * args.segments}, distinct {len(distinct)}; real tokens {real} (distinct {sum(pooled)})")
    print(f"unbabel-comet positions {comet} ({100 * (comet - real) / comet:.1f}% padding)")
    fewer = 100 * (1 - ours / comet)
    print(f"nlpeval positions {ours} ({100 * (ours - sum(pooled)) / ours:.1f}% padding), {fewer:.1f}% fewer")


if __name__ == "__main__":
    main()
