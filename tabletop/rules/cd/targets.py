"""What a stand could fire at now: every enemy stand it sees, each with the stand's best
weapon against it and the odds of a hit.

Each line comes from the procedure ``fire`` itself uses (``direct.prepare`` for spotting,
range band and modifiers; ``odds.fire_odds`` for the exact chance), so the list and a shot
cannot disagree. Nothing is rolled or logged.

Every enemy is looked at in one vectorised trace (``sighting.sights``); the weapons are
worked out only for the enemies in reach of one of them, and the enemies seen beyond every
weapon's long range are listed together, by range.

The best weapon against a target is the one likeliest to do more than "no effect" (CD 1:
suppress, force back or eliminate), then the likeliest to hit, then the first carried.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.words import fraction_text
from tabletop.rules.cd.direct import prepare
from tabletop.rules.cd.fire import MISSED, NO_EFFECT, FirePlan
from tabletop.rules.cd.odds import fire_odds
from tabletop.rules.cd.sighting import Sight, end_for_stand, sights
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, out_of_play

BEST_WEAPON = "the likeliest to do more than no effect, then to hit, then the first carried"


def targets_of(ctx: RulesContext, stand_id: str, weapon: str | None = None) -> dict[str, Any]:
    state = ctx.state
    shooter = state.stand(stand_id)
    if shooter["x"] is None:
        raise RulesRefusal(f"{shooter['id']} is not on the table: it sees nothing")
    if out_of_play(shooter):
        raise RulesRefusal(f"{shooter['id']} is {shooter['status']}")
    if weapon is not None and weapon not in shooter["weapons"]:
        raise BadInput(
            f"--weapon {weapon!r}: {shooter['id']} carries "
            f"{', '.join(shooter['weapons']) or 'no weapons'}"
        )
    weapons: list[str] = [weapon] if weapon is not None else list(shooter["weapons"])
    a = end_for_stand(state, shooter["id"])
    enemies = [
        e
        for e in state.stands()
        if e["side"] != shooter["side"] and e["x"] is not None and not out_of_play(e)
    ]
    # Every enemy looked at in one vectorised trace; spotting only along the clear lines.
    looks = sights(ctx, a, [end_for_stand(state, e["id"]) for e in enemies])
    rows: list[dict[str, Any]] = []
    beyond: list[dict[str, Any]] = []
    chances: dict[FirePlan, dict[str, Any]] = {}
    for enemy, seen in zip(enemies, looks, strict=True):
        if seen is None or not seen.spotted:
            continue
        # Range first: a weapon whose long range falls short needs no plan (CD 1, weapons chart).
        reach: list[str | None] = [
            w for w in weapons if ctx.charts.weapons[w].band(seen.range) is not None
        ]
        if weapons and not reach:
            beyond.append({"id": enemy["id"], "range": round(seen.range, 2)})
            continue
        rows.append(_best_shot(ctx, shooter, enemy, reach or [None], seen, chances))
    rows.sort(key=lambda r: r["range"])
    beyond.sort(key=lambda r: r["range"])
    return {
        "stand": shooter["id"],
        "weapons": weapons,
        "reach": {w: ctx.charts.weapons[w].ranges.long for w in weapons},
        "best_weapon": BEST_WEAPON,
        "targets": rows,
        "out_of_range": beyond,
    }


def _best_shot(
    ctx: RulesContext,
    shooter: StandRow,
    enemy: StandRow,
    weapons: list[str | None],
    seen: Sight,
    chances: dict[FirePlan, dict[str, Any]],
) -> dict[str, Any]:
    """The row of one target: the best of ``weapons`` that may fire at it, or why none may.

    ``chances``: the odds of the plans worked out so far, by the plan without what only
    names the shot (the target's label, the range, the notes): two targets a weapon needs
    the same number against, with the same effects, have the same odds."""
    row: dict[str, Any] = {
        "id": enemy["id"],
        "range": round(seen.range, 2),
        "weapon": None,
        "band": None,
        "to_hit": None,
        "p_hit": None,
        "p_hit_exact": None,
        "p_effect": None,
        "why": None,
    }
    best: tuple[Fraction, Fraction] | None = None
    for weapon in weapons:
        try:
            plan = prepare(
                ctx,
                {"shooter": shooter["id"], "target": enemy["id"], "weapon": weapon},
                any_phase=True,
                look_ahead=True,
                seen=seen,
            ).plan
        except (RulesRefusal, BadInput) as exc:
            if row["why"] is None:
                row["why"] = str(exc)
            continue
        alike = dataclasses.replace(plan, target="", range=None, notes=())
        odds = chances.get(alike)
        if odds is None:
            odds = chances[alike] = fire_odds(plan, ctx.charts)
        p_hit = 1 - odds["hits"].get(0, Fraction(0))
        p_effect = 1 - sum(
            (odds["outcomes"].get(k, Fraction(0)) for k in (MISSED, NO_EFFECT)), Fraction(0)
        )
        if best is not None and (p_effect, p_hit) <= best:
            continue  # ties go to the weapon carried first
        best = (p_effect, p_hit)
        row.update(
            weapon=plan.weapon,
            band=plan.band,
            to_hit=plan.to_hit,
            p_hit=round(float(p_hit), 4),
            p_hit_exact=fraction_text(p_hit),
            p_effect=round(float(p_effect), 4),
        )
    if best is not None:
        row["why"] = None  # another weapon may fire: its refusal is no note
    return row
