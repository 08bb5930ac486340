"""Wading ashore (CD 8.1.4): wading stands move toward the beach at a cautious advance each
turn, or a hasty one when a command stand ashore orders it, stopping short of other bases and
crossing any minefield on the way.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.core.units import TOLERANCE, within
from tabletop.core.words import count
from tabletop.data.board import base_of
from tabletop.data.chart_params import AmphibiousParams, WeatherParams
from tabletop.rules.cd import minefields
from tabletop.rules.cd.amphibious.common import check_phase, in_sea
from tabletop.rules.cd.sighting import distance_between, end_for_stand
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre, in_play, stage_of
from tabletop.table import base_polygon
from tabletop.table.sweep import sweep

# --- wading (CD 8.1.4) -------------------------------------------------------------------------


def wade_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    check_phase(ctx, "wading")
    state, charts = ctx.state, ctx.charts
    allowance = charts.params(AmphibiousParams).wade_cautious
    order = "cautious"
    out = []
    stands = [state.stand(s) for s in inputs["stands"]]
    for stand in stands:
        ctx.involve(stand["id"])
        if stage_of(stand) != "wading" or stand["status"] != "ok":
            raise RulesRefusal(f"{stand['id']} is not wading ashore (CD 8.1.4)")
        if stand["amphib"].get("waded_turn") == state.turn:
            raise RulesRefusal(
                f"{stand['id']} has moved through the water this turn: it wades on next turn "
                "(CD 8.1.4)"
            )
    if inputs.get("by"):
        _check_commander(ctx, state.stand(inputs["by"]), stands)
        allowance, order = charts.params(AmphibiousParams).wade_hasty, "hasty"
    for stand in stands:
        here = centre(stand)
        goal = (float(stand["amphib"]["beach"][0]), float(stand["amphib"]["beach"][1]))
        gap = math.dist(here, goal)
        step = min(allowance, gap)
        end = here if gap <= 0 else (here[0] + (goal[0] - here[0]) * step / gap,
                                     here[1] + (goal[1] - here[1]) * step / gap)  # fmt: skip
        end, blocked = _short_of_bases(ctx, stand, here, end)
        step = math.dist(here, end)
        crossed = None
        if step > 0:
            crossed = minefields.cross_action(ctx, {"stand": stand["id"], "path": [list(end)]})
        now = centre(stand)
        ashore = math.dist(now, goal) < 1e-3
        stand["amphib"]["waded_turn"] = state.turn
        if ashore:
            stand.pop("amphib", None)
        out.append({"stand": stand["id"], "moved": round(math.dist(here, now), 4),
                    "at": [round(now[0], 4), round(now[1], 4)], "ashore": ashore,
                    "minefields": crossed, "blocked_by": blocked})  # fmt: skip
    return {
        "verdict": f"{count(len(out), 'stand')} {'wades' if len(out) == 1 else 'wade'} "
        f'{allowance:g}" toward the beach ({order} advance)',
        "order": order,
        "allowance": allowance,
        "stands": out,
    }


def _short_of_bases(
    ctx: RulesContext, stand: StandRow, here: tuple[float, float], end: tuple[float, float]
) -> tuple[tuple[float, float], str | None]:
    """Where a wade from ``here`` toward ``end`` stops: before its base would overlap another
    stand's (bases may touch, not overlap, as 'place' says), and which stand stopped it."""

    length = math.dist(here, end)
    if length <= 0:
        return end, None
    mine = base_polygon(base_of({**stand, "x": here[0], "y": here[1]}))
    stop, blocked = length, None
    for other in ctx.state.stands():
        if other["id"] == stand["id"] or other["x"] is None or not in_play(other):
            continue
        swept = sweep([here, end], mine, base_polygon(base_of(other)), TOLERANCE)
        # Bases already overlapping where the wade begins may part; only a new overlap stops it.
        first = next((a for a, _ in swept.overlapping if a > 1e-9), None)
        if first is not None and first < stop:
            stop, blocked = first, str(other["id"])
    if blocked is None:
        return end, None
    f = stop / length
    return (here[0] + (end[0] - here[0]) * f, here[1] + (end[1] - here[1]) * f), blocked


def _check_commander(ctx: RulesContext, chief: StandRow, stands: list[StandRow]) -> None:
    """Only a command stand ashore within orders reach may order a hasty wade (CD 8.1.4)."""

    ctx.involve(chief["id"])
    if not ctx.charts.stand_kinds[chief["kind"]].command:
        raise RulesRefusal(f"{chief['id']} is not a command stand: wading troops obey only "
                           "command stands, not staff orders (CD 8.1.4)")  # fmt: skip
    if chief["x"] is None or chief["status"] != "ok" or chief.get("amphib"):
        raise RulesRefusal(f"{chief['id']} is not ashore to give orders (CD 8.1.4)")
    if in_sea(ctx, *centre(chief)):
        raise RulesRefusal(f"{chief['id']} is in the water, not ashore (CD 8.1.4)")
    night = effects(ctx.state.conditions, ctx.charts).night
    weather = ctx.charts.params(WeatherParams)
    reach = weather.orders_radius_night if night else weather.orders_radius_day
    for stand in stands:
        if stand["side"] != chief["side"]:
            raise RulesRefusal(f"{chief['id']} cannot order {stand['id']}, another side's")
        gap = distance_between(
            end_for_stand(ctx.state, chief["id"]),
            end_for_stand(ctx.state, stand["id"]),
            ctx.scenario.measure,
        )
        if not within(gap, reach):
            raise RulesRefusal(f'{stand["id"]} is {gap:.1f}" from {chief["id"]}: orders reach '
                               f'{reach:g}" (CD 8.1.4, 9.1.5)')  # fmt: skip
