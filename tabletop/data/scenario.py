"""The scenario, format v1 (SPEC 6): the frozen dataclasses a scenario file becomes, and the
rebuild of a game's own scenario from the copy its file keeps.

Reading and checking a scenario file (YAML, every problem with ``file:line: path: message``,
the checks against the charts) is ``scenario_loader``'s work; a command over a stored game
needs only this module, so it imports neither PyYAML nor the checks.
"""

# No ``from __future__ import annotations``: the dataclasses' hints are then objects, which
# opening a game resolves without compiling each one from text (docs/performance.md).
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Literal

from tabletop.core.frozen import frozen_dataclass
from tabletop.data.charts import Charts, Level, Raw
from tabletop.data.schema import bounded, build_trusted

LIGHTS = ("day", "twilight", "night-moonlit", "night-dark", "artificial-moonlight")
WEATHERS = (
    "clear", "mist", "fog", "rain-light", "rain-steady", "rain-heavy",
    "snow-light", "snow-steady", "snow-heavy",
)  # fmt: skip
GROUNDS = ("dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice")
FORCES = ("light", "moderate", "high")
FORMATION_KINDS = ("division", "brigade", "regiment", "battalion", "company", "platoon")

Coord = tuple[float, float]


@frozen_dataclass(kw_only=True)
class TableSize:
    """The table's width and depth, in inches."""

    width: float = bounded(min=1, max=2000)
    depth: float = bounded(min=1, max=2000)


@frozen_dataclass(kw_only=True)
class TurnStart:
    """The turn and phase the battle begins in."""

    number: int = bounded(1, min=1, max=10_000)
    phase: str = "movement"


@frozen_dataclass(kw_only=True)
class Wind:
    """Where the wind blows from (a direction 1 to 8) and how hard."""

    from_: int = bounded(3, min=1, max=8, key="from")
    force: Literal["light", "moderate", "high"] = "light"


@frozen_dataclass(kw_only=True)
class Conditions:
    """The light, the weather, dust, the wind and the ground the battle begins under."""

    light: Literal["day", "twilight", "night-moonlit", "night-dark", "artificial-moonlight"] = "day"
    weather: Literal[
        "clear", "mist", "fog", "rain-light", "rain-steady", "rain-heavy",
        "snow-light", "snow-steady", "snow-heavy",
    ] = "clear"  # fmt: skip
    dusty: bool = False
    wind: Wind = field(default_factory=Wind)
    ground: Literal["dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice"] = (
        "dry"
    )
    # Turn-start changes the referee wants rolled (CD 10.1.3, 10.2.3, 10.3.3).
    variable_wind: bool = False
    fog_returns: bool = False
    precipitation_changes: bool = False


@frozen_dataclass(kw_only=True)
class TerrainPiece:
    """A piece of terrain on the table: an area (``polygon``) or a line with a width, of a
    kind of ``terrain.yaml``, with what the scenario says of this piece in particular."""

    id: str
    kind: str
    polygon: tuple[Coord, ...] | None = None
    line: tuple[Coord, ...] | None = None
    width: float | None = bounded(None, min=0.01, max=100)
    height: float | None = bounded(None, min=0, max=20)
    weight_class: Level | None = None
    wired: bool = False
    state: Literal["intact", "damaged", "destroyed", "burning", "rubble"] = "intact"
    referee_only: bool = False
    # The side that holds a wired bridge or a fortification (its engineers may blow it).
    owner: str | None = None
    # Lake and river ice: the heaviest weight class it bears; "0" bears only boats (CD 11.3).
    ice: Literal["0", "I", "II", "III", "IV", "V", "VI"] | None = None
    # A local ground condition (poor drainage, a high water table, a flood ruled deep mud)
    # in place of the table-wide one inside this piece (CD 10.3.4, 11.1).
    ground: (
        Literal["dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice"] | None
    ) = None


@frozen_dataclass(kw_only=True)
class Formation:
    """A formation of a side's order of battle and the formation above it."""

    id: str
    kind: Literal["division", "brigade", "regiment", "battalion", "company", "platoon"]
    parent: str | None = None


@frozen_dataclass(kw_only=True)
class MoveAllowance:
    """A stand's own base movement allowance in inches, in place of its kind's."""

    cross: float = bounded(min=0, max=200)
    road: float | None = bounded(None, min=0, max=200)


@frozen_dataclass(kw_only=True)
class MinefieldSpec:
    """A minefield laid before the game (CD 3.1.1)."""

    side: str
    at: Coord
    dummy: bool = False


