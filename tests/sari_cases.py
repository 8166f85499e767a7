"""Simplification-like test cases for SARI (source, output, references), built from real text.

Standard library only: ``tests/fixtures/sari/make_easse_goldens.py`` runs it in EASSE's own
environment to write the goldens, and ``tests/test_sari.py`` builds the same cases.

* ``ted``: source = compare-mt TED reference; output = system 1; references = system 2 and a
  shortened source (every word of a random 25% dropped, as a simplifier deletes).
* ``sum``: the same with compare-mt's summaries.
* ``wmt17``: source = WMT17 en-de German reference; output = uedin-nmt; references = online-B,
  KIT and a shortened source (three references).
* ``adversarial``: generated text (many scripts, odd whitespace, empty strings, repeats);
  references are perturbations of the source or unrelated sentences, outputs copy the source
  (exactly, for ties) one time in six.
"""

from __future__ import annotations

import hashlib
import json
import random

from realdata import data_dir, read_lines
from textgen import perturb, sentence

CASES = ("ted", "sum", "wmt17", "adversarial")
#: segments per case (evaluate's script is pure Python: keep the test fast)
SIZE = 400


def shorten(rng: random.Random, text: str) -> str:
    """``text`` with about a quarter of its words dropped."""
    return " ".join(word for word in text.split(" ") if rng.random() >= 0.25)


def build(name: str, size: int = SIZE) -> tuple[list[str], list[str], list[list[str]]]:
    """``(sources, outputs, references)`` of case ``name``; every segment has the same number of references."""
    rng = random.Random(f"sari-{name}")
    if name in ("ted", "sum"):
        folder = data_dir() / "compare-mt"
        src = read_lines(folder / f"{name}.ref.eng")[:size]
        out = read_lines(folder / f"{name}.sys1.eng")[:size]
        other = read_lines(folder / f"{name}.sys2.eng")[:size]
        refs = [[o, shorten(rng, s)] for s, o in zip(src, other, strict=True)]
        return src, out, refs
    if name == "wmt17":
        folder = data_dir() / "wmt17-en-de"
        src = read_lines(folder / "reference.de")[:size]
        out = read_lines(folder / "uedin-nmt.4722.de")[:size]
        b = read_lines(folder / "online-B.0.de")[:size]
        kit = read_lines(folder / "KIT.4950.de")[:size]
        refs = [[x, y, shorten(rng, s)] for s, x, y in zip(src, b, kit, strict=True)]
        return src, out, refs
    if name == "adversarial":
        src, out, refs = [], [], []
        for _ in range(size):
            base = sentence(rng)
            src.append(base)
            roll = rng.random()
            out.append(base if roll < 1 / 6 else perturb(rng, base) if roll < 0.85 else sentence(rng))
            refs.append([perturb(rng, base) if rng.random() < 0.7 else sentence(rng) for _ in range(3)])
            if rng.random() < 0.1:
                refs[-1][1] = refs[-1][0]  # equal references
        return src, out, refs
    raise ValueError(name)


def digest(case: tuple[list[str], list[str], list[list[str]]]) -> str:
    """SHA-256 of a case's text (the goldens record it: a changed case fails instead of passing stale)."""
    return hashlib.sha256(json.dumps(case, ensure_ascii=False).encode("utf-8")).hexdigest()
