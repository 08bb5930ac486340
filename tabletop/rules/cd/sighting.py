"""Range, bearing, line of sight, visibility and spotting between two things on the table.

``sight(ctx, a, b)`` is the one procedure behind ``measure`` and behind the line-of-sight and
spotting refusals of ``fire``: what the referee reads in ``measure`` is what ``fire`` uses.
Ends are stands (measured base to base, or centre to centre when the scenario says so) or
points. Sight runs between centres; spotting is deterministic (distance and cover).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import field
from typing import Any

import shapely
from shapely import Point, Polygon

from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass
from tabletop.core.units import TOLERANCE, within
from tabletop.data.board import base_of, smoke_blockers
from tabletop.data.chart_params import WeatherParams
from tabletop.rules.cd.night import lit_by_fire, sound_detects
from tabletop.rules.cd.weather import Effects, effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, centre, fired_on, in_play
from tabletop.table import (
    base_polygon,
    bearing,
    distance,
    line_of_sight,
    point_distance,
    sight_matrix,
    sight_pairs,
)

COVER_ORDER = ("none", "light", "medium", "hard", "fortification")


@frozen_dataclass
class End:
    """One end of a measurement: a stand (with its row) or a bare point."""

    label: str
    x: float
    y: float
    stand: StandRow | None = None


@mutable_dataclass
class Sight:
    """One look from A to B: range, bearing, line of sight and what blocks it, the levels,
    visibility, whether B is spotted and why, and A's range bands to B."""

    a: str
    b: str
    range: float
    bearing: float
    los: bool
    blocked_by: list[str]
    crossings: list[dict[str, Any]]
    level_a: float
    level_b: float
    visibility: float | None
    visible: bool
    spotted: bool | None = None
    spotting: dict[str, Any] = field(default_factory=dict)
    bands: dict[str, str | None] = field(default_factory=dict)
    muzzle_flash: bool = False
    a_stand: StandRow | None = None
    lit: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "range": round(self.range, 3),
            "bearing": round(self.bearing, 1),
            "los": self.los,
            "blocked_by": self.blocked_by,
            "visible": self.visible,
            "visibility": self.visibility,
            "illuminated_by": self.lit,
            "spotted": self.spotted,
            "spotting": self.spotting,
            "bands": self.bands,
            "levels": {"a": self.level_a, "b": self.level_b},
            "crossings": self.crossings,
        }


def end_for_stand(state: State, stand_id: str) -> End:
    stand = state.stand(stand_id)
    if stand["x"] is None:
        raise BadInput(
            f"{stand_id} has no position on the table: place it with "
            f"'tabletop place {stand_id} X Y', or give --range for quick mode"
        )
    return End(stand_id, *centre(stand), stand)


def end_for_point(x: float, y: float, scenario: Any) -> End:
    w, d = scenario.table.width, scenario.table.depth
    if not (0 <= x <= w and 0 <= y <= d):
        raise BadInput(f"({x:g}, {y:g}) is off the {w:g} x {d:g} table")
    return End(f"({x:g}, {y:g})", x, y)


def distance_between(a: End, b: End, measure: str) -> float:
    if a.stand is not None and b.stand is not None:
        return float(distance(base_of(a.stand), base_of(b.stand), measure))
    if a.stand is not None and measure == "edge":
        return float(point_distance(base_of(a.stand), (b.x, b.y)))
    if b.stand is not None and measure == "edge":
        return float(point_distance(base_of(b.stand), (a.x, a.y)))
    return math.dist((a.x, a.y), (b.x, b.y))


# Cover left by damaged structures (CD 6.2.1, 6.2.2).
DAMAGED_COVER = {
    ("bua-strong", "rubble"): "medium", ("bua-flimsy", "rubble"): "light",
    ("bua-flimsy", "burning"): "light", ("bua-strong", "burning"): "medium",
    ("fortification", "damaged"): "hard", ("fortification", "destroyed"): "none",
    ("bua-strong", "destroyed"): "medium", ("bua-flimsy", "destroyed"): "light",
}  # fmt: skip
# Cover a stand digs for itself (CD 5.1.1).
DUG_IN = {"foxholes": "medium", "entrenched": "hard"}