@frozen_dataclass(kw_only=True)
class StandSpec:
    """A stand as the scenario sets it up: kind, quality, formation, weapons, where it
    stands (or arrives), and what it carries into the battle."""

    id: str
    kind: str
    quality: str = "regular"
    formation: str | None = None
    weapons: tuple[str, ...] = ()
    at: Coord | None = None
    facing: float = bounded(0.0, min=0, max=360)
    width: float | None = bounded(None, min=0.1, max=12)
    depth: float | None = bounded(None, min=0.1, max=12)
    weight_class: Level | None = None
    earthmover: bool | None = None
    ski: bool = False
    move: MoveAllowance | None = None
    profiles: dict[str, str] = field(default_factory=dict)
    # The vehicles or men the stand represents at the start, for the alternative models:
    # mech-brigade's vehicles (men, or weapons) in the unit, typhoon's and squad-battles' men
    # in an infantry unit. Unset: the model's default (its chart, or the profile's men).
    strength: int | None = bounded(None, min=1, max=1000)
    # The aggression model's starting factor, 1-10 (AGG Aggression factors); unset: the
    # chart's default-af (5).
    aggression: int | None = bounded(None, min=1, max=10)
    # Engineering kit (CD 2-5): vlb, fascine, flail, roller, plow, line-charge,
    # smoke-generator, bridge-set-I .. bridge-set-VI.
    equipment: tuple[str, ...] = ()
    # Airborne (CD 7): may jump or come by glider, and the quality of its aircrew.
    parachute: bool = False
    glider: bool = False
    aircrew: str | None = None
    # AA with sound detection, a searchlight or radar fires fully at night (CD 9.1.6).
    aa_detection: bool = False
    # Amphibious (CD 8): a craft type of amphibious.yaml, the stands it brings, its wave.
    craft: str | None = None
    carries: tuple[str, ...] = ()
    wave: int | None = bounded(None, min=1, max=100)
    # Naval fire (CD 8.4.3): the ship a naval FO observes for; a USMC JASCO stand.
    naval_fo: str | None = None
    jasco: bool = False


@frozen_dataclass(kw_only=True)
class Side:
    """One side: its name, its formations and its stands."""

    name: str
    formations: tuple[Formation, ...] = ()
    stands: tuple[StandSpec, ...] = ()


@frozen_dataclass(kw_only=True)
class Scenario:
    """A whole scenario file as data (SPEC 6)."""

    format: Literal[1]
    name: str
    table: TableSize
    measure: Literal["edge", "centre"] = "edge"
    model: str = "cd"
    turn: TurnStart = field(default_factory=TurnStart)
    conditions: Conditions = field(default_factory=Conditions)
    charts: str | None = None
    terrain: tuple[TerrainPiece, ...] = ()
    weapons: tuple[dict[str, Any], ...] = ()
    sides: tuple[Side, ...] = ()
    minefields: tuple[MinefieldSpec, ...] = ()

    def stand_specs(self) -> list[tuple[str, StandSpec]]:
        return [(side.name, s) for side in self.sides for s in side.stands]

    def stand_spec(self, stand_id: str) -> StandSpec:
        for _, spec in self.stand_specs():
            if spec.id == stand_id:
                return spec
        raise KeyError(stand_id)

    def formation_index(self) -> dict[str, Formation]:
        return {f.id: f for side in self.sides for f in side.formations}

    def piece(self, piece_id: str) -> TerrainPiece:
        for piece in self.terrain:
            if piece.id == piece_id:
                return piece
        raise KeyError(piece_id)

    def side_names(self) -> list[str]:
        return [s.name for s in self.sides]


@frozen_dataclass
class LoadedScenario:
    """A validated scenario with the charts it plays with and its source text."""

    scenario: Scenario
    charts: Charts
    text: str
    source: str
    # The parsed YAML (weapon rules filled in): a game keeps it as JSON to skip the YAML.
    data: dict[str, Any] | None = None


# The resolution models a scenario may name (SPEC 5); ``rules/models`` registers one for each
# (a test keeps the two lists the same). The data floor knows the names, not the models.
KNOWN_MODELS = ("cd", "mech-brigade", "typhoon", "squad-battles", "aggression")

# An alternative model's profile ids from the charts, or None for a model without profiles:
# handed in from above (``rules.models.profile_lookup``), as the models are a higher floor.
ProfileLookup = Callable[[str, Charts], "Mapping[str, Any] | None"]


def rebuild_scenario(
    text: str, source: str, charts_raw: Raw, data: dict[str, Any]
) -> LoadedScenario:
    """A game's own scenario and charts, rebuilt from the copies kept in its file without
    checking them again: they were checked when the game began (``scenario_loader``)."""
    return LoadedScenario(
        build_trusted(Scenario, data), Charts(charts_raw, trusted=True), text, source, data
    )


def stand_extent(spec: StandSpec, charts: Charts) -> tuple[float, float]:
    kind = charts.stand_kinds[spec.kind]
    return (spec.width or kind.width, spec.depth or kind.depth)


ScenarioLoader = Callable[[], LoadedScenario]
