"""AA fire at the transports and gliders (CD 7.2.2, 7.3.1, 9.1.6): which AA stands reach the
zone, their dice and numbers, the choice of AA, and the forced-back and eliminated results on
the aircraft; the preview the 'airborne' command shows before a drop.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.core.units import within
from tabletop.data.chart_params import AirborneParams, AmmoParams, WeatherParams
from tabletop.rules.cd.airborne.common import (
    ELIMINATED,
    FORCED_BACK,
    Aircraft,
    Line,
    _gap,
    _spec,
    crew_class,
    roll_effect,
)
from tabletop.rules.cd.airborne.stick import check_zone
from tabletop.rules.cd.ammo import check_fires_left, record_firing
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow


def aa_weapon(stand: StandRow, charts: Any) -> Any | None:
    for weapon_id in stand["weapons"]:
        weapon = charts.weapons[weapon_id]
        if weapon.aa and stand["ammo"][weapon_id]["state"] != "depleted":
            return weapon
    return None


def aa_dice(ctx: RulesContext, stand: StandRow, weapon: Any, night: bool) -> tuple[int, list[str]]:
    """Half the printed ROF, rounded up (CD 7.2.2); one fewer at night without sound
    detection, a searchlight or radar (CD 9.1.6)."""
    divisor = ctx.charts.params(AirborneParams).aa_rof_divisor
    dice = math.ceil(weapon.rof / divisor)
    why = [f"ROF {weapon.rof} / {divisor:g}, rounded up: {dice} (CD 7.2.2)"]
    if night and not _spec(ctx, stand["id"], "aa_detection", False):
        change = ctx.charts.params(WeatherParams).night_aa_dice
        dice += change
        why.append(f"night, no sound detection, searchlight or radar: {change:+d} (CD 9.1.6)")
    return max(dice, 0), why


def aa_number(ctx: RulesContext, quality: str) -> tuple[int, list[Line]]:
    base = ctx.charts.params(AirborneParams).aa_to_hit
    lines = [Line("AA at aircraft", base, ctx.charts.table("airborne")["aa-to-hit"].rule)]
    kind = crew_class(ctx.charts, quality)
    if kind in ("plus", "minus"):
        mod = ctx.charts.modifier("aa-veteran" if kind == "plus" else "aa-green")
        lines.append(Line(mod.label, mod.value, mod.rule))
    return int(sum(line.value for line in lines)), lines


def aa_candidates(ctx: RulesContext, side: str, zone: tuple[float, float]) -> list[dict[str, Any]]:
    """Every enemy stand with an AA weapon, and whether it may fire at this zone."""

    reach = ctx.charts.params(AirborneParams).aa_range
    night = effects(ctx.state.conditions, ctx.charts).night
    out = []
    for stand in ctx.state.stands():
        weapon = aa_weapon(stand, ctx.charts)
        if stand["side"] == side or weapon is None or stand["status"] != "ok":
            continue
        entry: dict[str, Any] = {"stand": stand["id"], "weapon": weapon.id, "why_not": None}
        if stand["x"] is None:
            entry["why_not"] = "not on the table"
        else:
            gap = _gap(ctx, stand, zone)
            entry["range"] = round(gap, 3)
            if not within(gap, reach):
                entry["why_not"] = f'{gap:.1f}" from the zone, beyond {reach:g}" (CD 7.2.2)'
            elif stand.get("moved_turn") == ctx.state.turn:
                entry["why_not"] = "moved this turn: only stationary AA fires (CD 7.2.2)"
            else:
                try:  # AA fire counts against the weapon's fire for the turn
                    check_fires_left(ctx.state, stand, weapon, ctx.charts)
                except RulesRefusal as refusal:
                    entry["why_not"] = str(refusal)
        dice, why = aa_dice(ctx, stand, weapon, night)
        number, lines = aa_number(ctx, stand["quality"])
        entry.update(dice=dice, dice_working=why, to_hit=number)
        entry["modifiers"] = [line.as_json() for line in lines[1:]]
        if entry["why_not"] is None and dice <= 0:
            entry["why_not"] = "no dice left at night (CD 9.1.6)"
        out.append(entry)
    return out


def choose_aa(
    ctx: RulesContext, side: str, zone: tuple[float, float], inputs: dict[str, Any]
) -> list[Any]:
    if inputs.get("no_aa"):
        return []
    found = {c["stand"]: c for c in aa_candidates(ctx, side, zone)}
    asked = inputs.get("aa")
    if not asked:
        return [c for c in found.values() if c["why_not"] is None]
    chosen = []
    for stand_id in asked:
        ctx.state.stand(stand_id)
        entry = found.get(stand_id)
        if entry is None:
            raise RulesRefusal(
                f"{stand_id} cannot fire at the aircraft: it is not an enemy AA stand with "
                "ammunition (an 'aa' weapon, CD 7.2.2)"
            )
        if entry["why_not"] is not None:
            raise RulesRefusal(f"{stand_id} cannot fire at the aircraft: {entry['why_not']}")
        chosen.append(entry)
    return chosen


def aa_fire(
    ctx: RulesContext, aircraft: list[Aircraft], guns: list[Any], glider: bool
) -> list[Any]:
    """Each gun's dice; each hit on a random aircraft still flying (CD 7.2.2, 7.3.1)."""

    charts, state = ctx.charts, ctx.state
    face = charts.params(AmmoParams).trigger_face
    shots = []
    for gun in guns:
        stand = state.stand(gun["stand"])
        ctx.involve(stand["id"])
        rolls, hits = [], []
        for index in range(1, gun["dice"] + 1):
            roll, hit = aa_die(ctx, aircraft, gun, index, glider)
            rolls.append(roll)
            if hit is not None:
                hits.append(hit)
        weapon = charts.weapons[gun["weapon"]]
        kind = charts.stand_kinds[stand["kind"]]
        ones = sum(1 for r in rolls if r == face)
        booked = record_firing(state, stand, weapon, kind, "standard", ones, charts,
                               f"AA {stand['id']}", ones)  # fmt: skip
        stand["fired"] = {"turn": state.turn, "phase": state.phase, "weapon": weapon.id,
                          "x": stand["x"], "y": stand["y"]}  # fmt: skip
        shots.append({**gun, "rolls": rolls, "hits": [h for h in hits if h is not None],
                      "ammunition": booked["notes"]})  # fmt: skip
    return shots


