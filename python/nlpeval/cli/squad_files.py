"""The official SQuAD files with the line of every question id: the dataset (``dev-v2.0.json``), a
prediction file (``{id: answer}``) and a no-answer probability file (``{id: probability}``, the v2.0
script's ``--na-prob-file``), aligned to the dataset's question order. Every problem is one
:class:`~nlpeval.cli.errors.UsageError` naming ``file:line``: a duplicate id (with the line of the first),
an id the dataset does not have, a question without a prediction or probability, a value of the wrong type.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from nlpeval.cli.errors import UsageError

#: a JSON string followed by a colon: an object key (a string value is followed by ``,`` ``]`` or ``}``)
KEY_PATTERN = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')
#: a question's ``"id": "..."`` member in the dataset
ID_PATTERN = re.compile(r'"id"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _text(path: str) -> str:
    from nlpeval.cli.io import read_all

    return "\n".join(read_all(path))


def lines_of(pattern: re.Pattern[str], text: str) -> list[tuple[str, int]]:
    """Every match's decoded string and its 1-based line, in file order."""
    out = []
    line, last = 1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        out.append((json.loads(f'"{match.group(1)}"'), line))
    return out


def _parse(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg})") from None


@dataclass(frozen=True)
class Dataset:
    """The questions of a SQuAD dataset file, in file order."""

    name: str
    ids: list[str]
    answers: list[list[str]]
    questions: list[str]
    lines: dict[str, int]

    def where(self, qid: str) -> str:
        return f"{self.name}:{self.lines[qid]}" if self.lines.get(qid) else self.name


def read_dataset(path: str) -> Dataset:
    """The official dataset JSON (``{"data": [{"paragraphs": [{"qas": [...]}]}]}``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "dev.json"
    >>> qas = [{"id": "q1", "question": "Where?", "answers": [{"text": "Paris"}]},
    ...        {"id": "q2", "question": "When?", "answers": []}]
    >>> _ = path.write_text(json.dumps({"data": [{"paragraphs": [{"qas": qas}]}]}, indent=1))
    >>> data = read_dataset(str(path))
    >>> data.ids, data.answers, data.questions, data.lines
    (['q1', 'q2'], [['Paris'], []], ['Where?', 'When?'], {'q1': 8, 'q2': 17})
    """
    name = _name(path)
    text = _text(path)
    data = _parse(text, name)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise UsageError(f"{name}: not a SQuAD dataset (no 'data' list)")
    places = iter(lines_of(ID_PATTERN, text))
    ids: list[str] = []
    answers: list[list[str]] = []
    questions: list[str] = []
    lines: dict[str, int] = {}
    for article in data["data"]:
        for paragraph in article.get("paragraphs", []) if isinstance(article, dict) else []:
            for qa in paragraph.get("qas", []) if isinstance(paragraph, dict) else []:
                qid = qa.get("id") if isinstance(qa, dict) else None
                if not isinstance(qid, str):
                    raise UsageError(f"{name}: a question without a text 'id' (after {len(ids)} questions)")
                line = next((n for found, n in places if found == qid), 0)
                at = f"{name}:{line}" if line else name
                if qid in lines:
                    raise UsageError(f"{at}: duplicate question id {qid!r} (first on line {lines[qid]})")
                texts = [a.get("text") if isinstance(a, dict) else None for a in qa.get("answers", [])]
                if not all(isinstance(t, str) for t in texts):
                    raise UsageError(f"{at}: question {qid!r} has an answer without text")
                question = qa.get("question", "")
                ids.append(qid)
                answers.append([str(t) for t in texts])
                questions.append(question if isinstance(question, str) else str(question))
                lines[qid] = line
    if not ids:
        raise UsageError(f"{name}: no questions")
    return Dataset(name, ids, answers, questions, lines)


_PLURAL = {"answer": "answers", "no-answer probability": "no-answer probabilities"}


def read_by_id(path: str, dataset: Dataset, what: str) -> tuple[list[Any], list[str]]:
    """A JSON object ``{id: value}`` aligned to the dataset's questions: the values and each one's
    ``file:line``. ``what`` is ``"answer"`` (text values) or ``"no-answer probability"`` (numbers)."""
    name = _name(path)
    text = _text(path)
    places = lines_of(KEY_PATTERN, text)
    seen: dict[str, int] = {}
    for key, line in places:
        if key in seen:
            raise UsageError(f"{name}:{line}: duplicate question id {key!r} (first on line {seen[key]})")
        seen[key] = line
    value = _parse(text, name)
    if not isinstance(value, dict):
        raise UsageError(f"{name}: expected a JSON object of {_PLURAL[what]} by question id")
    for key, item in value.items():
        at = f"{name}:{seen[key]}" if key in seen else name
        if key not in dataset.lines:
            raise UsageError(f"{at}: unknown question id {key!r} (not in {dataset.name})")
        _check_value(item, key, at, what)
    missing = [qid for qid in dataset.ids if qid not in value]
    if missing:
        raise UsageError(
            f"{name}: no {what} for question id {missing[0]!r} "
            f"({dataset.where(missing[0])}; {len(missing)} questions without one)"
        )
    return [value[qid] for qid in dataset.ids], [f"{name}:{seen[qid]}" for qid in dataset.ids]


def _check_value(item: Any, key: str, at: str, what: str) -> None:
    if what == "answer":
        if not isinstance(item, str):
            raise UsageError(f"{at}: the prediction for {key!r} is not text")
        return
    if isinstance(item, bool) or not isinstance(item, (int, float)) or math.isnan(item):
        raise UsageError(f"{at}: the no-answer probability for {key!r} is not a number: {item!r}")
