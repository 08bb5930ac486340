"""Glider landings (CD 7.3): the landing number (CD 7.3.1), the slots around the zone and a
glider's deviation and site (CD 7.3.2), unsuccessful landings (CD 7.3.3) and crashes
(CD 7.3.4).
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.units import within
from tabletop.core.words import count
from tabletop.data.board import base_of
from tabletop.data.chart_params import AirborneParams, WeatherParams
from tabletop.rules.cd.airborne.aa import aa_fire, choose_aa
from tabletop.rules.cd.airborne.common import (
    ELIMINATED,
    FORCED_BACK,
    SEVERITY,
    Aircraft,
    Line,
    crew_class,
    is_overcast_night,
    keyed,
    names,
    site_of,
    stand_effect,
)
from tabletop.rules.cd.airborne.stick import (
    _orders,
    _overlaps,
    _settle,
    aircrew,
    check_phase,
    check_zone,
    stick_stands,
)
from tabletop.rules.cd.compass import point_bearing
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow
from tabletop.table import base_polygon

# Rings of glider slots around the zone (along the heading, across it), in glider sizes.
SLOTS = (
    (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1),
    (2, 0), (-2, 0), (0, 2), (0, -2), (1, 1), (1, -1), (-1, 1), (-1, -1),
)  # fmt: skip
GLIDER = "glider:"


def landing_number(
    charts: Any, conditions: dict[str, Any], crew: str, hits: int, overcast: bool | None
) -> tuple[int, list[Line]]:
    """A glider's landing number and its working (CD 7.3.1)."""
    key = "overcast" if is_overcast_night(conditions, overcast) else conditions["light"]
    base = keyed(charts, "landing-number", key)
    if base is None:
        raise BadInput(f"no glider landing number for {key!r} (airborne.yaml)")
    lines = [Line(f"{key}", float(base.value), base.rule)]
    kind = crew_class(charts, crew)
    if kind in ("plus", "minus"):
        row = charts.table("airborne")[f"landing-crew-{kind}"]
        lines.append(Line(f"{crew} glider crew", float(row.value), row.rule))
    if hits:
        lines.append(Line(count(hits, "AA hit"), -float(hits), "CD 7.3.1"))
    return int(sum(line.value for line in lines)), lines


# --- gliders (CD 7.3) -----------------------------------------------------------------------


@mutable_dataclass
class GliderPlan:
    """Glider landings checked and ready to roll: the stick, its gliders, targets and AA."""

    stands: list[StandRow]
    aircraft: list[Aircraft]
    guns: list[Any]
    zone: tuple[float, float]
    heading: float
    targets: dict[str, tuple[float, float]]


def plan_gliders(ctx: RulesContext, inputs: dict[str, Any]) -> GliderPlan:
    """Check a glider landing and name its gliders (CD 7.3); nothing rolled."""
    check_phase(ctx)
    zone = check_zone(ctx, inputs["zone"])
    heading = float(inputs.get("heading") or 0.0) % 360
    stands = stick_stands(ctx, inputs["stick"], "glider")
    targets = {k: (float(v[0]), float(v[1])) for k, v in (inputs.get("targets") or {}).items()}
    unknown = set(targets) - {s["id"] for s in stands}
    if unknown:
        raise BadInput(f"--at names {', '.join(sorted(unknown))}, not in the stick")
    aircraft = [Aircraft(s["id"], s["id"], aircrew(ctx, s, inputs.get("crew"))) for s in stands]
    guns = choose_aa(ctx, stands[0]["side"], zone, inputs)
    return GliderPlan(stands, aircraft, guns, zone, heading, targets)


def glider_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    plan = plan_gliders(ctx, inputs)
    stands, aircraft, zone, heading, targets = (
        plan.stands, plan.aircraft, plan.zone, plan.heading, plan.targets
    )  # fmt: skip
    shots = aa_fire(ctx, aircraft, plan.guns, glider=True)
    landed: list[tuple[float, float]] = []
    used: set[int] = set()
    gliders = []
    for stand, plane in zip(stands, aircraft, strict=True):
        entry = _glide(ctx, stand, plane, zone, heading, targets.get(stand["id"]), landed, used,
                       inputs.get("overcast"))  # fmt: skip
        gliders.append(entry)
    done = {g["stand"]: g["outcome"] for g in gliders}
    safe = [s for s, how in done.items() if how in ("landed", "deviated", "crashed")]
    verdict = f"{len(safe)} of {count(len(stands), 'glider')} down" + "".join(
        f"; {sid} {how}" for sid, how in done.items() if how != "landed"
    )
    return {
        "verdict": verdict,
        "stick": [s["id"] for s in stands],
        "zone": list(zone),
        "heading": heading,
        "aa": shots,
        "gliders": gliders,
        "stands": done,
        "orders": _orders(ctx, stands),
        "overlaps": _overlaps(ctx, safe),
    }


