"""The move-cost query for a stand in a game (terrain from the table, ground, weather)."""

from __future__ import annotations

from typing import Any

from shapely import Point

from tabletop.core.errors import BadInput
from tabletop.core.spelling import did_you_mean
from tabletop.core.units import within
from tabletop.data.chart_params import WeatherParams
from tabletop.rules.cd.ground import move_cost
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, position

ROAD_KINDS = {"road-hard": "hard", "road-paved": "paved", "road-dirt": "dirt"}


def move_cost_for(
    ctx: RulesContext, stand_id: str, terrain: str | None, road: str | None
) -> dict[str, Any]:
    stand = ctx.state.stand(stand_id)
    charts = ctx.charts
    kind = charts.stand_kinds[stand["kind"]]
    near_flood = False
    if terrain is None:
        if stand["x"] is None:
            raise BadInput(f"{stand_id} is not placed: give --terrain (one of the terrain kinds)")
        here = ctx.table.pieces_at(*position(stand))
        roads = [p.kind for p in here if p.kind in ROAD_KINDS]
        if roads and road is None:
            road = ROAD_KINDS[roads[0]]
        areas = [p.kind for p in here if p.kind not in ROAD_KINDS and charts.terrain[p.kind].move]
        terrain = areas[-1] if areas else "open"
    elif terrain not in charts.terrain:
        hint = did_you_mean(terrain, charts.terrain)
        raise BadInput(f"--terrain {terrain!r}: unknown terrain kind{hint}")
    conditions = ctx.state.conditions
    local: list[str] = []
    if stand["x"] is not None:
        near_flood = _near_flood(ctx, stand)
        # A piece's own ground (poor drainage, a flood ruled deep mud) counts where the stand
        # is, in place of the table's (CD 10.3.4, 11.1).
        specs = {p.id: p for p in ctx.scenario.terrain}
        local = [
            f"{specs[p.id].ground} here ({p.id}'s own ground, CD 11.1)"
            for p in ctx.table.pieces_at(*position(stand))
            if specs[p.id].ground is not None
        ]
        if local:
            conditions = {**conditions, "ground": local[-1].split(" ", 1)[0]}
    ski = any(spec.ski for _, spec in ctx.scenario.stand_specs() if spec.id == stand["id"])
    cost = move_cost(kind, terrain, conditions, charts, road=road, ski=ski, near_flood=near_flood)
    cost.because[:0] = local[-1:]
    if "mired" in stand["markers"]:
        cost.multiplier = None
        cost.because.insert(
            0, f"{stand['id']} is mired: it may not move until unmired (CD 11.1.4, 11.1.5)"
        )
    return {
        "stand": stand["id"],
        "terrain": terrain,
        "road": road,
        "multiplier": cost.multiplier,
        "because": cost.because,
        "mired": "mired" in stand["markers"],
    }


def _near_flood(ctx: RulesContext, stand: StandRow) -> bool:
    margin = ctx.charts.params(WeatherParams).flooded_mud_margin
    here = Point(stand["x"], stand["y"])
    for spec in ctx.scenario.terrain:
        if (
            spec.kind == "flooded"
            and spec.ground is None
            and within(ctx.table.geometry(spec.id).distance(here), margin)
        ):
            return True
    return False
