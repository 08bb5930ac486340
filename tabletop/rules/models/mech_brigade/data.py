"""Mech Brigade's chart (``charts/models/mech_brigade.yaml``): schemas and typed access.

The chart holds every number; this module only says what each table looks like and reads it
(``Tables``). Numbers are read as exact fractions, so the procedures can give exact odds.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal

from tabletop.core.errors import BadInput, ChartError
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.data.charts import Entry
from tabletop.data.schema import bounded

CHART = "mech_brigade"
SOURCE = f"charts/models/{CHART}.yaml"
# Options from the table only (the game's turn, phase and kills so far), beside the shot's.
TABLE_KEY = "_table"

Kind = Literal[
    "helicopter",
    "tank",
    "atgm-vehicle",
    "recon",
    "apc",
    "mortar",
    "artillery",
    "flak",
    "sam-vehicle",
    "siw",
    "infantry",
    "towed-artillery",
    "sam",
    "atgm",
]

# The headings of the weapons table (MB 6.0) decide which formulas a row takes part in.
HELICOPTER_KINDS = frozenset({"helicopter"})
GROUND_VEHICLE_KINDS = frozenset(
    {"tank", "atgm-vehicle", "recon", "apc", "mortar", "artillery", "flak", "sam-vehicle"}
)
VEHICLE_KINDS = HELICOPTER_KINDS | GROUND_VEHICLE_KINDS
SAM_KINDS = frozenset({"sam", "sam-vehicle"})
ANTI_AIR_KINDS = SAM_KINDS | {"flak"}
# MB 5.6: mortars and artillery may bombard.
INDIRECT_KINDS = frozenset({"mortar", "artillery", "towed-artillery"})


@frozen_dataclass(kw_only=True)
class Scale(Entry):
    yards: float = bounded(min=1)
    inches: float = bounded(min=0.01)
    pulse_seconds: float = bounded(min=1)
    pulses_per_turn: int = bounded(min=1)


@frozen_dataclass(kw_only=True)
class Param(Entry):
    value: float | str
    unit: str | None = None


@frozen_dataclass(kw_only=True)
class Terrain(Entry):
    """A Mech Brigade terrain type and what it does to sighting, fire and line of sight."""

    sight_cover: bool = False
    fire_cover: bool = False
    blocking: int = bounded(0, min=0, max=20)
    # How many squares of it a line of sight may pass through; None: it is not cover terrain.
    los: int | None = bounded(None, min=0, max=10)
    table_kinds: tuple[str, ...] = ()


@frozen_dataclass(kw_only=True)
class Profile(Entry):
    """A row of the weapons data table (MB 6.0); unset where the seed prints no value."""

    number: int = bounded(min=0, max=999)
    kind: Kind
    name: str | None = None
    lr: int | None = bounded(None, min=0)
    mr: int = bounded(min=0)
    mr_starred: bool = False
    mp: int | None = bounded(None, min=0)
    ss: int | None = bounded(None, min=0)
    ac: int = bounded(min=0)
    sp: int | None = bounded(None, min=0)
    mg: int | None = bounded(None, min=0)
    fa: int | None = bounded(None, min=1)
    ba: int | None = bounded(None, min=1)
    df: int | None = bounded(None, min=1)
    cc: int | None = bounded(None, min=0)
    sl: int | None = bounded(None, min=0)
    gm: str | None = None
    missiles: int | None = bounded(None, min=0)
    countries: tuple[str, ...] = ()
    era: Literal["N", "O", "A"] = "A"

    @property
    def label(self) -> str:
        return self.name or self.id

    @property
    def is_vehicle(self) -> bool:
        return self.kind in VEHICLE_KINDS

    @property
    def is_helicopter(self) -> bool:
        return self.kind in HELICOPTER_KINDS

    @property
    def is_ground_vehicle(self) -> bool:
        return self.kind in GROUND_VEHICLE_KINDS


@frozen_dataclass(kw_only=True)
class Smoke(Entry):
    level: int = bounded(min=1, max=9)
    reduce_chance: int = bounded(min=0, max=100)


@frozen_dataclass(kw_only=True)
class Delay(Entry):
    side: Literal["nato", "soviet"]
    in_command: bool
    pulses: int = bounded(min=0, max=99)


@frozen_dataclass(kw_only=True)
class Bombard(Entry):
    pulses: int = bounded(min=0, max=99)


@frozen_dataclass(kw_only=True)
class Band(Entry):
    at_least: float = bounded(min=0)
    result: str


SCHEMAS: dict[str, type[Entry]] = {
    "scale": Scale,
    "param": Param,
    "terrain": Terrain,
    "profile": Profile,
    "smoke": Smoke,
    "delay": Delay,
    "bombard": Bombard,
    "band": Band,
}

BOMBARD_CASES = ("hq-same-formation", "same-formation", "command-hq", "other")


class Tables:
    """The validated chart, with lookups that explain themselves when they fail."""

    def __init__(self, charts: Any):
        self.tables = charts.model_tables(CHART, SCHEMAS)
        problems = self._problems()
        if problems:
            raise ChartError(problems)

    # --- lookups -------------------------------------------------------------------------

    def num(self, key: str) -> Fraction:
        """A numeric parameter, exactly (``1.25`` is 5/4)."""
        value = self.tables["param"][key].value
        assert not isinstance(value, str), key
        return Fraction(str(value))

    def whole(self, key: str) -> int:
        return int(self.num(key))

    def text(self, key: str) -> str:
        return str(self.tables["param"][key].value)

    @property
    def scale(self) -> Scale:
        scale: Scale = next(iter(self.tables["scale"].values()))
        return scale

    @property
    def profiles(self) -> Mapping[str, Profile]:
        profiles: Mapping[str, Profile] = self.tables["profile"]
        return profiles

    @property
    def terrain(self) -> Mapping[str, Terrain]:
        terrain: Mapping[str, Terrain] = self.tables["terrain"]
        return terrain

    def profile(self, ident: str, what: str = "profile") -> Profile:
        """A profile by id (case does not matter), or BadInput naming the close ones."""
        found = self.profiles.get(ident)
        if found is not None:
            return found
        folded = {k.casefold(): v for k, v in self.profiles.items()}
        found = folded.get(str(ident).casefold())
        if found is not None:
            return found
        hint = did_you_mean(str(ident), self.profiles)
        raise BadInput(
            f"{what} {ident!r}: not a mech-brigade profile{hint} "
            f"(ids are the weapon names of MB 6.0, e.g. M60A3, T-72, RIFLE-N; see {SOURCE})"
        )

    def atgm_of(self, profile: Profile) -> Profile | None:
        """The ATGM row a unit's GM code names (MB 6.0), or None."""
        if profile.kind == "atgm":
            return profile
        if profile.gm is None:
            return None
        for row in self.profiles.values():
            if row.kind == "atgm" and row.gm == profile.gm:
                return row
        return None

    def terrain_type(self, ident: str, what: str) -> Terrain:
        found = self.terrain.get(str(ident))
        if found is None:
            raise BadInput(
                f"{what} {ident!r}: not a mech-brigade terrain type "
                f"(accepted: {', '.join(self.terrain)})"
            )
        return found

    def smoke_chance(self, level: int) -> int:
        for row in self.tables["smoke"].values():
            if row.level == level:
                return int(row.reduce_chance)
        raise BadInput(f"smoke level {level!r}: not in {SOURCE} (levels: {self.smoke_levels()})")

    def smoke_levels(self) -> str:
        return ", ".join(str(r.level) for r in self.tables["smoke"].values())

    def move_delay(self, side: str, in_command: bool) -> int:
        for row in self.tables["delay"].values():
            if row.side == side and row.in_command == in_command:
                return int(row.pulses)
        raise BadInput(f"side {side!r}: no command delay in {SOURCE} (sides: nato, soviet)")

    def bombard_delay(self, case: str) -> int:
        return int(self.tables["bombard"][case].pulses)

    def bands(self) -> list[Band]:
        return sorted(self.tables["band"].values(), key=lambda b: b.at_least, reverse=True)

    # --- checks across entries -----------------------------------------------------------

    def _problems(self) -> list[str]:
        problems: list[str] = []
        t = self.tables
        if len(t["scale"]) != 1:
            problems.append(f"{SOURCE}: the scale table needs exactly one entry")
        for row in t["profile"].values():
            where = f"{SOURCE}: entry {row.id!r}"
            if row.gm is not None and self.atgm_of(row) is None:
                problems.append(f"{where}: gm: no ATGM profile has the code {row.gm!r}")
            if row.is_vehicle and (row.fa is None or row.ba is None or row.sl is None):
                problems.append(f"{where}: a vehicle needs fa, ba and sl")
            if row.kind not in VEHICLE_KINDS | {"siw"} and row.df is None:
                problems.append(f"{where}: df: a non-vehicle needs its defence rating")
            if row.kind == "atgm" and row.lr is None:
                problems.append(f"{where}: lr: an ATGM needs its minimum range")
        for key in ("small-arms-profile", "siw-RIFLE-N", "siw-RIFLE-S"):
            param = t["param"].get(key)
            if param is not None and str(param.value) not in t["profile"]:
                problems.append(
                    f"{SOURCE}: entry {key!r}: value: {param.value!r} is not a profile id"
                )
        for case in BOMBARD_CASES:
            if case not in t["bombard"]:
                problems.append(f"{SOURCE}: bombard table: missing entry {case!r}")
        if not any(b.at_least == 0 for b in t["band"].values()):
            problems.append(f"{SOURCE}: band table: one band needs at_least: 0")
        return problems