def _glide(
    ctx: RulesContext,
    stand: StandRow,
    plane: Aircraft,
    zone: tuple[float, float],
    heading: float,
    target: tuple[float, float] | None,
    landed: list[tuple[float, float]],
    used: set[int],
    overcast: bool | None,
) -> dict[str, Any]:
    charts, dice, state = ctx.charts, ctx.dice, ctx.state
    entry: dict[str, Any] = {"stand": stand["id"], "crew": plane.crew, "hits": plane.hits}
    if plane.aborted is not None:
        entry.update(outcome="aborted", why=plane.aborted)
        _settle(ctx, stand, {"outcome": "aborted"}, "glider", zone, heading)
        return entry
    number, lines = landing_number(charts, state.conditions, plane.crew, plane.hits, overcast)
    entry.update(landing_number=number, working=[line.as_json() for line in lines])
    aim = _glider_target(ctx, stand["id"], zone, heading, target, landed, used)
    entry["target"] = [round(aim[0], 4), round(aim[1], 4)]
    roll = landing_roll(dice, stand["id"], number)
    entry["rolls"] = [roll]
    destroyed_on = charts.params(AirborneParams).glider_destroyed_on
    if roll == destroyed_on:
        entry.update(outcome="lost", why=f"rolled {roll}: destroyed or lost en route (CD 7.3.3)")
        _settle(ctx, stand, {"outcome": "lost", "regroup": False}, "glider", zone, heading)
        return entry
    at = aim
    outcome = "landed"
    if roll > number:
        at, deviation = _deviate(ctx, plane, aim, entry["rolls"])
        entry["deviation"] = deviation
        outcome = "deviated"
        lost, crash = _glider_site(ctx, stand, at, heading)
        if lost is not None:
            entry.update(at=[round(at[0], 4), round(at[1], 4)], outcome="lost", why=lost)
            _settle(ctx, stand, {"outcome": "lost"}, "glider", zone, heading)
            return entry
        if crash:
            outcome = "crashed"
            entry["crashed_into"] = crash
    entry.update(at=[round(at[0], 4), round(at[1], 4)], outcome=outcome)
    _settle(ctx, stand, {"outcome": "landed", "at": entry["at"]}, "glider", zone, heading)
    if outcome == "crashed":
        entry["crash"] = _crash(ctx, stand, number, entry["rolls"])
        if stand["status"] == "eliminated":
            entry["outcome"] = "crashed"
    if outcome == "landed":
        landed.append(at)
    elif within(math.dist(at, zone), charts.params(AirborneParams).glider_zone_radius):
        landed.append(at)  # a glider off its mark may still anchor others (CD 7.3)
    state.rows[GLIDER + stand["id"]] = {
        "id": stand["id"], "x": entry["at"][0], "y": entry["at"][1], "heading": heading,
        "length": charts.params(AirborneParams).glider_length,
        "width": charts.params(AirborneParams).glider_width, "turn": state.turn,
    }  # fmt: skip
    return entry


def _glider_target(
    ctx: RulesContext,
    stand_id: str,
    zone: tuple[float, float],
    heading: float,
    target: tuple[float, float] | None,
    landed: list[tuple[float, float]],
    used: set[int],
) -> tuple[float, float]:
    """Within 2" of the zone, or of a glider of the stick down within 2" of it (CD 7.3)."""
    radius = ctx.charts.params(AirborneParams).glider_zone_radius
    anchors = [zone, *(p for p in landed if within(math.dist(p, zone), radius))]

    def legal(point: tuple[float, float]) -> bool:
        return any(within(math.dist(point, a), radius) for a in anchors)

    if target is not None:
        if not legal(target):
            raise RulesRefusal(
                f"{stand_id}'s target {target[0]:g},{target[1]:g} is not within {radius:g}\" of "
                f'the zone or of a glider of the stick down within {radius:g}" of it (CD 7.3)'
            )
        return target
    length = ctx.charts.params(AirborneParams).glider_length
    width = ctx.charts.params(AirborneParams).glider_width
    ux, uy = math.sin(math.radians(heading)), math.cos(math.radians(heading))
    for index, (along, across) in enumerate(SLOTS):
        if index in used:
            continue
        point = (zone[0] + along * length * ux + across * width * uy,
                 zone[1] + along * length * uy - across * width * ux)  # fmt: skip
        if legal(point):
            used.add(index)
            return point
    raise RulesRefusal(
        f'no room left to aim {stand_id} within {radius:g}" of the stick (CD 7.3): give '
        "targets with --at STAND=X,Y"
    )


def _deviate(
    ctx: RulesContext, plane: Aircraft, aim: tuple[float, float], rolls: list[int]
) -> tuple[tuple[float, float], dict[str, Any]]:
    """Direction on the wind direction chart, then a die of inches (CD 7.3.3, 10.1.1)."""
    above = ctx.charts.params(WeatherParams).wind_reroll_above
    while True:
        point = direction_roll(ctx.dice, plane, ctx.charts)
        rolls.append(point)
        if point <= above:
            break
    return deviation_at(ctx, plane, aim, point, rolls)


def landing_roll(dice: DiceLike, stand_id: str, number: int) -> int:
    """A glider's landing roll, a d10 (CD 7.3.1)."""
    return dice.roll(10, f"glider landing of {stand_id}, needs {number} or less")


