"""Scenario files, format v1 (SPEC 6): schema, validation and the game's opening state.

``parse_scenario(text, source, charts_loader)`` returns a validated ``Scenario`` or raises
``ScenarioError`` listing every problem with ``file:line: path: message``. Checks that need
the charts (stand kinds, terrain kinds, weapons, qualities, phases) use the charts the game
will play with, including the scenario's own ``weapons`` and ``charts`` overlay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tabletop.charts import Charts, Level, Raw, overlay
from tabletop.errors import BadInput, ChartError, ScenarioError
from tabletop.schema import Context, PathT, bounded, build, load_yaml

LIGHTS = ("day", "twilight", "night-moonlit", "night-dark", "artificial-moonlight")
WEATHERS = (
    "clear", "mist", "fog", "rain-light", "rain-steady", "rain-heavy",
    "snow-light", "snow-steady", "snow-heavy",
)  # fmt: skip
GROUNDS = ("dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice")
FORCES = ("light", "moderate", "high")
FORMATION_KINDS = ("division", "brigade", "regiment", "battalion", "company", "platoon")

Coord = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class TableSize:
    width: float = bounded(min=1, max=2000)
    depth: float = bounded(min=1, max=2000)


@dataclass(frozen=True, kw_only=True)
class TurnStart:
    number: int = bounded(1, min=1, max=10_000)
    phase: str = "movement"


@dataclass(frozen=True, kw_only=True)
class Wind:
    from_: int = bounded(3, min=1, max=8, key="from")
    force: Literal["light", "moderate", "high"] = "light"


@dataclass(frozen=True, kw_only=True)
class Conditions:
    light: Literal["day", "twilight", "night-moonlit", "night-dark", "artificial-moonlight"] = (
        "day"
    )
    weather: Literal[
        "clear", "mist", "fog", "rain-light", "rain-steady", "rain-heavy",
        "snow-light", "snow-steady", "snow-heavy",
    ] = "clear"  # fmt: skip
    dusty: bool = False
    wind: Wind = field(default_factory=Wind)
    ground: Literal["dry", "mud-light", "mud-moderate", "mud-deep", "snow", "snow-deep", "ice"] = (
        "dry"
    )


@dataclass(frozen=True, kw_only=True)
class TerrainPiece:
    id: str
    kind: str
    polygon: tuple[Coord, ...] | None = None
    line: tuple[Coord, ...] | None = None
    width: float | None = bounded(None, min=0.01, max=100)
    height: float | None = bounded(None, min=0, max=20)
    weight_class: Level | None = None
    wired: bool = False
    state: Literal["intact", "damaged", "destroyed", "burning"] = "intact"
    referee_only: bool = False


@dataclass(frozen=True, kw_only=True)
class Formation:
    id: str
    kind: Literal["division", "brigade", "regiment", "battalion", "company", "platoon"]
    parent: str | None = None


@dataclass(frozen=True, kw_only=True)
class StandSpec:
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
    profiles: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Side:
    name: str
    formations: tuple[Formation, ...] = ()
    stands: tuple[StandSpec, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Scenario:
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


@dataclass(frozen=True)
class LoadedScenario:
    """A validated scenario with the charts it plays with and its source text."""

    scenario: Scenario
    charts: Charts
    text: str
    source: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


KNOWN_MODELS = ("cd",)


def parse_scenario(
    text: str,
    source: str,
    *,
    base_dir: Path | None = None,
    extra_overlays: tuple[Path, ...] = (),
    charts_raw: Raw | None = None,
) -> LoadedScenario:
    """Validate scenario text; return it with the charts the game will use.

    ``charts_raw`` (from a game file) replaces chart loading from disk, so a stored game
    rebuilds exactly as it began.
    """
    data, ctx = load_yaml(text, source)
    if not isinstance(data, dict):
        raise ScenarioError([f"{source}: a scenario is a mapping of keys (format, name, ...)"])
    _prefill_weapon_rules(data)
    scenario = build(Scenario, data, ctx)
    if scenario is None:
        raise ScenarioError(ctx.problems)
    charts = _charts_for(scenario, ctx, base_dir, extra_overlays, charts_raw)
    _cross_check(scenario, charts, ctx)
    if ctx.problems:
        raise ScenarioError(ctx.problems)
    return LoadedScenario(scenario, charts, text, source)


def read_scenario(path: Path, extra_overlays: tuple[Path, ...] = ()) -> LoadedScenario:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"scenario {str(path)!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"scenario {str(path)!r}: cannot be read ({exc.__class__.__name__})") from None
    return parse_scenario(text, path.name, base_dir=path.parent, extra_overlays=extra_overlays)


def _prefill_weapon_rules(data: dict[str, Any]) -> None:
    weapons = data.get("weapons")
    if isinstance(weapons, list):
        for w in weapons:
            if isinstance(w, dict) and "rule" not in w:
                w["rule"] = "scenario weapon"


def _charts_for(
    scenario: Scenario,
    ctx: Context,
    base_dir: Path | None,
    extra_overlays: tuple[Path, ...],
    charts_raw: Raw | None,
) -> Charts:
    from tabletop.charts import load_raw

    try:
        if charts_raw is None:
            overlays: list[Path] = []
            if scenario.charts is not None:
                folder = Path(scenario.charts)
                if not folder.is_absolute() and base_dir is not None:
                    folder = base_dir / folder
                overlays.append(folder)
            overlays.extend(extra_overlays)
            charts_raw = load_raw(tuple(overlays))
            if scenario.weapons:
                charts_raw = overlay(charts_raw, {"weapons": [dict(w) for w in scenario.weapons]})
        return Charts(charts_raw)
    except ChartError as exc:
        raise ScenarioError([f"{ctx.source}: charts: {p}" for p in exc.problems]) from None


def _known(ctx: Context, path: PathT, value: str, known: Any, what: str) -> bool:
    import difflib

    if value in known:
        return True
    names = sorted(known)
    close = difflib.get_close_matches(value, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    shown = ", ".join(names) if len(names) <= 30 else ", ".join(names[:30]) + ", ..."
    ctx.error(path, f"unknown {what} {value!r} (known: {shown}){hint}")
    return False


def _cross_check(sc: Scenario, charts: Charts, ctx: Context) -> None:
    _check_ids(sc, ctx)
    if sc.model not in KNOWN_MODELS:
        _known(ctx, ("model",), sc.model, KNOWN_MODELS, "model")
    _known(ctx, ("turn", "phase"), sc.turn.phase, [p.id for p in charts.phases], "phase")
    for i, piece in enumerate(sc.terrain):
        _check_piece(sc, charts, ctx, i, piece)
    formations = sc.formation_index()
    for s, side in enumerate(sc.sides):
        own = {f.id for f in side.formations}
        for f_i, form in enumerate(side.formations):
            if form.parent is not None and form.parent not in own:
                ctx.error(
                    ("sides", s, "formations", f_i, "parent"),
                    f"parent {form.parent!r} is not a formation of side {side.name!r}",
                )
        _check_cycles(side, s, ctx)
        for t, stand in enumerate(side.stands):
            path: PathT = ("sides", s, "stands", t)
            _known(ctx, (*path, "kind"), stand.kind, charts.stand_kinds, "stand kind")
            _known(ctx, (*path, "quality"), stand.quality, charts.quality, "quality")
            for w_i, weapon in enumerate(stand.weapons):
                _known(ctx, (*path, "weapons", w_i), weapon, charts.weapons, "weapon")
            if len(set(stand.weapons)) != len(stand.weapons):
                ctx.error((*path, "weapons"), "a weapon is listed twice")
            if stand.formation is not None and stand.formation not in own:
                if stand.formation in formations:
                    ctx.error(
                        (*path, "formation"),
                        f"formation {stand.formation!r} belongs to another side",
                    )
                else:
                    _known(ctx, (*path, "formation"), stand.formation, own, "formation")
            if stand.at is not None:
                x, y = stand.at
                if not (0 <= x <= sc.table.width and 0 <= y <= sc.table.depth):
                    ctx.error(
                        (*path, "at"),
                        f"({x:g}, {y:g}) is off the {sc.table.width:g} x {sc.table.depth:g} table",
                    )


def _check_ids(sc: Scenario, ctx: Context) -> None:
    seen: dict[str, str] = {}

    def note(path: PathT, ident: str, what: str) -> None:
        if ident in seen:
            ctx.error(path, f"duplicate id {ident!r} (already used by a {seen[ident]})")
        else:
            seen[ident] = what

    for i, piece in enumerate(sc.terrain):
        note(("terrain", i, "id"), piece.id, "terrain piece")
    for s, side in enumerate(sc.sides):
        for f, form in enumerate(side.formations):
            note(("sides", s, "formations", f, "id"), form.id, "formation")
        for t, stand in enumerate(side.stands):
            note(("sides", s, "stands", t, "id"), stand.id, "stand")
    names = [side.name for side in sc.sides]
    if len(set(names)) != len(names):
        ctx.error(("sides",), "two sides have the same name")
    for s, name in enumerate(names):
        if name == "referee":
            ctx.error(("sides", s, "name"), "'referee' is reserved for the referee's view")


def _check_cycles(side: Side, s: int, ctx: Context) -> None:
    parents = {f.id: f.parent for f in side.formations}
    for f_i, form in enumerate(side.formations):
        seen = {form.id}
        up = form.parent
        while up is not None and up in parents:
            if up in seen:
                ctx.error(
                    ("sides", s, "formations", f_i, "parent"),
                    f"formation {form.id!r} is its own ancestor",
                )
                break
            seen.add(up)
            up = parents[up]


def _check_piece(sc: Scenario, charts: Charts, ctx: Context, i: int, piece: TerrainPiece) -> None:
    path: PathT = ("terrain", i)
    if not _known(ctx, (*path, "kind"), piece.kind, charts.terrain, "terrain kind"):
        return
    kind = charts.terrain[piece.kind]
    if (piece.polygon is None) == (piece.line is None):
        ctx.error(path, "give exactly one of 'polygon' or 'line'")
        return
    if piece.polygon is not None:
        if kind.shape == "line":
            ctx.error((*path, "polygon"), f"a {piece.kind} is drawn as a 'line' with a 'width'")
            return
        if len(piece.polygon) < 3:
            ctx.error((*path, "polygon"), "a polygon needs at least 3 corners")
            return
        from shapely import Polygon, is_valid_reason

        shape = Polygon(piece.polygon)
        if not shape.is_valid:
            ctx.error((*path, "polygon"), f"not a valid polygon: {is_valid_reason(shape)}")
        elif shape.area <= 0:
            ctx.error((*path, "polygon"), "the polygon has no area")
        points = piece.polygon
    else:
        assert piece.line is not None
        if kind.shape == "area":
            ctx.error((*path, "line"), f"a {piece.kind} is drawn as a 'polygon'")
            return
        if len(piece.line) < 2:
            ctx.error((*path, "line"), "a line needs at least 2 points")
            return
        if piece.width is None:
            ctx.error(path, "a line needs a 'width' (inches)")
        points = piece.line
    for p_i, (x, y) in enumerate(points):
        if not (-0.01 <= x <= sc.table.width + 0.01 and -0.01 <= y <= sc.table.depth + 0.01):
            key = "polygon" if piece.polygon is not None else "line"
            ctx.error((*path, key, p_i), f"point ({x:g}, {y:g}) is off the table")
            break
    if piece.height is not None and not (kind.ground or kind.blocks):
        ctx.error((*path, "height"), f"a {piece.kind} has no height (it never blocks sight)")


def stand_extent(spec: StandSpec, charts: Charts) -> tuple[float, float]:
    kind = charts.stand_kinds[spec.kind]
    return (spec.width or kind.width, spec.depth or kind.depth)


ScenarioLoader = Callable[[], LoadedScenario]
