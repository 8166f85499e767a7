"""The example browser's data helpers: the bulk fast paths give what the per-item definitions give."""

from __future__ import annotations

import random

import pytest

from nlpeval.reports.html.data import _all_offsets, _at, _code_string, display_offsets

ODD = ["", " ", "a", "a b", " a b", "a b ", "a  b", "a\tb", "a\u00a0b", "a\u3000b c", "\u200bx y", "<UNK> & é 中文"]


def _rows(pool: list[str], seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[rng.choice(pool) for _ in range(2)] for _ in range(30)]


@pytest.mark.parametrize("seed", range(20))
def test_all_offsets_equal_display_offsets_per_text(seed):
    clean = ["a", "a b", "x y z", "<UNK> & é 中文", "مرحبا بك"]
    pool = clean if seed % 2 else clean + ODD
    rows = _rows(pool, seed)
    got = _all_offsets(rows)
    expected = [[display_offsets(text) for text in row] for row in rows]
    assert [[list(o) for o in row] for row in got] == [[list(o) for o in row] for row in expected]
    assert [[type(o) for o in row] for row in got] == [[type(o) for o in row] for row in expected]


def test_code_string_beyond_ascii_and_positions():
    assert _code_string([0, 3, -1, 12]) == "03/<"
    assert _code_string([0, 200]) == "0" + chr(248)  # past one ASCII byte: one character each still
    assert _at([4, 5, 6], [0, 1, 2]) == [4, 5, 6]
    assert _at([4, 5, 6], [2, 0, 7]) == [6, 4, -1]
