"""``@frozen_dataclass`` and ``@mutable_dataclass``: dataclasses whose methods cost next to
nothing to make.

``dataclasses.dataclass`` writes the source of six methods for every frozen class and
compiles each (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): about 0.3 to 0.6 ms a class as a command starts, and a command that reads
the table defines some fifty of them, a fifth of what it costs above its libraries
(docs/performance.md). Five of the six do the same thing in every class, reading the fields
in order, so every such class gets those five below, written once, as closures; only
``__init__`` differs by class, and its text, the very text ``dataclass`` writes, is compiled
once for every process and kept in the cache folder (``_compiled``). ``dataclass`` itself
still reads the fields (``fields``, ``replace`` and ``asdict`` work as ever). What the methods
do is exactly what ``dataclass`` would generate: the same ``__init__`` signature and
defaults; equal when of the same class with equal fields (those not ``compare=False``), the
hash of those fields, ``Name(field=value, ...)`` over the fields not ``repr=False``; a field
neither assigned nor deleted (``FrozenInstanceError``). Methods a class writes itself are
kept, as ``dataclass`` keeps them (``__setattr__`` and ``__delattr__`` refused, as there).
One difference shows: ``__dataclass_params__`` says ``init=False, eq=False, repr=False,
frozen=False``, as the methods come from here; so a class made here and one made by
``dataclass(frozen=True)`` may not inherit from each other (``dataclass`` refuses a frozen
class over a class it thinks is not, and the reverse).

``@mutable_dataclass`` is ``@dataclass`` made the same way: its ``__init__`` the text
``dataclass`` writes (plain assignments), equality and repr shared, no hash (equal by value
and changeable), as ``dataclass`` leaves such a class: every changeable dataclass of the
program is made so. A class with an ``InitVar`` is refused (``fields`` does not show it, so
the ``__init__`` written here could not take it): such a class keeps ``dataclass``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import marshal
import os
import reprlib
import sys
from collections.abc import Callable
from operator import attrgetter
from types import CodeType
from typing import Any, TypeVar, dataclass_transform, overload

from tabletop.core import cache

T = TypeVar("T")


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of an object, as one tuple (attrgetter runs in C)."""
    if len(names) == 1:  # attrgetter of one name returns the value, not a tuple
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if names:
        return attrgetter(*names)
    return lambda obj: ()


def _shared(cls: type[T], frozen: bool) -> type[T]:
    """Give ``cls`` equality, hash and repr over its fields, unless it writes its own; a
    class that is not ``frozen`` no hash, as ``dataclass`` makes it (unless it writes one).

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
    if own_hash:
        return cls
    if frozen:
        __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
        cls.__hash__ = __hash__  # type: ignore[method-assign]
    else:
        # Equal by value and changeable: unhashable, as ``dataclass`` leaves such a class.
        cls.__hash__ = None  # type: ignore[assignment]
    return cls


def _frozen(cls: type[T]) -> type[T]:
    """Give ``cls`` the ``__setattr__`` and ``__delattr__`` of a frozen dataclass, as shared
    closures rather than source compiled for each class: refused for a field, and for any
    name on an instance of ``cls`` itself (a subclass that is no dataclass may add its own
    attributes), as the generated ones refuse."""
    names = frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for method in (__setattr__, __delattr__):
        if method.__name__ in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {method.__name__} in class {cls.__name__}")
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    return cls


_MISSING = dataclasses.MISSING
# How ``dataclass`` marks an InitVar among a class's fields (which ``fields`` leaves out).
_INITVAR = dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
# The marker ``dataclass`` gives an argument whose default is made by a factory.
_FACTORY = dataclasses._HAS_DEFAULT_FACTORY  # type: ignore[attr-defined]


def _init(cls: type[T], frozen: bool) -> None:
    """Give ``cls`` the ``__init__`` that ``dataclass`` writes, the same text: each field
    set (through ``object.__setattr__`` when ``frozen``: the class refuses its own), a default
    factory called when its argument is left out, fields without ``init`` left to their
    class default, keyword-only fields after a ``*``, then ``__post_init__``. Its code comes
    from ``_compiled``, which compiles each text once for every process."""
    space: dict[str, Any] = {
        "__dataclass_builtins_object__": object,
        "_HAS_DEFAULT_FACTORY": _FACTORY,
        "_return_type": None,
    }
    params: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        space[f"_type_{f.name}"] = f.type
        if f.init:
            default = ""
            if f.default is not _MISSING:
                space[f"_dflt_{f.name}"] = f.default
                default = f"=_dflt_{f.name}"
            elif f.default_factory is not _MISSING:
                default = "=_HAS_DEFAULT_FACTORY"
            if not f.kw_only:
                if default:
                    seen_default = True
                elif seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
            (keyword if f.kw_only else params).append(f"{f.name}:_type_{f.name}{default}")
        if f.default_factory is not _MISSING:
            space[f"_dflt_{f.name}"] = f.default_factory
            value = (
                f"_dflt_{f.name}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
                if f.init
                else f"_dflt_{f.name}()"
            )
        elif f.init:
            value = f.name
        else:
            continue  # read from the class's default, as ``dataclass`` leaves it
        body.append(
            f"  __dataclass_builtins_object__.__setattr__(self,{f.name!r},{value})"
            if frozen
            else f"  self.{f.name}={value}"
        )
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    if keyword:
        params += ["*", *keyword]
    lines = [f"def __init__({','.join(['self', *params])})->_return_type:", *(body or ["  pass"])]
    made: dict[str, Any] = {}
    exec(_compiled("\n".join(lines), cls.__module__), space, made)
    init = made["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]


# Compiling the text of an ``__init__`` is most of what making a dataclass costs (0.1 to
# 0.5 ms by its fields; a command defines fifty and more); loading the compiled code is forty
# times quicker. So the code of each text is kept in the cache folder (``core/cache.py``), one
# file for each module that defines such classes, holding its texts and their code: a module's
# file is read once, as its first class is made (one file a class cost a command 3 ms in
# opening files alone, docs/performance.md), and written again when a text is new to it.
# Python keeps its own modules' code beside them in the same way (``__pycache__``); the folder
# is named by the interpreter's exact version, as code does not carry over between versions.
# The first number counts changes to how the texts are compiled or kept here.
_CODE_FOLDER = f"code-2-{sys.implementation.cache_tag}-{sys.hexversion:x}"
_FILENAME = "<frozen_dataclass>"
# A module's file keeps the texts of its classes as they were and as they are; past this
# many, only those this process made are kept (the rest came from code since changed).
_KEPT_MOST = 256

# By module: the texts read from its file or compiled since, with their code (``_compiled``).
_kept: dict[str, dict[str, CodeType]] = {}
# By module: the texts this process made classes of.
_used: dict[str, set[str]] = {}


def _compiled(text: str, module: str) -> CodeType:
    """The code of ``text``, an ``__init__`` of a class of ``module``: kept by the module's
    file in the cache folder, else compiled and the file written again."""
    kept = _kept.get(module)
    if kept is None:
        kept = _kept[module] = _read_kept(module)
    _used.setdefault(module, set()).add(text)
    code = kept.get(text)
    if code is not None:
        return code
    # Not under this module's own ``from __future__`` (as ``dataclass`` compiles it).
    code = kept[text] = compile(text, _FILENAME, "exec", dont_inherit=True)
    if len(kept) > _KEPT_MOST:
        kept = _kept[module] = {t: kept[t] for t in _used[module]}
    path = _kept_path(module)
    if path is not None:
        with contextlib.suppress(OSError, ValueError):  # a read-only cache: compiled again
            cache.write_atomically(path, marshal.dumps(kept))
    return code


def _kept_path(module: str) -> str | None:
    folder = cache.cache_dir()
    if folder is None:
        return None
    return os.path.join(folder, _CODE_FOLDER, f"{module}.marshal")


def _read_kept(module: str) -> dict[str, CodeType]:
    """The texts and code kept in ``module``'s file; none when it is missing or damaged."""
    path = _kept_path(module)
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            kept = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # none kept yet, or unreadable: compiled as asked and kept again
    if not isinstance(kept, dict):
        return {}
    return {t: c for t, c in kept.items() if isinstance(t, str) and isinstance(c, CodeType)}


