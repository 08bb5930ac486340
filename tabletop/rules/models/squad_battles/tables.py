"""The Squad Battles chart (``charts/models/squad_battles.yaml``): schemas and typed access.

Every entry names its ``table``. Entry ids must be unique across the whole file (charts are
overlaid by id), so the keyed tables prefix their ids (``quality-B``, ``terrain-woods``,
``fort-trench``); ``Tables`` strips the prefix for lookups.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from tabletop.core.errors import BadInput, ChartError
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.data.charts import Entry
from tabletop.data.schema import bounded

CHART = "squad_battles"

ReliabilityLetter = Literal["X", "A", "B", "C", "D", "E", "F"]
Load = Literal[
    "standard", "smoke", "wp-smoke", "illumination", "mine", "chemical", "demolition", "clearing"
]
Level = Literal["platoon", "company", "battalion", "regiment", "brigade", "division"]
MineEffect = Literal["none", "immobile", "destroyed"]


@frozen_dataclass(kw_only=True)
class Scale(Entry):
    inches_per_hex: float = bounded(min=0.01, max=100)
    metres_per_hex: float = bounded(min=1, max=10_000)
    seconds_per_turn: int = bounded(min=1, max=86_400)


@frozen_dataclass(kw_only=True)
class Param(Entry):
    """One number of the rules: a multiplier, a threshold, a parameter data value."""

    value: float
    unit: str | None = None


@frozen_dataclass(kw_only=True)
class Quality(Entry):
    """A quality letter: its numeric value and the optional quality loss modifier."""

    value: int = bounded(min=0, max=10)
    loss_modifier: float = bounded(min=0, max=10)
    leaders_only: bool = False
    political: bool = False


@frozen_dataclass(kw_only=True)
class Reliability(Entry):
    """How far a weapon's effectiveness may fall each time it fires, and its rank (A=6)."""

    min_percent: int = bounded(min=1, max=100)
    rank: int = bounded(min=0, max=6)


@frozen_dataclass(kw_only=True)
class CommandLevel(Entry):
    radius: int = bounded(min=0, max=1000)


@frozen_dataclass(kw_only=True)
class Terrain(Entry):
    """Protection and height (for concealment) of a table terrain kind (``terrain-<kind>``)."""

    protection: float = bounded(min=0, max=100)
    height_m: float = bounded(0.0, min=0, max=100)
    covered: bool = False
    fortification: str | None = None
    crater: bool = False
    feature: str | None = None  # a hexside entry the unit gets by occupying it (stream, gully)
    obstacle: Literal["obstacles", "barriers", "craters"] | None = None


@frozen_dataclass(kw_only=True)
class Fortification(Entry):
    protection: float | None = bounded(None, min=0, max=100)
    protection_as: str | None = None  # caves protect as pillboxes
    vehicles: bool = False
    overhead: bool = False
    cave: bool = False


@frozen_dataclass(kw_only=True)
class Hexside(Entry):
    protection: float = bounded(min=0, max=100)
    occupied: bool = False  # the benefit comes from being in the hex, not from fire crossing
    cd_kinds: tuple[str, ...] = ()


@frozen_dataclass(kw_only=True)
class Mine(Entry):
    standing: tuple[int, int] = (0, 0)  # casualties (low, high) to infantry not on the ground
    on_ground: tuple[int, int] = (0, 0)
    infantry_trips: bool = True
    vehicles_trip: bool = True
    soft_vehicle: MineEffect = "none"
    hard_vehicle: MineEffect = "none"
    water_only: bool = False
    visible: bool = False


@frozen_dataclass(kw_only=True)
class Objective(Entry):
    unknown_name: str
    changes_owner: bool = True


@frozen_dataclass(kw_only=True)
class Demolition(Entry):
    percent: int = bounded(min=0, max=100)


@frozen_dataclass(kw_only=True)
class Profile(Entry):
    """A weapon (with its load), a team, a leader or a vehicle."""

    kind: Literal["weapon", "team", "leader", "vehicle"]
    name: str | None = None
    lethality: float | None = bounded(None, min=0, max=100_000)
    penetration: float | None = bounded(None, min=0, max=10_000)
    range: int | None = bounded(None, min=0, max=10_000)
    reliability: ReliabilityLetter | None = None
    crew: int = bounded(1, min=0, max=100)
    single_use: bool = False
    indirect: bool = False
    guided: bool = False
    sniper: bool = False
    vehicle_only: bool = False
    ground_only: bool = False
    anti_tank: bool = False
    explosion_radius: int = bounded(0, min=0, max=50)
    explosion_length: int = bounded(0, min=0, max=50)
    load: Load = "standard"
    men: int | None = bounded(None, min=1, max=1000)
    quality: str | None = None
    weapon: str | None = None
    carried: int | None = bounded(None, min=1, max=1000)
    armour: float | None = bounded(None, min=0, max=10_000)
    stacking: int | None = bounded(None, min=0, max=1000)
    level: Level | None = None
    political: bool = False
    horse: bool = False
    flying: bool = False

    @property
    def label(self) -> str:
        return self.name or self.id


