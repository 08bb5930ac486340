"""How the alternative models' state on the stands changes at the turn's boundaries.

- Mech Brigade (MB 7.6): a unit's suppression halves at the end of every pulse. On the table
  each phase of the turn is one pulse (our mapping: MB's combat phase has four 30-second
  pulses, a turn of the game five or six phases), so every stand's mech-brigade suppression
  halves, rounded down, as each phase ends.
- Typhoon of Steel (ToS V Suppression point table, after pulse 3): once a
  turn, as the turn ends, every typhoon stand in play (in a game whose scenario model is
  typhoon; in another game, the stands typhoon fire or procedures have touched) gains or
  loses points for its cover (sighted or not by the enemy), being out of command, friendly
  routed, abandoned or destroyed units within 6 squares, being an immobilised vehicle, being
  alone, friends in good state, and the automatic point; its state then follows from its
  points and morale (ToS V Suppression effects table). The same procedure as ``tabletop
  model run typhoon suppression``.

Each change is reported in the boundary's ``happened`` list and stored on the stand's record
with the rule that set it (``suppression_rule``).
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.rules.cd.sighting import end_for_stand, sight, target_cover
from tabletop.rules.context import RulesContext
from tabletop.rules.models import find_model
from tabletop.rules.models.typhoon.command import run_suppression
from tabletop.rules.sequence import Happened, step
from tabletop.state.document import StandRow, centre, in_play

MB = "mech-brigade"
TOS = "typhoon"
MB_RULE = "MB 7.6: halved at the end of each pulse"
MB_PINNED_RULE = "MB 7.7: over 50 the unit is pinned and does not move"
TOS_RULE = "ToS V Suppression point table, after pulse 3"


def record(stand: StandRow, model: str) -> dict[str, Any]:
    """The stand's own record under ``model`` (created empty when it has none)."""
    models: dict[str, Any] = stand.setdefault("models", {})
    mine: dict[str, Any] = models.setdefault(model, {})
    return mine


@step("mech-brigade-pulse")
def mech_brigade_pulse(ctx: RulesContext) -> list[Happened]:
    """MB 7.6: every unit's suppression halves as a pulse (a phase of the turn) ends."""
    carrying = [
        s
        for s in ctx.state.stands()
        if int(((s.get("models") or {}).get(MB) or {}).get("suppression") or 0)
    ]
    if not carrying:
        return []
    divisor = find_model(MB, ctx.charts).tables.whole("suppression-pulse-divisor")  # type: ignore[attr-defined]
    out: list[Happened] = []
    for stand in carrying:
        mine = record(stand, MB)
        before = int(mine["suppression"])
        mine["suppression"] = before // divisor
        mine["suppression_rule"] = MB_RULE
        mine["pinned"] = mb_pinned(ctx, mine["suppression"])
        mine["pinned_rule"] = MB_PINNED_RULE
        out.append(
            {
                "what": "mech-brigade suppression",
                "stand": stand["id"],
                "result": f"{before} -> {mine['suppression']} ({MB_RULE})",
            }
        )
    return out


def mb_pinned(ctx: RulesContext, level: int) -> bool:
    """MB 7.7: a unit over 50 suppression is pinned and may not move."""
    tables = find_model(MB, ctx.charts).tables  # type: ignore[attr-defined]
    return bool(level > tables.whole("pinned-above"))


@step("typhoon-heavy-suppression")
def typhoon_heavy_suppression(ctx: RulesContext) -> list[Happened]:
    """ToS II.A: heavy suppression lasts the pulses rolled for it; each phase is a pulse.
    When it runs out the unit is Pinned again if its points still reach its morale, else in
    good state (our reading of 'the state listed for it')."""
    out: list[Happened] = []
    for stand in ctx.state.stands():
        mine = ((stand.get("models") or {}).get(TOS)) or {}
        if mine.get("state") != "heavily-suppressed" or not mine.get("heavy_pulses"):
            continue
        mine["heavy_pulses"] = int(mine["heavy_pulses"]) - 1
        if mine["heavy_pulses"] > 0:
            continue
        t = find_model(TOS, ctx.charts).t  # type: ignore[attr-defined]
        unit = _unit_of(ctx, t, stand)
        morale = unit.morale if unit is not None else 0
        points = int(mine.get("suppression") or 0)
        mine["state"] = "pinned" if points >= morale else "good"
        mine["state_rule"] = "ToS II.A Heavy suppression: its pulses have run out"
        out.append(
            {
                "what": "typhoon heavy suppression",
                "stand": stand["id"],
                "result": f"ends: {mine['state']} ({mine['state_rule']})",
            }
        )
    return out


