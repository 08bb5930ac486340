"""Indirect fire: HE bursts, H&I, smoke and illumination templates (CD 1.1, 1.3.2, 9.2.1).

An HE burst is a circle of the weapon's burst diameter. Every stand with more of its base
under the template than the charted threshold rolls to be hit with the weapon's HE number,
modified for that stand; when several stands roll, the first one's die is the marked
depletion die (CD 1.1). Every stand under HE is suppressed (SPEC 2). H&I rolls no to-hit
die and never depletes (CD 1.1); it lands on a charted roll. Smoke and illumination are
limited rounds (CD 1.3.2, 9.2.1) that leave templates until the next artillery phase.
"""

from __future__ import annotations

import math
from typing import Any, NotRequired, TypedDict, cast

from tabletop.core.dice import RecordingDice, allow_unused
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.frozen import mutable_dataclass
from tabletop.core.units import within
from tabletop.core.words import count
from tabletop.data.board import base_of
from tabletop.data.chart_params import AmmoParams, BarrageParams
from tabletop.rules.cd.ammo import check_can_fire, check_fires_left, note_fired, record_firing
from tabletop.rules.cd.compass import wind_bearing
from tabletop.rules.cd.fire import (
    ELIMINATED,
    FORCED_BACK,
    FirePlan,
    Tally,
    combine_modifiers,
    fold,
    outcome,
    plan_indirect,
    roll_effect,
    roll_to_hit,
)
from tabletop.rules.cd.sighting import end_for_point, end_for_stand, glances, target_cover
from tabletop.rules.cd.stands import apply_effect, check_phase, choose_weapon, firer_of, target_of
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre, in_play, out_of_play, position
from tabletop.table import circle, coverage, strip


@mutable_dataclass
class Barrage:
    shooter: StandRow
    weapon: Any
    ammo: str
    hni: bool
    point: tuple[float, float]
    polygon: Any
    under: list[tuple[str, float]]
    plans: dict[str, FirePlan]
    warnings: list[str]


def smoke_length(ctx: RulesContext) -> float:
    length = ctx.charts.params(BarrageParams).smoke_length
    cap = effects(ctx.state.conditions, ctx.charts).smoke_max_length
    return length if cap is None else min(length, cap)


def template_for(ctx: RulesContext, weapon: Any, ammo: str, x: float, y: float) -> Any:
    if ammo == "smoke":
        return strip(x, y, wind_bearing(ctx.state.conditions), weapon.burst, smoke_length(ctx))
    if ammo == "illum":
        factor = ctx.charts.params(BarrageParams).illum_area_factor
        return circle(x, y, weapon.burst * math.sqrt(factor))  # area x factor (CD 9.2.1)
    return circle(x, y, weapon.burst)


def prepare(ctx: RulesContext, inputs: dict[str, Any], *, any_phase: bool = False) -> Barrage:
    state, charts = ctx.state, ctx.charts
    shooter = state.stand(inputs["shooter"])
    if not any_phase:
        check_phase(ctx, "indirect-fire", "indirect fire")
    if out_of_play(shooter):
        raise RulesRefusal(f"{shooter['id']} is eliminated and cannot fire")
    indirect = [w for w in shooter["weapons"] if charts.weapons[w].indirect]
    requested = inputs.get("weapon")
    if requested is None and not indirect:
        raise RulesRefusal(f"{shooter['id']} has no indirect-fire weapon (weapons chart)")
    weapon = charts.weapons[choose_weapon(shooter, requested or indirect[0], charts)]
    if not weapon.indirect:
        raise RulesRefusal(f"{weapon.id} cannot fire indirect (weapons chart)")
    ammo = inputs.get("ammo") or "he"
    if ammo not in ("he", "smoke", "illum"):
        raise BadInput(f"--ammo {ammo!r}: accepted: he, smoke, illum")
    hni = bool(inputs.get("hni"))
    if hni and ammo != "he":
        raise BadInput("H&I fire is HE (--hni goes with --ammo he)")
    check_can_fire(shooter, weapon, "standard" if ammo == "he" else ammo, charts)
    if not any_phase:
        check_fires_left(state, shooter, weapon, charts)  # one barrage per weapon a turn
    x, y = inputs["at"]
    w, d = ctx.scenario.table.width, ctx.scenario.table.depth
    if not (0 <= x <= w and 0 <= y <= d):
        raise BadInput(f"--at {x:g},{y:g} is off the {w:g} x {d:g} table")
    if shooter["x"] is not None:
        reach = math.dist(position(shooter), (x, y))
        if not within(reach, weapon.ranges.long):
            raise RulesRefusal(
                f"{x:g},{y:g} is {reach:.1f}\" from {shooter['id']}: beyond {weapon.id}'s range "
                f'of {weapon.ranges.long:g}" (weapons chart)'
            )
    polygon = template_for(ctx, weapon, ammo, x, y)
    threshold = charts.params(BarrageParams).min_fraction_under
    placed = [s for s in state.stands() if s["x"] is not None and in_play(s)]
    under = [
        (sid, f) for sid, f in coverage(polygon, [base_of(s) for s in placed]) if f > threshold
    ]
    plans: dict[str, FirePlan] = {}
    requested_mods = tuple((n, v) for n, v in inputs.get("mods") or [])
    combine_modifiers([], requested_mods, charts)  # a typo is refused even over empty ground
    if ammo == "he" and not hni:
        night = effects(state.conditions, charts).night
        firer = firer_of(shooter, ctx)
        for sid, _ in under:
            stand = state.stand(sid)
            cover, source = target_cover(ctx, *position(stand), stand)
            plans[sid] = plan_indirect(
                weapon,
                firer,
                target_of(stand, ctx, cover, source),
                charts,
                night=night,
                requested=requested_mods,
            )
    warnings = [] if hni or ammo == "illum" else _unobserved(ctx, shooter, x, y)
    return Barrage(shooter, weapon, ammo, hni, (x, y), polygon, under, plans, warnings)


