"""Module attributes imported on first use (a module-level ``__getattr__``, PEP 562)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(module_name: str, sources: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``sources[name]`` on first access.

    The value is then stored in the module, so later accesses do not come back here. Names
    not in ``sources`` raise :class:`AttributeError` as for any missing attribute.

    Parameters
    ----------
    module_name : str
        The module the ``__getattr__`` serves (its ``__name__``).
    sources : mapping of str to str
        Attribute name -> the module that defines it.

    Returns
    -------
    callable
        The function to assign to the module's ``__getattr__``.

    Examples
    --------
    >>> getter = lazy_attributes("nlpeval", {"sqrt": "math"})
    >>> getter("sqrt")(9.0)
    3.0
    >>> getter("cbrt")
    Traceback (most recent call last):
    ...
    AttributeError: module 'nlpeval' has no attribute 'cbrt'
    """

    def module_getattr(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(import_module(source), name)
        setattr(sys.modules[module_name], name, value)
        return value

    return module_getattr
