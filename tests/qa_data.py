"""SQuAD-like generated questions: several gold answers, unanswerable ones, and the edge cases of the
official normalisation (punctuation, articles inside and outside words, Unicode case and
punctuation, whitespace variants, empty strings, answers that normalise to nothing)."""

from __future__ import annotations

import random

WORDS = [
    "the",
    "a",
    "an",
    "The",
    "AN",
    "A",
    "theory",
    "another",
    "Anne",
    "answer",
    "Paris",
    "paris",
    "Eiffel",
    "tower",
    "1889",
    "42",
    "3.14",
    "U.S.",
    "state-of-the-art",
    "don't",
    "O'Neil",
    "naïve",
    "café",
    "CAFÉ",
    "Straße",
    "İstanbul",
    "ΣΟΦΙΑ",
    "σοφία",
    "東京",
    "大学",
    "北京",
    "—",
    "–",
    "“quoted”",
    "«guillemets»",
    "¿qué?",
    "Mr.",
    "Smith's",
    "'single'",
    "(parens)",
    "[brackets]",
    "{braces}",
    "50%",
    "$100",
    "#1",
    "@user",
    "e-mail",
    "co-operate",
    "x/y",
    "a+b",
    "river",
    "valley",
    "mountain",
    "king",
    "queen",
    "war",
    "peace",
    "1066",
    "battle",
    "Hastings",
    "Normandy",
    "William",
    "conqueror",
    "century",
]
SPACES = [" ", " ", " ", "  ", "\t", "\u00a0", "\n", " \u3000 "]
EDGE = ["", " ", "the", "a an the", "...", "!?", "The.", "  The  ", "\u00a0", "An a", "the the the", "'"]


def phrase(rng: random.Random, low: int = 1, high: int = 6) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    out = words[0]
    for word in words[1:]:
        out += rng.choice(SPACES) + word
    if rng.random() < 0.15:
        out = rng.choice(["", " ", "(", '"']) + out + rng.choice(["", ".", "!", " ", ")", '"'])
    return out


def perturb(rng: random.Random, text: str) -> str:
    """A prediction near a gold answer: case, punctuation, articles, dropped or added words."""
    r = rng.random()
    if r < 0.25:
        return text
    if r < 0.4:
        return text.upper() if rng.random() < 0.5 else text.lower()
    if r < 0.55:
        return rng.choice(["the ", "a ", "An ", ""]) + text + rng.choice([".", ",", "", "!"])
    if r < 0.7:
        words = text.split()
        if len(words) > 1:
            del words[rng.randrange(len(words))]
        return " ".join(words)
    if r < 0.85:
        return text + " " + phrase(rng, 1, 3)
    return phrase(rng)


def squad_like(n: int, seed: int = 0, unanswerable: float = 0.33) -> dict:
    """``n`` questions: ids, gold answer lists (empty = unanswerable), predictions, no-answer probabilities."""
    rng = random.Random(seed)
    ids, answers, predictions, probs = [], [], [], []
    for i in range(n):
        qid = f"q{i:06d}"
        if rng.random() < unanswerable:
            golds: list[str] = []
        elif rng.random() < 0.05:
            golds = [rng.choice(EDGE) for _ in range(rng.randint(1, 3))]
        else:
            first = phrase(rng)
            golds = [first] + [perturb(rng, first) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.2:
            pred = ""
        elif rng.random() < 0.05:
            pred = rng.choice(EDGE)
        elif golds:
            pred = perturb(rng, rng.choice(golds))
        else:
            pred = phrase(rng)
        ids.append(qid)
        answers.append(golds)
        predictions.append(pred)
        # ties on purpose: the official script's stable sort decides
        probs.append(rng.choice([0.0, 0.25, 0.5, 1.0]) if rng.random() < 0.2 else round(rng.random(), 3))
    return {"ids": ids, "answers": answers, "predictions": predictions, "no_answer_probs": probs}
