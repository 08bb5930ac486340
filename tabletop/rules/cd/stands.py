"""How the rules read a stand that fires or is hit, shared by every CD area that resolves
fire (direct fire, barrages, descent fire, minefields, structures): the firer and target a
fire procedure sees, the weapon chosen and whether it may fire now, the turn chart's phase
check, and the worst hit's effect put on the stand (CD 1, 2.1, 7.1-7.2, turn chart, hit
effects chart).

These sit below the area modules so that none of them borrows from another.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.cd.allowance import fall_back_plan, fall_back_words
from tabletop.rules.cd.ammo import check_can_fire, check_fires_left
from tabletop.rules.cd.fire import (
    ELIMINATED,
    FORCED_BACK,
    FirePlan,
    Firer,
    Target,
    effect_quality,
)
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, State


def check_phase(ctx: RulesContext, action: str, what: str) -> None:
    phase = ctx.charts.phase(ctx.state.phase)
    if action in phase.allows:
        return
    allowed = [p.id for p in ctx.charts.phases if action in p.allows]
    raise RulesRefusal(
        f"{what} is not allowed in the {phase.id} phase: it happens in the "
        f"{' or '.join(allowed)} phase (turn chart); advance with 'tabletop phase next'"
    )


def choose_weapon(stand: StandRow, requested: str | None, charts: Any) -> str:
    carried = stand["weapons"]
    if not carried:
        raise RulesRefusal(f"{stand['id']} carries no weapons")
    if requested is None:
        return str(carried[0])
    if requested not in carried:
        unknown = "" if requested in charts.weapons else " (and no such weapon is charted)"
        raise BadInput(
            f"{stand['id']} does not carry {requested!r}{unknown}; it carries {', '.join(carried)}"
        )
    return requested


def check_ready(
    state: State, stand: StandRow, weapon: Any, ammo: str, charts: Any, look_ahead: bool
) -> None:
    """Refuse a weapon with nothing to fire (CD 1) or that has fired this turn; ``odds``
    (``look_ahead``) asks about a shot still to come, so the allowance does not apply."""
    check_can_fire(stand, weapon, ammo, charts)
    if not look_ahead:
        check_fires_left(state, stand, weapon, charts)


def target_of(stand: StandRow, ctx: RulesContext, cover: str, source: str | None) -> Target:
    spec = ctx.scenario.stand_spec(stand["id"])
    kind = ctx.charts.stand_kinds[stand["kind"]]
    return Target(
        label=stand["id"],
        kind=kind,
        quality=stand["quality"],
        cover=cover,
        cover_source=source,
        weight_class=spec.weight_class or kind.weight_class,
    )


def firer_of(stand: StandRow, ctx: RulesContext) -> Firer:
    markers = list(stand["markers"])
    if stand.get("landed_turn") == ctx.state.turn:
        markers.append("landed")
    return Firer(
        stand["id"], ctx.charts.stand_kinds[stand["kind"]], stand["quality"], tuple(markers)
    )


def apply_effect(
    stand: StandRow,
    worst: str | None,
    state: State | None = None,
    away_from: tuple[float, float] | None = None,
    ctx: RulesContext | None = None,
    what: str = "the fire",
) -> str | None:
    """Put the worst hit result on the target; returns its new status word.

    A carrier eliminated takes its passengers with it (CD 2.1 for assault boats). A stand
    forced back owes its fall-back (``move STAND --fall-back``), away from ``away_from``
    (the firer, for a barrage too) when known; the marker stays until it is made.
    """
    if worst == ELIMINATED:
        stand["status"] = "eliminated"
        lost = list(stand.get("carrying") or [])
        if state is not None:
            for passenger in lost:
                if state.has_stand(passenger):
                    state.stand(passenger)["status"] = "eliminated"
        return "eliminated" + (f", with {', '.join(lost)} aboard" if lost else "")
    if worst == FORCED_BACK:
        if "forced-back" not in stand["markers"]:
            stand["markers"].append("forced-back")
        if ctx is None or stand["x"] is None:
            return "forced back: move it back (hit effects chart)"
        plan = fall_back_plan(ctx, stand, away_from, what)
        stand["forced_back"] = plan
        return fall_back_words(stand["id"], plan)
    return None


GUN_MARKERS = {
    "no-crew": "its crew was lost in the drop",
    "no-gun": "its gun was lost in the drop: the crew has no weapon to serve",
    "crew-apart": "its crew landed apart and has not been assembled with it",
    "ammo-apart": "its ammunition landed apart and has not been assembled with it",
}


def gun_fire_refusal(ctx: RulesContext, stand: StandRow) -> str | None:
    """Why a parachuted gun cannot fire yet, from the markers its drop set (CD 7.1, 7.2)."""
    why = [text for marker, text in GUN_MARKERS.items() if marker in stand.get("markers", ())]
    if not why:
        return None
    fix = (
        f"; 'tabletop airborne assemble {stand['id']}' once they have joined it"
        if any(m in stand["markers"] for m in ("crew-apart", "ammo-apart"))
        and not any(m in stand["markers"] for m in ("no-crew", "no-gun"))
        else ""
    )
    return f"{stand['id']} cannot fire: {'; '.join(why)} (CD 7.1, 7.2){fix}"


def effect_plan(ctx: RulesContext, stand: StandRow) -> Any:
    """A minimal fire plan carrying the target's hit-effects bands (quality chart)."""
    target = target_of(stand, ctx, "none", None)
    quality = effect_quality(target, ctx.charts, effects(ctx.state.conditions, ctx.charts).night)
    bands = ctx.charts.quality[quality]
    return FirePlan(
        weapon="minefield",
        target=stand["id"],
        ammo="mines",
        range=None,
        band=None,
        row="mines",
        base=0,
        modifiers=(),
        rof=1,
        effect_quality=quality,
        no_effect_up_to=bands.no_effect_up_to,
        forced_back_up_to=bands.forced_back_up_to,
    )
