"""What a stand could fire at now: every enemy stand it sees, with the odds of a hit.

Each line comes from the procedure ``fire`` itself uses (``direct.prepare`` for sight,
spotting, range band and modifiers; ``odds.fire_odds`` for the exact chance), so the list
and a shot cannot disagree. Nothing is rolled or logged.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.words import fraction_text
from tabletop.rules.cd.direct import prepare
from tabletop.rules.cd.odds import fire_odds
from tabletop.rules.cd.sighting import end_for_stand, sights
from tabletop.rules.context import RulesContext
from tabletop.state.document import out_of_play


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
    a = end_for_stand(state, shooter["id"])
    enemies = [
        e
        for e in state.stands()
        if e["side"] != shooter["side"] and e["x"] is not None and not out_of_play(e)
    ]
    # Every enemy looked at in one vectorised trace; spotting only along the clear lines.
    looks = sights(ctx, a, [end_for_stand(state, e["id"]) for e in enemies])
    rows = []
    for enemy, seen in zip(enemies, looks, strict=True):
        if seen is None or not seen.spotted:
            continue
        row: dict[str, Any] = {
            "id": enemy["id"],
            "range": round(seen.range, 2),
            "band": None,
            "to_hit": None,
            "p_hit": None,
            "p_hit_exact": None,
            "why": None,
        }
        try:
            plan = prepare(
                ctx,
                {"shooter": shooter["id"], "target": enemy["id"], "weapon": weapon},
                any_phase=True,
                look_ahead=True,
                seen=seen,
            ).plan
        except (RulesRefusal, BadInput) as exc:
            row["why"] = str(exc)
            rows.append(row)
            continue
        odds = fire_odds(plan, ctx.charts)
        p = 1 - odds["hits"].get(0, Fraction(0))
        row.update(
            band=plan.band,
            to_hit=plan.to_hit,
            p_hit=round(float(p), 4),
            p_hit_exact=fraction_text(p),
            weapon=plan.weapon,
        )
        rows.append(row)
    rows.sort(key=lambda r: r["range"])
    return {"stand": shooter["id"], "targets": rows}
