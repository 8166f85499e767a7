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
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="bench_neural.py's folder")
    parser.add_argument("--segments", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--systems",
        action="store_true",
        help="the 8-system case instead: nlpeval's calls one system at a time (sources and references kept from the "
        "first) against its look-ahead's one pool of every distinct text (COMET.prefetch)",
    )
    args = parser.parse_args()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(args.work / "comet-xlmr-base" / "encoder"))
    if args.systems:
        systems_case(args.work / "inputs", tokenizer, args.batch_size)
        return
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


def systems_case(inputs: Path, tokenizer: Any, b: int) -> None:
    """Positions of the 8 systems x 100 segments case (``src8.txt``, ``ref8.txt``, ``*.8.txt``): one system per call
    against one pool."""
    from nlpeval.neural.batching import padded_positions

    read = lambda path: path.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    src, ref = read(inputs / "src8.txt"), read(inputs / "ref8.txt")
    systems = [read(path) for path in sorted(inputs.glob("*.8.txt"))]
    texts = list(dict.fromkeys([*src, *ref, *(t for hyps in systems for t in hyps)]))
    length = dict(zip(texts, (len(ids) for ids in tokenizer(texts)["input_ids"]), strict=True))
    kept = set(src) | set(ref)
    calls = padded_positions([length[t] for t in kept | set(systems[0])], b)
    calls += sum(padded_positions([length[t] for t in set(hyps) - kept], b) for hyps in systems[1:])
    pooled = padded_positions(list(length.values()), b)
    total = len(src) * (2 + len(systems))
    print(f"systems {len(systems)} x {len(src)} segments; distinct texts {len(texts)} of {total}")
    fewer = 100 * (1 - pooled / calls)
    print(f"nlpeval one system per call {calls:,} positions; one pool {pooled:,} ({fewer:.1f}% fewer)")


if __name__ == "__main__":
    main()
