"""``@frozen_dataclass``: a frozen dataclass whose equality, hash and repr are written once.

``dataclasses.dataclass`` writes the source of six methods for every frozen class and
compiles each (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): about 0.55 ms a class as a command starts, and a command that reads the
table defines some forty of them, a sixth of what it costs above its libraries
(docs/performance.md). Equality, hash and repr do the same thing in every class, reading the
fields in order, so ``frozen_dataclass`` lets ``dataclass`` write the other three and gives
every such class the three below, written once. What they do is exactly what ``dataclass`` would
generate: equal when of the same class with equal fields (those not ``compare=False``), the
hash of those fields, and ``Name(field=value, ...)`` over the fields not ``repr=False``.
Methods a class writes itself are kept, as ``dataclass`` keeps them. One difference shows:
``__dataclass_params__`` says ``eq=False, repr=False``, as the methods come from here.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of an object, as one tuple (attrgetter runs in C)."""
    if len(names) == 1:  # attrgetter of one name returns the value, not a tuple
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if names:
        return attrgetter(*names)
    return lambda obj: ()


def _shared(cls: type[T]) -> type[T]:
    """Give ``cls`` equality, hash and repr over its fields, unless it writes its own.

    Closures, not generated source: making three functions from code compiled once costs
    microseconds where ``dataclass`` compiles each for every class."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    compared = _values([f.name for f in fields if f.compare])
    shown = tuple(f.name for f in fields if f.repr)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return compared(self) == compared(other)

    def __hash__(self: Any) -> int:
        # As a frozen dataclass: the hash of the fields it compares.
        return hash(compared(self))

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    # A body that writes ``__eq__`` gets ``__hash__ = None`` from Python, and a frozen
    # dataclass hashes it all the same; only a ``__hash__`` the body writes itself (None
    # included, to be unhashable) is kept.
    own_hash = "__hash__" in cls.__dict__ and not (
        cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__
    )
    for method in (__eq__, __repr__):
        if method.__name__ not in cls.__dict__:
            method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
            setattr(cls, method.__name__, method)
    if not own_hash:
        __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
        cls.__hash__ = __hash__  # type: ignore[method-assign]
    return cls


@overload
def frozen_dataclass(cls: type[T], /) -> type[T]: ...
@overload
def frozen_dataclass(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen_dataclass(cls: type[T] | None = None, /, *, kw_only: bool = False) -> Any:
    """``@dataclass(frozen=True)`` (``kw_only`` as there), equality, hash and repr shared."""

    def wrap(cls: type[T]) -> type[T]:
        built = dataclasses.dataclass(frozen=True, kw_only=kw_only, eq=False, repr=False)(cls)
        return _shared(built)

    return wrap if cls is None else wrap(cls)
