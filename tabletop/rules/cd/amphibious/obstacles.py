"""Beach mines and obstacles (CD 8.1.5, 8.1.6): the submerged minefields and obstacles on a
landing craft's run in, cleared pieces and gaps through them, and the first obstacle that
stops an amphibious vehicle.
"""

from __future__ import annotations

from typing import Any

from shapely import LineString, Point

from tabletop.data.chart_params import EngineeringParams
from tabletop.rules.cd import minefields
from tabletop.rules.cd.amphibious.common import names, sea
from tabletop.rules.cd.hidden import MINEFIELD, fields
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow


def _path_band(start: tuple[float, float], end: tuple[float, float], width: float) -> Any:
    return LineString([start, end]).buffer(width / 2, cap_style="flat")


def _hazards(
    ctx: RulesContext, craft: StandRow, start: tuple[float, float], end: tuple[float, float]
) -> list[dict[str, Any]]:
    """Submerged real minefields and obstacles on a landing craft's run in, nearest first
    (CD 8.1.5, 8.1.6); dummies met on the way are revealed and taken away."""

    band = _path_band(start, end, craft["width"])
    line = LineString([start, end])
    water = sea(ctx)
    found = []
    for field in fields(ctx.state):
        square = minefields.square(field)
        if not square.intersects(band) or not water.covers(Point(field["x"], field["y"])):
            continue
        if not field["real"]:
            ctx.state.rows.pop(MINEFIELD + field["id"], None)
            continue
        field["revealed"] = True
        found.append({"what": f"minefield {field['id']}", "kind": "minefield",
                      "at": [field["x"], field["y"]],
                      "along": line.project(Point(field["x"], field["y"]))})  # fmt: skip
    kinds = set(names(ctx.charts, "submerged-obstacle-kinds"))
    for piece in ctx.table.pieces:
        if piece.kind not in kinds or _cleared(ctx, piece.id):
            continue
        wet = ctx.table.geometry(piece.id).intersection(band).intersection(water)
        if wet.is_empty or _through_gap(ctx, piece.id, wet):
            continue
        point = wet.representative_point()
        found.append({"what": piece.id, "kind": piece.kind, "at": [point.x, point.y],
                      "along": line.project(point)})  # fmt: skip
    found.sort(key=lambda h: h["along"])
    for h in found:
        h["at"] = [round(h["at"][0], 4), round(h["at"][1], 4)]
        h.pop("along")
    return found


def _cleared(ctx: RulesContext, piece_id: str) -> bool:
    row = ctx.state.rows.get("terrain:" + piece_id) or {}
    return row.get("state") in ("destroyed",)


def _through_gap(ctx: RulesContext, piece_id: str, wet: Any) -> bool:
    row = ctx.state.rows.get("terrain:" + piece_id) or {}
    for gap in row.get("gaps", []):
        width = float(gap.get("width") or ctx.charts.params(EngineeringParams).gap_width)
        if wet.distance(Point(*gap["at"])) <= width / 2:
            return True
    return False


def _barring_obstacle(
    ctx: RulesContext, craft: StandRow, start: tuple[float, float], end: tuple[float, float]
) -> dict[str, Any] | None:
    """The first submerged obstacle that bars this vehicle, and where it stops before it."""

    mobility = ctx.charts.stand_kinds[craft["kind"]].mobility
    band = _path_band(start, end, craft["width"])
    line = LineString([start, end])
    water = sea(ctx)
    kinds = set(names(ctx.charts, "submerged-obstacle-kinds"))
    best = None
    for piece in ctx.table.pieces:
        move = ctx.charts.terrain[piece.kind].move
        key = "wheeled" if mobility in ("wheeled", "halftrack") else "tracked"
        if piece.kind not in kinds or move is None or getattr(move, key) is not None:
            continue
        if _cleared(ctx, piece.id):
            continue
        wet = ctx.table.geometry(piece.id).intersection(band).intersection(water)
        if wet.is_empty or _through_gap(ctx, piece.id, wet):
            continue
        along = min(line.project(Point(c)) for c in _coords(wet))
        if best is None or along < best[0]:
            best = (along, piece.id)
    if best is None:
        return None
    back = max(best[0] - craft["depth"] / 2 - 0.01, 0.0)
    point = line.interpolate(back)
    return {"piece": best[1], "before": (round(point.x, 4), round(point.y, 4))}


def _coords(geom: Any) -> list[tuple[float, float]]:
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords(g)]
    if hasattr(geom, "exterior"):
        return list(geom.exterior.coords)
    return list(geom.coords)