def _unobserved(ctx: RulesContext, shooter: StandRow, x: float, y: float) -> list[str]:
    """A warning when no stand of the firer's side sees the aiming point (in sight and
    within what light and weather allow): observed fire is called by a stand that sees it,
    unobserved fire is H&I (barrage chart observed-fire). The referee may know better (an
    observer off the table, a pre-registered point), so the fire goes on."""
    params = ctx.charts.params(BarrageParams)
    if not params.observed_fire:
        return []
    point = end_for_point(x, y, ctx.scenario)
    own = [
        s
        for s in ctx.state.stands()
        if s["side"] == shooter["side"] and s["x"] is not None and in_play(s)
    ]
    looks = [(end_for_stand(ctx.state, s["id"]), point) for s in own]
    if any(g.los and g.visible for g in glances(ctx, looks)):
        return []
    rule = ctx.charts.table("barrage")["observed-fire"].rule
    return [
        f"no {shooter['side']} stand sees {x:g},{y:g}: indirect fire is observed by a stand "
        f"that sees its aiming point ({rule}, barrage chart observed-fire); unobserved fire "
        "is H&I (--hni, CD 1.1); the referee may go on"
    ]


class BarrageResult(TypedDict):
    """The ``barrage`` action's result: every stand under the template, by id."""

    verdict: NotRequired[str]  # set once the fall of shot is known (always, on return)
    shooter: str
    weapon: str
    ammo: str  # he, smoke, illum, or hni for harassing fire
    at: list[float]  # the template's centre
    under_template: list[str]
    fractions: dict[str, float]  # how much of each base lies under it
    rolls: dict[str, list[int]]  # to-hit die then effect dice, by stand
    hits: dict[str, int]
    effects: dict[str, str | None]
    # What became of a stand the burst eliminated or forced back, as fire says it: a stand
    # forced back is told how far, which way and how to carry it out (hit effects chart).
    now: dict[str, str]
    to_hit: dict[str, int]
    modifiers: dict[str, list[dict[str, Any]]]
    depletion_checks: int  # ammunition depletion dice booked (CD 1.1, 1.2)
    marked_die: str | None  # the stand whose die also counts for depletion (CD 1.1)
    ammunition: list[str]
    warnings: list[str]  # what the referee should know before going on (observed fire)
    landing_roll: NotRequired[int]  # H&I: the roll that says whether it lands
    landed: NotRequired[bool]


