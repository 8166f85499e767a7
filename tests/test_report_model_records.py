"""The report model's records: ``__init__`` compiled once for all classes (and cached on disk), frozen,
dataclass-compatible. Checked against what ``dataclasses.dataclass(frozen=True)`` itself builds."""

from __future__ import annotations

import dataclasses
import inspect
import os
import pickle
import subprocess
import sys

import pytest

from nlpeval.core.cache import CACHE_ENV
from nlpeval.reports import model


def _records() -> list[type]:
    return [
        value
        for value in vars(model).values()
        if isinstance(value, type) and issubclass(value, model._Record) and value is not model._Record
    ]


@pytest.mark.parametrize("cls", _records(), ids=lambda cls: cls.__name__)
def test_init_signature_is_what_dataclass_would_write(cls):
    # the same class through dataclasses' own frozen __init__: same parameters, defaults and factories
    reference = dataclasses.dataclass(frozen=True)(
        type(cls.__name__, (), {"__annotations__": dict(cls.__annotations__), **_defaults(cls)})
    )
    ours, theirs = inspect.signature(cls), inspect.signature(reference)
    assert [(p.name, p.kind, repr(p.default)) for p in ours.parameters.values()] == [
        (p.name, p.kind, repr(p.default)) for p in theirs.parameters.values()
    ]


def _defaults(cls: type) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = dataclasses.field(default_factory=f.default_factory)
    return out


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


@pytest.mark.parametrize("content", [None, b"", b"not marshal", b"\xe3garbage"])
def test_compiled_inits_cache_loads_and_survives_corruption(tmp_path, content):
    code = "from nlpeval.reports.model import Estimate; print(Estimate(1.0, 2, high=3.0))"
    env = {CACHE_ENV: str(tmp_path)}
    expected = "Estimate(value=1.0, n=2, low=None, high=3.0)\n"
    first = subprocess.run([sys.executable, "-c", code], env={**_env(), **env}, capture_output=True, text=True)
    assert first.stdout == expected, first.stderr
    files = list((tmp_path / "report-model").glob("*.marshal"))
    assert len(files) == 1
    if content is not None:
        files[0].write_bytes(content)
    again = subprocess.run([sys.executable, "-c", code], env={**_env(), **env}, capture_output=True, text=True)
    assert again.stdout == expected, again.stderr
    off = subprocess.run([sys.executable, "-c", code], env={**_env(), CACHE_ENV: ""}, capture_output=True, text=True)
    assert off.stdout == expected, off.stderr


def _env() -> dict[str, str]:
    return dict(os.environ)
