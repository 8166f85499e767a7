"""``reports/record.py:record``: every record behaves as ``dataclass(frozen=True, repr=False, eq=False)`` makes it
(the twin below has dataclasses' own compiled methods), with no method compiled when the class is made."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import sys
from collections.abc import Mapping
from dataclasses import field

import pytest

from nlpeval.reports import context, model, record, settings
from nlpeval.reports.analyses import buckets, leaderboard
from nlpeval.reports.sections import Section


def _records() -> list[type]:
    found = []
    for module in (model, context, settings, buckets, leaderboard, sys.modules["nlpeval.reports.sections"]):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found.append(value)
    return found


def _twin(cls: type) -> type:
    """``cls``'s fields in a class made by ``dataclass(frozen=True, repr=False, eq=False)`` itself."""
    annotations: dict[str, object] = {}
    namespace: dict[str, object] = {"__annotations__": annotations, "__qualname__": cls.__qualname__}
    for f in dataclasses.fields(cls):
        annotations[f.name] = f.type
        namespace[f.name] = dataclasses.field(
            default=f.default, default_factory=f.default_factory, repr=f.repr, hash=f.hash, compare=f.compare
        )
    return dataclasses.dataclass(frozen=True, repr=False, eq=False)(type(cls.__name__, (), namespace))


@pytest.mark.parametrize("cls", _records(), ids=lambda cls: cls.__name__)
def test_every_record_is_made_by_record_as_dataclasses_would_make_it(cls):
    assert len(_records()) >= 49
    twin = _twin(cls)
    assert vars(cls)["__init__"].__qualname__ == f"{cls.__qualname__}.__init__"
    assert vars(cls)["__setattr__"].__qualname__ == f"{cls.__qualname__}.__setattr__"
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)
    assert cls.__match_args__ == twin.__match_args__
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert [
        (f.name, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(cls)
    ] == [(f.name, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(twin)]


def _values(cls: type) -> dict[str, object]:
    return {f.name: f"v-{f.name}" for f in dataclasses.fields(cls)}


def _state(instance: object) -> list[tuple[str, object]]:
    return list(vars(instance).items())  # the order too: the fields are set in field order


def _calls(cls: type) -> list[tuple[tuple[object, ...], dict[str, object]]]:
    """Calls that bind (every way of giving the fields) and calls that do not (each error of Python's)."""
    declared = dataclasses.fields(cls)
    values = _values(cls)
    required = [
        f.name for f in declared if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    positional = tuple(values.values())
    calls: list[tuple[tuple[object, ...], dict[str, object]]] = [
        (positional, {}),
        ((), dict(values)),
        ((), dict(reversed(list(values.items())))),
        (positional[: len(required)], {}),
        ((), {name: values[name] for name in required}),
        (positional[:1], {name: values[name] for name in list(values)[1:]}),
        ((*positional, "extra"), {}),  # too many
        ((), {**values, "no_such_field": 1}),  # unknown
        (positional, {next(iter(values)): 1}),  # given twice
    ]
    if required:
        calls.append(((), {name: values[name] for name in required[1:]}))  # one missing
        calls.append((positional[: len(required) - 1], {}))
    return calls


@pytest.mark.parametrize("cls", _records(), ids=lambda cls: cls.__name__)
def test_init_binds_and_refuses_as_the_generated_one(cls):
    twin = _twin(cls)
    for args, kwargs in _calls(cls):
        try:
            expected = _state(twin(*args, **kwargs))
        except TypeError as exc:
            with pytest.raises(TypeError) as caught:
                cls(*args, **kwargs)
            assert str(caught.value) == str(exc)
        else:
            assert _state(cls(*args, **kwargs)) == expected


@pytest.mark.parametrize("cls", _records(), ids=lambda cls: cls.__name__)
def test_frozen_as_the_generated_one(cls):
    instance = cls(**_values(cls))
    twin = _twin(cls)(**_values(cls))
    name = dataclasses.fields(cls)[0].name
    for target in (instance, twin):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(target, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
            target.other = 1  # (the point: refused)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(target, name)
    assert _state(dataclasses.replace(instance)) == _state(instance)
    assert dataclasses.asdict(instance) == dataclasses.asdict(twin)


@record.record
class _Point(record.FrozenRecord):
    """A record of the tests (defaults and a default factory)."""

    x: int
    y: int = 0
    tags: Mapping[str, int] = field(default_factory=dict)


class _Sub(_Point):
    """A subclass without its own fields: setting a new attribute is allowed, as with dataclasses."""


def test_defaults_factories_subclasses_and_pickles():
    first, second = _Point(1), _Point(x=1)
    assert (first.x, first.y, first.tags) == (1, 0, {}) and first.tags is not second.tags
    assert pickle.loads(pickle.dumps(_Point(2, 3, {"a": 1}))) == _Point(2, 3, {"a": 1})
    sub = _Sub(1)
    sub.note = "allowed"  # (dataclasses allow it on a subclass too)
    assert sub.note == "allowed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.x = 2


def test_a_class_making_many_records_takes_the_generated_init():
    @record.record
    class Many(record.FrozenRecord):
        """Made more than HOT times."""

        a: int
        b: str = "b"

    made = [Many(i, b=str(i)) for i in range(record.HOT + 3)]
    assert Many.__init__ is record._twin(Many).__init__
    assert [_state(m) for m in made] == [[("a", i), ("b", str(i))] for i in range(record.HOT + 3)]
    with pytest.raises(TypeError, match=r"Many.__init__\(\) missing 1 required positional argument: 'a'"):
        Many()


def test_what_record_refuses():
    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

        @record.record
        class Own(record.FrozenRecord):
            x: int

            def __setattr__(self, name: str, value: object) -> None:
                pass

    with pytest.raises(TypeError, match="not positional-or-keyword"):

        @record.record
        class Hidden(record.FrozenRecord):
            x: int = field(default=0, init=False)

    with pytest.raises(TypeError, match="needs FrozenRecord"):

        @record.record
        class Plain:
            x: int


def test_sections_are_records():
    assert Section.__dataclass_params__.frozen and "__init__" in vars(Section)


def test_an_init_of_the_class_s_own_is_kept_with_its_signature():
    @record.record
    class Own(record.FrozenRecord):
        """Its own __init__ (dataclasses keep it too)."""

        a: int

        def __init__(self, text: str) -> None:
            object.__setattr__(self, "a", len(text))

    assert Own("abc").a == 3 and str(inspect.signature(Own)) == "(text: 'str') -> 'None'"
    with pytest.raises(dataclasses.FrozenInstanceError):
        Own("x").a = 2


def test_the_signature_of_a_base_that_is_no_dataclass_is_inspect_s_own():
    assert str(inspect.signature(model._Record)) == str(inspect.signature(type("Plain", (), {})))
