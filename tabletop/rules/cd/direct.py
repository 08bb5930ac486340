"""Direct fire between stands in a game (table mode or quick mode with ``--range``).

``prepare`` checks everything the rules require before a shot (phase, stands, weapon,
ammunition, range, sight and spotting) and returns the plan; ``fire_action`` rolls it,
applies hit effects and books the ammunition; ``odds fire`` calls the same ``prepare``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.words import possessive
from tabletop.data.chart_params import AmmoParams
from tabletop.rules.cd import terrain_state
from tabletop.rules.cd.ammo import record_firing, small_arms_note
from tabletop.rules.cd.fire import (
    SEVERITY,
    FirePlan,
    Working,
    plan_direct,
    roll_plan,
    verdict,
)  # fmt: skip
from tabletop.rules.cd.sighting import Sight, end_for_stand, sight, target_cover
from tabletop.rules.cd.stands import (
    apply_effect,
    check_phase,
    check_ready,
    choose_weapon,
    firer_of,
    gun_fire_refusal,
    target_of,
)
from tabletop.rules.cd.structures import after_direct_fire
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, centre, out_of_play, position


@dataclass
class Prepared:
    plan: FirePlan
    shooter: StandRow
    target: StandRow
    sight: Any | None
    ammo: str


def _other_weapons(
    state: State, stand: StandRow, refused: str, ammo: str, charts: Any, look_ahead: bool
) -> str:
    """When the first weapon cannot fire, which others can (a two-gun tank's second gun)."""
    can = []
    for other in stand["weapons"][1:] if stand["weapons"][0] == refused else []:
        try:
            check_ready(state, stand, charts.weapons[other], ammo, charts, look_ahead)
        except (RulesRefusal, BadInput):
            continue
        can.append(other)
    if not can:
        return ""
    return f"; it can still fire {' or '.join(can)} (--weapon {can[0]})"


def prepare(
    ctx: RulesContext,
    inputs: dict[str, Any],
    *,
    any_phase: bool = False,
    look_ahead: bool = False,
    seen: Sight | None = None,
) -> Prepared:
    """Everything checked before a shot.

    ``any_phase`` skips the phase check (``odds``, and fire at descending paratroopers in the
    drop phase); ``look_ahead`` (``odds``) also skips the once-a-turn allowance, which a
    later turn renews. ``seen``: the shooter's look at the target when the caller has it
    already (``targets`` looks at every enemy at once), instead of tracing it again.
    """

    state, charts = ctx.state, ctx.charts
    shooter = state.stand(inputs["shooter"])
    target = state.stand(inputs["target"])
    if shooter["id"] == target["id"]:
        raise BadInput(f"{shooter['id']} cannot fire at itself")
    # A weapon the stand does not carry is bad input, reported before any rule refuses.
    weapon_id = choose_weapon(shooter, inputs.get("weapon"), charts)
    if not any_phase:
        check_phase(ctx, "direct-fire", "direct fire")
    for stand, role in ((shooter, "fire"), (target, "be fired at")):
        if out_of_play(stand):
            raise RulesRefusal(f"{stand['id']} is {stand['status']} and cannot {role}")
    if "flailing" in shooter["markers"]:
        raise RulesRefusal(
            f"{shooter['id']} is flailing a minefield this turn and may not fire (CD 3.3.2)"
        )
    grounded = gun_fire_refusal(ctx, shooter)  # CD 7.1, 7.2: a parachuted gun's parts
    if grounded is not None:
        raise RulesRefusal(grounded)
    if shooter["side"] == target["side"]:
        raise RulesRefusal(
            f"{shooter['id']} and {target['id']} are both {possessive(shooter['side'])}"
        )
    weapon = charts.weapons[weapon_id]
    ammo = inputs.get("ammo") or "standard"
    try:
        check_ready(state, shooter, weapon, ammo, charts, look_ahead)
    except RulesRefusal as refusal:
        if inputs.get("weapon") is None:
            hint = _other_weapons(state, shooter, weapon_id, ammo, charts, look_ahead)
            raise RulesRefusal(f"{refusal}{hint}") from None
        raise
    now = effects(state.conditions, charts)
    cover, source = inputs.get("cover"), None
    distance = inputs.get("range")
    placed = shooter["x"] is not None and target["x"] is not None
    if distance is None:
        if not placed:
            missing = [s["id"] for s in (shooter, target) if s["x"] is None]
            raise BadInput(
                f"{' and '.join(missing)} not placed on the table: place with 'tabletop place' "
                "or give the measured range with --range (quick mode)"
            )
        if seen is None:
            seen = sight(
                ctx, end_for_stand(state, shooter["id"]), end_for_stand(state, target["id"])
            )
        if not seen.los:
            raise RulesRefusal(
                f"{shooter['id']} has no line of sight to {target['id']}: blocked by "
                f"{', '.join(seen.blocked_by)} (see 'tabletop measure "
                f"{shooter['id']} {target['id']}')"
            )
        if not seen.spotted and not inputs.get("spotted"):
            raise RulesRefusal(
                f"{shooter['id']} has not spotted {target['id']}: "
                f"{'; '.join(seen.spotting['because'])} "
                "(CD spotting: by distance and cover, no roll); "
                "if another stand spotted it for you, add --spotted"
            )
        distance = seen.range
    else:
        seen = None  # a measured range: no look at the table
    if cover is None:
        cover, source = (
            target_cover(ctx, *position(target), target)
            if target["x"] is not None
            else ("none", None)
        )
    requested = tuple((n, v) for n, v in inputs.get("mods") or [])
    plan = plan_direct(
        weapon,
        firer_of(shooter, ctx),
        target_of(target, ctx, cover, source),
        float(distance),
        charts,
        ammo=ammo,
        night=now.night,
        muzzle_flash=bool(seen and seen.muzzle_flash),
        requested=requested,
    )
    several = small_arms_note(shooter, weapon, charts)
    if several is not None:
        plan = dataclasses.replace(plan, notes=(*plan.notes, several))
    return Prepared(plan, shooter, target, seen, ammo)


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


def worst_of(effects: list[str]) -> str | None:
    return max(effects, key=lambda e: SEVERITY[e]) if effects else None
