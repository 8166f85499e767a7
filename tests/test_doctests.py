"""Every public docstring Example runs and gives what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nlpeval


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(nlpeval.__path__, prefix="nlpeval."):
        if info.name.endswith(("_core", "__main__")):
            continue
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)  # every optional extra is in the test extra
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"
