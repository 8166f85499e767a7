"""Native tokenising and numbering of the report's lines (``Corpus.encode_lines``) against Python's
``line.strip().split(" ")`` (compare-mt's tokenizer) numbered by ``Corpus.encode``."""

from __future__ import annotations

import sys

import numpy as np

from nlpeval.reports.analyses.ngram_codes import REF, Corpus

# every code point Python's str.strip() removes, and some it keeps (zero-width space, BOM, U+180E)
SPACES = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
KEPT = "\u200b\ufeff\u180e\u00ad"


def _python(sides):
    return Corpus.encode({name: [line.strip().split(" ") for line in lines] for name, lines in sides.items()})


def _same(sides):
    native, python = Corpus.encode_lines(sides), _python(sides)
    assert native.words == python.words
    assert list(native.sides) == list(python.sides)
    for name in sides:
        assert np.array_equal(native.sides[name][0], python.sides[name][0])
        assert np.array_equal(native.sides[name][1], python.sides[name][1])
    return native


def test_every_python_space_is_stripped_only_at_the_ends():
    assert len(SPACES) == 29  # \t..\r, \x1c..\x1f, space, \x85, \xa0, U+1680, U+2000..U+200A, ...
    lines = [f"{c}a{c}b {c}" for c in SPACES] + [f"{c}x{c}" for c in KEPT] + [SPACES, SPACES + "z" + SPACES]
    corpus = _same({REF: lines, "S": list(reversed(lines))})
    assert "a\tb" in corpus.words and "\u200bx\u200b" in corpus.words


def test_empty_lines_double_spaces_and_unicode():
    sides = {
        REF: ["", " ", "a  b", "  a b  ", "é ü 中文 😀", "a\u00a0b c"],
        "A": ["a b", "", "b a a", "😀 😀", "x", "  "],
        "B": ["c", "a", "", "ü", "中文 é", "a\u00a0b"],
    }
    corpus = _same(sides)
    assert corpus.words[:4] == ["", "", "a", "b"]  # an empty line is one empty token


def test_lone_surrogates_take_the_python_path():
    sides = {REF: ["a \udcff b", "c"], "S": ["\udcff", "a c"]}
    corpus = _same(sides)
    assert "\udcff" in corpus.words


def test_native_matched_strings_equal_the_flags():
    from nlpeval.reports.analyses.ngram_codes import matched_flags, matched_strings

    sides = {
        REF: ["a b a", "x y", "", "a a a a", "b c"],
        "S": ["a a a c b", "y y x x", "a", "", "c b c b"],
    }
    corpus = Corpus.encode_lines(sides)
    flags = "".join("1" if f else "0" for f in matched_flags(corpus, "S").tolist())
    offsets = corpus.sides["S"][1].tolist()
    expected = [flags[offsets[i] : offsets[i + 1]] for i in range(5)]
    assert expected[0] == "11001" and expected[1] == "1010"
    assert matched_strings(corpus, "S", 5) == expected
    assert matched_strings(corpus, "S", 2) == expected[:2]
