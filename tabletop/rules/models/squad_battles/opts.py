"""Typed ``--set KEY=VALUE`` options for squad-battles fire and procedures.

Each option says its kind, default and limits; ``parse`` checks what was given and reports
a bad value as one line quoting it with what would be accepted (exit 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass

Kind = Literal["int", "number", "bool", "choice", "text", "numbers", "units"]


@frozen_dataclass
class Opt:
    key: str
    help: str
    kind: Kind = "number"
    default: Any = None
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None

    def describe(self) -> str:
        text = self.help
        if self.choices:
            text += f" ({'|'.join(self.choices)})"
        if self.default is not None and self.default is not False and self.default != ():
            shown = str(self.default).lower() if isinstance(self.default, bool) else self.default
            text += f"; default {shown}"
        return text

    def accepted(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "numbers":
            return "numbers separated by commas, like 10,0,25"
        if self.kind == "units":
            return "units separated by commas, like team:10,leader,vehicle:4"
        bounds = []
        if self.min is not None:
            bounds.append(f">= {self.min:g}")
        if self.max is not None:
            bounds.append(f"<= {self.max:g}")
        what = "a whole number" if self.kind == "int" else "a number"
        return what + (f" {' and '.join(bounds)}" if bounds else "")


def describe(opts: Iterable[Opt]) -> dict[str, str]:
    return {o.key: o.describe() for o in opts}


def _bad(opt: Opt, value: Any) -> BadInput:
    return BadInput(f"--set {opt.key}={value!r}: expected {opt.accepted()}")


def _number(opt: Opt, value: Any) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _bad(opt, value)
    try:
        number = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise _bad(opt, value) from None
    if opt.kind == "int" and number.denominator != 1:
        raise _bad(opt, value)
    if (opt.min is not None and number < Fraction(str(opt.min))) or (
        opt.max is not None and number > Fraction(str(opt.max))
    ):
        raise _bad(opt, value)
    return number


def convert(opt: Opt, value: Any) -> Any:
    if opt.kind == "bool":
        if isinstance(value, bool):
            return value
        if value in (0, 1):
            return bool(value)
        raise _bad(opt, value)
    if opt.kind == "choice":
        text = str(value).strip()
        for choice in opt.choices:
            if text.lower() == choice.lower():
                return choice
        raise _bad(opt, value)
    if opt.kind == "text":
        return str(value)
    if opt.kind == "units":  # stands give a list; --set text is read by the procedure
        return value if isinstance(value, list) else str(value)
    if opt.kind == "numbers":
        parts = [p for p in str(value).replace(" ", "").split(",") if p]
        if not parts:
            raise _bad(opt, value)
        return [_number(opt, p) for p in parts]
    number = _number(opt, value)
    return int(number) if opt.kind == "int" else number


def parse(opts: Sequence[Opt], given: Mapping[str, Any]) -> dict[str, Any]:
    """The options with defaults filled in; unknown keys are refused."""
    by_key = {o.key: o for o in opts}
    unknown = sorted(set(given) - set(by_key))
    if unknown:
        raise BadInput(f"--set {unknown[0]!r}: not an option here (accepted: {', '.join(by_key)})")
    out: dict[str, Any] = {}
    for opt in opts:
        if opt.key in given and given[opt.key] is not None:
            out[opt.key] = convert(opt, given[opt.key])
        elif opt.default is not None and opt.kind in ("int", "number"):
            out[opt.key] = convert(opt, opt.default)
        else:
            out[opt.key] = opt.default
    return out
