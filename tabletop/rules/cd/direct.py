"""Direct fire between stands in a game (table mode or quick mode with ``--range``).

``prepare`` checks everything the rules require before a shot (phase, stands, weapon,
ammunition, range, sight and spotting) and returns the plan; ``fire_action``
(``direct_fire.py``) rolls it, applies hit effects, books the ammunition and damages a
structure; ``odds fire`` and ``targets`` call the same ``prepare``, without loading what
only a rolled shot needs (docs/performance.md).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.words import possessive
from tabletop.rules.cd.ammo import small_arms_note
from tabletop.rules.cd.fire import (
    SEVERITY,
    FirePlan,
    plan_direct,
)  # fmt: skip
from tabletop.rules.cd.sighting import Sight, end_for_stand, sight, target_cover
from tabletop.rules.cd.stands import (
    check_phase,
    check_ready,
    choose_weapon,
    firer_of,
    gun_fire_refusal,
    target_of,
)
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State, out_of_play, position


@mutable_dataclass
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


def worst_of(effects: list[str]) -> str | None:
    return max(effects, key=lambda e: SEVERITY[e]) if effects else None
