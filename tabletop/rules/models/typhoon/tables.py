"""The typhoon chart (``charts/models/typhoon.yaml``): schemas and checked access.

Every number of the model lives in that chart; this module only says what each table looks
like, checks that the entries the procedures need are there (and that nothing unknown is),
and reads the two random-number conventions the whole model shares (ToS V Notation).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Literal

from tabletop.core.dice import DiceLike, roll_in_bands
from tabletop.core.errors import ChartError
from tabletop.core.frozen import frozen_dataclass
from tabletop.data.charts import Entry
from tabletop.data.schema import bounded
from tabletop.rules.models.chance import percent, roll_chance

CHART = "typhoon"
# Float noise (0.2 * 100 = 19.999...) must not cost a whole number its value when fractions
# are dropped.
EPS = 1e-9
# Percentile rolls are one d100 (two D10 read as tens and units give the same faces).
PERCENT = 100

Side = Literal["firer", "target"]
Area = Literal["track", "front-hull", "side-hull", "front-turret", "side-turret", "top"]


@frozen_dataclass(kw_only=True)
class Scale(Entry):
    inches_per_square: float = bounded(min=0.01, max=100)
    yards_per_square: float = bounded(min=1)
    seconds_per_pulse: float = bounded(min=1)
    pulses_per_turn: int = bounded(min=1, max=100)


@frozen_dataclass(kw_only=True)
class Parameter(Entry):
    value: float


@frozen_dataclass(kw_only=True)
class Weapon(Entry):
    """A weapon's line on a Weapons Page: SZ, PN, AC, RG and IA (ToS II.A)."""

    name: str | None = None
    size: int = bounded(min=1, max=20)
    penetration: float = bounded(min=0)
    # The range in squares at which ranged accuracy is 50 (ToS V Point fire accuracy).
    accuracy: float = bounded(min=0.5)
    max_range: float = bounded(min=1)
    infantry_attack: float = bounded(min=0)
    special: Literal["flamethrower", "demo-charge"] | None = None


@frozen_dataclass(kw_only=True)
class Armour:
    front_turret: float = bounded(min=0)
    front_hull: float = bounded(min=0)
    side_turret: float = bounded(min=0)
    side_hull: float = bounded(min=0)
    top: float = bounded(min=0)

    def at(self, area: str) -> float:
        return float(getattr(self, area.replace("-", "_")))


@frozen_dataclass(kw_only=True)
class Mount:
    weapon: str
    ammo: int | None = bounded(None, min=0)


@frozen_dataclass(kw_only=True)
class Unit(Entry):
    """A unit's Weapons Page (ToS II.A, Fig. 1): the profile a stand names."""

    name: str | None = None
    kind: Literal["vehicle", "infantry", "gun"]
    weapons: tuple[Mount, ...] = ()
    armour: Armour | None = None
    size: int = bounded(min=1, max=10)
    max_speed: float = bounded(min=0)
    men: int = bounded(min=1, max=40)
    first_shot: int = bounded(min=0, max=100)
    radio: bool = False
    skill: int = bounded(min=0, max=10)
    morale: int = bounded(min=0, max=9)
    cost: float = bounded(min=0)
    command: int | None = bounded(None, min=0, max=40)
    japanese: bool = False
    artillery: bool = False

    @property
    def is_hard(self) -> bool:
        # ToS II.B.3 Combat terms: a hard target is a vehicle with front armour.
        return self.kind == "vehicle" and self.armour is not None and self.armour.front_hull > 0

    @property
    def is_open_topped(self) -> bool:
        return self.is_hard and self.armour is not None and self.armour.top == 0

    @property
    def is_vehicle(self) -> bool:
        return self.kind == "vehicle"


@frozen_dataclass(kw_only=True)
class Shift(Entry):
    """A modifier in shifts (x1.42 each up, x0.71 each down)."""

    shifts: int = bounded(min=-20, max=20)
    side: Side = "firer"
    # Cover-like benefits, which flamethrowers and demo charges ignore (ToS V).
    defensive: bool = False


@frozen_dataclass(kw_only=True)
class AssaultModifier(Entry):
    points: int = bounded(min=-20, max=20)


@frozen_dataclass(kw_only=True)
class LocationBand(Entry):
    low: int = bounded(min=1, max=200)
    high: int = bounded(min=1, max=200)
    area: Literal["track", "hull", "turret", "top"]


