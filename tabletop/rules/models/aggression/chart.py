"""The aggression model's chart (``charts/models/aggression.yaml``): schemas and lookups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tabletop.core.errors import BadInput
from tabletop.data.charts import Entry, Param
from tabletop.data.schema import bounded

CHART = "aggression"

UnitType = Literal[
    "infantry", "armour", "artillery", "anti-aircraft", "mechanised", "naval", "leader"
]  # fmt: skip
UNIT_TYPES: tuple[str, ...] = (
    "infantry", "armour", "artillery", "anti-aircraft", "mechanised", "naval", "leader"
)  # fmt: skip
WORKS: tuple[str, ...] = ("dug-in", "entrenched", "fortified")


@dataclass(frozen=True, kw_only=True)
class Scale(Entry):
    inches_per_hex: float = bounded(min=0.1, max=100)
    seconds_per_turn: int = bounded(min=1)


@dataclass(frozen=True, kw_only=True)
class Factor(Entry):
    """One aggression factor: its mission moving and stationary, and its fixed effects."""

    af: int = bounded(min=1, max=10)
    moving: str
    stationary: str
    pursuit: Literal["never", "choice", "yes-if-stationary"]
    initiates: bool = True
    always_retreats: bool = False
    stationary_surrenders: bool = True


@dataclass(frozen=True, kw_only=True)
class Training(Entry):
    surrender: int = bounded(min=0, max=100)
    retreat: int = bounded(min=-100, max=100)
    qualities: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class FireClass(Entry):
    """Hit percentages of one kind of firer against unarmoured and armoured targets."""

    soft: int = bounded(min=0, max=100)
    armoured: int = bounded(min=0, max=100)


@dataclass(frozen=True, kw_only=True)
class Works(Entry):
    rank: int = bounded(min=1, max=10)
    damage: float = bounded(min=0, max=1)


@dataclass(frozen=True, kw_only=True)
class Engages(Entry):
    engages: tuple[UnitType, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MineKind(Entry):
    armoured: bool
    types: tuple[UnitType, ...]
    damage: int = bounded(min=0, max=10_000)


@dataclass(frozen=True, kw_only=True)
class Profile(Entry):
    name: str
    type: UnitType
    fire: str
    strength: int = bounded(min=1, max=100_000)
    firepower: int = bounded(min=0, max=100_000)
    armoured: bool = False
    anti_tank: bool = False
    engineer: Literal["none", "regular", "elite"] = "none"
    training: str | None = None
    vehicles: int = bounded(0, min=0, max=10_000)


@dataclass(frozen=True, kw_only=True)
class KindProfile(Entry):
    """The profile a stand of a CD kind fights with when the scenario gives it none."""

    profile: str


REQUIRED_PARAMS: tuple[str, ...] = (
    "default-af", "af-after-retreat", "af-without-ammo", "retreat-base", "retreat-per-af",
    "casualty-percent-per-point", "per-friend-retreated", "per-friend-joined", "directions",
    "direction-search", "loss-per-step", "retreat-hexes", "pursued-hexes", "pursuit-choice",
    "leader-kill", "victor-share", "equipment-unit", "contact", "max-rounds",
    "admin-target-bonus", "admin-fire-penalty", "admin-firers-first", "admin-firers-per-round",
    "ambush-free-shots", "engineer-clearing", "mine-income-loss", "fort-first-size",
    "fort-men-per-size", "vehicle-men", "suppressed-firepower-percent",
)  # fmt: skip

SCHEMAS: dict[str, type[Entry]] = {
    "scale": Scale,
    "factors": Factor,
    "training": Training,
    "params": Param,
    "fire": FireClass,
    "works": Works,
    "targets": Engages,
    "mines": MineKind,
    "profiles": Profile,
    "kinds": KindProfile,
}


class AggressionChart:
    """Typed access to the model's tables, with messages naming the chart."""

    def __init__(self, tables: dict[str, dict[str, Any]]):
        self.tables = tables

    @classmethod
    def of(cls, charts: Any) -> AggressionChart:
        chart = cls(charts.model_tables(CHART, SCHEMAS))
        chart.check()
        return chart

    def check(self) -> None:
        """Entries the procedures look up by id: a chart without them is reported whole."""
        from tabletop.core.errors import ChartError

        where = f"models/{CHART}.yaml"
        problems = [
            f"{where}: table 'params' needs an entry {key!r}"
            for key in REQUIRED_PARAMS
            if key not in self.tables["params"]
        ]
        if "scale" not in self.tables["scale"]:
            problems.append(f"{where}: table 'scale' needs an entry 'scale'")
        factors = sorted(f.af for f in self.tables["factors"].values())
        if factors != list(range(1, 11)):
            problems.append(f"{where}: table 'factors' needs one entry for each AF 1 to 10")
        for kind in ("AT", "AP"):
            if kind not in self.tables["mines"]:
                problems.append(f"{where}: table 'mines' needs an entry {kind!r}")
        for profile in self.tables["profiles"].values():
            if f"fire-{profile.fire}" not in self.tables["fire"]:
                problems.append(
                    f"{where}: profile {profile.id!r}: fire {profile.fire!r} has no entry "
                    f"'fire-{profile.fire}' in table 'fire'"
                )
            if profile.training is not None and profile.training not in self.tables["training"]:
                problems.append(
                    f"{where}: profile {profile.id!r}: unknown training {profile.training!r}"
                )
        for kind in self.tables["kinds"].values():
            if kind.profile not in self.tables["profiles"]:
                problems.append(
                    f"{where}: kind {kind.id!r}: profile {kind.profile!r} is not in table "
                    "'profiles'"
                )
        if problems:
            raise ChartError(problems)

    def kind_profile(self, kind: str) -> str | None:
        """The profile a stand of CD kind ``kind`` takes by default, or None."""
        entry = self.tables["kinds"].get(kind)
        return None if entry is None else str(entry.profile)

    def param(self, key: str) -> Any:
        return self.tables["params"][key].value

    def number(self, key: str) -> float:
        return float(self.param(key))

    def whole(self, key: str) -> int:
        return int(self.param(key))

    @property
    def scale(self) -> Scale:
        scale: Scale = self.tables["scale"]["scale"]
        return scale

    def factor(self, af: int) -> Factor:
        for entry in self.tables["factors"].values():
            if entry.af == af:
                found: Factor = entry
                return found
        raise BadInput(f"aggression factor {af!r}: give a whole number from 1 to 10")

    def training(self, level: str) -> Training:
        found = self.tables["training"].get(level)
        if found is None:
            raise BadInput(f"training {level!r}: accepted: {', '.join(self.tables['training'])}")
        training: Training = found
        return training

    def training_for_quality(self, quality: str) -> str:
        """The seed's training level a CD quality reads as (the training table's lists)."""
        for entry in self.tables["training"].values():
            if quality in entry.qualities:
                return str(entry.id)
        return "regular"

    def fire_class(self, name: str) -> FireClass:
        found = self.tables["fire"].get(f"fire-{name}")
        if found is None:
            known = ", ".join(k.removeprefix("fire-") for k in self.tables["fire"])
            raise BadInput(f"fire class {name!r}: accepted: {known}")
        fire: FireClass = found
        return fire

    def engages(self, key: str) -> tuple[str, ...]:
        entry = self.tables["targets"].get(f"engage-{key}")
        return tuple(entry.engages) if entry is not None else (key,)

    def works(self, name: str) -> Works:
        found = self.tables["works"].get(name)
        if found is None:
            raise BadInput(f"works {name!r}: accepted: none, {', '.join(self.tables['works'])}")
        works: Works = found
        return works

    def mine(self, kind: str) -> MineKind:
        found = self.tables["mines"].get(kind.upper())
        if found is None:
            raise BadInput(f"mine {kind!r}: accepted: {', '.join(self.tables['mines'])}")
        mine: MineKind = found
        return mine

    @property
    def profiles(self) -> dict[str, Profile]:
        return self.tables["profiles"]

    def profile(self, profile_id: str) -> Profile:
        found = self.profiles.get(profile_id)
        if found is None:
            import difflib

            close = difflib.get_close_matches(profile_id, list(self.profiles), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise BadInput(
                f"profile {profile_id!r} is not in charts/models/{CHART}.yaml{hint} "
                f"(profiles: {', '.join(self.profiles)})"
            )
        return found
