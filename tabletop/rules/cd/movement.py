"""Moving stands: the refereed move, setting up with ``place``, plain rolls and markers.

A move (``move_action``) runs from the stand through its waypoints in straight legs. The path
is cut wherever the terrain under it changes (``tabletop.table.paths``) and each stretch is
priced with the one movement-cost procedure (``rules.cd.ground.move_cost``: terrain for the
stand's mobility, road, ground, weather), against the stand's base allowance
(``charts/movement.yaml``, or its own ``move:`` in the scenario). Water is crossed only at a
ford, on a bridge that carries the stand (CD 2, 2.4.1), or on ice (CD 11.3); obstacles
(CD 4) and burning terrain (CD 6.2.2) are applied where the path meets them.

``plan_move`` works all of that out without changing anything or rolling; ``apply_move``
then carries it out: hidden minefields (CD 3.2) and ice too thin for the stand (CD 11.3) may
stop it short, and a vehicle that crossed mud rolls for miring (CD 11.1.4). ``--check`` runs
the same ``apply_move`` over every possible roll on a copy of the state.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import field, replace
from fractions import Fraction
from typing import Any, NotRequired, TypedDict

from shapely import Point, Polygon

from tabletop.core.dice import DiceLike, explain_no_roll
from tabletop.core.errors import BadInput, RulesRefusal, TabletopError
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.odds import Repeats, distribution
from tabletop.core.units import within_move
from tabletop.core.words import count, fraction_text
from tabletop.data.board import base_of
from tabletop.data.chart_params import EngineeringParams, TableParams, WeatherParams
from tabletop.data.charts import StandKind, weight_number
from tabletop.rules.cd import ground, minefields
from tabletop.rules.cd.allowance import _spec, allowance_of, fall_back_plan
from tabletop.rules.cd.conditions import weight_class_of
from tabletop.rules.cd.fire import can_fire_direct
from tabletop.rules.cd.ground import holds_still, refuse_if_mired
from tabletop.rules.cd.ice import ICE_ORDER, check_ice, ice_class, needs, referee_note
from tabletop.rules.cd.sighting import End, end_for_stand, glances
from tabletop.rules.cd.structures import automatic_hit
from tabletop.rules.cd.terrain_columns import TERRAIN_COLUMN
from tabletop.rules.context import RulesContext
from tabletop.state.document import (
    LastMoveRow,
    StandRow,
    centre,
    in_play,
    out_of_play,
    position,
    stage_of,
)
from tabletop.table import bearing, overlapping
from tabletop.table.paths import EPS, Stretch, path_length, point_along, split_path

DICE_SPEC = re.compile(r"^\s*([0-9]*)\s*[dD]\s*([0-9]+)\s*$")
MAX_PURPOSE = 200
MAX_DICE = 100
MAX_WAYPOINTS = 50
OBSTACLES = {
    "wire": "CD 4.1",
    "ditch": "CD 4.2",
    "crater": "CD 4.2",
    "av-obstacle": "CD 4.3",
    "abatis": "CD 4.4",
}
WATER_KINDS = ("river", "stream", "lake")
SNOWY = ("snow", "snow-deep")
WHERE_ORDER = ("hard-road", "dirt-road", "open")  # safest to worst for miring (CD 11.1.4)


# --- the pieces of a path -----------------------------------------------------------------------


@mutable_dataclass
class Segment:
    """One priced stretch of the path."""

    start: float
    end: float
    terrain: str  # what the players see there: a piece id, or "open"
    kind: str  # the terrain kind that priced it
    multiplier: float | None
    rule: str
    because: list[str]
    ground: str  # the ground condition that counts there
    where: str  # open | dirt-road | hard-road (for miring)
    mire: int = 0  # miring number for this stand here (0: none)
    ice: str | None = None  # the ice class under it, when on ice
    ice_piece: str | None = None
    hidden: bool = False  # priced over a referee-only piece

    @property
    def length(self) -> float:
        return self.end - self.start

    @property
    def cost(self) -> float:
        return self.length * (self.multiplier or 0.0)

    def as_json(self) -> dict[str, Any]:
        return {
            "terrain": self.terrain,
            "from": round(self.start, 3),
            "length": round(self.length, 3),
            "multiplier": None if self.multiplier is None else round(self.multiplier, 4),
            "cost": round(self.cost, 3),
            "rule": self.rule,
            "ground": self.ground,
            "because": self.because,
        }


@mutable_dataclass
class Event:
    """Something the path meets: a bridge, a ford, an obstacle, ice, a minefield, mud."""

    kind: str
    id: str | None
    along: float
    point: tuple[float, float]
    rule: str
    result: str
    referee_only: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "point": [round(self.point[0], 3), round(self.point[1], 3)],
            "rule": self.rule,
            "result": ("referee: " if self.referee_only else "") + self.result,
        }


@mutable_dataclass
class MovePlan:
    stand: StandRow
    points: list[tuple[float, float]]
    facing: float
    allowance: float
    road_allowance: float
    segments: list[Segment] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    refused: str | None = None
    falling_back: bool = False  # a forced-back result carried out ('move --fall-back')

    @property
    def length(self) -> float:
        return path_length(self.points)

    @property
    def cost(self) -> float:
        return sum(s.cost for s in self.segments if s.multiplier is not None)


# --- allowance ------------------------------------------------------------------------------------


def _ski(ctx: RulesContext, stand: StandRow) -> bool:
    spec = _spec(ctx, stand["id"])
    return bool(spec is not None and spec.ski)


# --- refusals before any geometry -------------------------------------------------------------


def _special_cases(ctx: RulesContext, stand: StandRow) -> None:
    """What already stops a stand moving, whatever its path (as ``place`` has always known)."""
    state = ctx.state
    sid = stand["id"]
    if stand.get("aboard"):
        raise RulesRefusal(f"{sid} is aboard {stand['aboard']}: unload it first (CD 2.1, 8.1)")
    if stand.get("landed_turn") == state.turn:
        raise RulesRefusal(f"{sid} landed this turn and may not move (CD 7.2.2, 7.3.2)")
    if stand.get("disembarked_turn") == state.turn:
        raise RulesRefusal(
            f"{sid} came ashore this turn and ends its move beside its landing craft (CD 8.1.1)"
        )
    if stage_of(stand) == "wading":
        raise RulesRefusal(
            f"{sid} is wading ashore: move it with 'tabletop amphibious wade {sid}' (CD 8.1.4)"
        )
    refuse_if_mired(stand)
    holds_still(ctx, stand)
    if stand.get("mire_due") is not None:
        raise RulesRefusal(
            f"{stand['id']} still owes the miring roll of its last move: roll it first with "
            f"'tabletop mire {stand['id']}' (CD 11.1.4)"
        )
    for model, facts in (stand.get("models") or {}).items():
        # A model's record may pin the stand where it is (MB 7.7: over 50 suppression).
        if isinstance(facts, dict) and facts.get("pinned"):
            why = facts.get("pinned_rule") or model
            raise RulesRefusal(f"{sid} is pinned under {model} and may not move ({why})")
    if stand.get("unmired_turn") == state.turn:
        raise RulesRefusal(
            f"{sid} freed itself from the mud this turn: it moves again next turn (CD 11.1.5)"
        )


def _check_phase(ctx: RulesContext, stand: StandRow) -> None:
    phase = ctx.charts.phase(ctx.state.phase)
    if "movement" not in phase.allows:
        allowed = [p.id for p in ctx.charts.phases if "movement" in p.allows]
        raise RulesRefusal(
            f"{stand['id']} cannot move in the {phase.id} phase: stands move in the "
            f"{' or '.join(allowed)} phase (turn chart); advance with 'tabletop phase next'"
        )
    last: LastMoveRow | dict[str, Any] = stand.get("last_move") or {}
    if last.get("turn") == ctx.state.turn and last.get("phase") == ctx.state.phase:
        raise RulesRefusal(
            f"{stand['id']} has already moved this movement phase: one move per stand per "
            "movement phase (CD core)"
        )


# --- pricing --------------------------------------------------------------------------------------


@frozen_dataclass
class Extra:
    """A shape that is not a scenario piece but changes how the path is priced."""

    kind: str  # flood-margin | built-bridge | gap
    id: str
    weight_class: str | None = None
    of: str | None = None  # the piece a gap is cut through


def _extras(ctx: RulesContext) -> tuple[list[Any], list[Extra]]:
    """Flood margins (CD 10.3.4), bridges built in play (CD 2.4.3) and gaps, VLBs and
    fascines across obstacles and narrow water (CD 2.4.5, 4)."""

    shapes: list[Any] = []
    extras: list[Extra] = []
    margin = ctx.charts.params(WeatherParams).flooded_mud_margin
    for piece in ctx.scenario.terrain:
        if piece.kind == "flooded" and piece.ground is None:
            shape = ctx.table.geometry(piece.id)
            shapes.append(shape.buffer(margin).difference(shape))
            extras.append(Extra("flood-margin", piece.id))
    for template in ctx.state.templates():
        if template.get("kind") == "bridge" and template.get("polygon"):
            shapes.append(Polygon(template["polygon"]))
            extras.append(Extra("built-bridge", template["id"], template.get("weight_class")))
    gap_width = ctx.charts.params(EngineeringParams).gap_width
    adjacent = ctx.charts.params(EngineeringParams).adjacent
    for key, row in ctx.state.rows.items():
        if not key.startswith("terrain:"):
            continue
        for n, gap in enumerate(row.get("gaps") or []):
            # The gap is cut beside where its engineer (or launcher) stood: a disc reaching
            # from there across the obstacle (our reading of CD 4's 1" path).
            width = float(gap.get("width") or gap_width)
            shapes.append(Point(*gap["at"]).buffer(width + adjacent))
            by = gap.get("by") or "cleared"
            extras.append(Extra("gap", f"{row['id']}-{by}-{n + 1}", gap.get("class"), row["id"]))
    return shapes, extras


def _terrain_row(ctx: RulesContext, piece_id: str) -> dict[str, Any]:
    return ctx.state.rows.get("terrain:" + piece_id) or {}


class Pricer:
    """Prices stretches of one stand's path; built once per move."""

    def __init__(self, ctx: RulesContext, stand: StandRow):
        self.ctx = ctx
        self.stand = stand
        self.kind: StandKind = ctx.charts.stand_kinds[stand["kind"]]
        self.cross, self.road, self.source = allowance_of(ctx, stand)
        self.ski = _ski(ctx, stand)
        self.conditions = ctx.state.conditions
        self.weight = weight_class_of(ctx, stand) if self.kind.category != "personnel" else None
        self.ice_need = needs(ctx, stand)
        self.shapes, self.extras = _extras(ctx)
        self.pieces = ctx.table.pieces
        self.specs = {p.id: p for p in ctx.scenario.terrain}
        self.column = TERRAIN_COLUMN.get(self.kind.mobility, "foot")

    def split(self, points: list[tuple[float, float]]) -> list[Stretch]:
        table = self.ctx.table
        return split_path(points, table.tree, table.geometries, self.shapes)

    def price_point(self, x: float, y: float) -> tuple[Segment, list[Event]]:
        """What an inch costs the stand at (x, y), by the very procedure that prices a path
        (``move-cost`` asks this, so it cannot differ from ``move``), and what is met there."""
        here = Point(x, y)
        n = len(self.pieces)
        cover = [i for i, p in enumerate(self.pieces) if self.ctx.table.geometry(p.id).covers(here)]
        cover += [n + j for j, shape in enumerate(self.shapes) if shape.covers(here)]
        events: list[Event] = []
        seg = self.price(Stretch(0.0, 0.0, tuple(cover)), [(x, y)], events)
        return seg, events

    def _multiplier(self, terrain_kind: str) -> float | None:
        move = self.ctx.charts.terrain[terrain_kind].move
        if move is None:
            return 1.0
        cost: float | None = getattr(move, self.column)
        return cost

    def price(
        self, stretch: Stretch, points: list[tuple[float, float]], events: list[Event]
    ) -> Segment:
        charts = self.ctx.charts
        n = len(self.pieces)
        specs = [self.specs[self.pieces[i].id] for i in stretch.cover if i < n]
        extras = [self.extras[i - n] for i in stretch.cover if i >= n]
        entry = point_along(points, stretch.start)
        shown = [s for s in specs if not s.referee_only]
        label = shown[-1].id if shown else "open"

        def segment(
            kind: str, mult: float | None, rule: str, because: list[str], **kw: Any
        ) -> Segment:
            return Segment(
                stretch.start,
                stretch.end,
                kw.pop("terrain", label),
                kind,
                mult,
                rule,
                because,
                kw.pop("ground_id", self.conditions["ground"]),
                kw.pop("where", "open"),
                **kw,
            )

        def impassable(piece_id: str, why: str, rule: str, kind: str = "open") -> Segment:
            events.append(Event("impassable", piece_id, stretch.start, entry, rule, why))
            return segment(kind, None, rule, [why], terrain=piece_id)

        # Burning terrain: no stand may enter it (CD 6.2.2).
        for spec in specs:
            if _terrain_row(self.ctx, spec.id).get("state") == "burning":
                return impassable(
                    spec.id, f"{spec.id} is burning: no stand may enter it", "CD 6.2.2"
                )
        # Local ground, and deep mud beside impassable flooding (CD 10.3.4, 11.1).
        local = [s.ground for s in specs if s.ground is not None]
        ground_id = local[-1] if local else self.conditions["ground"]
        local_why = (
            [f"{ground_id} here ({[s.id for s in specs if s.ground][-1]}'s own ground, CD 11.1)"]
            if local
            else []
        )
        near_flood = any(e.kind == "flood-margin" for e in extras)
        road_kinds = [charts.terrain[s.kind].road for s in specs if charts.terrain[s.kind].road]
        road = (
            "hard"
            if "hard" in road_kinds
            else "paved"
            if "paved" in road_kinds
            else "dirt"
            if road_kinds
            else None
        )
        where = {"hard": "hard-road", "paved": "hard-road", "dirt": "dirt-road"}.get(
            road or "", "open"
        )
        # Where roads meet, the stretch is named for the road that prices it (the hard road
        # a dirt track joins, not the track: mud spares the one and not the other, CD 11.1).
        giving = [s.id for s in shown if road and charts.terrain[s.kind].road == road]
        if giving:
            label = giving[-1]
        # Deep water: a bridge that carries the stand, a ford, or ice; else no way across
        # (CD 2). Shallow water (a stream) is priced by the terrain chart like any ground.
        water = [
            s
            for s in specs
            if s.kind not in ("bridge", "ford")
            and (charts.terrain[s.kind].water == "deep" or ice_class(s) is not None)
        ]
        bridges = [s for s in specs if s.kind == "bridge"] + [
            e
            for e in extras
            if e.kind == "built-bridge"
            or (e.kind == "gap" and e.of and self.specs[e.of].kind in WATER_KINDS)
        ]
        fords = [s for s in specs if s.kind == "ford"]
        on_ice: tuple[str, str, bool] | None = None
        wet = {s.id for s in water}
        on_bridge = False
        if water or any(s.kind == "bridge" for s in specs):
            carried = self._bridge(bridges, stretch, entry, events)
            if isinstance(carried, Segment):
                return carried
            if carried:
                water = []
                on_bridge = True
            elif water and fords:
                events.append(
                    Event(
                        "ford",
                        fords[-1].id,
                        stretch.start,
                        entry,
                        "CD 2",
                        f"fords {water[-1].id} at {fords[-1].id}",
                    )
                )
                water = []
        if water:
            frozen = [(s, ice_class(s)) for s in water]
            if all(c is not None for _, c in frozen):
                hidden = [(s, c) for s, c in frozen if s.referee_only]
                lake, cls = min(hidden or frozen, key=lambda sc: ICE_ORDER.index(str(sc[1])))
                on_ice = (lake.id, str(cls), bool(hidden))
            else:
                open_water = [s for s, c in frozen if c is None][-1]
                return impassable(
                    open_water.id,
                    f"{open_water.id} ({open_water.kind}) is crossed only at a ford, by a bridge "
                    "that carries the stand or by assault boat ('tabletop engineer boat')",
                    "CD 2",
                    open_water.kind,
                )
        # Obstacles, unless a gap has been cleared or bridged through them (CD 4).
        gapped = {e.of for e in extras if e.kind == "gap"}
        obstacles = [s for s in specs if s.kind in OBSTACLES]
        for ob in obstacles:
            state = _terrain_row(self.ctx, ob.id).get("state", "intact")
            if ob.id in gapped or state == "destroyed":
                events.append(
                    Event(
                        "obstacle",
                        ob.id,
                        stretch.start,
                        entry,
                        OBSTACLES[ob.kind],
                        f"through the gap in {ob.id}",
                    )
                )
                continue
            mult = self._multiplier(ob.kind)
            if mult is None:
                return impassable(
                    ob.id,
                    f"{ob.id} ({ob.kind}) bars {self.column} stands until cleared or bridged",
                    OBSTACLES[ob.kind],
                    ob.kind,
                )
            events.append(
                Event(
                    "obstacle",
                    ob.id,
                    stretch.start,
                    entry,
                    OBSTACLES[ob.kind],
                    f"crosses {ob.id} ({ob.kind}): x{mult:g}",
                )
            )
        obstacles = [o for o in obstacles if o.id not in gapped]
        # The terrain that prices the stretch: the costliest area (or obstacle) under it; a
        # road spares the stand the area's own cost but not an obstacle's.
        if on_ice is not None:
            lake_id, ice_cls, patch = on_ice
            snow = self.conditions["ground"] in SNOWY
            # CD 11.3: ice that bears costs as ice; a snow-covered lake as snowy ground.
            ice_ground = self.conditions["ground"] if snow else "ice"
            cost = ground.move_cost(
                self.kind, "open", {**self.conditions, "ground": ice_ground}, charts, ski=self.ski
            )
            seen_as = lake_id if not (patch or self.specs[lake_id].referee_only) else label
            return segment(
                "lake",
                cost.multiplier,
                "CD 11.3",
                cost.because,
                terrain=seen_as,
                ground_id=ice_ground,
                ice=ice_cls,
                ice_piece=lake_id,
                hidden=patch or self.specs[lake_id].referee_only,
            )
        areas = [
            s
            for s in specs
            if not charts.terrain[s.kind].road
            and s.kind not in OBSTACLES
            and s.kind != "bridge"
            and not (s.kind == "flooded" and s.ground)
            and s.id not in wet
        ]
        candidates = [*obstacles, *([] if road else areas)]
        worst = None
        for spec in candidates:
            mult = self._multiplier(spec.kind)
            if mult is None:
                worst = spec
                break
            if worst is None or mult > (self._multiplier(worst.kind) or 0):
                worst = spec
        terrain_kind = worst.kind if worst is not None else "open"
        # The made surface under the stand, for the ground condition: a road, or a bridge's
        # deck (a hard surface wherever it is crossed). An obstacle strip across a hard road
        # is priced as the obstacle but keeps the road's surface: mud does not reach it
        # (CD 11.1; CD 4.3: anti-vehicle obstacles do not slow personnel at all).
        surface = road or ("hard" if on_bridge else None)
        if surface is not None and where == "open":
            where = "hard-road"
        if worst is not None and worst.kind in OBSTACLES:
            road = None
        cost = ground.move_cost(
            self.kind,
            terrain_kind,
            {**self.conditions, "ground": ground_id},
            charts,
            road=road,
            ski=self.ski,
            near_flood=near_flood,
            surface=surface,
        )
        label = worst.id if worst is not None and not worst.referee_only else label
        here_ground, _ = ground.ground_here(ground_id, near_flood, charts)
        if cost.multiplier is None:
            return impassable(
                label if worst is None else worst.id,
                "; ".join(cost.because),
                charts.terrain[terrain_kind].rule,
                terrain_kind,
            )
        because = [*local_why, *cost.because]
        mult = self.along_road(cost.multiplier, road, because)
        rule = charts.terrain[terrain_kind].rule if road is None else "CD 11 (roads)"
        ground_row = charts.table("ground")[here_ground]
        exempt = surface is not None and surface in ground_row.road_exempt
        if not exempt and (ground_row.vehicle != 1 or ground_row.personnel != 1):
            rule = f"{rule}; {ground_row.rule}"
        seg = segment(terrain_kind, mult, rule, because, ground_id=here_ground, where=where)
        if ground.is_vehicle(self.kind):
            seg.mire, _ = ground.mire_number(self.kind, where, here_ground, charts)
        return seg

    def along_road(self, mult: float, road: str | None, because: list[str]) -> float:
        """Along a road the stand uses its road allowance: an inch there is worth
        cross/road inches of the cross-country allowance (CD 11.2.1)."""
        if road is None or self.road == self.cross:
            return mult
        because.append(
            f'road allowance {self.road:g}" against {self.cross:g}" across country: '
            f"x{self.cross / self.road:.4g}"
        )
        return mult * self.cross / self.road

    def _bridge(
        self, bridges: list[Any], stretch: Stretch, entry: tuple[float, float], events: list[Event]
    ) -> Segment | bool:
        """Whether a bridge carries the stand over this stretch (CD 2.4.1); a Segment when
        the only bridge there is wrecked or too weak (the stand cannot cross)."""
        if not bridges:
            return False
        problems = []
        for bridge in bridges:
            bid = bridge.id
            cls = bridge.weight_class
            state = (
                _terrain_row(self.ctx, bid).get("state", "intact")
                if hasattr(bridge, "polygon")
                else "intact"
            )
            if state in ("damaged", "destroyed"):
                problems.append((bid, f"{bid} is {state}: no stand may cross it", "CD 2.4.1"))
                continue
            if (
                cls is not None
                and self.weight is not None
                and (weight_number(self.weight) > weight_number(cls))
            ):
                problems.append(
                    (
                        bid,
                        f"{bid} (class {cls}) cannot carry {self.stand['id']} "
                        f"(class {self.weight})",
                        "CD 2.4.1",
                    )
                )
                continue
            what = f"class {cls}" if cls else "no class limit"
            events.append(
                Event("bridge", bid, stretch.start, entry, "CD 2.4", f"crosses {bid} ({what})")
            )
            return True
        bid, why, rule = problems[0]
        events.append(Event("impassable", bid, stretch.start, entry, rule, why))
        return Segment(
            stretch.start,
            stretch.end,
            bid,
            "bridge",
            None,
            rule,
            [why],
            self.conditions["ground"],
            "open",
        )


