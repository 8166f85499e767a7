"""The report model's records: plain frozen dataclasses (``dataclass(frozen=True)``), with ``to_dict``."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from nlpeval.reports import model


def _records() -> list[type]:
    return [
        value
        for value in vars(model).values()
        if isinstance(value, type) and issubclass(value, model._Record) and value is not model._Record
    ]


@pytest.mark.parametrize("cls", _records(), ids=lambda cls: cls.__name__)
def test_every_record_is_a_plain_frozen_dataclass(cls):
    assert dataclasses.is_dataclass(cls)
    params = cls.__dataclass_params__
    assert params.frozen and params.init and params.eq and params.repr


def test_no_generated_code_in_the_model():
    source = inspect.getsource(model)
    assert "exec(" not in source and "marshal" not in source and "cache_folder" not in source


def test_records_are_frozen_and_behave_as_dataclasses():
    cell = model.Estimate(0.5, 10, high=0.7)
    assert (cell.value, cell.n, cell.low, cell.high) == (0.5, 10, None, 0.7)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'value'"):
        cell.value = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'n'"):
        del cell.n
    assert dataclasses.replace(cell, n=3) == model.Estimate(0.5, 3, None, 0.7)
    assert pickle.loads(pickle.dumps(cell)) == cell and hash(cell) == hash(model.Estimate(0.5, 10, None, 0.7))
    first = model.ExamplesSection(total=1, max_examples=None, metric="bleu", examples=())
    second = model.ExamplesSection(total=1, max_examples=None, metric="bleu", examples=())
    assert first.largest_differences == {} and first.largest_differences is not second.largest_differences
    with pytest.raises(TypeError):
        model.Estimate(0.5)  # n is required