def target_cover(
    ctx: RulesContext, x: float, y: float, stand: StandRow | None = None
) -> tuple[str, str | None]:
    """The best cover at a point (terrain as it is now, and the stand's own works)."""
    best, source = "none", None
    for piece in ctx.table.pieces_at(x, y):
        cover: str = ctx.charts.terrain[piece.kind].cover
        row = ctx.state.rows.get("terrain:" + piece.id)
        if row is not None:
            cover = DAMAGED_COVER.get((piece.kind, row["state"]), cover)
        if COVER_ORDER.index(cover) > COVER_ORDER.index(best):
            best, source = cover, piece.id
    for marker, cover in DUG_IN.items():
        if (
            stand is not None
            and marker in stand["markers"]
            and (COVER_ORDER.index(cover) > COVER_ORDER.index(best))
        ):
            best, source = cover, marker
    return best, source


def activity(stand: StandRow, state: State) -> str:
    fired = stand.get("fired")
    if fired and fired.get("turn") == state.turn:
        return "firing"
    if stand.get("moved_turn") == state.turn:
        return "moving"
    return "stationary"


def fired_recently(stand: StandRow, state: State) -> bool:
    """Spotted by muzzle flash: fired this turn, or last turn during opportunity fire (9.1.2)."""
    fired = stand.get("fired")
    if not fired:
        return False
    if fired.get("turn") == state.turn:
        return True
    # Last turn's flashes mark only the point it fired from (CD 9.1.2).
    still_there = (fired.get("x"), fired.get("y")) == (stand["x"], stand["y"])
    return bool(
        fired.get("turn") == state.turn - 1 and state.phase == "opportunity-fire" and still_there
    )


def illuminated(ctx: RulesContext, b: End, reach: float | None = None) -> str | None:
    """What lights this stand or point at night, if anything (CD 9.2).

    A stand is lit when any part of its base lies in an illumination round's or a
    searchlight's area (CD 9.2: "within the area"; HE templates count any part of a base too),
    or is within reach of a fire. ``reach`` is how far light carries through the weather
    (fog, precipitation): a searchlight beam lights nothing farther than that from the
    searchlight (CD 9.2.2 follows sight; CD 10.2.1, 10.3.1 limit it).
    """

    shape = base_polygon(base_of(b.stand)) if b.stand is not None else Point(b.x, b.y)
    for t in ctx.state.templates():
        if not t.get("illuminates"):
            continue
        area = Polygon(t["polygon"])
        if not area.intersects(shape) or area.touches(shape):
            continue
        if reach is not None and t.get("kind") == "searchlight":
            origin = _searchlight_origin(ctx, t)
            if origin is not None and not within(shape.distance(Point(*origin)), reach):
                continue
        return str(t["id"])
    return lit_by_fire(ctx, shape)


def _searchlight_origin(ctx: RulesContext, template: dict[str, Any]) -> tuple[float, float] | None:
    if template.get("origin"):
        x, y = template["origin"]
        return float(x), float(y)
    by = template.get("by")
    if by and ctx.state.has_stand(by):
        stand = ctx.state.stand(by)
        if stand["x"] is not None:
            return centre(stand)
    return None


def lifts_light_limits(conditions: dict[str, Any], charts: Any) -> bool:
    """Whether the light itself limits seeing now, so that illumination can matter (CD 9.2)."""
    return charts.conditions[conditions["light"]].visibility is not None


