"""CoNLL column files for span F1: one token per line, the gold and the predicted tag in two columns.

The layout conlleval.pl reads (CoNLL-2000/2003 output files): columns separated by whitespace, a blank
line (or a line whose first column is ``-X-``) between sentences, by default the gold tag in the last
column but one and the predicted tag in the last. ``-DOCSTART-`` lines are read as conlleval.pl reads
them: a token (tagged ``O O`` in CoNLL-2003 files, so they change only the token accuracy), unless
``skip_docstart=True`` makes them sentence breaks. Every problem is an :class:`~nlpeval.InputError`
naming ``file:line``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from nlpeval.core.errors import InputError
from nlpeval.core.textfiles import read_utf8_lines

#: conlleval.pl's sentence boundary: a line whose first column is this is a sentence break
BOUNDARY = "-X-"
DOCSTART = "-DOCSTART-"


@dataclass(frozen=True)
class ConllFile:
    """Sentences read from a CoNLL column file.

    Attributes
    ----------
    path : str
        The file's name, as errors and reports show it.
    predictions, references : list of list of str
        One label sequence per sentence (the predicted and the gold column).
    tokens : list of list of str
        The first column of each token line (the words).
    lines : list of int
        The 1-based line of each sentence's first token.
    columns : int
        Columns per token line.
    """

    path: str
    predictions: list[list[str]]
    references: list[list[str]]
    tokens: list[list[str]]
    lines: list[int]
    columns: int


def _splitter(delimiter: str | None, gold_column: int, pred_column: int) -> re.Pattern[str] | None:
    """The compiled delimiter (``None``: whitespace runs), after checking the options."""
    if gold_column == pred_column:
        raise ValueError(f"gold and predicted tags are the same column ({gold_column})")
    if delimiter is None:
        return None
    if delimiter == "":
        raise ValueError("delimiter must not be empty (None splits on runs of whitespace)")
    try:
        return re.compile(delimiter)
    except re.error as exc:
        raise ValueError(f"delimiter {delimiter!r} is not a regular expression: {exc}") from None


def _fields(line: str, pattern: re.Pattern[str] | None) -> list[str]:
    """The columns of ``line``: whitespace runs, or Perl's ``split(/delimiter/, line)``."""
    if pattern is None:
        return line.split()
    fields = pattern.split(line)
    while fields and not fields[-1]:  # Perl's split drops trailing empty fields
        fields.pop()
    return fields


def _column(number: int, count: int) -> int:
    """The 0-based index of column ``number`` (Python's: negative counts from the end)."""
    return number + count if number < 0 else number


def _raw_tag(tag: str, outside: str) -> str:
    """conlleval.pl -r: ``outside`` becomes ``O``; any other tag is a one-token chunk ``B-tag``."""
    if tag == outside:
        tag = "O"
    return tag if tag == "O" else f"B-{tag}"


def parse_conll(
    lines: list[str],
    *,
    name: str = "<input>",
    gold_column: int = -2,
    pred_column: int = -1,
    delimiter: str | None = None,
    raw: bool = False,
    outside: str = "O",
    skip_docstart: bool = False,
) -> ConllFile:
    """Parse the lines of a CoNLL column file (without their newlines); see :func:`read_conll`."""
    pattern = _splitter(delimiter, gold_column, pred_column)
    predictions: list[list[str]] = []
    references: list[list[str]] = []
    tokens: list[list[str]] = []
    firsts: list[int] = []
    width, width_line = -1, 0
    open_sentence = False
    for number, text in enumerate(lines, start=1):
        fields = _fields(text.removesuffix("\r"), pattern)
        if not fields:
            open_sentence = False
            continue
        if width < 0:
            width, width_line = len(fields), number
            if width < 2:
                raise InputError(f"{name}:{number}: {width} column; a token line needs a gold and a predicted tag")
            for what, column in (("gold", gold_column), ("predicted", pred_column)):
                if not 0 <= _column(column, width) < width:
                    raise InputError(f"{name}:{number}: {width} columns: no {what} tag column {column}")
        elif len(fields) != width:
            raise InputError(
                f"{name}:{number}: {len(fields)} columns, but line {width_line} has {width} "
                "(every token line needs the same columns)"
            )
        if fields[0] == BOUNDARY or (skip_docstart and fields[0] == DOCSTART):
            open_sentence = False
            continue
        gold, pred = fields[gold_column], fields[pred_column]
        if raw:
            gold, pred = _raw_tag(gold, outside), _raw_tag(pred, outside)
        if not open_sentence:
            predictions.append([])
            references.append([])
            tokens.append([])
            firsts.append(number)
            open_sentence = True
        predictions[-1].append(pred)
        references[-1].append(gold)
        tokens[-1].append(fields[0])
    return ConllFile(name, predictions, references, tokens, firsts, max(width, 0))


