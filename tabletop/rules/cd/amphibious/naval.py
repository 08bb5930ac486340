"""Naval gunfire (CD 8.4): preliminary bombardment (CD 8.4.1), warship ratings and naval fire
support (CD 8.4.2), observing and requesting it (CD 8.4.3).
"""

from __future__ import annotations

from typing import Any

from shapely import Polygon, box

from tabletop.core import words
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.words import possessive
from tabletop.data.board import base_of
from tabletop.data.chart_params import AmphibiousParams
from tabletop.rules.cd.airborne.common import crew_class
from tabletop.rules.cd.ammo import check_fires_left
from tabletop.rules.cd.amphibious.common import (
    ELIMINATED,
    FORCED_BACK,
    NO_EFFECT,
    _spec,
    names,
    shoreline,
)
from tabletop.rules.cd.barrage import barrage_action
from tabletop.rules.cd.fire import Firer, hit_effect, plan_indirect
from tabletop.rules.cd.sighting import End, end_for_stand, sight, target_cover
from tabletop.rules.cd.stands import apply_effect, target_of
from tabletop.rules.cd.stands import check_phase as allows
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, position
from tabletop.table import base_polygon

SEVERITY = {NO_EFFECT: 0, FORCED_BACK: 1, ELIMINATED: 2}
BOMBARDED = "bombardment:"


# --- naval gunfire (CD 8.4) ---------------------------------------------------------------


def bombard_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """One to three D10 at every enemy stand in the area, before the battle (CD 8.4.1)."""

    state = ctx.state
    side, count, weapon, area, night = bombard_plan(ctx, inputs)
    results: dict[str, dict[str, Any]] = {}
    for stand in bombarded(ctx, side, area):
        ctx.involve(stand["id"])
        plan = bombard_target(ctx, stand, weapon, night)
        rolls, effect_rolls, found = [], [], []
        for index in range(1, count + 1):
            roll, effect, result = bombard_die(ctx, stand, plan, index, count)
            rolls.append(roll)
            if effect is not None and result is not None:
                effect_rolls.append(effect)
                found.append(result)
        worst = max(found, key=lambda e: SEVERITY[e]) if found else None
        apply_effect(stand, worst, state)
        results[stand["id"]] = {"to_hit": plan.to_hit, "rolls": rolls,
                                "effect_rolls": effect_rolls, "effects": found,
                                "modifiers": [m.as_json() for m in plan.modifiers]}  # fmt: skip
    state.rows[BOMBARDED + side] = {"side": side, "turn": state.turn, "dice": count}
    hit = [f"{s} ({max(r['effects'], key=lambda e: SEVERITY[e])})"
           for s, r in results.items() if r["effects"]]  # fmt: skip
    return {
        "verdict": f"bombardment, {count} D10 per stand: {words.count(len(results), 'stand')} "
        "in the area" + (f"; hits on {', '.join(hit)}" if hit else "; no hits"),
        "dice_per_stand": count,
        "weapon": weapon.id,
        "stands": results,
    }


def bombard_plan(ctx: RulesContext, inputs: dict[str, Any]) -> tuple[str, int, Any, Any, bool]:
    """A bombardment checked (CD 8.4.1): the side firing, dice per stand, the weapon, the area
    and whether it is night; nothing rolled."""

    state, charts = ctx.state, ctx.charts
    side = inputs["side"]
    side = resolve_side(side, ctx.scenario.side_names())
    if state.turn != ctx.scenario.turn.number or state.rows.get(BOMBARDED + side):
        raise RulesRefusal("the preliminary bombardment comes once, before the battle's first "
                           "turn is played (CD 8.4.1)")  # fmt: skip
    count = _bombard_dice(charts, inputs)
    points = [tuple(map(float, p)) for p in inputs["area"]]
    area = box(*points[0], *points[1]) if len(points) == 2 else Polygon(points)
    if not area.is_valid or area.area <= 0:
        raise BadInput("--area: give two opposite corners, or three or more corners of a polygon")
    weapon = charts.weapons[charts.params(AmphibiousParams).bombard_weapon]
    night = effects(state.conditions, charts).night
    return side, count, weapon, area, night


def bombarded(ctx: RulesContext, side: str, area: Any) -> list[StandRow]:
    """The enemy stands on the table whose bases touch the area (CD 8.4.1)."""

    return [
        stand
        for stand in ctx.state.stands()
        if stand["side"] != side
        and stand["x"] is not None
        and stand["status"] == "ok"
        and base_polygon(base_of(stand)).intersects(area)
    ]