def light_now(ctx: RulesContext) -> tuple[Effects, Effects | None]:
    """The light and weather's effects now, and the same by daylight when illumination can
    lift the light's limits (None when the light limits nothing)."""
    conditions = ctx.state.conditions
    now: Effects = effects(conditions, ctx.charts)
    if not lifts_light_limits(conditions, ctx.charts):
        return now, None
    return now, effects({**conditions, "light": "day"}, ctx.charts)


def seeing_at(
    ctx: RulesContext, b: End, now: Effects, daylit: Effects | None
) -> tuple[Effects, str | None]:
    """What limits a look at ``b``, and what lights it, if anything.

    CD 9.2: illumination lifts only what the light (night, twilight) imposes; fog, rain,
    snow and dust still cap visibility and spotting (CD 10.1.2, 10.2.1, 10.3.1).
    """
    if daylit is None:
        return now, None
    lit = illuminated(ctx, b, reach=daylit.visibility)
    return (daylit if lit else now), lit


def within_visibility(rng: float, seeing: Effects) -> bool:
    """Whether a range is within what the light and weather let one see (no limit: yes)."""
    return seeing.visibility is None or within(rng, seeing.visibility)


def sight(ctx: RulesContext, a: End, b: End) -> Sight:
    line = line_of_sight(ctx.table, (a.x, a.y), (b.x, b.y), smoke_blockers(ctx.state.templates()))
    return _look(
        ctx,
        a,
        b,
        distance_between(a, b, ctx.scenario.measure),
        line.clear,
        list(line.blocked_by),
        [_crossing(c) for c in line.crossings],
        (line.level_a, line.level_b),
        light_now(ctx),
    )


def sights(ctx: RulesContext, a: End, ends: Sequence[End]) -> list[Sight | None]:
    """``sight`` from ``a`` to each of ``ends`` whose line is clear (None where it is blocked),
    the lines traced together (``table.sight_pairs``: the same trace as ``line_of_sight``).

    Range, line of sight, visibility, lighting, spotting and bands are ``sight``'s own; what
    a clear line crosses on the way is not traced (``crossings`` empty, the levels NaN): ask
    ``sight`` for one line's whole story. ``targets`` looks at every enemy stand this way.
    """
    if not ends:
        return []
    clear = sight_pairs(
        ctx.table,
        [(a.x, a.y)] * len(ends),
        [(b.x, b.y) for b in ends],
        smoke_blockers(ctx.state.templates()),
    )
    measure, light = ctx.scenario.measure, light_now(ctx)
    nan = (math.nan, math.nan)
    return [
        _look(ctx, a, b, distance_between(a, b, measure), True, [], [], nan, light) if los else None
        for b, los in zip(ends, clear, strict=True)
    ]


def look_clear(
    ctx: RulesContext,
    a: End,
    b: End,
    light: tuple[Effects, Effects | None] | None = None,
    at_b: tuple[Effects, str | None] | None = None,
) -> Sight:
    """``sight`` from ``a`` to ``b`` when their line is already known to be clear (traced by
    ``table.sight_matrix`` or ``table.sight_pairs``, which agree exactly with ``sight``'s own
    trace): range, visibility, lighting, spotting and bands are ``sight``'s; what the line
    crosses is not traced again (``crossings`` empty, the levels NaN). ``light`` is
    ``light_now(ctx)`` and ``at_b`` is ``seeing_at(ctx, b, *light)``, given when many looks
    share them."""
    light = light or light_now(ctx)
    rng = distance_between(a, b, ctx.scenario.measure)
    nan = (math.nan, math.nan)
    return _look(ctx, a, b, rng, True, [], [], nan, light, at_b)


