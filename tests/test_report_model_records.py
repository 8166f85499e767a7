"""The report model's records: plain frozen dataclasses (``dataclass(frozen=True)``), with ``to_dict``."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from nlpeval.reports import model
from nlpeval.reports.context import ReportOptions
from nlpeval.reports.record import FrozenRecord


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
    assert params.frozen and params.init
    # equality, hash and repr: FrozenRecord's, written once (reports/record.py), not compiled per class
    assert not params.eq and not params.repr and issubclass(cls, FrozenRecord)
    assert not {"__eq__", "__hash__", "__repr__"} & set(vars(cls))


def _generated_twin(cls: type) -> type:
    """``cls``'s fields in a ``dataclass(frozen=True)`` with dataclasses' own generated methods."""
    namespace: dict[str, object] = {"__annotations__": {}, "__qualname__": cls.__qualname__}
    for f in dataclasses.fields(cls):
        namespace["__annotations__"][f.name] = f.type
        namespace[f.name] = dataclasses.field(
            default=f.default, default_factory=f.default_factory, repr=f.repr, hash=f.hash, compare=f.compare
        )
    return dataclasses.dataclass(frozen=True)(type(cls.__name__, (), namespace))


@pytest.mark.parametrize(
    "record",
    [
        model.Estimate(0.5, 10, high=0.7),
        model.Histogram(edges=(0.0, 1.0, 2.0), counts=[1, 2]),
        model.SegmentIds(count=3, example_ids=(1, 2, 3)),
        model.Cluster(metric="bleu", rank=1, systems=("a", "b")),
        model.ExamplesSection(total=1, max_examples=None, metric="bleu", examples=()),
        ReportOptions(preset="compare-mt", top_k=5),
    ],
    ids=lambda record: type(record).__name__,
)
def test_equality_hash_and_repr_are_those_dataclasses_generate(record):
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    twin_class = _generated_twin(type(record))
    twin, other_twin = twin_class(**values), twin_class(**values)
    assert repr(record) == repr(twin)
    same = dataclasses.replace(record)
    assert (record == same) == (twin == other_twin) and (record != same) == (twin != other_twin)
    assert record.__eq__(twin) is NotImplemented and twin.__eq__(record) is NotImplemented
    try:
        expected = hash(twin)
    except TypeError:  # a field holds a list or dict: neither hashes
        with pytest.raises(TypeError):
            hash(record)
    else:
        assert hash(record) == expected
    changed = dataclasses.fields(record)[0].name
    assert record != dataclasses.replace(record, **{changed: None})


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
