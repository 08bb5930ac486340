"""The aggression model's chart (``charts/models/aggression.yaml``): schemas and lookups."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, ClassVar, Literal

from tabletop.core.errors import BadInput, ChartError
from tabletop.core.frozen import frozen_dataclass
from tabletop.core.spelling import did_you_mean
from tabletop.data.charts import Entry, Param, build_params
from tabletop.data.schema import bounded

CHART = "aggression"

UnitType = Literal[
    "infantry", "armour", "artillery", "anti-aircraft", "mechanised", "naval", "leader"
]  # fmt: skip
UNIT_TYPES: tuple[str, ...] = (
    "infantry", "armour", "artillery", "anti-aircraft", "mechanised", "naval", "leader"
)  # fmt: skip
WORKS: tuple[str, ...] = ("dug-in", "entrenched", "fortified")


@frozen_dataclass(kw_only=True)
class Scale(Entry):
    inches_per_hex: float = bounded(min=0.1, max=100)
    seconds_per_turn: int = bounded(min=1)


@frozen_dataclass(kw_only=True)
class Factor(Entry):
    """One aggression factor: its mission moving and stationary, and its fixed effects."""

    af: int = bounded(min=1, max=10)
    moving: str
    stationary: str
    pursuit: Literal["never", "choice", "yes-if-stationary"]
    initiates: bool = True
    always_retreats: bool = False
    stationary_surrenders: bool = True


@frozen_dataclass(kw_only=True)
class Training(Entry):
    surrender: int = bounded(min=0, max=100)
    retreat: int = bounded(min=-100, max=100)
    qualities: tuple[str, ...] = ()


@frozen_dataclass(kw_only=True)
class FireClass(Entry):
    """Hit percentages of one kind of firer against unarmoured and armoured targets."""

    soft: int = bounded(min=0, max=100)
    armoured: int = bounded(min=0, max=100)


@frozen_dataclass(kw_only=True)
class Works(Entry):
    rank: int = bounded(min=1, max=10)
    damage: float = bounded(min=0, max=1)


@frozen_dataclass(kw_only=True)
class Engages(Entry):
    engages: tuple[UnitType, ...] = ()


@frozen_dataclass(kw_only=True)
class MineKind(Entry):
    armoured: bool
    types: tuple[UnitType, ...]
    damage: int = bounded(min=0, max=10_000)


@frozen_dataclass(kw_only=True)
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


@frozen_dataclass(kw_only=True)
class KindProfile(Entry):
    """The profile a stand of a CD kind fights with when the scenario gives it none."""

    profile: str


@frozen_dataclass(kw_only=True)
class AggressionParams:
    """The model's numbers (table ``params``): a field is the entry whose id is the field's
    name with ``-`` for ``_``; counts and percentages whole numbers, shares ``float``."""

    CHART: ClassVar[str] = f"models/{CHART}"

    default_af: int  # AGG Aggression factors
    af_after_retreat: int  # AGG Aggression factors
    af_without_ammo: int  # AGG Aggression factors
    retreat_base: int  # AGG Retreat chance
    retreat_per_af: int  # AGG Retreat chance
    casualty_percent_per_point: float  # AGG Retreat chance
    per_friend_retreated: int  # AGG Retreat chance
    per_friend_joined: int  # AGG Retreat chance
    directions: int  # AGG Retreat directions
    direction_search: str  # AGG Retreat example (Volksgrenadiers)
    loss_per_step: int  # AGG Retreat example (Volksgrenadiers)
    retreat_hexes: int  # AGG Pursuit
    pursued_hexes: int  # AGG Pursuit
    pursuit_choice: bool  # AGG Aggression factors
    leader_kill: int  # AGG Target priority
    victor_share: float  # AGG Captured equipment
    equipment_unit: int  # AGG Captured equipment
    contact: float  # AGG Combat
    assaults_per_phase: int  # AGG Combat (default)
    max_rounds: int  # AGG Combat
    admin_target_bonus: float  # AGG Admin movement
    admin_fire_penalty: float  # AGG Admin movement
    admin_firers_first: int  # AGG Admin movement
    admin_firers_per_round: int  # AGG Admin movement
    ambush_free_shots: int  # AGG Ambush
    engineer_clearing: int  # AGG Mines
    mine_income_loss: float  # AGG Mines
    fort_first_size: int  # AGG Fortifications
    fort_men_per_size: int  # AGG Fortifications
    vehicle_men: int  # AGG Fortifications
    suppressed_firepower_percent: int  # AGG Combat (default)


REQUIRED_PARAMS: tuple[str, ...] = tuple(
    f.name.replace("_", "-") for f in dataclasses.fields(AggressionParams)
)

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

    @functools.cached_property
    def params(self) -> AggressionParams:
        """The numbers of the procedures, typed (a word where a number belongs is a
        ChartError naming the entry)."""
        return build_params(AggressionParams, self.tables["params"])

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
            hint = did_you_mean(profile_id, self.profiles)
            raise BadInput(
                f"profile {profile_id!r} is not in charts/models/{CHART}.yaml{hint} "
                f"(profiles: {', '.join(self.profiles)})"
            )
        return found
