"""Hitting the beach (CD 8.1): the approach 6" off the beach and the scatter of a wave's craft
(CD 8.1, 8.1.3, 8.2.3), landing craft beaching and unloading (CD 8.1.1), amphibious vehicles
driving ashore and their speed in water (CD 8.1.2).
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.data.chart_params import AmphibiousParams
from tabletop.rules.cd import minefields
from tabletop.rules.cd.airborne.stick import company_of
from tabletop.rules.cd.amphibious.attacks import _craft_effect, apply_craft_result
from tabletop.rules.cd.amphibious.common import (
    NO_EFFECT,
    _spec,
    cargo_of,
    check_phase,
    craft_stand,
    craft_type,
    names,
    shore_frame,
)
from tabletop.rules.cd.amphibious.lift import _use_lift
from tabletop.rules.cd.amphibious.obstacles import _barring_obstacle, _hazards
from tabletop.rules.context import RulesContext
from tabletop.state.document import AmphibRow, StandRow, centre, position, stage_of


def crew_default(charts: Any, year: int, major: bool) -> tuple[str, str]:
    """The charted crew quality of landing craft for a year and nation (CD 8.2.3)."""
    for row in charts.table("amphibious").values():
        if row.table != "crew-by-year":
            continue
        if row.from_year is not None and year < row.from_year:
            continue
        if row.up_to_year is not None and year > row.up_to_year:
            continue
        if row.major is not None and row.major != major:
            continue
        return str(row.quality), row.rule
    raise BadInput(f"--year {year}: no crew quality charted for it (amphibious.yaml)")


def is_major(charts: Any, side: str) -> bool:
    return side.strip().lower() in names(charts, "major-sides")


def _bearing(vx: float, vy: float) -> float:
    return math.degrees(math.atan2(vx, vy)) % 360


# --- the approach (CD 8.1, 8.1.3, 8.2.3, 8.3) ---------------------------------------------------


@mutable_dataclass
class ApproachPlan:
    """A wave checked and laid out along the shore, before any scatter is rolled."""

    wave: int
    crafts: list[tuple[StandRow, Any]]
    lift: dict[str, Any] | None
    crew: tuple[str, str] | None
    shore: tuple[float, float]
    right: tuple[float, float]
    offsets: list[float]
    distance: float


def plan_approach(ctx: RulesContext, inputs: dict[str, Any]) -> ApproachPlan:
    """Check a wave's approach and lay its craft side by side along the shore (CD 8.1, 8.3)."""
    check_phase(ctx, "the approach of a landing wave")
    state, charts = ctx.state, ctx.charts
    wave = int(inputs.get("wave") or state.turn)
    crafts = _approaching(ctx, inputs.get("craft") or [], inputs.get("wave"))
    side = crafts[0][0]["side"]
    if any(c["side"] != side for c, _ in crafts):
        raise RulesRefusal("a landing wave belongs to one side (CD 8.1)")
    lift = _use_lift(ctx, side, wave, crafts)
    crew = None
    if inputs.get("year") is not None:
        major = inputs.get("major")
        crew = crew_default(charts, int(inputs["year"]), is_major(charts, side)
                            if major is None else bool(major))  # fmt: skip
    x, y = (float(v) for v in inputs["at"])
    if not ctx.table.on_table(x, y):
        raise BadInput(f"--at {x:g},{y:g} is off the table")
    shore, normal = shore_frame(ctx, x, y)
    facing = (-normal[0], -normal[1])
    right = (facing[1], -facing[0])
    widths = [c["width"] for c, _ in crafts]
    total = sum(widths)
    offsets, run = [], -total / 2
    for width in widths:
        offsets.append(run + width / 2)
        run += width
    distance = charts.params(AmphibiousParams).approach_distance
    return ApproachPlan(wave, crafts, lift, crew, shore, right, offsets, distance)


def approach_point(
    ctx: RulesContext, plan: ApproachPlan, craft: StandRow, offset: float, shift: float
) -> tuple[tuple[float, float], tuple[float, float], float, float]:
    """Where a craft makes its approach, ``shift`` inches along the shore from its place
    (scatter): (the beach point, the way out to sea, x, y); refused off the table (CD 8.1)."""
    shore, right = plan.shore, plan.right
    px, py = shore[0] + (offset + shift) * right[0], shore[1] + (offset + shift) * right[1]
    beach, out = shore_frame(ctx, px, py)
    ax, ay = beach[0] + plan.distance * out[0], beach[1] + plan.distance * out[1]
    if not ctx.table.on_table(ax, ay):
        raise RulesRefusal(
            f"{craft['id']}'s approach position {ax:.1f},{ay:.1f} is off the table: land "
            "it elsewhere (CD 8.1)"
        )
    return beach, out, ax, ay