def _made(cls: type[T], kw_only: bool, frozen: bool) -> type[T]:
    """``cls`` made a dataclass: ``dataclass`` reads the fields and writes none of the
    methods; those are written here (``_init``, ``_frozen``, ``_shared``). A class without a
    docstring gets the one ``dataclass`` gives it, its name and signature, once its
    ``__init__`` is in place."""
    undocumented = cls.__dict__.get("__doc__") is None
    if undocumented:
        cls.__doc__ = cls.__name__  # for now: spares ``dataclass`` a signature
    built = dataclasses.dataclass(init=False, eq=False, repr=False, kw_only=kw_only)(cls)
    # ``fields`` leaves an InitVar out, so the ``__init__`` written here would leave it out.
    pseudo = vars(built)["__dataclass_fields__"].values()
    if any(getattr(f, "_field_type", None) is _INITVAR for f in pseudo):
        raise TypeError(f"{cls.__qualname__}: an InitVar needs dataclass's own __init__")
    _init(built, frozen)
    if undocumented:
        built.__doc__ = _SignatureDoc()  # type: ignore[assignment]
    return _shared(_frozen(built) if frozen else built, frozen)


class _SignatureDoc:
    """The docstring ``dataclass`` gives a class without one, its name and signature, made
    when it is first read (``help``, ``inspect.getdoc``) rather than as the class is made:
    the signature costs 10 us a class, 0.8 ms as a command starts, for words hardly ever
    read. Python reads a class's ``__doc__`` through a descriptor kept under that name, and
    the words then replace it."""

    def __get__(self, obj: object, cls: type | None = None) -> str:
        owner = type(obj) if cls is None else cls
        doc = owner.__name__ + str(inspect.signature(owner)).replace(" -> None", "")
        if owner.__dict__.get("__doc__") is self:
            owner.__doc__ = doc
        return doc


@overload
def frozen_dataclass(cls: type[T], /) -> type[T]: ...
@overload
def frozen_dataclass(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen_dataclass(cls: type[T] | None = None, /, *, kw_only: bool = False) -> Any:
    """``@dataclass(frozen=True)`` (``kw_only`` as there), its methods made here."""

    def wrap(cls: type[T]) -> type[T]:
        return _made(cls, kw_only, frozen=True)

    return wrap if cls is None else wrap(cls)


@overload
def mutable_dataclass(cls: type[T], /) -> type[T]: ...
@overload
def mutable_dataclass(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def mutable_dataclass(cls: type[T] | None = None, /, *, kw_only: bool = False) -> Any:
    """``@dataclass`` (``kw_only`` as there: fields that may change, equal by value, no
    hash), its methods made as ``frozen_dataclass`` makes them."""

    def wrap(cls: type[T]) -> type[T]:
        return _made(cls, kw_only, frozen=False)

    return wrap if cls is None else wrap(cls)
