"""Turn hand-written data (YAML read by ``yaml_text``) into frozen dataclasses, reporting every
problem.

Charts and scenarios are written by people, so a mistake is reported with the file, the line,
the path to the bad value and what would be accepted; unknown keys are errors (a typo must not
be ignored silently). ``build(cls, data, ctx, path)`` reads a dataclass's type hints:

- ``str``, ``int``, ``float`` (finite; ints accepted), ``bool``, ``Literal[...]``, ``X | None``;
- ``tuple[X, ...]`` and fixed ``tuple[X, Y]``, ``dict[str, X]``, nested dataclasses;
- a field's ``metadata`` may hold ``key`` (the YAML name when it differs, e.g. ``from``),
  ``min``/``max`` bounds, and ``check`` (a function returning a problem string or None).

A field with a default may be left out. Problems are gathered, not raised one at a time.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import inspect
import math
import types
import typing
from dataclasses import field
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from tabletop.core.frozen import mutable_dataclass
from tabletop.core.spelling import did_you_mean

C = TypeVar("C")

PathT = tuple[str | int, ...]


def format_path(path: PathT) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # A key is shown as written, unless it would break the one-line message.
            part = part if part.isprintable() else repr(part)
            out += f".{part}" if out else str(part)
    return out


@mutable_dataclass
class Context:
    """Where problems are reported: a file name and the line of each YAML path."""

    source: str
    lines: dict[PathT, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # Checks that run over a partly valid document (bad list items left out) see shifted
    # indexes; an alias maps a shifted prefix back to where the item sits in the file.
    aliases: dict[PathT, PathT] = field(default_factory=dict)
    # Shown after the file and line, before the path (a chart's "entry 'pak-36'").
    label: str | None = None

    def line_of(self, path: PathT) -> int | None:
        for cut in range(len(path), -1, -1):
            line = self.lines.get(path[:cut])
            if line is not None:
                return line
        return None

    def in_file(self, path: PathT) -> PathT:
        """``path`` with aliased prefixes replaced, outermost first."""
        for cut in range(1, len(path) + 1):
            alias = self.aliases.get(path[:cut])
            if alias is not None:
                path = (*alias, *path[cut:])
        return path

    def error(self, path: PathT, message: str) -> None:
        path = self.in_file(path)
        line = self.line_of(path)
        where = f"{self.source}:{line}" if line is not None else self.source
        parts = [where, self.label, format_path(path), message]
        self.problems.append(": ".join(p for p in parts if p))


# --- building dataclasses -------------------------------------------------------------------

_MISSING = object()


class _Invalid(Exception):
    """Raised inside ``_convert`` after recording a problem, to skip the value."""


def build(cls: type[C], data: Any, ctx: Context, path: PathT = ()) -> C | None:
    """Build ``cls`` from ``data``; record problems in ``ctx``; None if anything was wrong."""
    before = len(ctx.problems)
    try:
        value = _convert(cls, data, ctx, path)
    except _Invalid:
        return None
    return value if len(ctx.problems) == before else None


def build_trusted(cls: type[C], data: Any) -> C:
    """Build ``cls`` from data this program validated before (a game file's own copy).

    No checks, only the conversions validation would have made (numbers to float, lists to
    tuples, nested dataclasses), so opening a game does not pay for validating it again.
    The conversion for each type is worked out once per process (``_converter``).
    """
    return typing.cast(C, _trusted(cls, data))


def _trusted(tp: Any, value: Any) -> Any:
    convert = _converter(tp)
    return value if convert is None else convert(value)


Convert = typing.Callable[[Any], Any]


_CONVERTERS: dict[int, tuple[Any, Convert | None]] = {}  # by the type object, as ``_ARGS``


def _converter(tp: Any) -> Convert | None:
    known = _CONVERTERS.get(id(tp))
    if known is not None and known[0] is tp:
        return known[1]
    convert = _make_converter(tp)
    _CONVERTERS[id(tp)] = (tp, convert)
    return convert


def _make_converter(tp: Any) -> Convert | None:
    """The function rebuilding a trusted value of type ``tp``; None where it is kept as is.

    Every converter gives None for None. Unions take the first arm the value fits (as
    validation did), tuples and dicts convert their items, ints become floats where a float
    is wanted, and a non-text value becomes text where text is wanted.

    Opening a game runs these over every stand, terrain point and chart entry it reads, so
    each does as little per value as it can (``map`` over items, a union's tests worked out
    once per type, a dataclass's fields looked up by the keys the data has): the large
    scenario's rebuild in a fresh process went from about 2.6 ms to about 2.0 ms this way.
    """
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_converter(tp)
    origin = _origin(tp)
    if origin in (Union, types.UnionType):
        return _union_converter(tp)
    if origin is tuple:
        args = _args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            each = _converter(args[0])
            if each is None:
                return lambda v: None if v is None else tuple(v)
            one: Convert = each
            return lambda v: None if v is None else tuple(map(one, v))
        items = [_converter(a) or _same for a in args]
        size = len(items)
        if all(c is items[0] for c in items):
            # All items alike, as a point (x, y): one function mapped over them.
            alike = items[0]
            return lambda v: None if v is None else tuple(map(alike, v[:size]))
        return lambda v: None if v is None else tuple(c(x) for c, x in zip(items, v, strict=False))
    if origin is dict:
        item = _converter(_args(tp)[1]) or _same
        return lambda v: None if v is None else {k: item(x) for k, x in v.items()}
    if tp is float:
        return _to_float
    if tp is str:
        return _to_str
    return None


def _same(value: Any) -> Any:
    return value


def _to_float(value: Any) -> Any:
    if type(value) is float:  # most numbers are floats already: the quickest test first
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _to_str(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else str(value)


def _dataclass_converter(cls: type) -> Convert:
    # Worked out on first use, so a dataclass may refer to itself. By the data's key: the
    # loop runs over the keys the value has (a stand gives a handful of its thirty fields).
    plan: dict[str, tuple[str, Convert | None]] = {}

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if not plan:
            hints = _hints(cls)
            for key, f in _fields(cls).items():
                plan[key] = (f.name, _converter(hints[f.name]))
        kwargs: dict[str, Any] = {}
        for key, given in value.items():
            step = plan.get(key)
            if step is not None:
                name, item = step
                kwargs[name] = given if item is None else item(given)
        return cls(**kwargs)

    return convert


def _union_converter(tp: Any) -> Convert:
    arms = [(_fits(arm), _converter(arm)) for arm in _args(tp) if arm is not type(None)]

    def convert(value: Any) -> Any:
        if value is None:
            return None
        for fits, item in arms:
            if fits(value):
                return value if item is None else item(value)
        return value

    return convert


def _fits(tp: Any) -> typing.Callable[[Any], bool]:
    """The test for whether a value took this arm of a union in validation (enough to
    rebuild it), worked out once per type rather than for every value."""
    origin = _origin(tp)
    if dataclasses.is_dataclass(tp) or origin is dict:
        return lambda v: isinstance(v, dict)
    if origin is tuple:
        return lambda v: isinstance(v, (list, tuple))
    if origin is Literal:
        allowed = _args(tp)
        return lambda v: any(v == a and type(v) is type(a) for a in allowed)
    if tp is bool:
        return lambda v: isinstance(v, bool)
    if tp in (int, float):
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if tp is str:
        return lambda v: isinstance(v, str)
    return lambda v: True


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    # Resolving type hints is slow; charts build hundreds of entries of a few classes. Hints
    # that are objects already (a module without postponed annotations) are taken as they
    # are, as ``typing.get_type_hints`` would give them; text is resolved by it.
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        for name, tp in inspect.get_annotations(base).items():
            if isinstance(tp, str | typing.ForwardRef) or _has_text(tp):
                return typing.get_type_hints(cls)
            hints[name] = type(None) if tp is None else tp
    return hints


def _has_text(tp: Any) -> bool:
    """Whether a hint holds a forward reference (text) anywhere inside."""
    return any(
        isinstance(a, str | typing.ForwardRef) or _has_text(a)
        for a in get_args(tp)
        if get_origin(tp) is not Literal
    )


@functools.cache
def _fields(cls: type) -> dict[str, dataclasses.Field[Any]]:
    return {f.metadata.get("key", f.name): f for f in dataclasses.fields(cls) if f.init}


def _describe(tp: Any, many: bool = False) -> str:
    """What a value of type ``tp`` looks like in YAML; ``many`` for the items of a list."""
    origin = get_origin(tp)
    if tp is str:
        return "text"
    if tp is int:
        return "whole numbers" if many else "a whole number"
    if tp is float:
        return "numbers" if many else "a number"
    if tp is bool:
        return "true or false"
    if tp is type(None):
        return "null"
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a, many) for a in get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = _describe(args[0], many=True)
            return f"lists of {inner}" if many else f"a list of {inner}"
        return f"lists of {len(args)} values" if many else f"a list of {len(args)} values"
    if origin is dict or dataclasses.is_dataclass(tp):
        return "mappings" if many else "a mapping"
    return str(tp)


@functools.cache
def _origin(tp: Any) -> Any:
    return get_origin(tp)


# Keyed by the object, not by equality: Literal["a", "b"] == Literal["b", "a"], and the order
# of a Literal's values is the order a problem lists them in. The type is kept, so its id
# stays its own.
_ARGS: dict[int, tuple[Any, tuple[Any, ...]]] = {}


def _args(tp: Any) -> tuple[Any, ...]:
    known = _ARGS.get(id(tp))
    if known is not None and known[0] is tp:
        return known[1]
    args = get_args(tp)
    _ARGS[id(tp)] = (tp, args)
    return args


def _convert(tp: Any, value: Any, ctx: Context, path: PathT) -> Any:
    origin = _origin(tp)
    if origin in (Union, types.UnionType):
        args = _args(tp)
        if value is None and type(None) in args:
            return None
        others = [a for a in args if a is not type(None)]
        if len(others) == 1:
            # ``X | None`` with a value: X's own message ("at[0]: expected a finite number")
            # says more than "expected X or null".
            return _convert(others[0], value, ctx, path)
        for arg in args:
            if arg is type(None):
                continue
            trial = Context(ctx.source, ctx.lines)
            try:
                result = _convert(arg, value, trial, path)
            except _Invalid:
                continue
            if not trial.problems:
                return result
        return _fail(ctx, path, f"expected {_describe(tp)}, got {value!r}")
    if origin is Literal:
        allowed = _args(tp)
        if any(value == a and type(value) is type(a) for a in allowed):
            return value
        hint = did_you_mean(str(value), [str(a) for a in allowed])
        return _fail(
            ctx, path, f"{value!r} is not accepted (accepted: {', '.join(map(str, allowed))}){hint}"
        )
    if tp is Any:
        return value
    if tp is str:
        if isinstance(value, str) and value.strip():
            return value
        # YAML reads 1943-06-06 as a date and 12 as a number; as text they mean what was typed.
        if isinstance(value, int | float | datetime.date) and not isinstance(value, bool):
            return str(value)
        return _fail(ctx, path, f"expected {_describe(tp)}, got {value!r}")
    if tp is bool:
        if isinstance(value, bool):
            return value
        return _fail(ctx, path, f"expected true or false, got {value!r}")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return _fail(ctx, path, f"expected a whole number, got {value!r}")
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                return _fail(ctx, path, f"expected a finite number, got {value!r}")
            return float(value)
        return _fail(ctx, path, f"expected a number, got {value!r}")
    if origin is tuple:
        args = _args(tp)
        if not isinstance(value, list | tuple):
            return _fail(ctx, path, f"expected {_describe(tp)}, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            items = [_try(args[0], v, ctx, (*path, i)) for i, v in enumerate(value)]
        else:
            if len(value) != len(args):
                return _fail(ctx, path, f"expected {len(args)} values, got {len(value)}")
            items = [
                _try(a, v, ctx, (*path, i))
                for i, (a, v) in enumerate(zip(args, value, strict=True))
            ]
        if any(item is _MISSING for item in items):
            raise _Invalid
        return tuple(items)
    if origin is dict:
        key_tp, value_tp = _args(tp)
        if not isinstance(value, dict):
            return _fail(ctx, path, f"expected a mapping, got {value!r}")
        out = {}
        bad = False
        for k, v in value.items():
            converted_key = _try(key_tp, k, ctx, (*path, str(k)))
            converted = _try(value_tp, v, ctx, (*path, str(k)))
            if converted is _MISSING or converted_key is _MISSING:
                bad = True
            else:
                out[converted_key] = converted
        if bad:
            raise _Invalid
        return out
    if dataclasses.is_dataclass(tp):
        return _build_dataclass(tp, value, ctx, path)
    raise TypeError(f"schema cannot handle type {tp!r}")


def _try(tp: Any, value: Any, ctx: Context, path: PathT) -> Any:
    try:
        return _convert(tp, value, ctx, path)
    except _Invalid:
        return _MISSING


def _fail(ctx: Context, path: PathT, message: str) -> Any:
    ctx.error(path, message)
    raise _Invalid


def _build_dataclass(cls: Any, value: Any, ctx: Context, path: PathT) -> Any:
    if not isinstance(value, dict):
        return _fail(ctx, path, f"expected a mapping, got {value!r}")
    hints = _hints(cls)
    fields = _fields(cls)
    bad = False
    for key in value:
        if key not in fields:
            accepted = ", ".join(fields)
            ctx.error(
                (*path, str(key)),
                f"unknown key {key!r} (accepted: {accepted}){did_you_mean(str(key), fields)}",
            )
            bad = True
    kwargs: dict[str, Any] = {}
    for key, f in fields.items():
        sub = (*path, key)
        if key not in value:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                ctx.error(path, f"missing required key {key!r}")
                bad = True
            continue
        converted = _try(hints[f.name], value[key], ctx, sub)
        if converted is _MISSING:
            bad = True
            continue
        problem = _check_bounds(f, converted)
        if problem:
            ctx.error(sub, problem)
            bad = True
            continue
        kwargs[f.name] = converted
    if bad:
        raise _Invalid
    return cls(**kwargs)


def _check_bounds(f: dataclasses.Field[Any], value: Any) -> str | None:
    low = f.metadata.get("min")
    high = f.metadata.get("max")
    if isinstance(value, int | float) and not isinstance(value, bool):
        shown = f"{value:g}" if isinstance(value, float) else repr(value)  # 400, not 400.0
        if low is not None and value < low:
            return f"{shown} is too small (at least {low})"
        if high is not None and value > high:
            return f"{shown} is too large (at most {high})"
    check = f.metadata.get("check")
    if check is not None and value is not None:
        return typing.cast(str | None, check(value))
    return None


def bounded(default: Any = dataclasses.MISSING, **meta: Any) -> Any:
    """A dataclass field with validation metadata (``min``, ``max``, ``check``, ``key``)."""
    if default is dataclasses.MISSING:
        return field(metadata=meta)
    if isinstance(default, list | dict | set):
        raise TypeError("use a tuple or None for mutable defaults")
    return field(default=default, metadata=meta)