@step("typhoon-suppression-table")
def typhoon_after_pulse_3(ctx: RulesContext) -> list[Happened]:
    """ToS V: the suppression point table's once-a-turn rows for every typhoon stand."""
    # Typhoon stands in play: every one in a typhoon game, else those the model has touched.
    everyone = ctx.scenario.model == TOS
    stands = [
        s
        for s in ctx.state.stands()
        if in_play(s)
        and s["x"] is not None
        and TOS in ctx.scenario.stand_spec(s["id"]).profiles
        and (everyone or TOS in (s.get("models") or {}))
    ]
    if not stands:
        return []

    model = find_model(TOS, ctx.charts)
    t = model.t  # type: ignore[attr-defined]
    out: list[Happened] = []
    for stand in stands:
        options = typhoon_conditions(ctx, t, stand)
        rolls = getattr(ctx.dice, "rolls", None)
        before = len(rolls) if rolls is not None else 0
        result = run_suppression(t, options, ctx.dice)
        mine = record(stand, TOS)
        was = (mine.get("suppression"), mine.get("state"))
        mine["suppression"] = result["points"]
        kept = mine.get("state") in ("destroyed", "abandoned") or (
            mine.get("state") == "dug-in" and result["state"] in ("good", "dug-in")
        )
        if not kept:  # a Dug-in unit in good state stays Dug-in (ToS II.A)
            mine["state"] = result["state"]
            mine["state_rule"] = result["rule"]
        mine["suppression_rule"] = TOS_RULE
        quiet = not mine["suppression"] and len(rolls or []) == before
        if was == (mine["suppression"], mine["state"]) and quiet:
            continue  # no points, no change, nothing rolled: recorded, not reported
        entry: Happened = {
            "what": "typhoon suppression",
            "stand": stand["id"],
            "result": f"{result['points_before']} {result['change']:+d} = {result['points']}: "
            f"{result['state']} ({TOS_RULE})",
            "why": result["lines"],
        }
        if rolls is not None and len(rolls) > before:
            entry["rolls"] = [r.value for r in rolls[before:]]
        out.append(entry)
    return out


def typhoon_conditions(ctx: RulesContext, t: Any, stand: StandRow) -> dict[str, Any]:
    """The after-pulse-3 options of ``run_suppression`` for one stand, read from the table."""

    spec = ctx.scenario.stand_spec(stand["id"])
    unit = t.units[spec.profiles[TOS]]
    mine = (stand.get("models") or {}).get(TOS) or {}
    size = float(t.scale.inches_per_square)
    x, y = centre(stand)
    friends_near: list[StandRow] = []
    routed = lost = 0
    for other in ctx.state.stands():
        if other["id"] == stand["id"] or other["side"] != stand["side"] or other["x"] is None:
            continue
        squares = math.hypot(centre(other)[0] - x, centre(other)[1] - y) / size
        if squares > t.p("nearby-squares"):
            continue
        theirs = (other.get("models") or {}).get(TOS) or {}
        if not in_play(other) or theirs.get("state") in ("abandoned", "destroyed"):
            lost += 1
            continue
        friends_near.append(other)
        other_unit = _unit_of(ctx, t, other)
        # ToS V: routed infantry do not count for tanks.
        infantry_for_tank = (
            unit.is_vehicle and other_unit is not None and other_unit.kind == "infantry"
        )
        if theirs.get("state") == "routed" and not infantry_for_tank:
            routed += 1
    good = sum(1 for o in friends_near if _good_state(ctx, t, o))
    cover, _ = target_cover(ctx, x, y, stand)
    row = t.tables["cover"].get(f"cd-{cover}")
    typhoon_cover = row.typhoon if row is not None else "none"
    state = str(mine.get("state") or "")
    if state == "dug-in":
        typhoon_cover = "hard"  # ToS V: Dug-in counts as hard cover
    options: dict[str, Any] = {
        "when": "after-pulse-3",
        "points": int(mine.get("suppression") or 0),
        "unit": unit.id,
        "cover": typhoon_cover,
        "sighted": sighted(ctx, stand),
        "out_of_command": mine.get("in_command") is False,
        "near_routed": routed,
        "near_lost": lost,
        "immobilized": bool(mine.get("immobilized")),
        "alone": not friends_near,
        "good_friends": good,
        "dug_in": state == "dug-in",
    }
    if unit.kind == "infantry":
        options["men"] = int(mine.get("men") or spec.strength or unit.men)
    return options


def _unit_of(ctx: RulesContext, t: Any, stand: StandRow) -> Any:
    profile = ctx.scenario.stand_spec(stand["id"]).profiles.get(TOS)
    return t.units.get(profile) if profile else None


def _good_state(ctx: RulesContext, t: Any, stand: StandRow) -> bool:
    """ToS V: a unit is in good state when its points are under its morale."""
    unit = _unit_of(ctx, t, stand)
    if unit is None:
        return False
    points = int((((stand.get("models") or {}).get(TOS) or {}).get("suppression")) or 0)
    return bool(points < unit.morale)


def sighted(ctx: RulesContext, stand: StandRow) -> bool:
    """Whether any enemy stand in play spots ``stand`` now (the game's own spotting)."""

    seen = end_for_stand(ctx.state, stand["id"])
    for enemy in ctx.state.stands():
        if enemy["side"] == stand["side"] or enemy["x"] is None or not in_play(enemy):
            continue
        result = sight(ctx, end_for_stand(ctx.state, enemy["id"]), seen)
        if result.spotted or (result.spotted is None and result.los and result.visible):
            return True
    return False
