"""A stand's base movement allowance, and where a forced-back result sends it.

Both are read by ``move`` and by the fire procedures that force a stand back (direct fire,
barrages), so they live below both.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.data.chart_params import TableParams
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre, in_play
from tabletop.table import bearing


def allowance_of(ctx: RulesContext, stand: StandRow) -> tuple[float, float, str]:
    """The stand's base allowance across country and on roads, and where it comes from."""
    spec = _spec(ctx, stand["id"])
    own = getattr(spec, "move", None) if spec is not None else None
    if own is not None:
        road = own.road if own.road is not None else own.cross
        return float(own.cross), float(road), "the stand's own allowance (scenario)"
    row = ctx.charts.table("movement").get(stand["kind"])
    if row is None:
        raise RulesRefusal(
            f"{stand['id']} ({stand['kind']}) has no base movement allowance: give it "
            "move: {cross: N, road: N} in the scenario or a movement.yaml chart entry"
        )
    road = row.road if row.road is not None else row.cross
    return float(row.cross), float(road), f"{stand['kind']} allowance ({row.rule})"


def _spec(ctx: RulesContext, stand_id: str) -> Any:
    try:
        return ctx.scenario.stand_spec(stand_id)
    except KeyError:
        return None


def fall_back_plan(
    ctx: RulesContext,
    stand: StandRow,
    away_from: tuple[float, float] | None,
    what: str = "the fire",
) -> dict[str, Any]:
    """Where a stand forced back goes: the charted fraction of its base cross-country
    allowance, straight away from the fire that forced it back (the firing stand, for a
    barrage too), else from the nearest enemy stand in play (hit effects chart, our default)."""
    fraction = ctx.charts.params(TableParams).forced_back_fraction
    cross, _, _ = allowance_of(ctx, stand)
    distance = round(fraction * cross, 2)
    here = centre(stand)
    source, why = away_from, what
    if source is None or math.dist(source, here) < 1e-9:
        enemies = sorted(
            (math.dist(centre(s), here), s["id"], centre(s))
            for s in ctx.state.stands()
            if s["side"] != stand["side"] and s["x"] is not None and in_play(s)
        )
        if enemies:
            _, enemy, source = enemies[0]
            why = f"the nearest enemy, {enemy}"
        else:
            source = None
    plan: dict[str, Any] = {
        "turn": ctx.state.turn,
        "distance": distance,
        "away_from": None if source is None else [round(v, 3) for v in source],
        "from_what": why if source is not None else None,
    }
    if source is not None:
        heading = bearing(source[0], source[1], here[0], here[1])
        rad = math.radians(heading)
        plan["bearing"] = round(heading, 1)
        plan["to"] = [
            round(here[0] + distance * math.sin(rad), 2),
            round(here[1] + distance * math.cos(rad), 2),
        ]
    return plan


def fall_back_words(stand_id: str, plan: dict[str, Any]) -> str:
    """What a referee reads out for a forced-back result."""
    if plan.get("to") is None:
        return (
            f'forced back {plan["distance"]:g}": no enemy to fall back from; move it back with '
            f"'tabletop move {stand_id} X,Y --fall-back' (hit effects chart)"
        )
    x, y = plan["to"]
    return (
        f'forced back {plan["distance"]:g}" on bearing {plan["bearing"]:g}, away from '
        f"{plan['from_what']}, to {x:.2f},{y:.2f}: 'tabletop move {stand_id} --fall-back' "
        "(hit effects chart)"
    )