def read_conll(
    path: str | os.PathLike[str],
    *,
    gold_column: int = -2,
    pred_column: int = -1,
    delimiter: str | None = None,
    raw: bool = False,
    outside: str = "O",
    skip_docstart: bool = False,
) -> ConllFile:
    """Read a CoNLL column file (conlleval.pl's input) into label sequences for :func:`nlpeval.span_f1`.

    Parameters
    ----------
    path : str or path-like
        The file (UTF-8): one token per line, sentences separated by blank lines (or lines whose first
        column is ``-X-``, conlleval.pl's boundary).
    gold_column, pred_column : int
        0-based columns of the gold and the predicted tag; negative counts from the end (the default,
        -2 and -1, is conlleval.pl's: the last two columns).
    delimiter : str, optional
        A regular expression between columns, as conlleval.pl's ``-d`` (Perl's ``split``: trailing
        empty columns are dropped, so ``" "`` reads exactly as conlleval.pl's default). ``None`` (the
        default) splits on runs of whitespace, so tab-separated files and aligned columns read too.
    raw : bool
        conlleval.pl's ``-r``: tags carry no ``B-``/``I-`` prefix, and each token that is not ``outside``
        is a chunk of its own.
    outside : str
        conlleval.pl's ``-o``: the outside tag of ``raw`` files (read as ``O``).
    skip_docstart : bool
        Read ``-DOCSTART-`` lines as sentence breaks instead of tokens (conlleval.pl counts them as
        tokens; it changes only the token accuracy).

    Returns
    -------
    ConllFile
        ``predictions`` and ``references`` (one label list per sentence), ``tokens`` and each
        sentence's first ``lines``.

    Raises
    ------
    InputError
        ``file:line`` of a line with another number of columns than the first token line, of a first
        token line with fewer than 2 columns or without the chosen columns, or of bytes that are not
        UTF-8.

    Examples
    --------
    >>> import nlpeval, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ner.txt"
    >>> _ = path.write_text(
    ...     "-DOCSTART- -X- O O\\n\\n"
    ...     "John NNP B-PER B-PER\\nSmith NNP I-PER O\\nvisited VBD O O\\nRome NNP B-LOC B-LOC\\n\\n"
    ... )
    >>> data = nlpeval.read_conll(path)
    >>> data.references[1], data.predictions[1]
    (['B-PER', 'I-PER', 'O', 'B-LOC'], ['B-PER', 'O', 'O', 'B-LOC'])
    >>> s = nlpeval.span_f1(data.predictions, data.references, mode="conlleval")
    >>> print(nlpeval.conlleval_report(s).splitlines()[1])
    accuracy:  80.00%; precision:  50.00%; recall:  50.00%; FB1:  50.00
    """
    name = os.fspath(path)
    _splitter(delimiter, gold_column, pred_column)  # bad options before any reading
    return parse_conll(
        read_utf8_lines(name),
        name=name,
        gold_column=gold_column,
        pred_column=pred_column,
        delimiter=delimiter,
        raw=raw,
        outside=outside,
        skip_docstart=skip_docstart,
    )