def bombard_target(ctx: RulesContext, stand: StandRow, weapon: Any, night: bool) -> Any:
    """The HE attack on one stand: its cover and armour as for indirect fire (CD 8.4.1)."""

    cover, source = target_cover(ctx, *position(stand), stand)
    return plan_indirect(weapon, Firer(None, None), target_of(stand, ctx, cover, source),
                         ctx.charts, night=night)  # fmt: skip


def bombard_die(
    ctx: RulesContext, stand: StandRow, plan: Any, index: int, count: int
) -> tuple[int, int | None, str | None]:
    """One bombardment die at a stand, and the effect die of a hit (CD 8.4.1): (the roll, the
    effect roll or None, the effect or None). Rolled by the bombardment, enumerated by its
    odds."""

    roll = ctx.dice.roll(10, f"bombardment of {stand['id']} ({index} of {count}), "
                         f"needs {plan.to_hit} or less")  # fmt: skip
    if roll <= plan.to_hit or roll == 1:
        effect = ctx.dice.roll(10, f"hit effect on {stand['id']} ({plan.effect_quality})")
        return roll, effect, hit_effect(effect, plan)
    return roll, None, None


def _bombard_dice(charts: Any, inputs: dict[str, Any]) -> int:
    most = charts.params(AmphibiousParams).bombard_dice_max
    if inputs.get("dice_per_stand") is not None:
        count = int(inputs["dice_per_stand"])
        if not 1 <= count <= most:
            raise BadInput(f"--per-stand {count}: give 1 to {most} dice (CD 8.4.1)")
        return count
    year = inputs.get("year")
    key = f"bombard-dice-{year}"
    if year is None or key not in charts.table("amphibious"):
        raise BadInput("give --per-stand 1-3, or --year 1943, 1944 or 1945 for the default")
    return int(charts.table("amphibious")[key].value)  # by year: an overlay may add one


def ship_weapon(ctx: RulesContext, ship: StandRow) -> Any:
    warships = names(ctx.charts, "warships")
    for weapon_id in ship["weapons"]:
        if weapon_id in warships:
            return ctx.charts.weapons[weapon_id]
    craft = _spec(ctx, ship["id"], "craft", None)
    hint = (
        f"it has 'craft: {craft}', but 'craft:' is for landing craft; " if craft in warships else ""
    )
    example = craft if craft in warships else "destroyer"
    raise RulesRefusal(
        f"{ship['id']} is not a fire support ship: {hint}a ship names its warship rating in "
        f"the scenario's 'weapons:', such as 'weapons: [{example}]' (one of "
        f"{', '.join(warships)}; CD 8.4.2)"
    )


def naval_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A request for a ship's fire and, if it comes, an indirect HE burst (CD 8.4.2, 8.4.3)."""

    ship, weapon, observer, (x, y) = naval_fire_plan(ctx, inputs)
    request = _request(ctx, ship, weapon, observer, (x, y))
    if not request["answered"]:
        return {"verdict": f"{ship['id']} does not answer {observer['id']}'s request "
                f"({request['roll']} > {request['number']})", "request": request,
                "barrage": None}  # fmt: skip
    shot = barrage_action(ctx, naval_barrage(ship, weapon, (x, y), inputs))
    return {"verdict": shot["verdict"], "request": request, "barrage": shot}


def naval_fire_plan(
    ctx: RulesContext, inputs: dict[str, Any]
) -> tuple[StandRow, Any, StandRow, tuple[float, float]]:
    """Naval fire checked before its request die: the ship, its rating, the observer and the
    aiming point (CD 8.4.2, 8.4.3)."""

    allows(ctx, "indirect-fire", "naval fire")
    ship = ctx.state.stand(inputs["ship"])
    ctx.involve(ship["id"])
    weapon = ship_weapon(ctx, ship)
    x, y = (float(v) for v in inputs["at"])
    if not ctx.table.on_table(x, y):
        raise BadInput(f"--at {x:g},{y:g} is off the table")
    observer = ctx.state.stand(inputs["observer"])
    # A ship that has fired this turn is refused before its request die is thrown.
    check_fires_left(ctx.state, ship, weapon, ctx.charts)
    return ship, weapon, observer, (x, y)


def naval_barrage(
    ship: StandRow, weapon: Any, at: tuple[float, float], inputs: dict[str, Any]
) -> dict[str, Any]:
    """The barrage an answered request fires: the ship's HE at the point (CD 8.4.2)."""
    return {
        "shooter": ship["id"],
        "at": [at[0], at[1]],
        "weapon": weapon.id,
        "ammo": "he",
        "hni": False,
        "mods": inputs.get("mods") or [],
    }


