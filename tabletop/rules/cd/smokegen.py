"""Engineer smoke generators (CD 5.3).

A generator in place lays a 2" x 6" template downwind each turn it runs, the screen growing
to 36" (each template no longer than the wind allows, CD 10.1.2, so a moderate wind lays
4" templates, nine of them at most). The screen starts at the upwind edge of the
generator's base, so it covers the generator itself; templates stop at the table's edge.
Once it stops (by choice, pinned, or moved), two templates a turn go from the upwind end.
"""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.errors import RulesRefusal
from tabletop.core.words import count
from tabletop.data.chart_params import EngineeringParams
from tabletop.rules.cd.compass import wind_bearing
from tabletop.rules.cd.engineering import equipment, placed, require_fit
from tabletop.rules.cd.weather import effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, out_of_play
from tabletop.table import strip

SCREEN = "screen:"


def template_length(ctx: RulesContext) -> float:
    length = ctx.charts.params(EngineeringParams).smoke_generator_length
    cap = effects(ctx.state.conditions, ctx.charts).smoke_max_length
    return length if cap is None else min(length, cap)


def start_action(ctx: RulesContext, inputs: dict[str, Any]) -> dict[str, Any]:
    state = ctx.state
    stand = state.stand(inputs["stand"])
    ctx.involve(stand["id"])
    if "smoke-generator" not in equipment(ctx, stand):
        raise RulesRefusal(f"{stand['id']} has no smoke generator (scenario equipment; CD 5.3)")
    placed(stand)
    key = SCREEN + stand["id"]
    screen = state.rows.get(key)
    if inputs.get("stop"):
        if screen is None or not screen["running"]:
            raise RulesRefusal(f"{stand['id']} is not generating smoke")
        screen["running"] = False
        return {
            "verdict": f"{stand['id']} stops its smoke: the screen thins from the upwind "
            "end, two templates a turn (CD 5.3)"
        }
    require_fit(ctx, stand, "CD 5.3", stationary=False, unsuppressed=False)
    if screen is not None and screen["running"]:
        raise RulesRefusal(f"{stand['id']} is already generating smoke")
    bearing = wind_bearing(state.conditions)
    screen = {
        "stand": stand["id"],
        "x": stand["x"],
        "y": stand["y"],
        "running": True,
        "bearing": bearing,
        # CD 5.3: the screen runs downwind from the generating point and covers the generator,
        # so it starts at the upwind edge of the generator's base.
        "back": round(_upwind_reach(stand, bearing), 6),
        "laid": 0.0,
        "segments": 0,
        "removed": 0,
    }
    state.rows[key] = screen
    _lay(ctx, screen)
    return {
        "verdict": f"{stand['id']} starts a smoke screen downwind (CD 5.3)",
        "templates": screen["segments"],
    }


def _upwind_reach(stand: StandRow, bearing: float) -> float:
    """How far the stand's base reaches upwind of its centre, against ``bearing``."""
    rad = math.radians(bearing)
    face = math.radians(float(stand["facing"]))
    along = abs(math.cos(rad - face))  # the base's depth runs along its facing
    across = abs(math.sin(rad - face))
    return float(stand["depth"]) / 2 * along + float(stand["width"]) / 2 * across


def _lay(ctx: RulesContext, screen: dict[str, Any]) -> str | None:
    """Add a template at the downwind end; why not, if the screen cannot grow.

    Every template is as long as the wind allows (CD 5.3, 10.1.2), the screen no longer
    than its maximum, and no template is laid off the table (the part beyond an edge is
    cut off).
    """

    length = template_length(ctx)
    cap = ctx.charts.params(EngineeringParams).smoke_generator_max
    # Screens begun before templates were measured one by one: all of one length, the
    # first starting at the generator.
    laid = float(screen.get("laid", screen["segments"] * length))
    if laid + length > cap + 1e-9:
        return f'full length, {laid:g}" (CD 5.3)'
    ux, uy = math.sin(math.radians(screen["bearing"])), math.cos(math.radians(screen["bearing"]))
    start = laid - float(screen.get("back", 0.0))
    x0, y0 = screen["x"] + ux * start, screen["y"] + uy * start
    table = ctx.scenario.table
    on = _on_table((x0, y0), (ux, uy), length, table.width, table.depth)
    if on is None:
        return "it has reached the table edge"
    width = ctx.charts.params(EngineeringParams).smoke_generator_width
    shape = strip(x0 + ux * on[0], y0 + uy * on[0], screen["bearing"], width, on[1] - on[0])
    ctx.state.add_template(
        {
            "id": f"screen-{screen['stand']}-{screen['segments']}",
            "kind": "smoke",
            "by": screen["stand"],
            "turn": ctx.state.turn,
            "lifetime": "screen",
            "blocks_sight": True,
            "polygon": [list(p) for p in shape.exterior.coords],
        }
    )
    screen["segments"] += 1
    screen["laid"] = round(laid + length, 6)
    return None


def _on_table(
    start: tuple[float, float], way: tuple[float, float], length: float, w: float, d: float
) -> tuple[float, float] | None:
    """The stretch (from, to) of a template's centre line, ``length`` long, on the table."""
    low, high = 0.0, length
    for p, u, edge in ((start[0], way[0], w), (start[1], way[1], d)):
        if abs(u) < 1e-12:
            if not 0 <= p <= edge:
                return None
            continue
        a, b = (0 - p) / u, (edge - p) / u
        low, high = max(low, min(a, b)), min(high, max(a, b))
    return (low, high) if high - low > 1e-6 else None


def each_turn(ctx: RulesContext) -> list[dict[str, Any]]:
    """Start of turn: running screens grow; stopped ones thin from the upwind end."""
    state = ctx.state
    happened = []
    for key in sorted(k for k in state.rows if k.startswith(SCREEN)):
        screen = state.rows[key]
        stand = state.stand(screen["stand"])
        moved = (stand["x"], stand["y"]) != (screen["x"], screen["y"])
        if screen["running"] and ("pinned" in stand["markers"] or moved or out_of_play(stand)):
            screen["running"] = False
            why = "pinned" if "pinned" in stand["markers"] else "moved" if moved else "lost"
            happened.append(
                {
                    "what": "smoke generator",
                    "stand": stand["id"],
                    "result": f"stops: the generator was {why} (CD 5.3)",
                }
            )
        if screen["running"]:
            why_not = _lay(ctx, screen)
            happened.append(
                {
                    "what": "smoke generator",
                    "stand": stand["id"],
                    "result": f"screen {count(screen['segments'], 'template')} long"
                    + (f" (no more: {why_not})" if why_not else ""),
                }
            )
            continue
        drop = ctx.charts.params(EngineeringParams).smoke_generator_dispersal
        for _ in range(drop):
            if screen["removed"] >= screen["segments"]:
                break
            state.remove_template(f"screen-{screen['stand']}-{screen['removed']}")
            screen["removed"] += 1
        left = screen["segments"] - screen["removed"]
        if left <= 0:
            del state.rows[key]
        happened.append(
            {
                "what": "smoke generator",
                "stand": stand["id"],
                "result": f"screen thins: {count(max(left, 0), 'template')} left (CD 5.3)",
            }
        )
    return happened
