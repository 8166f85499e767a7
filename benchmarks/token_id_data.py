"""20,000 numericalised WMT17 pairs of 8-40 token ids, as lists and as padded 2-D arrays.

The vocabulary is built from the WMT17 reference and system outputs (words split on
whitespace, ids by descending frequency after fastai's special tokens ``xxunk`` = 0
and ``xxpad`` = 1), as a seq2seq notebook numericalises its data.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from harness import wmt17_systems

PAD = 1
N_PAIRS = 20_000
MIN_LEN, MAX_LEN = 8, 40


def token_id_pairs() -> tuple[list[list[int]], list[list[int]], np.ndarray, np.ndarray]:
    """Hypothesis and reference id lists, and the same as ``(N_PAIRS, MAX_LEN)`` arrays padded with ``PAD``."""
    reference, systems = wmt17_systems()
    words = Counter(w for text in [reference, *systems.values()] for line in text for w in line.split())
    vocab = {w: i + 2 for i, (w, _) in enumerate(words.most_common())}
    hyps: list[list[int]] = []
    refs: list[list[int]] = []
    for output in systems.values():
        for hyp, ref in zip(output, reference, strict=True):
            h, r = hyp.split(), ref.split()
            if MIN_LEN <= len(h) <= MAX_LEN and MIN_LEN <= len(r) <= MAX_LEN:
                hyps.append([vocab[w] for w in h])
                refs.append([vocab[w] for w in r])
    hyps, refs = hyps[:N_PAIRS], refs[:N_PAIRS]
    return hyps, refs, padded(hyps), padded(refs)


def padded(seqs: list[list[int]]) -> np.ndarray:
    """Sequences right-padded with ``PAD`` into one int64 array."""
    out = np.full((len(seqs), MAX_LEN), PAD, dtype=np.int64)
    for row, seq in zip(out, seqs, strict=True):
        row[: len(seq)] = seq
    return out