# --- the plan -------------------------------------------------------------------------------------


def parse_path(ctx: RulesContext, stand: StandRow, inputs: dict[str, Any]) -> list[Any]:
    width, depth = ctx.scenario.table.width, ctx.scenario.table.depth
    raw = [*(inputs.get("via") or []), inputs["to"]]
    if len(raw) > MAX_WAYPOINTS:
        raise BadInput(f"{len(raw) - 1} waypoints: give at most {MAX_WAYPOINTS - 1} --via points")
    points = [centre(stand)]
    for p in raw:
        x, y = float(p[0]), float(p[1])
        if not (0 <= x <= width and 0 <= y <= depth):
            raise BadInput(f"{x:g},{y:g} is off the {width:g} x {depth:g} table")
        points.append((x, y))
    return points


def plan_move(
    ctx: RulesContext,
    stand: StandRow,
    points: list[Any],
    facing: float | None,
    *,
    suggest: bool = True,
    forced: bool = False,
) -> MovePlan:
    """Price the path and find what it meets, changing nothing and rolling nothing.

    A move over its allowance is refused saying where the allowance runs out, a point
    tried to be one the stand can reach (``suggest``: off for that trial itself)."""

    pricer = Pricer(ctx, stand)
    if facing is None:
        legs = [(a, b) for a, b in itertools.pairwise(points) if math.dist(a, b) > EPS]
        facing = bearing(*legs[-1][0], *legs[-1][1]) if legs else float(stand["facing"])
    plan = MovePlan(stand, points, float(facing) % 360, pricer.cross, pricer.road)
    plan.falling_back = forced
    if pricer.kind.mobility in ("static", "boat"):
        plan.refused = (
            f"{stand['id']} ({stand['kind']}) does not move on land: boats move with "
            "'tabletop engineer boat' or 'tabletop amphibious' (CD 2.1, 8.1)"
        )
        return plan
    blocked: Segment | None = None
    for stretch in pricer.split(points):
        seg = pricer.price(stretch, points, plan.events)
        plan.segments.append(seg)
        if seg.multiplier is None:
            blocked = seg
            break
    # One event for each thing crossed, where the path first meets it.
    seen: set[tuple[str, str | None]] = set()
    kept = []
    for event in plan.events:
        if (event.kind, event.id) not in seen:
            kept.append(event)
            seen.add((event.kind, event.id))
    plan.events = kept
    # The first limit met along the path refuses it: the allowance running out before
    # the stand reaches what bars its way is refused for the allowance (movement costs).
    cost = plan.cost
    if not forced and not within_move(cost, plan.allowance):
        out_along = _runs_out_along(plan.segments, plan.allowance)
        plan.refused = (
            f'{stand["id"]} needs {shown_total(plan.segments)}" of movement'
            + (" before it reaches what bars its way" if blocked is not None else "")
            + f' but has {plan.allowance:g}" ({pricer.source}): '
            + (_runs_out_text(ctx, stand, points, out_along) if suggest else "")
            + " (movement costs, CD 10.2.2, 10.3.2, 11)"
        )
        return plan
    if blocked is not None:
        x, y = point_along(points, blocked.start)
        plan.refused = f"{stand['id']} cannot enter {blocked.terrain} at {x:.2f},{y:.2f}: " + (
            f"{blocked.because[0]} ({blocked.rule})"
        )
        return plan
    # Bases may touch but not overlap where the move ends (as for 'place').
    candidate = {**stand, "x": points[-1][0], "y": points[-1][1], "facing": plan.facing}
    others = [
        s
        for s in ctx.state.stands()
        if s["id"] != stand["id"] and s["x"] is not None and in_play(s)
    ]
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    clash = overlapping(base_of(candidate), [base_of(s) for s in others], tolerance)
    if clash:
        plan.refused = (
            f"{stand['id']} would end at {points[-1][0]:g},{points[-1][1]:g} on top of "
            f"{', '.join(clash)}: bases may touch but not overlap"
        )
        return plan
    _mines_met(ctx, stand, plan)
    _ice_met(ctx, plan)
    return plan