def spotting_reach(
    ctx: RulesContext,
    b: End,
    light: tuple[Effects, Effects | None],
    at_b: tuple[Effects, str | None],
) -> float | None:
    """The longest range at which any stand could spot ``b`` now: past it ``_spot`` says
    no, whoever looks (None: no such range). ``at_b`` is ``seeing_at(ctx, b, *light)``.

    It reads what ``_spot`` reads of the target (its cover, what it is doing, the light and
    weather where it stands), allows for the most that sound can bring a moving stand closer
    at night (CD 9.3), and gives no limit where a stand is seen at any range in sight: its
    searchlight (CD 9.2.2), its muzzle flashes at night (CD 9.1.2), a spotting distance
    without limit.
    """
    assert b.stand is not None
    now, _ = light
    seeing, lit = at_b
    if "searchlight" in b.stand["markers"] or (now.night and fired_recently(b.stand, ctx.state)):
        return None
    cover, _ = target_cover(ctx, b.x, b.y, b.stand)
    daylight = getattr(ctx.charts.spotting[cover], activity(b.stand, ctx.state))
    distance = seeing.spotting_distance(daylight)
    if distance is None:
        return None
    reach = distance + TOLERANCE
    if now.night and not lit:
        factor = ctx.charts.params(WeatherParams).sound_distance_factor
        if factor <= 0:
            return None
        reach /= min(1.0, factor)
    return reach


def spotting_world(ctx: RulesContext, light: tuple[Effects, Effects | None]) -> str:
    """Everything a look's verdict past its line of sight reads besides its two stands, the
    table, the scenario and the charts, as one string: two looks between stands with the
    same ``spotting_row`` under the same string get the same visibility, lighting and
    spotting.

    That is the conditions (light, weather, ground) and the state of the terrain (cover of
    damaged structures, burning buildings); where the light limits sight, what may light a
    stand (illumination rounds and searchlights, the stands working the searchlights,
    burning stands, CD 9.2, 9.2.2); at night, whether it is the opportunity fire phase (last
    turn's muzzle flashes, CD 9.1.2) and the stands firing or fired on this turn, whose noise
    drowns sound detection (CD 9.3). The turn enters only through ``spotting_row``. Keep
    both in step with ``_look`` and ``_spot``: whatever they read of the state belongs in
    one of them.
    """
    state = ctx.state
    now, daylit = light
    turn = state.turn
    terrain = sorted((k, v) for k, v in state.rows.items() if k.startswith("terrain:"))
    lit: list[Any] = []
    if daylit is not None:
        lights = [t for t in state.templates() if t.get("illuminates")]
        makers = sorted({str(t["by"]) for t in lights if t.get("by")})
        lit = [
            lights,
            [
                [m, *(centre(state.stand(m)) if state.stand(m)["x"] is not None else ())]
                for m in makers
                if state.has_stand(m)
            ],
            [
                [s["id"], s["x"], s["y"], s["width"], s["depth"], s["facing"]]
                for s in state.stands()
                if "burning" in s["markers"] and s["x"] is not None
            ],
        ]
    noisy: list[Any] = []
    opportunity = False
    if now.night:
        opportunity = state.phase == "opportunity-fire"
        noisy = [
            [s["id"], s["x"], s["y"]]
            for s in state.stands()
            if s["x"] is not None and (fired_on(s, turn) or s.get("fired_at") == turn)
        ]
    return json.dumps(
        [state.conditions, opportunity, terrain, lit, noisy], sort_keys=True, default=str
    )


def spotting_row(stand: StandRow, state: State) -> str:
    """What a look (``_look``, ``_spot``, ``night.sound_detects``) reads of one of its two
    stands, as one string: who and what it is, its base, its markers (dug in, searchlight),
    and whether it moved or fired this turn, or fired last turn from where it stands (CD
    9.1.2). With ``spotting_world`` it names everything a look's verdict depends on beyond
    its line of sight; the looker's range bands (its weapons) are not part of it."""
    turn = state.turn
    fired = stand.get("fired")
    fired_turn = fired.get("turn") if fired else None
    still = fired is not None and (fired.get("x"), fired.get("y")) == (stand["x"], stand["y"])
    return json.dumps(
        [
            stand["id"],
            stand["kind"],
            [stand["x"], stand["y"], stand["width"], stand["depth"], stand["facing"]],
            stand["markers"],
            stand.get("moved_turn") == turn,
            fired_turn == turn,
            fired_turn == turn - 1 and still,
        ],
        default=str,
    )