def _request(
    ctx: RulesContext,
    ship: StandRow,
    weapon: Any,
    observer: StandRow,
    at: tuple[float, float],
) -> dict[str, Any]:
    """Who may observe, and the response roll (CD 8.4.3; numbers from SPEC 2)."""

    charts = ctx.charts
    if observer["id"] == ship["id"]:
        if weapon.id not in names(charts, "self-observing"):
            raise RulesRefusal(f"{ship['id']} ({weapon.id}) cannot observe its own fire: only "
                               "destroyers and smaller ships may (CD 8.4.3)")  # fmt: skip
        seen = _seen_from_beach(ctx, at)
        if seen is None:
            raise RulesRefusal(f"{at[0]:g},{at[1]:g} cannot be seen from any point along the "
                               f"beach: {ship['id']} cannot observe it (CD 8.4.3)")  # fmt: skip
        return {"observer": ship["id"], "as": "self-observing ship", "answered": True,
                "seen_from": seen, "roll": None, "number": None, "working": []}  # fmt: skip
    ctx.involve(observer["id"])
    if observer["side"] != ship["side"] or observer["status"] != "ok" or observer["x"] is None:
        raise RulesRefusal(f"{observer['id']} cannot observe for {ship['id']}")
    fo = _spec(ctx, observer["id"], "naval_fo", None)
    params = charts.params(AmphibiousParams)
    base = params.response_base
    working: list[dict[str, Any]] = [
        {
            "name": "supporting artillery (a ship)",
            "value": base,
            "rule": "CD artillery response (reference card)",
        }
    ]
    if fo is not None:
        if fo != ship["id"]:
            raise RulesRefusal(
                f"{observer['id']} is {possessive(fo)} naval FO: it calls only its own "
                "ship (CD 8.4.3)"
            )
        role = "naval FO of its own ship (dedicated battery)"
        working.append({"name": role, "value": params.response_dedicated,
                        "rule": "CD 8.4.3"})  # fmt: skip
    elif _spec(ctx, observer["id"], "jasco", False):
        role = "JASCO (as an artillery command stand)"
    elif ctx.charts.stand_kinds[observer["kind"]].command:
        role = "non-artillery command stand"
        working.append({"name": role, "value": params.response_nonartillery,
                        "rule": "CD 8.4.3"})  # fmt: skip
    else:
        raise RulesRefusal(f"{observer['id']} cannot request naval fire: only command stands, "
                           "naval FOs and JASCO stands may (CD 8.4.3)")  # fmt: skip
    kind = crew_class(charts, observer["quality"])
    if kind in ("plus", "minus"):
        working.append(
            {
                "name": f"{observer['quality']} requester",
                "value": params.response_quality_plus
                if kind == "plus"
                else params.response_quality_minus,
                "rule": "CD artillery response (reference card)",
            }
        )
    if "suppressed" in observer["markers"]:
        working.append(
            {
                "name": "requester suppressed",
                "value": params.response_suppressed,
                "rule": "CD artillery response (reference card)",
            }
        )
    _observer_sees(ctx, observer, at)
    number = sum(int(w["value"]) for w in working)
    roll = ctx.dice.roll(10, f"naval fire request by {observer['id']}, needs {number} or less")
    return {"observer": observer["id"], "as": role, "answered": roll <= number, "roll": roll,
            "number": number, "working": working}  # fmt: skip


def _observer_sees(ctx: RulesContext, observer: StandRow, at: tuple[float, float]) -> None:
    seen = sight(ctx, end_for_stand(ctx.state, observer["id"]), End("target", *at))
    if not (seen.los and seen.visible):
        why = ", ".join(seen.blocked_by) or "beyond what can be seen now"
        raise RulesRefusal(f"{observer['id']} cannot see {at[0]:g},{at[1]:g} ({why}): it cannot "
                           "observe naval fire there (CD 8.4.3)")  # fmt: skip


def _seen_from_beach(ctx: RulesContext, at: tuple[float, float]) -> list[float] | None:
    """A point along the beach that sees the target, or None (CD 8.4.3)."""

    line = shoreline(ctx)
    step = ctx.charts.params(AmphibiousParams).beach_sight_step
    for part in getattr(line, "geoms", [line]):
        count = max(int(part.length // step), 1)
        for i in range(count + 1):
            p = part.interpolate(min(i * step, part.length))
            seen = sight(ctx, End("beach", p.x, p.y), End("target", *at))
            if seen.los and seen.visible:
                return [round(p.x, 3), round(p.y, 3)]
    return None


def ships(charts: Any) -> list[dict[str, Any]]:
    """The warship ratings (CD 8.4.2), from the weapons chart."""
    out = []
    for weapon_id in names(charts, "warships"):
        w = charts.weapons[weapon_id]
        out.append(
            {
                "ship": weapon_id,
                "name": w.name,
                "rof": w.rof,
                "burst": w.burst,
                "he": w.he,
                "self_observe": weapon_id in names(charts, "self-observing"),
            }
        )
    return out