def approach_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    plan = plan_approach(ctx, inputs)
    state = ctx.state
    wave, crafts, lift, crew, distance = (
        plan.wave, plan.crafts, plan.lift, plan.crew, plan.distance
    )  # fmt: skip
    scatter = _scatter(ctx, crafts) if inputs.get("scatter") else {}
    placed = []
    for (craft, kind), offset in zip(crafts, plan.offsets, strict=True):
        company = _company(ctx, craft)
        shift = scatter.get(company, {}).get("inches", 0.0)
        beach, out, ax, ay = approach_point(ctx, plan, craft, offset, shift)
        cargo = cargo_of(ctx, craft)
        craft.update(
            {"x": round(ax, 4), "y": round(ay, 4), "facing": round(_bearing(-out[0], -out[1]), 2)}
        )
        craft["moved_turn"] = state.turn
        craft["amphib"] = {
            "stage": "approach", "approach": [*position(craft)],
            "beach": [round(beach[0], 4), round(beach[1], 4)], "wave": wave,
            "entered_turn": state.turn, "company": company,
        }  # fmt: skip
        if crew is not None:
            craft["quality"] = crew[0]
        am = craft["amphib"]
        placed.append({"craft": craft["id"], "type": kind.id, "approach": am["approach"],
                       "beach": am["beach"], "cargo": cargo, "crew": craft["quality"]})  # fmt: skip
    return {
        "verdict": f"wave {wave}: {len(placed)} craft making their approach, "
        f'{distance:g}" off the beach',
        "wave": wave,
        "craft": placed,
        "scatter": scatter,
        "lift": lift,
        "crew": {"quality": crew[0], "rule": crew[1]} if crew else None,
    }


def _approaching(ctx: RulesContext, ids: list[str], wave: Any) -> list[tuple[StandRow, Any]]:
    state = ctx.state
    if not ids:
        if wave is None:
            raise BadInput("name the craft, or give --wave N for the craft of that wave")
        ids = [s["id"] for s in state.stands()
               if _spec(ctx, s["id"], "wave", None) == int(wave)
               and _spec(ctx, s["id"], "craft", None) is not None]  # fmt: skip
        if not ids:
            raise BadInput(f"no craft has 'wave: {wave}' in the scenario")
    out = []
    for cid in ids:
        craft, kind = craft_stand(ctx, cid)
        stage = stage_of(craft)
        if craft["status"] != "ok":
            raise RulesRefusal(f"{cid} is {craft['status']}")
        if stage == "off-table":
            if craft["amphib"].get("off_turn") == state.turn:
                raise RulesRefusal(f"{cid} was forced back off the table this turn: it comes "
                                   "back next turn (CD 8.2.4)")  # fmt: skip
        elif stage is not None:
            raise RulesRefusal(f"{cid} is already in play ({stage}; CD 8.1)")
        elif craft["x"] is not None:
            raise RulesRefusal(f"{cid} is already on the table (CD 8.1)")
        out.append((craft, kind))
    return out


def _company(ctx: RulesContext, craft: StandRow) -> str:
    cargo = cargo_of(ctx, craft)
    owner = ctx.state.stand(cargo[0]) if cargo else craft
    return str(company_of(ctx, owner.get("formation")) or owner["id"])


def _scatter(ctx: RulesContext, crafts: list[tuple[StandRow, Any]]) -> dict[str, dict[str, Any]]:
    """One die per company: scattered on 5 or less, then left or right 2 x D10 (CD 8.1.3)."""
    out: dict[str, dict[str, Any]] = {}
    for craft, _ in crafts:
        company = _company(ctx, craft)
        if company not in out:
            out[company] = scatter_roll(ctx.dice, ctx.charts, company)
    return out