def _runs_out_along(segments: list[Segment], allowance: float) -> float:
    """Inches along the path where the allowance is spent (or the path is barred)."""
    spent = 0.0
    for seg in segments:
        if seg.multiplier is None:
            return seg.start
        if spent + seg.cost > allowance:
            return seg.start + (allowance - spent) / seg.multiplier
        spent += seg.cost
    return segments[-1].end if segments else 0.0


STEP_BACK = 0.25  # inches: how far back a refusal looks for free ground for its stop point


def _runs_out_text(ctx: RulesContext, stand: StandRow, points: list[Any], along: float) -> str:
    """Where the allowance runs out, as a point the stand can be moved to, and the command.

    The point is printed to two places, and tried: the same move to it (through the
    waypoints passed on the way) must pass, else it is taken a quarter inch further back
    (the point runs onto another base, say), until one does.
    """
    while along > EPS:
        x, y = (round(v, 2) for v in point_along(points, along))
        walked, via = 0.0, []
        for a, b in itertools.pairwise(points):
            walked += math.dist(a, b)
            if walked >= along - EPS:
                break
            via.append(b)
        trial = plan_move(ctx, stand, [points[0], *via, (x, y)], None, suggest=False)
        if not trial.refused:
            vias = "".join(f" --via {vx:g},{vy:g}" for vx, vy in via)
            return (
                f"it runs out at {x:.2f},{y:.2f} "
                f"('tabletop move {stand['id']} {x:.2f},{y:.2f}{vias}' stops there)"
            )
        along -= STEP_BACK
    return "it cannot set out along this path"


