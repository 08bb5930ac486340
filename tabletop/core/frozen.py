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
Methods a class writes itself are kept, as ``dataclass`` keeps them.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

# Per class: the fields compared (and hashed) as one getter returning a tuple, and the
# names shown by repr. Worked out on first use, then looked up.
_COMPARED: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}


def _compared(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    getter = _COMPARED.get(cls)
    if getter is None:
        names = [f.name for f in dataclasses.fields(cls) if f.compare]
        if len(names) == 1:  # attrgetter of one name returns the value, not a tuple
            one = attrgetter(names[0])
            getter = lambda obj: (one(obj),)  # noqa: E731
        elif names:
            getter = attrgetter(*names)
        else:
            getter = lambda obj: ()  # noqa: E731
        _COMPARED[cls] = getter
    return getter


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    values = _compared(self.__class__)
    return values(self) == values(other)


def _hash(self: Any) -> int:
    # A frozen dataclass hashes the fields it compares (``field(hash=...)`` is not used here).
    return hash(_compared(self.__class__)(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    cls = self.__class__
    names = _SHOWN.get(cls)
    if names is None:
        names = _SHOWN[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.repr)
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{cls.__qualname__}({shown})"


def _shared(cls: type[T]) -> type[T]:
    for name, method in (("__eq__", _eq), ("__repr__", _repr)):
        if name not in cls.__dict__:
            setattr(cls, name, method)
    # Python sets ``__hash__ = None`` on a class whose body writes ``__eq__``; a frozen
    # dataclass hashes all the same unless the body writes ``__hash__`` itself.
    if cls.__dict__.get("__hash__") is None:
        cls.__hash__ = _hash  # type: ignore[method-assign]
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