def scatter_roll(dice: DiceLike, charts: Any, company: str) -> dict[str, Any]:
    """A company's scatter dice (CD 8.1.3): whether it scatters, which way and how far."""
    up_to = charts.params(AmphibiousParams).scatter_up_to
    left_on = charts.params(AmphibiousParams).scatter_left_on
    roll = dice.roll(10, f"scatter of {company} ({up_to} or less scatters)")
    entry: dict[str, Any] = {"rolls": [roll], "scattered": roll <= up_to, "inches": 0.0}
    if roll <= up_to:
        way = dice.roll(10, f"scatter direction of {company} ({left_on} left)")
        pips = dice.roll(10, f"scatter distance of {company}")
        left = (way % 2 == 0) == (left_on == "even")
        inches = pips * charts.params(AmphibiousParams).scatter_multiplier
        entry.update(rolls=[roll, way, pips], direction="left" if left else "right",
                     inches=-inches if left else inches)  # fmt: skip
    return entry


# --- landing (CD 8.1.1, 8.1.2, 8.1.5, 8.1.6) ----------------------------------------------------


def land_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    out = [_land_one(ctx, craft, kind) for craft, kind in landing_craft(ctx, inputs)]
    ashore = [r["craft"] for r in out if r["stage"] in ("disembarked", "landed", "beached")]
    return {"verdict": f"{len(ashore)} of {len(out)} craft reached the beach", "craft": out}


def landing_craft(ctx: RulesContext, inputs: dict[str, Any]) -> list[tuple[StandRow, Any]]:
    """The craft to run in to the beach, each checked (CD 8.1); nothing rolled."""
    check_phase(ctx, "landing")
    state = ctx.state
    out = []
    for cid in inputs["craft"]:
        craft, kind = craft_stand(ctx, cid)
        am: AmphibRow | dict[str, Any] = craft.get("amphib") or {}
        if craft["status"] != "ok" or am.get("stage") not in ("approach", "afloat"):
            raise RulesRefusal(f"{cid} is not in the water off the beach (stage "
                               f"{am.get('stage') or 'not entered'}; CD 8.1)")  # fmt: skip
        if am["stage"] == "approach" and am["entered_turn"] == state.turn:
            raise RulesRefusal(f"{cid} made its approach this turn: it moves to the beach next "
                               "turn (CD 8.1)")  # fmt: skip
        out.append((craft, kind))
    return out


def _land_one(ctx: RulesContext, craft: StandRow, kind: Any) -> dict[str, Any]:
    am = craft["amphib"]
    start = centre(craft)
    beach = (am["beach"][0], am["beach"][1])
    report: dict[str, Any] = {"craft": craft["id"], "hazards": []}
    if kind.lands == "drives-ashore":
        # CD 8.1.5, 8.1.6: an amphibious vehicle meets mines and obstacles as on land.
        stop = _barring_obstacle(ctx, craft, start, beach)
        end = stop["before"] if stop else _ashore_point(ctx, craft)
        crossed = minefields.cross_action(ctx, {"stand": craft["id"], "path": [list(end)]})
        report["minefields"] = crossed
        reached = stop is None and math.dist(position(craft), end) < 1e-3
        am["stage"] = "landed" if reached else "afloat"
        if stop:
            report["hazards"].append({"what": stop["piece"], "result": "bars the way (CD 8.1.6)"})
        craft["moved_turn"] = ctx.state.turn
        report["stage"] = am["stage"]
        return report
    for hazard in _hazards(ctx, craft, start, beach):
        effect = _craft_effect(ctx, craft, f"{craft['id']} strikes {hazard['what']}")
        result = apply_craft_result(ctx, craft, effect, moving=True, where=hazard["at"])
        report["hazards"].append({**hazard, "effect": effect, "result": result["result"],
                                  "cargo": result.get("cargo")})  # fmt: skip
        if effect != NO_EFFECT:
            report["stage"] = am["stage"]
            return report
    shore, out = beach, _seaward(ctx, beach)
    craft["x"] = round(shore[0] + out[0] * craft["depth"] / 2, 4)
    craft["y"] = round(shore[1] + out[1] * craft["depth"] / 2, 4)
    craft["moved_turn"] = ctx.state.turn
    am["stage"], am["landed_turn"] = "beached", ctx.state.turn
    report["disembarked"] = _disembark(ctx, craft, shore, out)
    # CD 8.1.1: the assault wave hits the beach on a hasty advance order.
    report["orders"] = {sid: "hasty-advance" for sid in report["disembarked"]}
    report["stage"] = am["stage"]
    return report


def _seaward(ctx: RulesContext, point: tuple[float, float]) -> tuple[float, float]:
    return shore_frame(ctx, *point)[1]


