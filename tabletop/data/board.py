"""The bridge between the game's data and the geometry package.

Builds the ``Table`` from the scenario's terrain and the terrain chart, turns stand rows into
``Base`` rectangles, and gathers the templates that block sight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.data.charts import Charts
from tabletop.data.scenario import Scenario
from tabletop.table import Base, Piece, Table
from tabletop.table import build_table as _build


def pieces_for(scenario: Scenario, charts: Charts) -> list[Piece]:
    pieces = []
    for spec in scenario.terrain:
        kind = charts.terrain[spec.kind]
        height = spec.height if spec.height is not None else kind.height
        pieces.append(
            Piece(
                id=spec.id,
                kind=spec.kind,
                polygon=spec.polygon,
                line=spec.line,
                width=spec.width or 0.0,
                blocks=kind.blocks,
                height=height,
                ground=kind.ground,
                see_into=kind.see_into,
            )
        )
    return pieces


def build_table(scenario: Scenario, charts: Charts) -> Table:
    return _build(scenario.table.width, scenario.table.depth, pieces_for(scenario, charts))


def base_of(stand: Mapping[str, Any]) -> Base:
    """The base of a stand's row (``state.document.StandRow``) or of a view of one."""
    if stand["x"] is None:
        raise ValueError(f"{stand['id']} has no position")
    return Base(
        id=stand["id"],
        x=float(stand["x"]),
        y=float(stand["y"]),
        width=float(stand["width"]),
        depth=float(stand["depth"]),
        facing=float(stand["facing"]),
    )


def is_placed(stand: Mapping[str, Any]) -> bool:
    return stand.get("x") is not None


def smoke_blockers(templates: list[dict[str, Any]]) -> list[tuple[str, list[tuple[float, float]]]]:
    return [(t["id"], [tuple(p) for p in t["polygon"]]) for t in templates if t.get("blocks_sight")]