@frozen_dataclass(kw_only=True)
class IndirectLocation(Entry):
    face: int = bounded(min=1, max=6)
    area: Area


@frozen_dataclass(kw_only=True)
class PenetrationEffect(Entry):
    immobilize_chance: float = bounded(min=0, max=100)
    compartment: Literal["hull", "turret"] | None = None


@frozen_dataclass(kw_only=True)
class HeChance(Entry):
    per: Literal["fixed", "infantry-attack", "shell-size"]
    value: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class CoverMap(Entry):
    typhoon: Literal["none", "soft", "hard"]


@frozen_dataclass(kw_only=True)
class Weather(Entry):
    visibility: float = bounded(min=0, max=1)
    move_cost_add: float = bounded(min=0)
    swamp_cost_factor: float | None = bounded(None, min=0)


@frozen_dataclass(kw_only=True)
class Scatter(Entry):
    squares: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class ScatterModifier(Entry):
    factor: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class Delay(Entry):
    pulses: int = bounded(min=0, max=100)


@frozen_dataclass(kw_only=True)
class SuppressionRow(Entry):
    points: int = bounded(min=-20, max=20)
    per: Literal["once", "unit", "man"]
    when: Literal["after-pulse-3", "fire", "pulse"]


@frozen_dataclass(kw_only=True)
class UnitStateRow(Entry):
    points: float | None = bounded(None, min=0)
    times_morale: float | None = bounded(None, min=0)


@frozen_dataclass(kw_only=True)
class Mission(Entry):
    defenders_killed: float = bounded(min=0)
    attackers_killed: float = bounded(min=0)
    attackers_exited: float = bounded(min=0)
    defenders_exited: float = bounded(min=0)
    attacker_objective: float = bounded(min=0)
    defender_objective: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class VictoryLevel(Entry):
    ratio: float = bounded(min=1)
    campaign_points: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class Battle(Entry):
    duration: int = bounded(min=1)
    axis_points: float = bounded(min=0)
    allied_points: float = bounded(min=0)
    axis_role: Literal["attacker", "defender"]
    allied_role: Literal["attacker", "defender"]
    axis_start_line: int = bounded(min=0, max=60)
    allied_start_line: int = bounded(min=0, max=60)
    axis_dug_in: bool
    allied_dug_in: bool


@frozen_dataclass(kw_only=True)
class Factor(Entry):
    factor: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class Handicap(Entry):
    axis: float = bounded(min=0)
    allied: float = bounded(min=0)


@frozen_dataclass(kw_only=True)
class TransportCost(Entry):
    points: float = bounded(min=0)
    per: Literal["unit", "man"] = "unit"
    artillery: bool = False


@frozen_dataclass(kw_only=True)
class Carrier(Entry):
    capacity: float = bounded(min=0)
    artillery: bool = False


SCHEMAS: dict[str, type[Entry]] = {
    "scale": Scale,
    "parameter": Parameter,
    "weapon": Weapon,
    "unit": Unit,
    "hard_modifier": Shift,
    "soft_modifier": Shift,
    "visibility_modifier": Shift,
    "assault_modifier": AssaultModifier,
    "location": LocationBand,
    "indirect_location": IndirectLocation,
    "penetration_effect": PenetrationEffect,
    "he_chance": HeChance,
    "cover": CoverMap,
    "weather": Weather,
    "scatter": Scatter,
    "scatter_modifier": ScatterModifier,
    "delay": Delay,
    "suppression": SuppressionRow,
    "unit_state": UnitStateRow,
    "mission": Mission,
    "victory": VictoryLevel,
    "battle": Battle,
    "force_quality": Factor,
    "handicap": Handicap,
    "transport_cost": TransportCost,
    "carrier": Carrier,
}