def _ashore_point(ctx: RulesContext, stand: StandRow) -> tuple[float, float]:
    beach = (stand["amphib"]["beach"][0], stand["amphib"]["beach"][1])
    out = _seaward(ctx, beach)
    return (round(beach[0] - out[0] * stand["depth"] / 2, 4),
            round(beach[1] - out[1] * stand["depth"] / 2, 4))  # fmt: skip


def _disembark(
    ctx: RulesContext, craft: StandRow, shore: tuple[float, float], out: tuple[float, float]
) -> list[str]:
    """The stands step onto the beach just ahead of the bow and stop (CD 8.1.1)."""
    cargo = cargo_of(ctx, craft)
    if not cargo:
        craft["amphib"]["stage"] = "disembarked"
        return []
    gap = ctx.charts.params(AmphibiousParams).disembark_gap
    right = (-out[1], out[0])
    stands = [ctx.state.stand(c) for c in cargo]
    total = sum(s["width"] for s in stands)
    run = -total / 2
    for stand in stands:
        offset = run + stand["width"] / 2
        run += stand["width"]
        ahead = stand["depth"] / 2 + gap
        stand["x"] = round(shore[0] - out[0] * ahead + right[0] * offset, 4)
        stand["y"] = round(shore[1] - out[1] * ahead + right[1] * offset, 4)
        stand["facing"] = craft["facing"]
        stand.pop("aboard", None)
        stand["moved_turn"] = ctx.state.turn
        # CD 8.1.1: they come ashore on a hasty advance order and end their move here.
        stand["disembarked_turn"] = ctx.state.turn
        stand["order"] = "hasty-advance"
        ctx.involve(stand["id"])
    craft["cargo"] = []
    craft["amphib"]["stage"] = "disembarked"
    return cargo


def unload_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """Passengers leave an amphibious vehicle on the beach (CD 8.1.2)."""
    check_phase(ctx, "unloading")
    craft, kind = craft_stand(ctx, inputs["craft"])
    stage = stage_of(craft)
    if kind.lands != "drives-ashore" or stage != "landed":
        raise RulesRefusal(f"{craft['id']} is not an amphibious vehicle ashore (CD 8.1.2)")
    if not cargo_of(ctx, craft):
        raise RulesRefusal(f"{craft['id']} carries nobody")
    out = _seaward(ctx, (craft["amphib"]["beach"][0], craft["amphib"]["beach"][1]))
    here = (centre(craft)[0] - out[0] * craft["depth"] / 2,
            centre(craft)[1] - out[1] * craft["depth"] / 2)  # fmt: skip
    left = _disembark(ctx, craft, here, out)
    craft["amphib"]["stage"] = "landed"
    return {
        "verdict": f"{', '.join(left)} unloaded from {craft['id']} (hasty advance order, CD 8.1.1)",
        "unloaded": left,
        "orders": {sid: "hasty-advance" for sid in left},
    }


def water_speed(ctx: RulesContext, stand: StandRow, water: str | None) -> dict[str, Any]:
    """The fraction of base movement an amphibious vehicle has in water (CD 8.1.2)."""
    kind = craft_type(ctx, stand)
    if kind is None or kind.lands != "drives-ashore":
        raise RulesRefusal(f"{stand['id']} is not an amphibious vehicle: landing craft run in "
                           "to the beach in one turn (CD 8.1)")  # fmt: skip
    if water is None:
        if stand["x"] is None:
            raise BadInput(f"{stand['id']} is not on the table: say --in sea, river or lake")
        kinds = {p.kind for p in ctx.table.pieces_at(*position(stand))}
        sea_kinds = set(names(ctx.charts, "sea-kinds"))
        inland = set(names(ctx.charts, "inland-water-kinds"))
        water = next(iter(sorted(kinds & (sea_kinds | inland))), None)
        if water is None:
            return {"stand": stand["id"], "water": None, "multiplier": 1.0,
                    "because": "on land: its base movement allowance"}  # fmt: skip
    if water in names(ctx.charts, "sea-kinds"):
        fraction, where = kind.open_water, "open water"
    elif water in names(ctx.charts, "inland-water-kinds"):
        fraction, where = kind.inland_water, "rivers and lakes"
    else:
        raise BadInput(f"--in {water!r}: give a water kind (sea, river, lake, stream)")
    return {
        "stand": stand["id"],
        "water": water,
        "multiplier": fraction,
        "because": f"{kind.id} in {where}: {fraction:g} of its base allowance ({kind.rule})",
    }