def _look(
    ctx: RulesContext,
    a: End,
    b: End,
    rng: float,
    los: bool,
    blocked_by: list[str],
    crossings: list[dict[str, Any]],
    levels: tuple[float, float],
    light: tuple[Effects, Effects | None],
    at_b: tuple[Effects, str | None] | None = None,
) -> Sight:
    """The rest of a look once its line is traced: visibility, lighting, bands, spotting.
    ``at_b`` is ``seeing_at(ctx, b, *light)``, given when many looks share their target."""
    now, daylit = light
    seeing, lit = at_b if at_b is not None else seeing_at(ctx, b, now, daylit)
    result = Sight(
        a=a.label,
        b=b.label,
        range=rng,
        bearing=bearing(a.x, a.y, b.x, b.y),
        los=los,
        blocked_by=blocked_by,
        crossings=crossings,
        level_a=levels[0],
        level_b=levels[1],
        visibility=seeing.visibility,
        visible=within_visibility(rng, seeing),
        a_stand=a.stand,
        lit=lit,
    )
    if a.stand is not None:
        for weapon_id in a.stand["weapons"]:
            result.bands[weapon_id] = ctx.charts.weapons[weapon_id].band(rng)
    if b.stand is not None:
        _spot(ctx, result, b, now, seeing, lit)
    return result


@frozen_dataclass
class Glance:
    """What ``sight`` says of one look, without spotting, bands or crossings."""

    range: float
    los: bool
    visible: bool


def glances(ctx: RulesContext, looks: Sequence[tuple[End, End]]) -> list[Glance]:
    """Range, line of sight and visibility of many looks at once, each exactly as ``sight``
    gives them for the same two ends.

    The candidates for opportunity fire are many looks from the enemy stands at points of
    a path; one at a time each paid for its own trace (most of ``move --check``). Here the
    lines are traced together (``table.sight_pairs``: the same trace as ``line_of_sight``),
    a stand's base is built once for all its looks, and the weather and any light at each
    point are worked out once.
    """
    if not looks:
        return []
    measure = ctx.scenario.measure
    bases: dict[str, Any] = {}

    def base(end: End) -> Any:
        assert end.stand is not None
        if end.label not in bases:
            bases[end.label] = base_polygon(base_of(end.stand))
        return bases[end.label]

    # Range: stand to point, edge measure, in one shapely call (the same distance as
    # ``distance_between``, which measures one base to one point); anything else as there.
    ranges = [0.0] * len(looks)
    to_points = [
        n
        for n, (a, b) in enumerate(looks)
        if measure == "edge" and a.stand is not None and b.stand is None
    ]
    if to_points:
        found = shapely.distance(
            [base(looks[n][0]) for n in to_points],
            shapely.points([(looks[n][1].x, looks[n][1].y) for n in to_points]),
        )
        for n, value in zip(to_points, found, strict=True):
            ranges[n] = float(value)
    done = set(to_points)
    for n, (a, b) in enumerate(looks):
        if n not in done:
            ranges[n] = distance_between(a, b, measure)
    clear = sight_pairs(
        ctx.table,
        [(a.x, a.y) for a, _ in looks],
        [(b.x, b.y) for _, b in looks],
        smoke_blockers(ctx.state.templates()),
    )
    now, daylit = light_now(ctx)
    # What limits a look at each point, worked out once per point (``seeing_at``, as sight).
    seeing: dict[tuple[str, float, float], Effects] = {}
    out = []
    for (_, b), rng, los in zip(looks, ranges, clear, strict=True):
        key = (b.label, b.x, b.y)
        if key not in seeing:
            seeing[key] = seeing_at(ctx, b, now, daylit)[0]
        out.append(Glance(rng, bool(los), within_visibility(rng, seeing[key])))
    return out