SCHEMAS: dict[str, type[Entry]] = {
    "scale": Scale,
    "param": Param,
    "quality": Quality,
    "reliability": Reliability,
    "command": CommandLevel,
    "terrain": Terrain,
    "fortification": Fortification,
    "hexside": Hexside,
    "mine": Mine,
    "objective": Objective,
    "demolition": Demolition,
    "profile": Profile,
}

PREFIX = {
    "quality": "quality-",
    "reliability": "reliability-",
    "command": "level-",
    "terrain": "terrain-",
    "fortification": "fort-",
    "hexside": "hexside-",
    "mine": "mine-",
    "objective": "objective-",
    "demolition": "demolition-",
}


def frac(value: float | int | Fraction) -> Fraction:
    """A chart number as an exact fraction (0.1 means one tenth, not its binary neighbour)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(str(value))


class Tables:
    """The chart's tables, keyed without their id prefixes, with the cross-checks applied."""

    def __init__(self, raw: dict[str, dict[str, Any]]):
        self.raw = raw
        self.by_table: dict[str, dict[str, Any]] = {}
        self._params: dict[str, Fraction] = {}
        for table, entries in raw.items():
            prefix = PREFIX.get(table, "")
            self.by_table[table] = {k.removeprefix(prefix): v for k, v in entries.items()}
        problems = self._check()
        if problems:
            raise ChartError(problems)

    # --- lookups --------------------------------------------------------------------------

    def param(self, key: str) -> Fraction:
        found = self._params.get(key)
        if found is None:
            found = self._params[key] = frac(self.by_table["param"][key].value)
        return found

    def entry(self, table: str, key: str) -> Any:
        return self.by_table[table][key]

    def keys(self, table: str) -> list[str]:
        return list(self.by_table[table])

    @property
    def scale(self) -> Scale:
        scale: Scale = self.by_table["scale"]["scale"]
        return scale

    @property
    def profiles(self) -> dict[str, Profile]:
        return self.by_table["profile"]

    def profile(self, key: str, role: str) -> Profile:
        found = self.profiles.get(key)
        if found is None:
            hint = did_you_mean(key, self.profiles)
            raise BadInput(
                f"{role} {key!r}: not a squad-battles profile in charts/models/{CHART}.yaml{hint}"
            )
        return found

    def quality(self, letter: str) -> Quality:
        found = self.by_table["quality"].get(str(letter).upper())
        if found is None:
            known = ", ".join(self.by_table["quality"])
            raise BadInput(f"quality {letter!r}: not a quality letter (accepted: {known})")
        q: Quality = found
        return q

    def hard(self, armour: float | Fraction) -> bool:
        """SB Facing Effect: a hard vehicle has armour at least the hard vehicle value."""
        return frac(armour) >= self.param("hard-vehicle-armour")

    # --- checks ---------------------------------------------------------------------------

    def _check(self) -> list[str]:
        where = f"models/{CHART}.yaml"
        problems: list[str] = []
        if "scale" not in self.by_table.get("scale", {}):
            problems.append(f"{where}: missing entry 'scale' (table scale)")
        needs = {
            "weapon": ("lethality", "penetration", "range", "reliability"),
            "team": ("men", "quality", "weapon"),
            "leader": ("quality", "level"),
            "vehicle": ("armour", "quality"),
        }
        for p in self.by_table.get("profile", {}).values():
            for field in needs[p.kind]:
                if getattr(p, field) is None:
                    problems.append(
                        f"{where}: entry {p.id!r}: {field}: missing (a {p.kind} profile needs it)"
                    )
            if p.quality is not None and p.quality not in self.by_table.get("quality", {}):
                problems.append(f"{where}: entry {p.id!r}: quality: unknown {p.quality!r}")
            if p.weapon is not None:
                weapon = self.by_table["profile"].get(p.weapon)
                if weapon is None or weapon.kind != "weapon":
                    problems.append(
                        f"{where}: entry {p.id!r}: weapon: {p.weapon!r} is not a weapon profile"
                    )
        for key, t in self.by_table.get("terrain", {}).items():
            if t.fortification and t.fortification not in self.by_table.get("fortification", {}):
                problems.append(f"{where}: entry 'terrain-{key}': fortification: unknown")
            if t.feature and t.feature not in self.by_table.get("hexside", {}):
                problems.append(f"{where}: entry 'terrain-{key}': feature: unknown hexside")
        for key, f in self.by_table.get("fortification", {}).items():
            if (f.protection is None) == (f.protection_as is None):
                problems.append(
                    f"{where}: entry 'fort-{key}': give one of protection or protection_as"
                )
        return problems

    def fortification_protection(self, key: str) -> Fraction:
        fort: Fortification = self.by_table["fortification"][key]
        if fort.protection_as is not None:
            return self.fortification_protection(fort.protection_as)
        assert fort.protection is not None
        return frac(fort.protection)