# The entries each procedure looks up by id: a chart (or overlay) must keep them, and may not
# add rows no procedure would apply (a silent no-op would mislead the referee).
REQUIRED: dict[str, tuple[str, ...]] = {
    "scale": ("scale",),
    "hard_modifier": (
        "fired-last-pulse",
        "firer-cautious",
        "firer-full",
        "firer-skill-failed",
        "firer-pinned",
        "firer-suppressed",
        "target-moving",
        "target-in-cover",
        "target-retreating",
    ),
    "soft_modifier": (
        "soft-firer-moving",
        "soft-firer-pinned",
        "soft-firer-skill-failed",
        "soft-target-advancing",
        "soft-target-artillery",
        "soft-positioned-soft-cover",
        "soft-positioned-hard-cover",
        "soft-dug-in",
        "soft-dug-in-hard-cover",
        "soft-small-arms-protected",
        "soft-target-retreating",
        "soft-target-routing",
        "soft-target-pinned",
    ),
    "visibility_modifier": (
        "vis-buttoned",
        "vis-skill-failed",
        "vis-higher",
        "vis-early-pulse",
        "vis-stationary",
        "vis-hidden",
    ),
    "assault_modifier": (
        "assault-soft-or-open",
        "assault-stationary",
        "assault-full-advance",
        "assault-skill-failed",
    ),
    "penetration_effect": (
        "track",
        "front-hull",
        "side-hull",
        "front-turret",
        "side-turret",
        "top",
    ),
    "he_chance": ("he-primary", "he-soft", "he-open-topped", "he-closed"),
    "cover": ("cd-none", "cd-light", "cd-medium", "cd-hard", "cd-fortification"),
    "weather": ("clear", "rain", "snow", "dust"),
    "scatter": ("scatter-blind", "scatter-check-failed", "scatter-check-passed"),
    "scatter_modifier": ("scatter-los", "scatter-close", "scatter-off-map-he"),
    "delay": (
        "delay-self",
        "delay-formation-hq",
        "delay-battalion-hq",
        "delay-other-hq",
        "delay-exception",
    ),
    "suppression": (
        "soft-cover-sighted",
        "soft-cover-unsighted",
        "hard-cover-sighted",
        "hard-cover-unsighted",
        "out-of-command",
        "near-routed",
        "near-lost",
        "immobilized",
        "alone",
        "good-friends",
        "automatic",
        "zero-and-targeted",
        "destroyed-within-3",
        "destroyed-within-6",
        "soft-hit-sighted",
        "soft-hit-unsighted",
        "hard-hit-sighted",
        "hard-hit-unsighted",
        "destroyed-enemy",
        "men-killed",
        "sees-no-enemy",
    ),
    "unit_state": ("cautious-only", "pinned", "retreating", "routed"),
    "victory": ("marginal", "decisive"),
    "handicap": ("level-1", "level-2", "level-3", "level-4", "level-5"),
}
# Tables whose rows are free to add: the referee's own weapons, units, missions, location bands.
OPEN_TABLES = (
    "weapon",
    "unit",
    "mission",
    "location",
    "indirect_location",
    "battle",
    "force_quality",
    "transport_cost",
    "carrier",
)

PARAMETERS = (
    "rnd-offset",
    "ra-base",
    "ra-span",
    "shift-up",
    "shift-down",
    "accuracy-cap",
    "accuracy-floor-soft",
    "accuracy-floor-hard",
    "silhouette-near",
    "silhouette-base",
    "skill-die",
    "first-shot-numerator",
    "same-square-within",
    "adjacent-within",
    "front-arc-degrees",
    "higher-bonus",
    "higher-levels",
    "hull-down-below",
    "ap-reading",
    "he-depth-factor",
    "track-always-above-size",
    "destroy-size-factor",
    "gun-out-chance",
    "crew-kill-chance",
    "kill-divisor",
    "extra-kill-add",
    "extra-kill-scale",
    "gun-destroy-scale",
    "assault-ia-factor",
    "assault-destroy-above",
    "assault-track-above",
    "squares-per-visibility",
    "scatter-close-range",
    "scatter-check-die",
    "scatter-best-on-target",
    "nearby-squares",
    "good-state-base",
    "good-state-spread",
    "good-state-infantry",
    "heavy-suppression-min",
    "heavy-suppression-max",
    "truck-morale",
    "command-radius",
    "radio-threshold",
    "orders-per",
    "rally-divisor",
    "rally-add",
    "rally-die",
    "abandoned-kept-fraction",
    "bombard-double-first-shot",
    "pacific-points-factor",
)


_CHECKED: dict[int, Any] = {}