def _spot(
    ctx: RulesContext, result: Sight, b: End, now: Effects, seeing: Effects, lit: str | None
) -> None:
    assert b.stand is not None
    cover, source = target_cover(ctx, b.x, b.y, b.stand)
    doing = activity(b.stand, ctx.state)
    row = ctx.charts.spotting[cover]
    daylight = getattr(row, doing)
    reasons = [
        f"{b.label} is {doing} "
        + ("in the open" if cover == "none" else f"in {cover} cover")
        + (f" ({source})" if source else "")
        + (
            f': spotted within {daylight:g}" by day'
            if daylight is not None
            else ": spotted at any distance in sight by day"
        )
        + f" ({row.rule})"
    ]
    if lit:
        reasons.append(f"illuminated by {lit}: night limits lifted (CD 9.2)")
    distance = seeing.spotting_distance(daylight)
    if distance != daylight:
        # Lit, the light no longer counts: only the weather's reasons remain.
        why = "; ".join(seeing.because[1:] if lit else seeing.because)
        reasons.append(
            "contact only under present conditions"
            if distance == 0
            else f'{distance:g}" under present conditions ({why})'
        )
    effective = result.range
    if result.a_stand is not None and now.night and not lit:
        heard, why = sound_detects(ctx, result.a_stand, b.stand, result.range, now)
        if heard:
            effective = result.range * ctx.charts.params(WeatherParams).sound_distance_factor
            reasons.append(why)
        elif b.stand.get("moved_turn") == ctx.state.turn:
            # A moving stand could have been heard: say why it was not.
            reasons.append(f"not heard: {why}")
    spotted = (
        result.los
        and (distance is None or within(effective, distance))
        and (distance != 0 or within(effective, 0))
    )
    if not spotted and result.los and now.night and fired_recently(b.stand, ctx.state):
        # CD 9.1.2: firing stands are spotted at night by anyone with clear sight to them.
        spotted = True
        result.muzzle_flash = result.visibility is not None and result.range > result.visibility
        reasons.append("spotted by its muzzle flashes (CD 9.1.2)")
    if not spotted and result.los and "searchlight" in b.stand["markers"]:
        # CD 9.2.2: a searchlight is seen by any enemy with a line of sight to it.
        spotted = True
        reasons.append("its searchlight gives it away (CD 9.2.2)")
    if not result.los:
        reasons.append("no line of sight")
    result.spotted = spotted
    result.spotting = {"cover": cover, "activity": doing, "distance": distance, "because": reasons}


def _crossing(c: Any) -> dict[str, Any]:
    return {
        "piece": c.piece_id,
        "kind": c.kind,
        "entry": [round(c.entry[0], 2), round(c.entry[1], 2)],
        "exit": [round(c.exit[0], 2), round(c.exit[1], 2)],
        "inside": round(c.inside, 2),
        "blocks": c.blocks,
        "reason": c.reason,
    }


def all_pairs(ctx: RulesContext) -> dict[str, Any]:
    """Line of sight between every pair of placed stands, at once (vectorised geometry)."""

    stands = [s for s in ctx.state.stands() if s["x"] is not None and in_play(s)]
    points = [centre(s) for s in stands]
    matrix = sight_matrix(ctx.table, points, smoke_blockers(ctx.state.templates()))
    ids = [s["id"] for s in stands]
    n = len(ids)
    clear = int((matrix.sum() - n) // 2) if n else 0
    sees = {
        ids[i]: [
            ids[j]
            for j in range(n)
            if j != i and matrix[i, j] and stands[j]["side"] != stands[i]["side"]
        ]
        for i in range(n)
    }
    return {"stands": ids, "pairs": n * (n - 1) // 2, "clear": clear, "sees": sees}
