"""The base of the report's frozen records and their decorator: methods over the fields, written once.

The report's records (:mod:`nlpeval.reports.model`, :mod:`~nlpeval.reports.context`,
:mod:`~nlpeval.reports.settings`, ...) are frozen dataclasses on :class:`FrozenRecord`, declared ``@record``:
the class :func:`dataclasses.dataclass` makes with ``frozen=True, repr=False, eq=False`` (its fields,
``__dataclass_params__``, ``__match_args__``, :func:`dataclasses.fields`, :func:`~dataclasses.replace`,
:func:`~dataclasses.asdict`), with the same methods, none compiled from source text. A dataclass gets each
method it generates as source text compiled when the class is made (Python 3.11: one ``compile`` per method,
about as long as the rest of making the class together): three per frozen record (``__init__``,
``__setattr__``, ``__delattr__``), about 4 % of the instructions of a whole ``nlpeval report --preset
compare-mt`` process for its 49 records (BENCHMARKS.md, "compare-mt report start-up"), more with ``__repr__``,
``__eq__`` and ``__hash__`` (about 20 ms for the model's 40 classes, "Issue 22 before/after, second run").

The methods here give what the generated ones give, by the same rules: ``repr`` lists the fields declared with
``repr=True``; two records are equal when they are of the same class and their fields declared with
``compare=True`` are equal; the hash is that of those fields (or of those with ``hash=True``); ``__init__``
takes the fields in order, by position or keyword, with their defaults and default factories, and sets each with
``object.__setattr__`` in field order; ``__setattr__`` and ``__delattr__`` raise
:class:`~dataclasses.FrozenInstanceError` as the generated ones do. A call of ``__init__`` that does not bind
(an argument missing, unknown or given twice) goes to the ``__init__`` dataclasses generate for the same fields
(made then, once per class), so the ``TypeError`` is Python's own; ``inspect.signature`` of a record class is
that of the generated one too. A class that makes many records (:data:`HOT`) takes that generated ``__init__``
from then on: it runs about twice as fast as the one here, and is compiled for those few classes only.

Examples
--------
>>> from dataclasses import field
>>> @record
... class Point(FrozenRecord):
...     x: int
...     y: int = 0
...     note: str = field(default="", compare=False, repr=False)
>>> Point(1, 2), Point(1, 2, "a") == Point(1, 2, "b"), hash(Point(1)) == hash((1, 0))
(Point(x=1, y=2), True, True)
>>> Point(y=3, x=1).y, Point.__dataclass_params__.frozen, str(inspect.signature(Point))
(3, True, "(x: 'int', y: 'int' = 0, note: 'str' = '') -> None")
>>> Point(1).x = 2
Traceback (most recent call last):
dataclasses.FrozenInstanceError: cannot assign to field 'x'
>>> Point(y=2)
Traceback (most recent call last):
TypeError: Point.__init__() missing 1 required positional argument: 'x'
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_options: Any) -> Callable[[Any], Any]:
        """``typing.dataclass_transform`` for the type checker only (typing has it from Python 3.11 on)."""
        return lambda decorator: decorator


RecordClass = TypeVar("RecordClass", bound=type)

#: class -> (names shown by repr, names compared, names hashed)
_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _names(kind: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    known = _NAMES.get(kind)
    if known is None:
        declared = fields(kind)
        shown = tuple(f.name for f in declared if f.repr)
        compared = tuple(f.name for f in declared if f.compare)
        hashed = tuple(f.name for f in declared if (f.compare if f.hash is None else f.hash))
        known = _NAMES[kind] = (shown, compared, hashed)
    return known


#: class -> the same fields in a ``dataclass(frozen=True, repr=False, eq=False)`` with dataclasses' own methods
_TWINS: dict[type, type] = {}


def _twin(kind: type) -> type:
    """``kind``'s fields in a class that ``dataclass(frozen=True, repr=False, eq=False)`` makes as usual (its
    ``__init__`` compiled from source): the signature and the argument errors of a record's ``__init__``."""
    twin = _TWINS.get(kind)
    if twin is None:
        namespace: dict[str, Any] = {"__annotations__": {}, "__module__": kind.__module__}
        namespace["__qualname__"] = kind.__qualname__
        for f in fields(kind):
            namespace["__annotations__"][f.name] = f.type
            namespace[f.name] = dataclasses.field(
                default=f.default, default_factory=f.default_factory, repr=f.repr, hash=f.hash, compare=f.compare
            )
        twin = _TWINS[kind] = dataclass(frozen=True, repr=False, eq=False)(type(kind.__name__, (), namespace))
    return twin


class _TwinSignature:
    """The ``__signature__`` of a record class (``inspect.signature`` reads it): its twin's, made when asked."""

    def __get__(self, instance: object, owner: type) -> inspect.Signature | None:
        # (None: inspect computes it as usual, e.g. for a base that is no dataclass)
        return inspect.signature(_twin(owner)) if dataclasses.is_dataclass(owner) else None


