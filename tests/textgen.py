"""Generated adversarial text for parity tests: many scripts, punctuation, odd whitespace, empties."""

from __future__ import annotations

import random

#: Words from many scripts (Latin with diacritics, Cyrillic, Greek, Arabic, Hebrew,
#: Devanagari, Thai, CJK, Hangul, emoji) plus digits and number formats.
WORDS = [
    "the",
    "cat",
    "The",
    "CAT",
    "naïve",
    "café",
    "Straße",
    "ĲSSEL",
    "İstanbul",
    "ΣΟΦΙΑ",
    "σοφός",
    "привет",
    "Мир",
    "مرحبا",
    "שלום",
    "नमस्ते",
    "ภาษาไทย",
    "日本語",
    "中文",
    "我们",
    "한국어",
    "😀",
    "👍🏽",
    "3.14",
    "1,000",
    "2023",
    "-5",
    "e-mail",
    "don't",
    "U.S.A.",
    "x86_64",
    "#tag",
    "@user",
    "C++",
    "a/b",
    "$100",
    "50%",
    "«quote»",
    "“smart”",
    "...",
    "—",
    "–",
    "(",
    ")",
    "[x]",
    "{y}",
    "<tag>",
    "&amp;",
    "&quot;",
    "&lt;",
    "&gt;",
    "<skipped>",
    "&",
    "!?",
    "¿Qué?",
    "¡Hola!",
    "。",
    "、",
    "！",
    "：",
    "…",
    "·",
    "°C",
    "€",
    "£",
    "¥",
    "©",
    "™",
    "½",
    "²",
    "Ⅻ",
    "٣",
    "१२",
]

#: Separators between words, including the awkward ones.
SEPARATORS = [" "] * 12 + ["  ", "\t", "\u00a0", "\u3000", "\u200b", "\u2009", " \u202f", "\u1680", "\x1c"]

PUNCT = [".", ",", "!", "?", ";", ":", "'", '"', "-", "...", " .", " ,"]


def sentence(rng: random.Random, max_words: int = 12) -> str:
    """One random sentence; about 1 in 12 is empty, some have edge whitespace."""
    if rng.random() < 1 / 12:
        return rng.choice(["", " ", "\t"])
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, max_words))]
    out = ""
    for i, word in enumerate(words):
        if i:
            out += rng.choice(SEPARATORS)
        out += word
        if rng.random() < 0.2:
            out += rng.choice(PUNCT)
    if rng.random() < 0.1:
        out = rng.choice([" ", "\t", "\u00a0"]) + out
    if rng.random() < 0.1:
        out += rng.choice([" ", "\t", "\u3000", "\n"])
    return out


def perturb(rng: random.Random, text: str) -> str:
    """A related sentence: some words dropped, swapped or replaced."""
    words = text.split(" ")
    out = []
    for word in words:
        roll = rng.random()
        if roll < 0.15:
            continue
        if roll < 0.3:
            out.append(rng.choice(WORDS))
        else:
            out.append(word)
    if len(out) > 2 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def corpus(seed: int, n: int = 200, max_refs: int = 3) -> tuple[list[str], list[list[str]]]:
    """``n`` hypotheses with 1..``max_refs`` references each (the count varies)."""
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        base = sentence(rng)
        hyps.append(perturb(rng, base) if rng.random() < 0.8 else sentence(rng))
        refs.append(
            [perturb(rng, base) if rng.random() < 0.7 else sentence(rng) for _ in range(rng.randint(1, max_refs))]
        )
    return hyps, refs


def streams(refs: list[list[str]]) -> list[list[str | None]]:
    """sacreBLEU's layout of variable references: streams padded with None."""
    width = max(len(r) for r in refs)
    return [[seg[k] if k < len(seg) else None for seg in refs] for k in range(width)]
