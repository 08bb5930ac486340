"""Reading a procedure's ``--set KEY=VALUE`` options, with one-line messages for mistakes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.core.errors import BadInput
from tabletop.rules.models.typhoon.tables import Tables, Unit, Weapon


class Opts:
    def __init__(self, procedure: str, options: Mapping[str, Any], t: Tables):
        self.procedure = procedure
        self.o = dict(options)
        self.t = t

    def given(self, key: str) -> bool:
        return key in self.o

    def _missing(self, key: str, what: str) -> BadInput:
        return BadInput(f"typhoon {self.procedure} needs --set {key}=... ({what})")

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.o.get(key, default)
        if not isinstance(value, bool):
            raise BadInput(f"--set {key}={value!r}: give true or false")
        return value

    def number(
        self,
        key: str,
        default: float | None = None,
        low: float | None = 0,
        high: float | None = None,
        what: str = "a number",
    ) -> float:
        value = self.o.get(key, default)
        if value is None:
            raise self._missing(key, what)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadInput(f"--set {key}={value!r}: give {what}")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"{low:g} to {high:g}" if high is not None else f"{low:g} or more"
            raise BadInput(f"--set {key}={value!r}: give {span}")
        return float(value)

    def whole(
        self,
        key: str,
        default: int | None = None,
        low: int | None = 0,
        high: int | None = None,
        what: str = "a whole number",
    ) -> int:
        value = self.o.get(key, default)
        if value is None:
            raise self._missing(key, what)
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(f"--set {key}={value!r}: give a whole number")
        return int(self.number(key, value, low, high, what))

    def choice(self, key: str, allowed: tuple[str, ...], default: str | None = None) -> str:
        value = self.o.get(key, default)
        if value is None:
            raise self._missing(key, "one of " + ", ".join(allowed))
        if value not in allowed:
            raise BadInput(f"--set {key}={value!r}: accepted {', '.join(allowed)}")
        return str(value)

    def unit(self, key: str, required: bool = False) -> Unit | None:
        value = self.o.get(key)
        if value is None:
            if required:
                raise self._missing(key, "a unit profile id from charts/models/typhoon.yaml")
            return None
        units = self.t.units
        if value not in units:
            raise BadInput(
                f"--set {key}={value!r}: not a typhoon unit profile "
                f"(profiles: {', '.join(sorted(units))})"
            )
        return units[str(value)]

    def weapon(self, key: str, default: str | None = None) -> Weapon:
        value = self.o.get(key, default)
        if value is None:
            raise self._missing(key, "a weapon id from charts/models/typhoon.yaml")
        weapons = self.t.weapons
        if value not in weapons:
            raise BadInput(
                f"--set {key}={value!r}: not a typhoon weapon (weapons: {', '.join(weapons)})"
            )
        return weapons[str(value)]