class FrozenRecord:
    """``__repr__``, ``__eq__`` and ``__hash__`` of a frozen dataclass, from its fields (see the module)."""

    __slots__ = ()

    #: ``inspect.signature`` of the class: that of dataclasses' generated ``__init__`` (made when first asked)
    __signature__: Any = _TwinSignature()

    def __repr__(self) -> str:
        shown = _names(type(self))[0]
        return f"{type(self).__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _names(type(self))[1]
        return tuple(getattr(self, name) for name in compared) == tuple(getattr(other, name) for name in compared)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in _names(type(self))[2]))


#: ``__dataclass_params__`` of every :func:`record`: those ``dataclass(frozen=True, repr=False, eq=False)`` gives
_PARAMS = vars(dataclass(frozen=True, repr=False, eq=False)(type("_Params", (), {})))["__dataclass_params__"]


@dataclass_transform(eq_default=False, frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: RecordClass) -> RecordClass:
    """``cls`` (a :class:`FrozenRecord`) as ``dataclass(frozen=True, repr=False, eq=False)`` makes it, with the
    methods of this module instead of compiled ones (see the module). Fields are positional-or-keyword, each
    taken by ``__init__`` (no ``init=False``, ``kw_only``, ``InitVar``, ``ClassVar``, ``__post_init__``,
    ``__slots__`` or dataclass bases: those are a ``TypeError`` here)."""
    own = vars(cls)
    for name in ("__setattr__", "__delattr__"):  # as dataclass(frozen=True) says it
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if not issubclass(cls, FrozenRecord) or "__slots__" in own or hasattr(cls, "__post_init__"):
        raise TypeError(f"record: {cls.__name__} needs FrozenRecord as a base, no __slots__ and no __post_init__")
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"record: {cls.__name__} has a dataclass base")
    keeps_init = "__init__" in own  # dataclasses keep an __init__ of the class's own
    dataclass(init=False, repr=False, eq=False)(cls)  # (no method made: nothing compiled)
    declared = fields(cast(Any, cls))
    if len(declared) != len(vars(cls)["__dataclass_fields__"]) or any(not f.init or f.kw_only for f in declared):
        raise TypeError(f"record: {cls.__name__} has a field that is not positional-or-keyword in __init__")
    names = tuple(f.name for f in declared)
    if keeps_init:
        cls.__signature__ = None  # inspect.signature then reads the class's own __init__, as dataclasses keep it
    else:
        defaults = {f.name: f.default for f in declared if f.default is not MISSING}
        factories = {f.name: f.default_factory for f in declared if f.default_factory is not MISSING}
        _method(cls, "__init__", _initializer(cls, names, defaults, factories))
    assign, delete = _frozen_methods(cls, frozenset(names))
    _method(cls, "__setattr__", assign)
    _method(cls, "__delattr__", delete)
    cls.__dataclass_params__ = _PARAMS  # type: ignore[attr-defined]  # (dataclasses' attribute, on any class)
    return cls


def _method(cls: type, name: str, function: Callable[..., Any]) -> None:
    """Set ``function`` on ``cls`` as its method ``name``, named as dataclasses name the methods they make."""
    function.__name__ = name
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    function.__module__ = cls.__module__
    setattr(cls, name, function)


#: records a class makes with the ``__init__`` of :func:`_initializer` before it takes the ``__init__`` dataclasses
#: generate (compiled once, about 0.1 ms): a compare-mt preset report makes 2,445 examples, its other records
#: fewer than 130 each
HOT = 256


def _initializer(
    cls: type, names: tuple[str, ...], defaults: Mapping[str, Any], factories: Mapping[str, Callable[[], Any]]
) -> Callable[..., None]:
    """The ``__init__`` of a record with fields ``names`` (see the module)."""
    setter = object.__setattr__
    count = len(names)
    every = itemgetter(*names) if count > 1 else None  # the values of a call naming every field

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | list[Any] | None:
        """The fields' values of a call, in order; ``None`` when the call does not bind."""
        if every is not None and not args and len(kwargs) == count:
            try:
                return every(kwargs)  # (a tuple: count > 1)
            except KeyError:
                return None
        if len(args) > count:
            return None
        values = list(args)
        named = 0
        for name in names[len(args) :]:
            if name in kwargs:
                values.append(kwargs[name])
                named += 1
            elif name in defaults:
                values.append(defaults[name])
            elif name in factories:
                values.append(factories[name]())
            else:
                return None
        return values if named == len(kwargs) else None  # else a name unknown or also given by position

    made = 0

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        if made == HOT:  # from now on dataclasses' own __init__, about twice as fast as this one
            cls.__init__ = _twin(cls).__init__  # type: ignore[misc]  # (the twin's own __init__, on purpose)
        values = args if len(args) == count and not kwargs else bind(args, kwargs)
        if values is None:  # a call that does not bind: dataclasses' own __init__ raises Python's TypeError
            _twin(cls).__init__(self, *args, **kwargs)  # type: ignore[misc]  # (the twin's own __init__, on purpose)
            return
        for name, value in zip(names, values, strict=True):
            setter(self, name, value)

    return init


def _frozen_methods(cls: type[Any], names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    """``__setattr__`` and ``__delattr__`` of a frozen dataclass ``cls`` with fields ``names``."""

    def assign(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def delete(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return assign, delete
