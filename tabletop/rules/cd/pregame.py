"""Pregame engineering (CD 5): what a side can build in the hours or days before battle.

Most work is counted per engineer stand per work day; earthmovers multiply some of it (and
cannot help with some). Every engineer-day goes to one work, so the plan lists what the
time would give if all of it went to each work, for the referee to share out. Troops dig
their own foxholes (3 hours in place) and entrenchments (6 hours).
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.core.sides import resolve_side
from tabletop.state.document import in_play


def plan(ctx: Any, side: str, hours: float) -> dict[str, Any]:
    charts, state = ctx.charts, ctx.state
    side = resolve_side(side, ctx.scenario.side_names())
    if not math.isfinite(hours) or hours <= 0:
        raise BadInput("give a positive number of --hours or --days")
    day = float(charts.param("engineering", "work-day-hours"))
    days = math.floor(hours / day + 1e-9)
    stands = [s for s in state.stands() if s["side"] == side and in_play(s)]
    kinds = {s["id"]: charts.stand_kinds[s["kind"]] for s in stands}
    engineers = [s["id"] for s in stands if kinds[s["id"]].engineer]
    movers = [s["id"] for s in stands if _earthmover(ctx, s)]
    from tabletop.rules.cd.minefields import engineer_companies

    companies = engineer_companies(ctx, side)
    ground = state.conditions["ground"]
    works: dict[str, Any] = {}
    for work in charts.table("works").values():
        entry: dict[str, Any] = {"rule": work.rule, "unit": work.unit}
        # CD 5.1: no defensive works in heavy mud (the chart says which works and grounds).
        barred = ground in work.not_on_ground
        if work.by == "troops":
            ready = work.hours_in_place is not None and hours >= work.hours_in_place
            entry["possible"] = ready and not barred
            entry["stands"] = [s["id"] for s in stands if kinds[s["id"]].category == "personnel"]
            entry["cover"] = work.cover
            if barred:
                entry["why_not"] = f"no defensive works on {ground} ground (CD 5.1)"
            elif not ready:
                entry["why_not"] = f"needs {work.hours_in_place:g} hours in place"
        elif work.by == "companies":
            entry["possible"] = companies > 0 and not barred
            entry["amount"] = companies * (work.per_day or 0)
            entry["note"] = "wire is limited by what the companies carry, not by time"
            if barred:
                entry["why_not"] = f"not on {ground} ground"
        else:
            needs_days = work.days_in_place or 0
            ok = days >= 1 and days >= needs_days
            by_engineers = len(engineers) * days * (work.per_day or 0)
            by_movers = (
                len(movers) * days * (work.per_day or 0) * work.earthmover if work.earthmover else 0
            )
            entry["possible"] = ok and not barred
            entry["amount"] = by_engineers + by_movers
            entry["by_engineers"] = by_engineers
            entry["by_earthmovers"] = by_movers
            if work.earthmover is None and movers:
                entry["note"] = "earthmovers cannot help"
            if not ok:
                entry["why_not"] = "needs a full work day"
            elif barred:
                entry["why_not"] = f"no defensive works on {ground} ground (CD 5.1)"
        if work.not_in:
            entry["not_in"] = list(work.not_in)
        if work.only_in:
            entry["only_in"] = list(work.only_in)
        works[work.id] = entry
    return {
        "side": side,
        "hours": hours,
        "days": days,
        "engineers": engineers,
        "earthmovers": movers,
        "engineer_companies": companies,
        "engineer_days": len(engineers) * days,
        "earthmover_days": len(movers) * days,
        "works": works,
    }


def _earthmover(ctx: Any, stand: dict[str, Any]) -> bool:
    from tabletop.rules.cd.engineering import is_earthmover

    return is_earthmover(ctx, stand)


def pregame_action(ctx: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Accept a plan: troops dig in; the plan is kept for the referee (CD 5)."""
    state = ctx.state
    result = plan(ctx, inputs["side"], float(inputs["hours"]))
    side = result["side"]
    if state.turn != ctx.scenario.turn.number or state.meta.get("pregame", {}).get(side):
        raise RulesRefusal("pregame works are accepted once, before the first turn is played")
    dug = []
    works = result["works"]
    marker = (
        "entrenched"
        if works["entrenchments"]["possible"]
        else "foxholes"
        if works["foxholes"]["possible"]
        else None
    )
    if marker:
        for stand_id in works[marker if marker == "foxholes" else "entrenchments"]["stands"]:
            stand = state.stand(stand_id)
            if marker not in stand["markers"]:
                stand["markers"].append(marker)
                dug.append(stand_id)
                ctx.involve(stand_id)
    state.meta.setdefault("pregame", {})[side] = {
        "hours": result["hours"],
        "engineer_days": result["engineer_days"],
        "earthmover_days": result["earthmover_days"],
    }
    verdict = (
        f"{side}: {len(dug)} stand(s) {marker} (CD 5.1.1); "
        f"{result['engineer_days']} engineer-day(s) and {result['earthmover_days']} "
        "earthmover-day(s) for works"
        if marker
        else f"{side}: no time to dig in; {result['engineer_days']} engineer-day(s)"
    )
    return {"verdict": verdict, "dug_in": dug, "plan": result}