class Tables:
    """The validated typhoon chart with the lookups the procedures use."""

    def __init__(self, charts: Any):
        self.tables = charts.model_tables(CHART, SCHEMAS)
        # The charts build the tables once; they are checked once too (the odds open the
        # model on every run). Keeping the tables here keeps their id from being reused.
        if _CHECKED.get(id(self.tables)) is not self.tables:
            problems = self._problems()
            if problems:
                raise ChartError(problems)
            _CHECKED[id(self.tables)] = self.tables

    def _problems(self) -> list[str]:
        where = f"models/{CHART}.yaml"
        problems = []
        required = {**REQUIRED, "parameter": PARAMETERS}
        for table, ids in required.items():
            have = self.tables[table]
            for ident in ids:
                if ident not in have:
                    problems.append(f"{where}: table {table!r} needs an entry {ident!r}")
            if table in OPEN_TABLES:
                continue
            for ident in sorted(set(have) - set(ids)):
                problems.append(
                    f"{where}: entry {ident!r}: no typhoon procedure uses it in table {table!r} "
                    f"(known: {', '.join(ids)})"
                )
        for unit in self.tables["unit"].values():
            for i, mount in enumerate(unit.weapons):
                if mount.weapon not in self.tables["weapon"]:
                    problems.append(
                        f"{where}: entry {unit.id!r}: weapons[{i}].weapon {mount.weapon!r} is "
                        "not a weapon of this chart"
                    )
        for band in self.tables["location"].values():
            if band.low > band.high:
                problems.append(f"{where}: entry {band.id!r}: low {band.low} is above high")
        return problems

    # --- lookups -------------------------------------------------------------------------------

    def p(self, ident: str) -> float:
        return float(self.tables["parameter"][ident].value)

    def rule(self, table: str, ident: str) -> str:
        return str(self.tables[table][ident].rule)

    def entry(self, table: str, ident: str) -> Any:
        return self.tables[table][ident]

    @property
    def scale(self) -> Scale:
        scale: Scale = self.tables["scale"]["scale"]
        return scale

    @property
    def units(self) -> Mapping[str, Unit]:
        units: Mapping[str, Unit] = self.tables["unit"]
        return units

    @property
    def weapons(self) -> Mapping[str, Weapon]:
        weapons: Mapping[str, Weapon] = self.tables["weapon"]
        return weapons

    # --- the two random-number conventions (ToS V Notation) ------------------------------------

    def rnd_of(self, roll: int, x: float = 1.0) -> float:
        """Rnd(x) read from a d100 face: x * (roll - offset) / 100."""
        return x * (roll - self.p("rnd-offset")) / PERCENT

    def rnd(self, dice: DiceLike, x: float, purpose: str) -> tuple[float, int]:
        """A continuous Rnd(x) from one percentile roll; returns the value and the roll."""
        roll = dice.roll(PERCENT, f"{purpose} (d100 as Rnd)")
        return self.rnd_of(roll, x), roll

    def rnd_test(
        self, dice: DiceLike, x: float, purpose: str, test: Callable[[float], bool]
    ) -> tuple[float, int]:
        """A Rnd(x) that matters only through ``test`` (an extra kill when RA + 10 > 200 x
        Rnd(1)): rolled and shown as ``rnd``, but the odds try one face of each run of faces
        that ``test`` answers alike (``roll_in_bands``), which is exact."""
        roll = self.roll_by(
            dice, PERCENT, f"{purpose} (d100 as Rnd)", lambda face: test(self.rnd_of(face, x))
        )
        return self.rnd_of(roll, x), roll

    def roll_by(
        self, dice: DiceLike, sides: int, purpose: str, answer: Callable[[int], Hashable]
    ) -> int:
        """A die whose face matters only through ``answer`` (a skill check: passed or not; a
        hit location: the area): rolled, logged and shown as any roll, but the odds try one
        face of each run of faces ``answer`` gives alike (``roll_in_bands``), which is exact
        as long as the caller uses the face only through the same ``answer``."""
        return roll_in_bands(dice, sides, purpose, band_cuts(sides, answer))

    def percent(self, dice: DiceLike, chance: float, purpose: str) -> tuple[bool, list[int]]:
        """A percent chance such as 70.57, settled exactly as the game's real-valued
        ``Rnd(100)`` would (ToS V Notation): see ``tabletop.rules.models.chance``. Returns
        whether it came up and the d100s rolled."""
        return roll_chance(dice, percent(chance), purpose)

    def faces(self) -> range:
        return range(1, PERCENT + 1)


def band_cuts(sides: int, answer: Callable[[int], Hashable]) -> list[int]:
    """The highest face of each run of faces ``answer`` gives alike, but the last."""
    answers = [answer(face) for face in range(1, sides + 1)]
    return [face for face in range(1, sides) if answers[face - 1] != answers[face]]
