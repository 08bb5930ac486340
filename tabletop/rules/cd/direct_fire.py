"""Rolling a direct-fire shot in a game: ``fire_action``, the ``fire`` action.

The shot is planned by ``direct.prepare`` (what ``odds fire`` and ``targets`` use too); here
it is rolled (CD 3.2), its worst effect applied to the target, the ammunition booked (CD 1)
and a structure the target is in rolled for (CD 6.1.2). Kept apart from ``prepare`` so the
commands that only plan shots do not load the structure and ammunition-booking rules.
"""

from __future__ import annotations

from typing import Any

from tabletop.data.chart_params import AmmoParams
from tabletop.rules.cd import terrain_state
from tabletop.rules.cd.ammo import record_firing
from tabletop.rules.cd.direct import prepare
from tabletop.rules.cd.fire import Working, roll_plan, verdict
from tabletop.rules.cd.stands import apply_effect
from tabletop.rules.cd.structures import after_direct_fire
from tabletop.rules.context import RulesContext
from tabletop.state.document import centre


class FireResult(Working):
    """The ``fire`` action's result: the working (``FirePlan.working``), then the dice."""

    verdict: str
    shooter: str
    rolls: list[int]  # the to-hit dice
    dice: list[dict[str, Any]]  # each die: to_hit, hit, effect, trigger, ...
    hits: int
    effects: list[str]  # the effect of each hit
    target_now: str | None  # the target's status after the worst effect
    depletion_checks: int  # ammunition depletion dice booked (CD 1.2)
    ammunition: list[str]  # ammunition notes (CD 1)
    structures: list[str]  # what the shot did to a structure the target is in (CD 6.1.2)
    sight: dict[str, Any] | None  # range, blocked_by, spotting; None in quick mode


def fire_action(ctx: RulesContext, inputs: dict[str, Any]) -> FireResult:
    prep = prepare(ctx, inputs)
    plan, shooter, target = prep.plan, prep.shooter, prep.target
    ctx.involve(shooter["id"], target["id"])
    face = ctx.charts.params(AmmoParams).trigger_face
    tally, dice_out = roll_plan(plan, ctx.dice, face)
    weapon = ctx.charts.weapons[plan.weapon]
    kind = ctx.charts.stand_kinds[shooter["kind"]]
    ones = sum(1 for d in dice_out if d["to_hit"] == face)
    booked = record_firing(
        ctx.state,
        shooter,
        weapon,
        kind,
        prep.ammo,
        tally.triggers,
        ctx.charts,
        f"fire {shooter['id']} -> {target['id']}",
        ones,
    )
    shooter["fired"] = {
        "turn": ctx.state.turn,
        "phase": ctx.state.phase,
        "weapon": weapon.id,
        "x": shooter["x"],
        "y": shooter["y"],
    }
    target["fired_at"] = ctx.state.turn
    firer_at = None if shooter["x"] is None else centre(shooter)
    outcome = apply_effect(target, tally.worst, ctx.state, firer_at, ctx)
    effects = [d["effect"] for d in dice_out if d["hit"]]

    before = _structure_states(ctx)
    structure = after_direct_fire(ctx, weapon, plan.band, target, prep.ammo)
    changed = {k: v for k, v in _structure_states(ctx).items() if before.get(k) != v}
    # CD 6.1.2: the structure's roll is part of the shot's result, hit or miss.
    damage = "".join(f"; {piece} now {state}" for piece, state in changed.items())
    return {
        "verdict": verdict(tally, plan, target["id"]) + damage,
        "shooter": shooter["id"],
        **plan.working(),
        "rolls": [d["to_hit"] for d in dice_out],
        "dice": dice_out,
        "hits": tally.hits,
        "effects": effects,
        "target_now": outcome,
        "depletion_checks": booked["checks"],
        "ammunition": booked["notes"],
        "structures": structure,
        "sight": None
        if prep.sight is None
        else {
            "range": round(prep.sight.range, 3),
            "blocked_by": prep.sight.blocked_by,
            "spotting": prep.sight.spotting,
        },
    }


def _structure_states(ctx: RulesContext) -> dict[str, str]:
    return {
        key.removeprefix(terrain_state.TERRAIN): str(row["state"])
        for key, row in ctx.state.rows.items()
        if key.startswith(terrain_state.TERRAIN)
    }