def cost_lines(rows: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The costs piece by piece, as a referee reads them, and their total: every figure is
    worked from the figures printed before it (the length to two places, times the
    multiplier), so the lines add up to the total as printed."""
    lines, total = [], 0.0
    for row in rows:
        length = round(row["length"], 2)
        where = f'{length:.2f}" {row["terrain"]}'
        if row["multiplier"] is None:
            lines.append(f"{where}: impassable ({row['rule']})")
            continue
        cost = round(length * row["multiplier"], 2)
        total += cost
        lines.append(f'{where}: x{row["multiplier"]:g} = {cost:.2f}" ({row["rule"]})')
    return lines, f"{total:.2f}"


def shown_total(segments: list[Segment]) -> str:
    """The total cost of ``segments`` as ``cost_lines`` prints it."""
    return cost_lines(shown_segments(segments))[1]


def mines_on_the_way(
    ctx: RulesContext, plan: MovePlan
) -> list[tuple[minefields.Meeting, dict[str, Any]]]:
    """The enemy minefields the move meets. A stand forced back out of a field it lies
    on (or touches) is neither stopped nor attacked by it again on its way out (CD 3.2);
    another field on its way acts as on any move."""
    met = minefields.meetings(ctx, plan.stand, plan.points)
    if plan.falling_back:
        met = [(m, f) for m, f in met if m.contact > EPS]
    return met


def _mines_met(ctx: RulesContext, stand: StandRow, plan: MovePlan) -> None:
    for m, f in mines_on_the_way(ctx, plan):
        point = point_along(plan.points, m.contact)
        plan.events.append(
            Event(
                "minefield",
                f["id"],
                m.contact,
                point,
                "CD 3.2",
                "met (hidden until the move ends)",
                referee_only=True,
            )
        )


def ice_verdict(seg: Segment, stand_id: str, need: str) -> tuple[bool, str]:
    """Whether the ice under ``seg`` bears the stand, and the words for it (CD 11.3)."""
    bears = ICE_ORDER.index(str(seg.ice)) >= weight_number(need)
    what = (
        f"class {seg.ice} ice on {seg.ice_piece}: "
        + ("bears" if bears else "too thin for")
        + f" {stand_id} (needs {need})"
    )
    return bears, what


def _ice_met(ctx: RulesContext, plan: MovePlan) -> None:
    need = needs(ctx, plan.stand)
    for seg in plan.segments:
        if seg.ice is None:
            continue
        point = point_along(plan.points, seg.start)
        bears, what = ice_verdict(seg, plan.stand["id"], need)
        hidden = seg.hidden
        plan.events.append(
            Event("ice", seg.ice_piece, seg.start, point, "CD 11.3", what, referee_only=hidden)
        )
        if not bears:
            return


# --- carrying it out ------------------------------------------------------------------------------


def _ground_rank(ground_id: str, charts: Any) -> tuple[int, float]:
    row = charts.table("ground")[ground_id]
    return ({None: 0, "moderate": 1, "deep": 2}[row.mires], max(row.vehicle, row.personnel))


# The ``move`` action's result ("from" is a keyword: the functional form).
MoveResult = TypedDict(
    "MoveResult",
    {
        "verdict": str,
        "stand": str,
        "from": list[float],  # where it started, to 3 places
        "to": list[float],  # where it stopped
        "path": list[list[float]],  # the points given, the start first
        "moved": float,  # inches travelled
        "cost": float,  # inches of its allowance spent
        "allowance": float,
        "segments": list[dict[str, Any]],  # ``shown_segments``: terrain, multiplier, cost, rule
        "crossed": list[dict[str, Any]],  # ``Event.as_json``: what it met on the way, in order
        "attacks": int,  # minefield attacks it has coming (CD 3.2)
        "revealed": list[dict[str, Any]],  # minefields it revealed (CD 3.2)
        "mired": bool,  # mired at the end of the move (CD 11.1.4)
        "status": str,
        "refused": None,
        # Enemy stands that may fire at it on the way (set by ``move_action``).
        "opportunity": NotRequired[list[dict[str, Any]]],
    },
)


def apply_move(ctx: RulesContext, plan: MovePlan) -> MoveResult:
    """Carry out a plan that passed: mines and ice may stop it short, then miring."""

    state, charts = ctx.state, ctx.charts
    stand = plan.stand
    points = plan.points
    length = plan.length
    kind = charts.stand_kinds[stand["kind"]]
    stop, why_stop = length, None
    # Ice too thin for the stand: it breaks through where it first steps on it (CD 11.3).
    broke = next((e for e in plan.events if e.kind == "ice" and "too thin" in e.result), None)
    if broke is not None:
        stop, why_stop = broke.along, "ice"
    # Real minefields stop the stand once it is across (CD 3.2).
    met = mines_on_the_way(ctx, plan)
    for m, f in met:
        if m.contact > stop + EPS:
            break
        if f["real"] and m.stop < stop:
            stop, why_stop = m.stop, "minefield"
    end = point_along(points, stop)
    crossed = [e for e in plan.events if e.along <= stop + EPS and e.kind != "minefield"]
    start = centre(stand)
    stand.update({"x": round(end[0], 6), "y": round(end[1], 6), "facing": plan.facing})
    if stop > EPS:
        stand["moved_turn"] = state.turn
        stand["markers"] = [m for m in stand["markers"] if m not in ("foxholes", "entrenched")]
    mine_out = minefields.settle(ctx, stand, met, stop)
    for r in mine_out["events"]:
        crossed.append(
            Event(
                "minefield",
                r["id"],
                r["along"],
                point_along(points, r["along"]),
                "CD 3.2",
                r["result"],
            )
        )
    if why_stop == "ice" and broke is not None:
        if kind.category == "personnel":
            effect = automatic_hit(ctx, stand)
            result = (
                f"breaks through at {end[0]:.2f},{end[1]:.2f}: takes a hit ({effect}) and "
                "stays at the edge of the ice it fell through"
            )
        else:
            stand["status"] = "eliminated"
            result = f"breaks through at {end[0]:.2f},{end[1]:.2f} and is lost"
        # The sinking is seen by all; which hidden patch gave way is the referee's.
        seen_as = next((g.terrain for g in plan.segments if g.start >= broke.along - EPS), None)
        crossed.append(Event("ice-breaks", seen_as, broke.along, end, "CD 11.3", result))
    travelled = [s for s in plan.segments if s.start < stop - EPS]
    last_piece = travelled[-1].ice_piece if travelled and travelled[-1].hidden else None
    if last_piece is not None and in_play(stand) and why_stop != "ice":
        # Ending a move on hidden ice: what the referee may have to tell the player (CD 11.3).
        piece = ctx.scenario.piece(last_piece)
        note = referee_note(ctx, stand, piece, str(ice_class(piece)))
        crossed.append(Event("hidden-ice", last_piece, stop, end, "CD 11.3", note))
    worst_ground = max(
        (s.ground for s in travelled),
        key=lambda g: _ground_rank(g, charts),
        default=state.conditions["ground"],
    )
    mud = [s for s in travelled if s.mire > 0]
    mired = False
    if mud and in_play(stand) and ground.is_vehicle(kind):
        worst = max(mud, key=lambda s: s.mire)
        mired = ground.roll_mire(worst.mire, ctx.dice, stand["id"])
        last_seg = travelled[-1]
        result = f"mires on {worst.mire} or less ({worst.where} in {worst.ground}): " + (
            "mired" if mired else "not mired"
        )
        if mired:
            stand["markers"].append("mired")
            if last_seg.mire == 0:
                # CD 11.1.4: it stopped on safe ground; it mires halfway across the mud.
                run = [s for s in mud if s.start >= _mud_run_start(travelled, mud[-1]) - EPS]
                mid = (run[0].start + min(run[-1].end, stop)) / 2
                x, y = point_along(points, mid)
                stand["x"], stand["y"] = round(x, 6), round(y, 6)
                result += f", placed halfway across the mud at {x:.2f},{y:.2f}"
        crossed.append(Event("miring", stand["id"], stop, position(stand), "CD 11.1.4", result))
        where = worst.where
    else:
        if ground.is_vehicle(kind):
            explain_no_roll(
                ctx.dice, f"{stand['id']} crossed no ground where it can mire (CD 11.1.4)"
            )
        where = max((s.where for s in travelled), key=WHERE_ORDER.index, default="open")
    stand["last_move"] = {
        "turn": state.turn,
        "phase": state.phase,
        "ground": worst_ground,
        "where": where,
        "mire_checked": bool(mud) and ground.is_vehicle(kind),
    }
    state.meta["moves_made"] = int(state.meta.get("moves_made", 0)) + 1
    crossed.sort(key=lambda e: e.along)
    # What it paid: the segments up to where it stopped, in the figures a referee reads.
    paid = shown_segments([replace(s, end=min(s.end, stop)) for s in travelled])
    exact_cost = sum((min(s.end, stop) - s.start) * (s.multiplier or 0) for s in travelled)
    cost = cost_lines(paid)[1]
    path = [list(map(lambda v: round(v, 3), p)) for p in points]
    verdict = (
        f'{stand["id"]} moves {stop:.2f}" to {stand["x"]:.2f},{stand["y"]:.2f} '
        f'for {cost}" of its {plan.allowance:g}"'
    )
    if stop <= EPS:
        verdict = f"{stand['id']} turns in place to face {plan.facing:g}"
    if why_stop == "minefield":
        verdict += "; stopped by a minefield (CD 3.2)"
    elif why_stop == "ice":
        verdict += "; the ice gives way (CD 11.3)"
    if mired:
        verdict += "; mired (CD 11.1.4)"
    if mine_out["attacks"]:
        attacks = count(mine_out["attacks"], "minefield attack")
        verdict += f"; {attacks} in the opportunity fire phase"
    return {
        "verdict": verdict,
        "stand": stand["id"],
        "from": [round(start[0], 3), round(start[1], 3)],
        "to": [round(position(stand)[0], 3), round(position(stand)[1], 3)],
        "path": path,
        "moved": round(stop, 3),
        "cost": round(exact_cost, 2),
        "allowance": plan.allowance,
        "segments": paid,
        "crossed": [e.as_json() for e in crossed],
        "attacks": mine_out["attacks"],
        "revealed": mine_out["revealed"],
        "mired": mired,
        "status": stand["status"],
        "refused": None,
    }


def shown_segments(segments: list[Segment]) -> list[dict[str, Any]]:
    """The segments as the table shows them: neighbours that look and cost the same are one
    (a hidden piece must not show itself by cutting the path, CD 11.3)."""
    out: list[dict[str, Any]] = []
    last: Segment | None = None
    for seg in segments:
        row = seg.as_json()
        if (
            last is not None
            and out
            and (last.terrain, last.multiplier, last.rule, last.ground)
            == (seg.terrain, seg.multiplier, seg.rule, seg.ground)
        ):
            merged = Segment(last.start, seg.end, seg.terrain, seg.kind, seg.multiplier,
                             seg.rule, seg.because, seg.ground, seg.where)  # fmt: skip
            out[-1] = merged.as_json()
            last = merged
            continue
        out.append(row)
        last = seg
    return out


def _mud_run_start(travelled: list[Segment], last_mud: Segment) -> float:
    """Where the stretch of mud ending with ``last_mud`` began (touching segments joined)."""
    start = last_mud.start
    for seg in reversed(travelled):
        if seg.end < start - EPS:
            break
        if seg.mire > 0 and seg.start < start:
            start = seg.start
    return start


def opportunity(
    ctx: RulesContext, stand: StandRow, points: list[Any], upto: float
) -> list[dict[str, Any]]:
    """Enemy stands that can see some part of the path and reach it with a weapon that
    fires direct: the candidates for opportunity fire, each with the nearest point it sees.

    Opportunity fire is direct fire: a weapon ``fire`` would refuse at the moving stand (a
    mortar, which fires only indirect; small arms at armour, by the ammo chart's choice) reaches
    nothing here either (``fire.can_fire_direct``, the same checks)."""

    samples: list[tuple[float, float]] = []
    step = 1.0
    n = max(1, math.ceil(upto / step))
    for i in range(n + 1):
        samples.append(point_along(points, min(upto, i * step)))
    # Each enemy's looks at the samples in its reach, nearest first; all the looks are then
    # taken in one pass (``glances``: exactly what ``sight`` says of each), and each enemy
    # keeps the nearest sample it sees.
    looks: list[tuple[End, End]] = []
    candidates: list[tuple[str, list[tuple[float, float]]]] = []
    mover = ctx.charts.stand_kinds[stand["kind"]]
    for enemy in ctx.state.stands():
        if enemy["side"] == stand["side"] or enemy["x"] is None or out_of_play(enemy):
            continue
        reach = max(
            (
                ctx.charts.weapons[w].ranges.long
                for w in enemy["weapons"]
                if w in ctx.charts.weapons
                and can_fire_direct(ctx.charts.weapons[w], mover, ctx.charts)
            ),
            default=0.0,
        )
        if reach <= 0:
            continue
        here = centre(enemy)
        near = sorted((math.dist(here, p), p) for p in samples)
        in_reach = [p for dist, p in near if dist <= reach + 1e-9]
        a = end_for_stand(ctx.state, enemy["id"])
        looks.extend((a, End(f"{p[0]:.1f},{p[1]:.1f}", p[0], p[1])) for p in in_reach)
        candidates.append((enemy["id"], in_reach))
    seen = glances(ctx, looks)
    out = []
    start = 0
    for enemy_id, in_reach in candidates:
        mine = seen[start : start + len(in_reach)]
        start += len(in_reach)
        first = next(
            ((g, p) for g, p in zip(mine, in_reach, strict=True) if g.los and g.visible), None
        )
        if first is not None:
            g, p = first
            out.append(
                {
                    "stand": enemy_id,
                    "range": round(g.range, 2),
                    "point": [round(p[0], 2), round(p[1], 2)],
                }
            )
    return out


def _stand_for_move(ctx: RulesContext, inputs: dict[str, Any]) -> StandRow:
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    if stand["x"] is None:
        raise RulesRefusal(
            f"{stand['id']} is not on the table: set it up with 'tabletop place {stand['id']} X Y'"
        )
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is {stand['status']} and cannot move")
    return stand


class MoveRefused(RulesRefusal):
    """A refused move: the reason, then the costs of its path piece by piece (``details``),
    so the referee sees why without a second run with ``--check``."""

    def __init__(self, message: str, details: list[str]):
        super().__init__(message)
        self.details = tuple(details)


def _details(plan: MovePlan) -> list[str]:
    lines, total = cost_lines(shown_segments(plan.segments))
    if not lines:
        return []
    return [*lines, f'total {total}" of its {plan.allowance:g}"']


def move_action(ctx: RulesContext, inputs: dict[str, Any]) -> MoveResult:
    """``tabletop move``: a refereed move (see the module's docstring)."""
    if inputs.get("fall_back"):
        return fall_back_action(ctx, inputs)
    stand = _stand_for_move(ctx, inputs)
    points = parse_path(ctx, stand, inputs)
    facing = inputs.get("facing")
    if path_length(points) <= EPS and facing is None:
        raise BadInput(
            f"{inputs['to'][0]:g},{inputs['to'][1]:g} is where {stand['id']} already is: "
            "give a point to move to, or --facing to turn in place"
        )
    try:
        _check_phase(ctx, stand)
        _special_cases(ctx, stand)
    except RulesRefusal as exc:
        raise MoveRefused(str(exc), _details(plan_move(ctx, stand, points, facing))) from None
    plan = plan_move(ctx, stand, points, facing)
    if plan.refused:
        raise MoveRefused(plan.refused, _details(plan))
    result = apply_move(ctx, plan)
    result["opportunity"] = opportunity(ctx, stand, points, result["moved"])
    return result


def fall_back_action(ctx: RulesContext, inputs: dict[str, Any]) -> MoveResult:
    """``move STAND --fall-back``: carry out a forced-back result, in whatever phase it came.

    The stand goes the charted distance straight away from the fire (``fall_back_plan``,
    worked out when the result was rolled), or to the point the referee gives within that
    distance and no nearer the fire. It keeps its facing (it backs away), pays no allowance
    (the distance is the chart's), and the path is refereed like any move: water, obstacles
    and burning terrain bar it, mines, ice and mud act on it. The marker stays until then.
    """
    stand = _stand_for_move(ctx, inputs)
    if "forced-back" not in stand["markers"]:
        raise RulesRefusal(f"{stand['id']} has no forced-back result to carry out")
    # A result whose fire left no way to go (a referee's marker, an attack with no source)
    # falls back from the nearest enemy.
    # Worked out again from where the stand is now, in case it was put elsewhere since.
    told = stand.get("forced_back") or {}
    source = told.get("away_from")
    pending = fall_back_plan(
        ctx,
        stand,
        None if source is None else (float(source[0]), float(source[1])),
        str(told.get("from_what") or "the fire"),
    )
    refuse_if_mired(stand)
    here = centre(stand)
    given = inputs.get("to")
    if given is None:
        if pending.get("to") is None:
            raise BadInput(
                f"{stand['id']} has no fire or enemy to fall back from: give the point, "
                f"'tabletop move {stand['id']} X,Y --fall-back'"
            )
        to = (float(pending["to"][0]), float(pending["to"][1]))
    else:
        to = (float(given[0]), float(given[1]))
        far = math.dist(here, to)
        if not within_move(far, pending["distance"]):
            raise RulesRefusal(
                f'{stand["id"]} falls back {pending["distance"]:g}" (hit effects chart): '
                f'{to[0]:g},{to[1]:g} is {far:.2f}" away'
            )
        source = pending.get("away_from")
        if source is not None and math.dist(to, source) < math.dist(here, source) - EPS:
            raise RulesRefusal(
                f"{stand['id']} falls back away from {pending['from_what']}: {to[0]:g},{to[1]:g} "
                "is nearer to it (hit effects chart)"
            )
    width, depth = ctx.scenario.table.width, ctx.scenario.table.depth
    if not (0 <= to[0] <= width and 0 <= to[1] <= depth):
        raise RulesRefusal(
            f"{stand['id']} would fall back off the {width:g} x {depth:g} table, to "
            f"{to[0]:g},{to[1]:g}: the referee decides; give a point on the table with "
            f"'tabletop move {stand['id']} X,Y --fall-back'"
        )
    plan = plan_move(ctx, stand, [here, to], float(stand["facing"]), forced=True)
    if plan.refused:
        raise MoveRefused(plan.refused, _details(plan))
    result = apply_move(ctx, plan)
    stand["markers"] = [m for m in stand["markers"] if m != "forced-back"]
    stand.pop("forced_back", None)
    # What happened on the way (a minefield, the ice, the mud) follows the move's words.
    rest = result["verdict"].split(f'of its {plan.allowance:g}"', 1)[-1]
    x, y = result["to"]
    result["verdict"] = (
        f'{stand["id"]} falls back {result["moved"]:.2f}" to {x:.2f},{y:.2f} (hit effects '
        f"chart; no allowance spent){rest}"
    )
    return result


# --- the dry run with exact odds ----------------------------------------------------------------


def check_fall_back(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """``move STAND --fall-back --check``: the fall-back carried out on a copy of the table
    by the same procedure (``fall_back_action``), so the referee sees where it would end
    and what it would meet; nothing is rolled or logged. A refusal is the action's own."""
    copy = RulesContext(
        ctx.state.copy(), _HighestFaces(), ctx.scenario, ctx.charts, _table=ctx.table
    )
    result = dict(fall_back_action(copy, inputs))
    said = str(result["verdict"]).replace(" falls back ", " would fall back ", 1)
    return {**result, "verdict": f"{said} (dry run, nothing logged)", "refused": None}


def check_move(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """What the move would cost and meet, and the exact odds of what it would roll."""
    stand = _stand_for_move(ctx, inputs)
    points = parse_path(ctx, stand, inputs)
    refused = None
    try:
        _check_phase(ctx, stand)
        _special_cases(ctx, stand)
    except RulesRefusal as exc:
        refused = str(exc)
    plan = plan_move(ctx, stand, points, inputs.get("facing"))
    refused = refused or plan.refused
    out: dict[str, Any] = {
        "stand": stand["id"],
        "from": [round(points[0][0], 3), round(points[0][1], 3)],
        "to": [round(points[-1][0], 3), round(points[-1][1], 3)],
        "path": [[round(v, 3) for v in p] for p in points],
        "cost": round(plan.cost, 2),
        "allowance": plan.allowance,
        "segments": shown_segments(plan.segments),
        "crossed": [e.as_json() for e in plan.events],
        "opportunity": [],
        "refused": refused,
        "odds": {},
    }
    if refused:
        out["verdict"] = f"{stand['id']} could not make this move: {refused}"
        return out
    base = ctx.state

    def run(dice: Any) -> tuple[str, ...]:
        copy = RulesContext(base.copy(), dice, ctx.scenario, ctx.charts, _table=ctx.table)
        result = apply_move(copy, _on_copy(plan, copy))
        rolled = [e["result"] for e in result["crossed"] if e["kind"] in ("miring", "ice-breaks")]
        return tuple(rolled)

    odds = {k: v for k, v in distribution(run).items() if k}  # moves that roll nothing: {}
    out["odds"] = {
        "; ".join(k): fraction_text(v) for k, v in sorted(odds.items(), key=lambda kv: -kv[1])
    }
    # The mines the move would meet attack in the opportunity fire phase (CD 3.2); where it
    # stops does not depend on the dice, so one run with the highest faces shows it.
    sample = RulesContext(base.copy(), _HighestFaces(), ctx.scenario, ctx.charts, _table=ctx.table)
    first = apply_move(sample, _on_copy(plan, sample))
    out["opportunity"] = opportunity(ctx, stand, points, first["moved"])
    for attack in _attacks_of(sample, first):
        none = distribution(_mine_hits(attack)).get(0, Fraction(0))
        out["odds"][f"referee: {attack['field']} hits at least once"] = fraction_text(1 - none)
    out["verdict"] = (
        f'{stand["id"]} can move for {shown_total(plan.segments)}" of its '
        f'{plan.allowance:g}" (dry run, nothing logged)'
    )
    return out


def check_batch(ctx: RulesContext, items: list[dict[str, Any]]) -> dict[str, Any]:
    """``move --check`` on a batch: every item's dry run, in order, each on the table as
    the items before it that pass would leave it (a refused item moves nothing, as in the
    batch itself, where it would refuse the whole batch). Nothing is logged."""
    copy = RulesContext(ctx.state.copy(), _HighestFaces(), ctx.scenario, ctx.charts,
                        _table=ctx.table)  # fmt: skip
    results = []
    for n, item in enumerate(items, start=1):
        try:
            result = check_move(copy, item)
        except TabletopError as exc:
            who = item.get("stand")
            result = {"stand": who, "refused": str(exc), "verdict": f"{who}: {exc}",
                      "segments": [], "crossed": [], "odds": {},
                      "bad_input": exc.exit_code == 2}  # fmt: skip
        result["item"] = n
        results.append(result)
        if not result["refused"]:
            stand = copy.state.stand(item["stand"])
            points = parse_path(copy, stand, item)
            apply_move(copy, plan_move(copy, stand, points, item.get("facing")))
    refused = [r for r in results if r["refused"]]
    verdict = (
        f"all {len(results)} moves would pass (dry run, nothing logged)"
        if not refused
        else f"{count(len(refused), 'move')} of {len(results)} would be refused, so the batch "
        "would be (dry run, nothing logged)"
    )
    return {"verdict": verdict, "count": len(results), "refused": len(refused), "items": results}


def _on_copy(plan: MovePlan, copy: RulesContext) -> MovePlan:
    """The plan for the same move on a copy of the state the plan was made on.

    ``plan_move`` only reads the state and rolls nothing, so on an equal copy it would give
    an equal plan: re-planning every dry run cost a third of ``--check``. Only the stand
    must be the copy's own row, since ``apply_move`` moves it; the lists are copied too, so
    nothing a run does can reach the next run's plan.
    """
    return replace(
        plan,
        stand=copy.state.stand(plan.stand["id"]),
        segments=list(plan.segments),
        events=list(plan.events),
    )


def _mine_hits(attack: dict[str, Any]) -> Any:
    """The attacks of one field, with the die 'resolve_attacks' rolls (CD 3.2): hits."""

    def run(dice: Any) -> int:
        rolls = (
            minefields.attack_roll(dice, attack, n, attack["stand"])
            for n in range(1, attack["attacks"] + 1)
        )
        return sum(roll <= attack["hit_on"] for roll in rolls)

    return run


def _attacks_of(ctx: RulesContext, result: MoveResult) -> list[dict[str, Any]]:
    return [a for a in ctx.state.pending("mine-attacks") if a["stand"] == result["stand"]]


class _HighestFaces:
    def roll(self, sides: int, purpose: str) -> int:
        return sides


# --- place: setting up and the referee's override ---------------------------------------------


def in_setup(ctx: RulesContext) -> bool:
    """Setting up: the game is still where the scenario starts it and nothing has moved."""
    start = ctx.scenario.turn
    return (
        ctx.state.turn == start.number
        and ctx.state.phase == start.phase
        and not ctx.state.meta.get("moves_made")
    )


def place(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Put a stand at (x, y) with a facing; refuse positions off the table or on another base.

    Outside setting up a place is the referee's override: it is logged as one, with what
    ``move`` would have refused, and not refused for it.
    """

    state, scenario = ctx.state, ctx.scenario
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    x, y = float(inputs["x"]), float(inputs["y"])
    facing = stand["facing"] if inputs.get("facing") is None else float(inputs["facing"]) % 360
    width, depth = scenario.table.width, scenario.table.depth
    if not (0 <= x <= width and 0 <= y <= depth):
        raise BadInput(f"({x:g}, {y:g}) is off the {width:g} x {depth:g} table")
    if out_of_play(stand):
        raise RulesRefusal(f"{stand['id']} is {stand['status']} and cannot be placed")
    moved_from = None if stand["x"] is None else position(stand)
    if moved_from is not None:
        turned = abs((facing - float(stand["facing"]) + 180) % 360 - 180) > 1e-9
        if turned or math.dist(moved_from, (x, y)) > 1e-9:
            refuse_if_mired(stand)
            holds_still(ctx, stand)
    candidate = {**stand, "x": x, "y": y, "facing": facing}
    others = [
        s for s in state.stands() if s["id"] != stand["id"] and s["x"] is not None and in_play(s)
    ]
    tolerance = ctx.charts.params(TableParams).base_overlap_tolerance
    clash = overlapping(base_of(candidate), [base_of(s) for s in others], tolerance)
    if clash:
        raise RulesRefusal(
            f"{stand['id']} at ({x:g}, {y:g}) would overlap {', '.join(clash)}: bases may touch "
            "but not overlap"
        )
    moved = moved_from is not None and math.dist(moved_from, (x, y)) > 1e-9
    override = None
    if moved and not in_setup(ctx):
        override = _would_refuse(ctx, stand, [moved_from, (x, y)], facing)
    terrain = [p.id for p in ctx.table.pieces_at(x, y)]
    for piece_id in terrain:
        row = state.rows.get("terrain:" + piece_id)
        if row is not None and row["state"] == "burning":
            raise RulesRefusal(f"{piece_id} is burning: no stand may enter it (CD 6.2.2)")
        if row is not None and row["kind"] == "bridge" and row["state"] in ("damaged", "destroyed"):
            raise RulesRefusal(
                f"{piece_id} is {row['state']}: no stand may be put on the wreck (CD 2.4.1)"
            )
    due = None
    if moved and not in_setup(ctx) and ground.is_vehicle(ctx.charts.stand_kinds[stand["kind"]]):
        # The override moved it as 'move' would have: a vehicle through mud owes the miring
        # roll, due until 'mire' takes it, whatever the phase (CD 11.1.4).
        due = mud_crossed(ctx, stand, [moved_from, (x, y)])
    stand.update({"x": x, "y": y, "facing": facing})
    if due is not None:
        stand["mire_due"] = due
    if moved:
        stand["moved_turn"] = state.turn
        # Foxholes and entrenchments stay where they were dug (CD 5.1.1).
        stand["markers"] = [m for m in stand["markers"] if m not in ("foxholes", "entrenched")]
    notes = check_ice(ctx, stand, moved_from) if moved or moved_from is None else []
    explain_no_roll(
        ctx.dice, f"{stand['id']} is not on ice that can break (placing rolls only for CD 11.3)"
    )
    if stand.get("landed_turn") == state.turn and moved:
        raise RulesRefusal(f"{stand['id']} landed this turn and may not move (CD 7.2.2, 7.3.2)")
    if stand.get("disembarked_turn") == state.turn and moved:
        raise RulesRefusal(
            f"{stand['id']} came ashore this turn and ends its move beside its "
            "landing craft (CD 8.1.1)"
        )
    if stand.get("aboard"):
        raise RulesRefusal(
            f"{stand['id']} is aboard {stand['aboard']}: unload it first (CD 2.1, 8.1)"
        )
    if stage_of(stand) == "wading" and moved:
        raise RulesRefusal(
            f"{stand['id']} is wading ashore: move it with 'tabletop amphibious "
            f"wade {stand['id']}' (CD 8.1.4)"
        )
    if moved and not in_setup(ctx):
        notes.insert(
            0,
            "referee's override (not a refereed move)"
            + (f"; 'move' would have refused: {override}" if override else ""),
        )
    if due is not None:
        notes.append(
            f"{stand['id']} crossed {due['ground']} ({due['where']}): its miring roll is due, "
            f"mired on {due['number']} or less; take it with 'tabletop mire {stand['id']}' "
            "(CD 11.1.4)"
        )
    return {
        "stand": stand["id"],
        "x": stand["x"],
        "y": stand["y"],
        "facing": facing,
        "moved": round(math.dist(moved_from, (x, y)), 3) if moved_from else None,
        "terrain": [t for t in terrain if not ctx.scenario.piece(t).referee_only],
        "notes": notes,
        # Only an override says so (and what 'move' would have refused).
        **(
            {"override": True, "move_would_refuse": override} if moved and not in_setup(ctx) else {}
        ),
    }


def _would_refuse(
    ctx: RulesContext, stand: StandRow, points: list[Any], facing: float
) -> str | None:
    """What 'move' would have said to the same change of place, or None."""
    try:
        _check_phase(ctx, stand)
        _special_cases(ctx, stand)
        plan = plan_move(ctx, stand, points, facing)
    except RulesRefusal as exc:
        return str(exc)
    return plan.refused


def mud_crossed(ctx: RulesContext, stand: StandRow, points: list[Any]) -> dict[str, Any] | None:
    """The miring roll a vehicle moving along ``points`` owes, priced as ``move`` prices
    it: the worst mud on the way, and the middle of the stretch of it, where a vehicle
    that mires after regaining safe ground is put (CD 11.1.4). None: nothing to roll."""
    pricer = Pricer(ctx, stand)
    travelled = [pricer.price(stretch, points, []) for stretch in pricer.split(points)]
    mud = [seg for seg in travelled if seg.mire > 0 and seg.multiplier is not None]
    if not mud:
        return None
    worst = max(mud, key=lambda s: s.mire)
    mid = None
    if travelled[-1].mire == 0:
        # As 'apply_move' places it: halfway across the last stretch of mud it crossed.
        mid = point_along(points, (_mud_run_start(travelled, mud[-1]) + mud[-1].end) / 2)
    return {
        "turn": ctx.state.turn,
        "number": worst.mire,
        "where": worst.where,
        "ground": worst.ground,
        "halfway": None if mid is None else [round(mid[0], 6), round(mid[1], 6)],
    }


# --- plain rolls and markers --------------------------------------------------------------------


def parse_dice_spec(text: str) -> tuple[int, int]:
    match = DICE_SPEC.match(text)
    if not match:
        raise BadInput(f"{text!r} is not a dice expression (write it like 3d10 or d6)")
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    if not 1 <= count <= MAX_DICE:
        raise BadInput(f"{text!r}: roll 1 to {MAX_DICE} dice at a time")
    if not 2 <= sides <= 1000:
        raise BadInput(f"{text!r}: a die has 2 to 1000 sides")
    return count, sides


def plain_roll(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    return roll_plan(ctx, inputs).run(ctx.dice)


def roll_plan(ctx: RulesContext, inputs: dict[str, Any]) -> Repeats[int, int]:
    """A plain roll as N dice of X sides added up: the command runs it die by die, and its
    odds convolve one die's faces N times (``core.odds.repeated``, ``actions.ODDS_REPEATS``),
    so 10d100 is quick. (The odds read only the total: ``roll_outcome``.)"""
    count, sides = parse_dice_spec(inputs["dice"])
    purpose = inputs.get("purpose") or "referee roll"
    if len(purpose) > MAX_PURPOSE:
        raise BadInput(
            f"--for: say what the roll is for in at most {MAX_PURPOSE} characters "
            f"(got {len(purpose)})"
        )
    values: list[int] = []

    def die(dice: DiceLike, n: int) -> int:
        value = dice.roll(sides, f"{purpose} ({n} of {count})" if count > 1 else purpose)
        values.append(value)
        return value

    def finish(total: int) -> dict[str, Any]:
        return {
            "dice": f"{count}d{sides}",
            "purpose": purpose,
            "values": list(values),
            "total": total,
        }

    return Repeats(0, die, count, lambda total, value: total + value, finish)


def roll_outcome(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What tells the outcomes of a plain roll apart, for its odds: the total."""
    return f"total {result['total']}", {"total": result["total"]}


MARKERS = ("pinned", "suppressed", "forced-back", "burning", "foxholes", "entrenched")


def marker_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """The referee puts or takes markers the program does not decide itself (morale results,
    a vehicle left burning, works dug in play)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    add, remove = list(inputs.get("add") or []), list(inputs.get("remove") or [])
    for marker in add + remove:
        if marker not in MARKERS:
            raise BadInput(f"marker {marker!r}: accepted: {', '.join(MARKERS)}")
    if not add and not remove:
        raise BadInput("give --add MARKER or --remove MARKER")
    for marker in add:
        if marker not in stand["markers"]:
            stand["markers"].append(marker)
    stand["markers"] = [m for m in stand["markers"] if m not in remove]
    return {
        "verdict": f"{stand['id']}: {', '.join(stand['markers']) or 'no markers'}",
        "stand": stand["id"],
        "markers": list(stand["markers"]),
    }