def barrage_action(ctx: RulesContext, inputs: dict[str, Any]) -> BarrageResult:
    b = prepare(ctx, inputs)
    state, charts = ctx.state, ctx.charts
    shooter = b.shooter
    ctx.involve(shooter["id"], *(sid for sid, _ in b.under))
    face = charts.params(AmmoParams).trigger_face
    result: BarrageResult = {
        "shooter": shooter["id"],
        "weapon": b.weapon.id,
        "ammo": "hni" if b.hni else b.ammo,
        "at": list(b.point),
        "under_template": [sid for sid, _ in b.under],
        "fractions": {sid: round(f, 3) for sid, f in b.under},
        "rolls": {},
        "hits": {},
        "effects": {},
        "now": {},
        "to_hit": {},
        "modifiers": {},
        "depletion_checks": 0,
        "marked_die": None,
        "ammunition": [],
        "warnings": b.warnings,
    }
    template = {
        "kind": b.ammo if not b.hni else "hni",
        "by": shooter["id"],
        "turn": state.turn,
        "lifetime": "turn",
        # removed as this turn's artillery phase starts (SPEC 2; clear_last_turn)
        "expires_turn": state.turn + charts.params(BarrageParams).template_lifetime_turns,
        "polygon": [list(p) for p in b.polygon.exterior.coords],
        "centre": list(b.point),
    }
    triggers = 0
    fired_from = None if shooter["x"] is None else centre(shooter)
    if b.hni:
        # H&I books no ammunition (CD 1.1) but is the weapon's fire for the turn.
        note_fired(state, shooter, b.weapon, f"H&I by {shooter['id']}")
        lands_on = charts.params(BarrageParams).hni_lands_up_to
        roll = ctx.dice.roll(10, f"H&I by {shooter['id']} lands on {lands_on} or less")
        landed = roll <= lands_on
        result["landing_roll"] = roll
        result["landed"] = landed
        if landed:
            for sid, _ in b.under:
                _suppress(state.stand(sid))
            state.add_template({**template, "kind": "burst"})
        result["verdict"] = (
            f"H&I lands ({roll}): {count(len(b.under), 'stand')} suppressed"
            if landed
            else f"H&I goes astray ({roll} > {lands_on})"
        )
    elif b.ammo == "he":
        marked = b.under[0][0] if len(b.under) > 1 else None
        result["marked_die"] = marked
        if not b.under:
            allow_unused(ctx.dice, "the template caught no stand, so no die was rolled")
        # As a referee throws them: one to-hit die per stand under the burst, then an
        # effect die for each hit, in the same order.
        thrown = {}
        at: dict[str, int] = {}
        # Every dice object a barrage is rolled with keeps its rolls (the game's, the odds').
        thrown_dice = cast(RecordingDice, ctx.dice)
        for sid, _ in b.under:
            # CD 1.1: with several stands under one burst, only the marked die may deplete.
            counts = marked is None or sid == marked
            at[sid] = len(thrown_dice.rolls)
            thrown[sid] = roll_to_hit(
                b.plans[sid], ctx.dice, 1, counts_for_depletion=counts, trigger_face=face
            )
        for sid, _ in b.under:
            plan = b.plans[sid]
            to_hit_roll = [thrown_dice.rolls[at[sid]].value]
            before = len(thrown_dice.rolls)
            die = roll_effect(plan, ctx.dice, thrown[sid])
            tally = fold(Tally(), die)
            triggers += tally.triggers
            stand = state.stand(sid)
            # A stand forced back falls back away from the fire, as under direct fire: from
            # the firing stand, not from the burst's centre (within an inch of the stand,
            # any way at all, toward the enemy as often as not).
            now = apply_effect(stand, tally.worst, state, fired_from, ctx)
            if now is not None:
                result["now"][sid] = now
            # Every stand under HE is suppressed, save one the burst eliminated.
            _suppress(stand)
            result["rolls"][sid] = to_hit_roll + [r.value for r in thrown_dice.rolls[before:]]
            result["hits"][sid] = tally.hits
            # The same words as 'odds barrage' (one procedure): a hit with no effect, like
            # a miss, leaves the stand suppressed under HE (SPEC 2).
            result["effects"][sid] = outcome(tally, plan.miss_effect)
            result["to_hit"][sid] = plan.to_hit
            result["modifiers"][sid] = [m.as_json() for m in plan.modifiers]
        state.add_template({**template, "kind": "burst"})
        hit = [f"{sid} ({result['effects'][sid]})" for sid, n in result["hits"].items() if n]
        result["verdict"] = (
            f"{b.weapon.id} burst at {b.point[0]:g},{b.point[1]:g}: "
            f"{count(len(b.under), 'stand')} under, "
            + (f"hits on {', '.join(hit)}" if hit else "no hits")
        )
    else:
        kind = "smoke" if b.ammo == "smoke" else "illumination"
        state.add_template(
            {
                **template,
                "kind": kind,
                "blocks_sight": b.ammo == "smoke",
                "illuminates": b.ammo == "illum",
            }
        )
        result["verdict"] = f"{kind} placed at {b.point[0]:g},{b.point[1]:g} by {shooter['id']}"
    if not b.hni:
        kind_chart = charts.stand_kinds[shooter["kind"]]
        ammo_kind = "standard" if b.ammo == "he" else b.ammo
        booked = record_firing(
            state,
            shooter,
            b.weapon,
            kind_chart,
            ammo_kind,
            triggers,
            charts,
            f"barrage {shooter['id']}",
        )
        result["depletion_checks"] = booked["checks"]
        result["ammunition"] = booked["notes"]
    shooter["fired"] = {
        "turn": state.turn,
        "phase": state.phase,
        "weapon": b.weapon.id,
        "x": shooter["x"],
        "y": shooter["y"],
    }
    for sid, _ in b.under:
        state.stand(sid)["fired_at"] = state.turn
    return result


def _suppress(stand: StandRow) -> None:
    if in_play(stand) and "suppressed" not in stand["markers"]:
        stand["markers"].append("suppressed")


__all__ = ["ELIMINATED", "FORCED_BACK", "barrage_action", "prepare"]
