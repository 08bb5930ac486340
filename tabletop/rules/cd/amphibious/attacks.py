"""Attacks on the landing wave (CD 8.2), by stage: a craft's effect roll and its forced-back
and eliminated results for craft and passengers (CD 8.2.4, 8.2.5), a stand forced back into
the water, and the end-of-phase step that settles the wave's results.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.cd.airborne.common import stand_effect
from tabletop.rules.cd.amphibious.common import (
    ELIMINATED,
    FORCED_BACK,
    NO_EFFECT,
    _spec,
    cargo_of,
    craft_stand,
    craft_type,
    in_sea,
    shore_frame,
)
from tabletop.rules.cd.amphibious.lift import _lose_lift
from tabletop.rules.context import RulesContext
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, stage_of

AFLOAT = ("approach", "afloat", "beached")


# --- hits on the landing wave (CD 8.2) ---------------------------------------------------------


def _craft_effect(ctx: RulesContext, craft: StandRow, purpose: str) -> str:
    return stand_effect(ctx, craft, purpose)


def apply_craft_result(
    ctx: RulesContext,
    craft: StandRow,
    effect: str,
    *,
    moving: bool = False,
    where: Any = None,
) -> dict[str, Any]:
    """What a forced-back or eliminated result does at each stage (CD 8.2.4, 8.2.5)."""
    am = craft["amphib"]
    stage = am["stage"]
    if effect == NO_EFFECT:
        return {"result": "no effect"}
    if effect == FORCED_BACK:
        craft["markers"] = [m for m in craft["markers"] if m != "forced-back"]
        if stage == "disembarked":
            craft["status"], craft["x"], craft["y"] = "removed", None, None
            return {"result": "removed from play: forced back after landing its troops (CD 8.2.4)"}
        if stage == "landed":
            craft["markers"].append("forced-back")
            return {"result": "forced back as any stand on land (CD 8.2.4)"}
        if moving or stage in ("beached", "afloat"):
            craft["x"], craft["y"] = am["approach"]
            am["stage"] = "approach"
            return {"result": "back to the approach position (CD 8.2.4)"}
        craft["x"], craft["y"] = None, None
        am.update({"stage": "off-table", "off_turn": ctx.state.turn})
        return {"result": "forced off the table: back at the approach position next turn "
                "(CD 8.2.4)"}  # fmt: skip
    afloat = moving or stage in AFLOAT
    sunk_at = list(where) if where is not None else [craft["x"], craft["y"]]
    cargo = cargo_of(ctx, craft)
    craft["status"], craft["x"], craft["y"], craft["cargo"] = "eliminated", None, None, []
    am.update({"stage": "sunk", "sunk_at": sunk_at})
    fates = {cid: _passenger(ctx, craft, ctx.state.stand(cid), sunk_at, afloat) for cid in cargo}
    lost = _lose_lift(ctx, craft, cargo) if afloat else 0
    return {"result": "eliminated: removed from play (CD 8.2.5)", "cargo": fates,
            "lift_lost": lost}  # fmt: skip


def _passenger(
    ctx: RulesContext, craft: StandRow, stand: StandRow, sunk_at: Any, afloat: bool
) -> str:
    """Vehicles and guns aboard go down; personnel take a hit (CD 8.2.5)."""

    ctx.involve(stand["id"])
    stand.pop("aboard", None)
    if ctx.charts.stand_kinds[stand["kind"]].category != "personnel":
        stand["status"] = "eliminated"
        return "eliminated with its craft"
    effect = stand_effect(ctx, stand, f"{stand['id']} when {craft['id']} goes down")
    if effect == ELIMINATED:
        stand["status"] = "eliminated"
        return "eliminated"
    am = craft["amphib"]
    if not afloat:
        stand["x"], stand["y"] = sunk_at
        if effect == FORCED_BACK:
            stand["markers"].append("forced-back")
        return f"{effect}: left where {craft['id']} was"
    at = am["approach"] if effect == FORCED_BACK else sunk_at
    stand["x"], stand["y"] = at
    stand["amphib"] = {"stage": "wading", "beach": am["beach"]}
    stand["amphib"]["waded_turn"] = ctx.state.turn
    where = "the approach position" if effect == FORCED_BACK else "the water where it sank"
    return f"{effect}: wades ashore from {where} (CD 8.1.4)"


def hit_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A hit on a craft from any source: shore fire, aircraft, a mine, an obstacle (CD 8.2)."""
    craft, kind = craft_stand(ctx, inputs["stand"])
    stage = stage_of(craft)
    if craft["status"] != "ok" or stage not in (*AFLOAT, "disembarked", "landed"):
        raise RulesRefusal(f"{craft['id']} is not on the table as part of a landing wave")
    cause = inputs.get("cause") or "fire"
    effect = inputs.get("effect") or _craft_effect(ctx, craft, f"{craft['id']} hit by {cause}")
    result = apply_craft_result(ctx, craft, effect, moving=bool(inputs.get("moving")))
    return {"verdict": f"{craft['id']} ({kind.id}, {stage}): {result['result']}",
            "craft": craft["id"], "stage": stage, "cause": cause, "effect": effect,
            **result}  # fmt: skip


def into_water_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    """A stand forced back into the water (CD 8.2.4)."""
    stand = ctx.state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    x, y = (float(v) for v in inputs["at"])
    if stand["status"] != "ok" or stand["x"] is None:
        raise RulesRefusal(f"{stand['id']} is not on the table")
    if not in_sea(ctx, x, y):
        raise BadInput(f"--at {x:g},{y:g} is not in the sea")
    kind = craft_type(ctx, stand)
    category = ctx.charts.stand_kinds[stand["kind"]].category
    if kind is not None and kind.lands == "drives-ashore":
        stand["x"], stand["y"] = x, y
        stand["amphib"] = {**stand.get("amphib", {}), "stage": "afloat"}
        result = "afloat: an amphibious vehicle swims"
    elif category != "personnel":
        stand["status"] = "eliminated"
        result = "eliminated: a vehicle that is not amphibious forced into the water (CD 8.2.4)"
    else:
        beach, _ = shore_frame(ctx, x, y)
        stand["x"], stand["y"] = x, y
        stand["amphib"] = {
            "stage": "wading",
            "beach": [round(beach[0], 4), round(beach[1], 4)],
            "waded_turn": ctx.state.turn,
        }
        result = "in the water: it must wade ashore again (CD 8.1.4, 8.2.4)"
    return {"verdict": f"{stand['id']} {result}", "stand": stand["id"], "result": result}


@step("landing-wave-results")
def landing_wave_results(ctx: RulesContext) -> list[Happened]:
    """Craft eliminated or forced back by 'fire' or 'barrage' meet CD 8.2.4 and 8.2.5."""
    out: list[Happened] = []
    opportunity = ctx.state.phase == "opportunity-fire"
    for craft in ctx.state.stands():
        am = craft.get("amphib")
        if not am or _spec(ctx, craft["id"], "craft", None) is None:
            continue
        if am["stage"] in ("sunk", "off-table", "wading") or craft["status"] == "removed":
            continue
        # A craft that reached the beach this turn was under way during opportunity fire.
        moving = opportunity and am.get("landed_turn") == ctx.state.turn
        if craft["status"] == "eliminated":
            result = apply_craft_result(ctx, craft, ELIMINATED, moving=moving)
        elif "forced-back" in craft["markers"] and am["stage"] != "landed":
            result = apply_craft_result(ctx, craft, FORCED_BACK, moving=moving)
        else:
            continue
        out.append({"what": "landing wave", "stand": craft["id"], "result": result["result"]})
    return out
