"""A checked scenario looked at without starting a game (SPEC 3, ``scenario show|map``).

``summary`` lists the table, each terrain piece with its area and bounds (the area the
table floor gives it: a polygon, or a line widened to its width with flat ends) and each
stand with where it starts; ``scene`` is the referee's picture of the table as a game
would begin on it, for the render floor to draw.
"""

from __future__ import annotations

from typing import Any

from tabletop.core.sides import REFEREE
from tabletop.data.board import base_of, pieces_for
from tabletop.data.scenario import LoadedScenario, stand_extent
from tabletop.render.scene import MinefieldShape, Scene, StandShape, TerrainShape
from tabletop.setup.shapes import area_and_bounds
from tabletop.table import base_polygon
from tabletop.table.terrain import piece_geometries

DEFAULT_MINEFIELD_SIZE = 1.0  # CD 3.1: a minefield template is 1" square


def summary(loaded: LoadedScenario, file: str) -> dict[str, Any]:
    """What ``scenario show --json`` prints (SPEC 7)."""
    sc, charts = loaded.scenario, loaded.charts
    shapes = piece_geometries(pieces_for(sc, charts))
    terrain = []
    for piece, shape in zip(sc.terrain, shapes, strict=True):
        area, bounds = area_and_bounds(shape)
        terrain.append({"id": piece.id, "kind": piece.kind, "area": area, "bounds": bounds})
    stands = [
        {
            "id": spec.id,
            "side": side,
            "kind": spec.kind,
            "x": None if spec.at is None else spec.at[0],
            "y": None if spec.at is None else spec.at[1],
        }
        for side, spec in sc.stand_specs()
    ]
    return {
        "file": file,
        "name": sc.name,
        "table": {"width": sc.table.width, "depth": sc.table.depth},
        "terrain": terrain,
        "stands": stands,
    }


def scene(loaded: LoadedScenario) -> Scene:
    """The referee's picture of the table as a game on this scenario begins."""
    sc, charts = loaded.scenario, loaded.charts
    cond = sc.conditions
    out = Scene(
        name=sc.name,
        view=REFEREE,
        width=float(sc.table.width),
        depth=float(sc.table.depth),
        turn=sc.turn.number,
        phase=sc.turn.phase,
        conditions={
            "light": cond.light,
            "weather": cond.weather,
            "wind_from": cond.wind.from_,
            "wind_force": cond.wind.force,
            "ground": cond.ground,
            "dusty": cond.dusty,
        },
        sides=sc.side_names(),
    )
    for piece in sc.terrain:
        kind = charts.terrain[piece.kind]
        height = piece.height if piece.height is not None else kind.height
        out.terrain.append(
            TerrainShape(
                id=piece.id,
                kind=piece.kind,
                polygon=None if piece.polygon is None else [(x, y) for x, y in piece.polygon],
                line=None if piece.line is None else [(x, y) for x, y in piece.line],
                width=float(piece.width or 0.0),
                height=float(height or 0.0),
                ground=bool(kind.ground),
                state=piece.state,
                wired=piece.wired,
                referee_only=piece.referee_only,
            )
        )
    for side, spec in sc.stand_specs():
        if spec.at is None:
            out.off_table.append(spec.id)
            continue
        width, depth = stand_extent(spec, charts)
        row = {
            "id": spec.id,
            "x": spec.at[0],
            "y": spec.at[1],
            "width": width,
            "depth": depth,
            "facing": spec.facing,
        }
        base = base_of(row)
        corners = [(float(x), float(y)) for x, y in base_polygon(base).exterior.coords][:-1]
        out.stands.append(
            StandShape(
                id=spec.id,
                side=side,
                kind=spec.kind,
                corners=corners,
                x=base.x,
                y=base.y,
                facing=base.facing,
                width=base.width,
                depth=base.depth,
                status="ok",
                markers=[],
            )
        )
    for i, mine in enumerate(sc.minefields, start=1):
        x, y = mine.at
        h = DEFAULT_MINEFIELD_SIZE / 2
        out.minefields.append(
            MinefieldShape(
                id=f"minefield-{i}",
                side=mine.side,
                polygon=[(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)],
                real=not mine.dummy,
                revealed=False,
            )
        )
    return out
