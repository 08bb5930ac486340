"""Reading ``--set KEY=VALUE`` options with one-line errors that quote the input."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput


class Reader:
    """Typed access to a procedure's options; every bad value is a ``BadInput``."""

    def __init__(self, options: Mapping[str, Any]):
        self.options = options

    def given(self, key: str) -> bool:
        return self.options.get(key) is not None

    def _bad(self, key: str, expected: str) -> BadInput:
        return BadInput(f"--set {key}={self.options[key]!r}: expected {expected}")

    def integer(
        self, key: str, default: int | None, low: int | None = 0, high: int | None = None
    ) -> int:
        value = self.options.get(key)
        if value is None:
            if default is None:
                raise BadInput(f"give --set {key}=N ({_span(low, high, 'a whole number')})")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._bad(key, _span(low, high, "a whole number"))
        if (low is not None and value < low) or (high is not None and value > high):
            raise self._bad(key, _span(low, high, "a whole number"))
        return value

    def number(
        self,
        key: str,
        default: Fraction | int | None,
        low: Fraction | int | None = 0,
        high: Fraction | int | None = None,
    ) -> Fraction:
        value = self.options.get(key)
        if value is None:
            if default is None:
                raise BadInput(f"give --set {key}=N ({_span(low, high, 'a number')})")
            return Fraction(default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._bad(key, _span(low, high, "a number"))
        exact = Fraction(str(value))  # as typed: 1.1 is 11/10, not the nearest binary float
        if (low is not None and exact < low) or (high is not None and exact > high):
            raise self._bad(key, _span(low, high, "a number"))
        return exact

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.options.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def choice(self, key: str, default: str | None, choices: Iterable[str]) -> str:
        allowed = list(choices)
        value = self.options.get(key)
        if value is None:
            if default is None:
                raise BadInput(f"give --set {key}=... (one of {', '.join(allowed)})")
            return default
        if str(value) not in allowed:
            raise self._bad(key, f"one of {', '.join(allowed)}")
        return str(value)

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.options.get(key)
        return default if value is None else str(value)


def _span(low: Any, high: Any, what: str) -> str:
    if low is not None and high is not None:
        return f"{what} from {low} to {high}"
    if low is not None:
        return f"{what}, at least {low}"
    return what
