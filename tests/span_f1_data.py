"""Generated CoNLL-style label sequences for the span F1 tests (and the conlleval.pl golden script).

References are valid sequences of one scheme over a few entity types; predictions keep most labels and
corrupt the rest in the ways taggers do (I- without B-, a type change inside a chunk, a dropped or
shifted boundary) plus the labels that separate the tools (bare prefixes, S-/E- in IOB data, a type '0',
hyphens inside types, conlleval's '[' and ']', 'O-PER', a label without prefix). Some sentences are
empty, some all O.
"""

from __future__ import annotations

import random

TYPES = ("PER", "LOC", "ORG", "MISC", "ARGM-LOC")
ODD = ("B", "I", "E", "S", "E-", "X-PER", ".-PER", "[-NP", "]", "O-PER", "PER", "I-0", "B-0", "-X-", "U-LOC", "L-ORG")
SCHEME_PREFIXES = {
    "IOB2": "BI",
    "IOB1": "BI",
    "IOE2": "IE",
    "IOE1": "IE",
    "IOBES": "BIES",
    "BILOU": "BILU",
}


def _chunk(rng: random.Random, scheme: str, kind: str, length: int) -> list[str]:
    if scheme in ("IOB2", "IOB1"):
        first = "B" if scheme == "IOB2" or rng.random() < 0.3 else "I"
        return [f"{first}-{kind}"] + [f"I-{kind}"] * (length - 1)
    if scheme in ("IOE2", "IOE1"):
        last = "E" if scheme == "IOE2" or rng.random() < 0.3 else "I"
        return [f"I-{kind}"] * (length - 1) + [f"{last}-{kind}"]
    single, begin, last = ("S", "B", "E") if scheme == "IOBES" else ("U", "B", "L")
    if length == 1:
        return [f"{single}-{kind}"]
    return [f"{begin}-{kind}"] + [f"I-{kind}"] * (length - 2) + [f"{last}-{kind}"]


def reference(rng: random.Random, scheme: str, max_len: int = 30) -> list[str]:
    """One valid sentence of ``scheme`` (about 1 in 12 empty, 1 in 12 all O)."""
    roll = rng.random()
    n = rng.randrange(max_len)
    if roll < 1 / 12:
        return []
    if roll < 2 / 12:
        return ["O"] * n
    out: list[str] = []
    while len(out) < n:
        if rng.random() < 0.55:
            out.append("O")
        else:
            out += _chunk(rng, scheme, rng.choice(TYPES), rng.choice((1, 1, 2, 2, 3, 4)))
    return out[:n] if scheme in ("IOB2", "IOB1") else out


def predict(rng: random.Random, ref: list[str], scheme: str, odd: float = 0.02) -> list[str]:
    """A tagger's output for ``ref``."""
    prefixes = SCHEME_PREFIXES[scheme]
    out = []
    for label in ref:
        roll = rng.random()
        if roll < 0.72:
            out.append(label)
        elif roll < 0.8:
            out.append("O")
        elif roll < 0.9 and label != "O":
            out.append(label[0] + "-" + rng.choice(TYPES))  # type change inside a chunk
        elif roll < 1 - odd:
            out.append(rng.choice(prefixes) + "-" + rng.choice(TYPES))  # e.g. I- without B-
        else:
            out.append(rng.choice(ODD))
    return out


def corpus(seed: int, scheme: str, n: int, odd: float = 0.02) -> tuple[list[list[str]], list[list[str]]]:
    """(predictions, references) of ``n`` sentences."""
    rng = random.Random(seed)
    refs = [reference(rng, scheme) for _ in range(n)]
    return [predict(rng, ref, scheme, odd) for ref in refs], refs


#: Hand-written sequences where the tools' rules matter, one sentence each side.
SPECIAL = [
    (["I-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]),  # I- after O starts a chunk (not in strict IOB2)
    (["B-PER", "I-LOC", "I-LOC"], ["B-PER", "I-PER", "I-PER"]),  # type change mid-chunk
    (["S-PER", "S-PER", "O"], ["B-PER", "E-PER", "O"]),  # conlleval merges S- S-
    (["B-LOC", "E-LOC", "B-LOC", "E-LOC"], ["B-LOC", "I-LOC", "I-LOC", "E-LOC"]),  # E- then B-
    ([], []),
    (["O", "O", "O"], ["O", "O", "O"]),
    (["B-ARGM-LOC", "I-ARGM-LOC"], ["B-ARGM-LOC", "I-ARGM-LOC"]),
    (["B-0", "I-0", "B"], ["B", "I", "B-0"]),  # conlleval: type '0' is no type
    (["[-NP", "]-NP", "O"], ["[-NP", "O", "]-NP"]),
    (["PER", "O-PER", "X-PER"], ["X-PER", "PER", "O-PER"]),
    (["-X-", "B-PER"], ["O", "B-PER"]),
    (["I-PER"], ["I-PER"]),
    (["E-PER", "I-PER"], ["I-PER", "E-PER"]),
]
