"""Readers of the QA commands' inputs: line files, SQuAD JSON and data-file columns, each value with its place."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nlpeval.cli.errors import UsageError


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


@dataclass
class Column:
    """Values read from one input, and where each came from (``file:line`` or ``file:row``)."""

    values: list[Any]
    where: list[str]
    name: str

    def at(self, index: int | None) -> str:
        return self.where[index] if index is not None and 0 <= index < len(self.where) else self.name


def read_lines(path: str, parse: Callable[[str, str], Any]) -> Column:
    """Every line of a line file through ``parse(line, where)``."""
    from nlpeval.cli.io import read_all

    name = _name(path)
    lines = read_all(path)
    where = [f"{name}:{i + 1}" for i in range(len(lines))]
    return Column([parse(line, at) for line, at in zip(lines, where, strict=True)], where, name)


def read_data_column(path: str, column: str, parse: Callable[[Any, str], Any]) -> Column:
    """One column of a JSONL, CSV/TSV or Parquet file through ``parse(cell, where)``."""
    from nlpeval.cli.datafiles import read_data_file

    data = read_data_file(path)
    data.require(column)
    values, where = [], []
    for record in data.records:
        at = data.where(record)
        if column not in record.fields:
            raise UsageError(f"{at}: no {column!r} field")
        values.append(parse(record.fields[column], at))
        where.append(at)
    return Column(values, where, data.name)


def read(path: str, column: str | None, line: Callable[[str, str], Any], cell: Callable[[Any, str], Any]) -> Column:
    """A line file (no ``column``) or a data file's ``column``."""
    return read_lines(path, line) if column is None else read_data_column(path, column, cell)


# ----------------------------------------------------------------------------- cell parsers


def text_line(line: str, where: str) -> str:
    return line


def text_cell(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{where}: not text ({type(value).__name__})")
    return value


def _json(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg})") from None


def texts_line(line: str, where: str) -> list[str]:
    """A JSON list of strings, or one plain text (an empty line: no text)."""
    if line.lstrip().startswith("["):
        return texts_cell(_json(line, where), where)
    return [line] if line else []


def texts_cell(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and "text" in value:  # HF datasets' answers column
        value = value["text"]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: expected a text or a list of texts")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UsageError(f"{where}: not a number ({type(value).__name__})")
    try:
        number = float(value)
    except ValueError:
        raise UsageError(f"{where}: not a number: {value!r}") from None
    if math.isnan(number):
        raise UsageError(f"{where}: NaN")
    return number


def number_line(line: str, where: str) -> float:
    if not line.strip():
        raise UsageError(f"{where}: empty line, expected a number")
    return _number(line.strip(), where)


def number_cell(value: Any, where: str) -> float:
    return _number(value, where)


def integer_line(line: str, where: str) -> int:
    return _integer(number_line(line, where), where)


def integer_cell(value: Any, where: str) -> int:
    return _integer(_number(value, where), where)


def _integer(value: float, where: str) -> int:
    if not math.isfinite(value) or value != int(value):
        raise UsageError(f"{where}: not a whole number: {value!r}")
    return int(value)


def numbers_line(line: str, where: str) -> list[float]:
    """Numbers separated by spaces or commas, or a JSON list."""
    if line.lstrip().startswith("["):
        return numbers_cell(_json(line, where), where)
    parts = line.replace(",", " ").split()
    if not parts:
        raise UsageError(f"{where}: empty line, expected numbers")
    return [_number(p, where) for p in parts]


def numbers_cell(value: Any, where: str) -> list[float]:
    if isinstance(value, str):
        return numbers_line(value, where)
    if not isinstance(value, list) or not value:
        raise UsageError(f"{where}: expected a list of numbers")
    return [_number(v, where) for v in value]


def gold_line(line: str, where: str) -> int | list[int]:
    """A gold choice index, or a JSON list of them."""
    if line.lstrip().startswith("["):
        return gold_cell(_json(line, where), where)
    return integer_line(line, where)


def gold_cell(value: Any, where: str) -> int | list[int]:
    if isinstance(value, list):
        return [integer_cell(v, where) for v in value]
    return integer_cell(value, where)


def choices_line(line: str, where: str) -> list[str]:
    value = _json(line, where)
    return choices_cell(value, where)


def choices_cell(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: expected a JSON list of choice texts")
    return value


# ----------------------------------------------------------------------------- SQuAD JSON


def squad_dataset(path: str) -> tuple[dict[str, list[str]], str]:
    """The official SQuAD dataset JSON (``{"data": [{"paragraphs": [{"qas": [...]}]}]}``): answers by id."""
    from nlpeval.cli.io import read_all

    name = _name(path)
    text = "\n".join(read_all(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise UsageError(f"{name}: not a SQuAD dataset (no 'data' list)")
    answers: dict[str, list[str]] = {}
    for article in data["data"]:
        for paragraph in article.get("paragraphs", []):
            for qa in paragraph.get("qas", []):
                qid = qa.get("id")
                if qid in answers:
                    raise duplicate_id(name, text, qid, "id")
                texts = [a.get("text") for a in qa.get("answers", [])]
                if not all(isinstance(t, str) for t in texts):
                    raise UsageError(f"{name}: question {qid!r} has an answer without text")
                answers[qid] = texts
    return answers, name


def duplicate_id(name: str, text: str, qid: str, kind: str) -> UsageError:
    """A question id found twice in a JSON file, at its second place (``kind``: ``"id"``, a dataset's
    ``"id": "..."`` members; ``"key"``, an object's keys), naming the first: the lines come from a scan of
    the raw text, as :mod:`nlpeval.cli.squad_files` finds them.

    Examples
    --------
    >>> duplicate_id("p.json", '{"a": "x",\\n "a": "y"}', "a", "key")
    UsageError("p.json:2: duplicate question id 'a' (first on line 1)")
    """
    from nlpeval.cli.squad_files import ID_PATTERN, KEY_PATTERN, lines_of

    lines = [line for found, line in lines_of(ID_PATTERN if kind == "id" else KEY_PATTERN, text) if found == qid]
    if len(lines) < 2:  # not spelled the same way twice (e.g. escapes): the file alone
        return UsageError(f"{name}: duplicate question id {qid!r}")
    return UsageError(f"{name}:{lines[1]}: duplicate question id {qid!r} (first on line {lines[0]})")


def json_mapping(path: str, what: str) -> tuple[dict[str, Any], str]:
    """A JSON object (the official scripts' prediction and no-answer-probability files)."""
    from nlpeval.cli.io import read_all

    name = _name(path)

    text = "\n".join(read_all(path))

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in pairs:
            if key in out:
                raise duplicate_id(name, text, key, "key")
            out[key] = item
        return out

    try:
        value = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{name}: expected a JSON object of {what} by question id")
    return value, name
