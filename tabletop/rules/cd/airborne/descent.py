"""Fire at paratroopers on their way down (CD 7.2.2): direct fire at a descending stand,
rolled and booked as 'fire' does.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.units import within
from tabletop.data.chart_params import AirborneParams, AmmoParams
from tabletop.rules.cd.airborne.common import _gap
from tabletop.rules.cd.ammo import record_firing
from tabletop.rules.cd.direct import prepare
from tabletop.rules.cd.fire import roll_plan, verdict
from tabletop.rules.cd.sighting import End, distance_between, end_for_stand
from tabletop.rules.cd.stands import apply_effect
from tabletop.rules.context import RulesContext
from tabletop.state.document import DropRow, centre

# --- fire at descending paratroopers (CD 7.2.2) -------------------------------------------------


def descent_fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state = ctx.state
    shooter = state.stand(inputs["shooter"])
    target = state.stand(inputs["target"])
    drop: DropRow | dict[str, Any] = target.get("drop") or {}
    if not (
        drop.get("by") == "parachute"
        and target.get("landed_turn") == state.turn
        and drop.get("phase") == state.phase
    ):
        raise RulesRefusal(
            f"{target['id']} is not coming down now: paratroopers are fired at in the air only "
            "in the phase they drop (CD 7.2.2); once down, use 'tabletop fire'"
        )
    if shooter["x"] is None:
        raise BadInput(f"{shooter['id']} is not on the table: place it first")
    if shooter.get("moved_turn") == state.turn or shooter.get("landed_turn") == state.turn:
        raise RulesRefusal(f"{shooter['id']} moved this turn: only stationary stands fire at "
                           "descending paratroopers (CD 7.2.2)")  # fmt: skip
    reach = ctx.charts.params(AirborneParams).descent_fire_range
    gap = _gap(ctx, shooter, tuple(drop["zone"]))
    if not within(gap, reach):
        raise RulesRefusal(
            f'{shooter["id"]} is {gap:.1f}" from the drop zone: only stands within {reach:g}" '
            "may fire at descending paratroopers (CD 7.2.2)"
        )
    where = End(f"{target['id']} landing point", *centre(target))
    distance = distance_between(end_for_stand(state, shooter["id"]), where, ctx.scenario.measure)
    mods = [["descending", None], *(inputs.get("mods") or [])]
    fire_inputs = {"shooter": shooter["id"], "target": target["id"], "weapon": inputs.get("weapon"),
                   "range": distance, "cover": "none", "mods": mods}  # fmt: skip
    prep = prepare(ctx, fire_inputs, any_phase=True)
    return {**shoot(ctx, prep), "zone": drop["zone"], "from_zone": round(gap, 3)}


def shoot(ctx: RulesContext, prep: Any) -> dict[str, Any]:
    """Roll a prepared direct-fire plan and book it, as 'fire' does."""

    plan, shooter, target = prep.plan, prep.shooter, prep.target
    ctx.involve(shooter["id"], target["id"])
    face = ctx.charts.params(AmmoParams).trigger_face
    tally, dice_out = roll_plan(plan, ctx.dice, face)
    weapon = ctx.charts.weapons[plan.weapon]
    kind = ctx.charts.stand_kinds[shooter["kind"]]
    ones = sum(1 for d in dice_out if d["to_hit"] == face)
    booked = record_firing(ctx.state, shooter, weapon, kind, prep.ammo, tally.triggers,
                           ctx.charts, f"fire {shooter['id']} -> {target['id']}", ones)  # fmt: skip
    shooter["fired"] = {"turn": ctx.state.turn, "phase": ctx.state.phase, "weapon": weapon.id,
                        "x": shooter["x"], "y": shooter["y"]}  # fmt: skip
    target["fired_at"] = ctx.state.turn
    outcome = apply_effect(target, tally.worst, ctx.state)
    return {
        "verdict": verdict(tally, plan, target["id"]),
        "shooter": shooter["id"],
        **plan.working(),
        "rolls": [d["to_hit"] for d in dice_out],
        "dice": dice_out,
        "hits": tally.hits,
        "effects": [d["effect"] for d in dice_out if d["hit"]],
        "target_now": outcome,
        "depletion_checks": booked["checks"],
        "ammunition": booked["notes"],
    }