def direction_roll(dice: DiceLike, plane: Aircraft, charts: Any) -> int:
    """One roll on the wind direction chart for a deviation (CD 7.3.3, 10.1.1); a face above
    ``wind-reroll-above`` is rolled again."""
    above = charts.params(WeatherParams).wind_reroll_above
    return dice.roll(10, f"deviation of {plane.label} (wind chart, again on {above + 1}+)")


def deviation_at(
    ctx: RulesContext, plane: Aircraft, aim: tuple[float, float], point: int, rolls: list[int]
) -> tuple[tuple[float, float], dict[str, Any]]:
    """The deviation's distance, a die of inches scaled by the crew, toward ``point``."""
    charts, dice = ctx.charts, ctx.dice
    pips = dice.roll(10, f"deviation distance of {plane.label} (inches)")
    rolls.append(pips)
    factor = 1.0
    kind = crew_class(charts, plane.crew)
    if kind in ("plus", "minus"):
        params = charts.params(AirborneParams)
        factor = params.deviation_plus_factor if kind == "plus" else params.deviation_minus_factor
    distance = pips * factor
    bearing = float(point_bearing(point))
    rad = math.radians(bearing)
    at = (aim[0] + distance * math.sin(rad), aim[1] + distance * math.cos(rad))
    return at, {"direction": point, "bearing": bearing, "die": pips, "factor": factor,
                "distance": distance}  # fmt: skip


def glider_footprint(x: float, y: float, heading: float, length: float, width: float) -> Any:
    row = {"id": "glider", "x": x, "y": y, "width": width, "depth": length, "facing": heading}
    return base_polygon(base_of(row))


def _glider_site(
    ctx: RulesContext, stand: StandRow, at: tuple[float, float], heading: float
) -> tuple[str | None, list[str]]:
    """(why it is lost, or None; what it crashes into) for a deviated glider (CD 7.3.3-4)."""

    charts, state = ctx.charts, ctx.state
    site = site_of(ctx, *at)
    if site["off_table"]:
        return "deviated off the table: lost en route (CD 7.3.4)", []
    if site["water"] is not None:
        return f"deviated into {site['water']}: lost en route (CD 7.3.4)", []
    prohibited = names(charts, "glider-prohibited-kinds")
    for piece in site["pieces"]:
        burning = (state.rows.get("terrain:" + piece.id) or {}).get("state") == "burning"
        spec = ctx.scenario.piece(piece.id)
        if piece.kind in prohibited or burning or spec.state == "burning":
            why = "burning" if burning or spec.state == "burning" else piece.kind
            return f"deviated into {piece.id} ({why}): lost en route (CD 7.3.4)", []
    length, width = (
        charts.params(AirborneParams).glider_length,
        charts.params(AirborneParams).glider_width,
    )
    shape = glider_footprint(at[0], at[1], heading, length, width)
    crash = []
    crash_kinds = names(charts, "glider-crash-kinds")
    for piece in ctx.table.pieces:
        if piece.kind in crash_kinds and ctx.table.geometry(piece.id).intersects(shape):
            crash.append(piece.id)
    for other in state.stands():
        if other["id"] == stand["id"] or other["x"] is None or other["status"] == "eliminated":
            continue
        if charts.stand_kinds[other["kind"]].category != "vehicle":
            continue
        if base_polygon(base_of(other)).intersects(shape):
            crash.append(other["id"])
    for key, row in state.rows.items():
        if key.startswith(GLIDER) and row["id"] != stand["id"]:
            theirs = glider_footprint(row["x"], row["y"], row["heading"], row["length"],
                                      row["width"])  # fmt: skip
            if theirs.intersects(shape):
                crash.append(f"glider of {row['id']}")
    return None, crash


def _crash(ctx: RulesContext, stand: StandRow, number: int, rolls: list[int]) -> dict[str, Any]:
    """One hit, a second landing check, a second hit if it fails (CD 7.3.4)."""
    effects = [stand_effect(ctx, stand, f"{stand['id']}'s glider crashes")]
    again = ctx.dice.roll(10, f"second landing check of {stand['id']}, needs {number} or less")
    rolls.append(again)
    if again > number:
        effects.append(stand_effect(ctx, stand, f"{stand['id']}'s glider crashes hard"))
    worst = max(effects, key=lambda e: SEVERITY[e])
    out: dict[str, Any] = {
        "second_check": again,
        "held": again <= number,
        "effects": effects,
        "worst": worst,
    }
    if worst == ELIMINATED:
        stand["status"] = "eliminated"
    elif FORCED_BACK in effects:
        # CD 7.3.4: a forced-back result here does not move the stand, but the morale test a
        # forced-back result brings falls due (the morale phase lists it).
        due = {
            "rule": "CD 7.3.4",
            "why": f"{stand['id']}'s glider crashed: forced back result (the stand stays put)",
            "turn": ctx.state.turn,
        }
        stand.setdefault("morale_due", []).append(due)
        out["morale_due"] = due
    return out
