"""Night: sound detection and light sources (CD 9.2, 9.3)."""

from __future__ import annotations

import math
from typing import Any

from tabletop.core.units import within
from tabletop.data.board import base_of
from tabletop.data.chart_params import WeatherParams
from tabletop.rules.cd.weather import Effects
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, fired_on, position
from tabletop.table import base_polygon


def _noisy_near(ctx: RulesContext, x: float, y: float, radius: float) -> str | None:
    """A stand firing or fired on this turn within ``radius`` of (x, y) (CD 9.3)."""
    turn = ctx.state.turn
    for s in ctx.state.stands():
        if s["x"] is None:
            continue
        fired = fired_on(s, turn)
        hit = s.get("fired_at") == turn
        if (fired or hit) and within(math.dist(position(s), (x, y)), radius):
            return f"{s['id']} {'firing' if fired else 'under fire'} nearby"
    return None


def sound_detects(
    ctx: RulesContext,
    listener: StandRow,
    target: StandRow,
    distance: float,
    now: Effects,
) -> tuple[bool, str]:
    """Whether a stationary, silent stand hears a moving enemy (CD 9.3)."""
    state, charts = ctx.state, ctx.charts
    if not now.night:
        return False, "sound detection is a night rule (CD 9.3)"
    if target.get("moved_turn") != state.turn:
        return False, f"{target['id']} is not moving"
    if listener.get("moved_turn") == state.turn or fired_on(listener, state.turn):
        return False, f"{listener['id']} is not stationary and silent"
    vehicle = charts.stand_kinds[target["kind"]].category == "vehicle"
    params = charts.params(WeatherParams)
    reach = params.sound_vehicle if vehicle else params.sound_personnel
    if not within(distance, reach):
        return False, f'beyond {reach:g}" for moving {"vehicles" if vehicle else "personnel"}'
    if now.sound_deadened:
        return False, f"sound deadened by {now.sound_deadened}"
    radius = charts.params(WeatherParams).sound_noise_radius
    for x, y in (position(listener), position(target)):
        noise = _noisy_near(ctx, x, y, radius)
        if noise:
            return False, f"too noisy: {noise} (CD 9.3)"
    factor = charts.params(WeatherParams).sound_distance_factor
    return True, (
        f'heard moving within {reach:g}": counts as {distance * factor:g}" away '
        "for spotting (CD 9.3)"
    )


def lit_by_fire(ctx: RulesContext, shape: Any) -> str | None:
    """A burning vehicle within 1" or a burning building within 3" lights a stand's base or a
    point (CD 9.2); distances are measured base to base, as ranges are."""

    small = ctx.charts.params(WeatherParams).fire_light_radius
    large = ctx.charts.params(WeatherParams).large_fire_light_radius
    for s in ctx.state.stands():
        if "burning" not in s["markers"] or s["x"] is None:
            continue
        if within(base_polygon(base_of(s)).distance(shape), small):
            return f"burning {s['id']}"
    burning = [
        t
        for t, v in ctx.state.rows.items()
        if t.startswith("terrain:") and v.get("state") == "burning"
    ]
    for key in burning:
        piece_id = key.split(":", 1)[1]
        if within(ctx.table.geometry(piece_id).distance(shape), large):
            return f"burning {piece_id}"
    return None