def aa_die(
    ctx: RulesContext, aircraft: list[Aircraft], gun: dict[str, Any], index: int, glider: bool
) -> tuple[int, dict[str, Any] | None]:
    """One AA die at the aircraft (CD 7.2.2, 7.3.1): the roll, and the hit it scores on a random
    aircraft still flying (None for a miss, or when none is left). The drop and glider odds
    enumerate this same function die by die."""
    roll = ctx.dice.roll(10, f"AA {gun['stand']} die {index} of {gun['dice']}, "
                         f"needs {gun['to_hit']} or less")  # fmt: skip
    if roll <= gun["to_hit"] or roll == 1:
        return roll, _hit_aircraft(ctx, aircraft, glider)
    return roll, None


def _hit_aircraft(
    ctx: RulesContext, aircraft: list[Aircraft], glider: bool
) -> dict[str, Any] | None:
    flying = [a for a in aircraft if a.aborted is None]
    if not flying:
        return None
    pick = 0
    if len(flying) > 1:
        pick = ctx.dice.roll(len(flying), f"which of {len(flying)} aircraft is hit") - 1
    target = flying[pick]
    abort = ctx.charts.params(AirborneParams).abort_hits
    if glider and ctx.charts.params(AirborneParams).glider_aa_hits == "direct":
        target.hits += 1
        effect = "hit"
    else:
        effect = roll_effect(ctx, target.crew, f"AA hit on {target.label}'s aircraft")
        if effect == ELIMINATED:
            target.aborted = "eliminated by AA: returns to base (CD 7.2.2)"
        elif effect == FORCED_BACK:
            target.forced_back += 1
            target.hits += 1
    if target.aborted is None and max(target.forced_back, target.hits) >= abort:
        target.aborted = f"{abort} AA hits: aborted (CD 7.2.1, 7.3.1)"
    return {"aircraft": target.label, "effect": effect, "aborted": target.aborted is not None}


def aa_preview(ctx: RulesContext, side: str, zone: tuple[float, float]) -> dict[str, Any]:
    """Which enemy AA may fire at aircraft over the zone, with dice and numbers (no rolls)."""
    side = resolve_side(side, ctx.scenario.side_names())
    zone = check_zone(ctx, zone)
    found = aa_candidates(ctx, side, zone)
    return {
        "zone": list(zone),
        "side": side,
        "aa": found,
        "firing": [c["stand"] for c in found if c["why_not"] is None],
    }
