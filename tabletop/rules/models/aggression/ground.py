"""Retreat directions and moves on the table (AGG Retreat directions, Retreat example, Pursuit).

The seed's six hex directions become six bearings 60 degrees apart, counted clockwise from the
stand's own retreat bearing. A bearing is not allowed when it points at a stand the unit is
fighting (the enemy came from there), when the move would run into an enemy base, end on a
friendly base or off the table, or cross ground the stand cannot enter. Geometry comes from
``tabletop.table``; shapely is imported only when a battle needs it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from shapely import convex_hull, union

from tabletop.core.frozen import mutable_dataclass
from tabletop.data.board import base_of
from tabletop.data.chart_params import TableParams
from tabletop.rules.cd.terrain_columns import TERRAIN_COLUMN
from tabletop.rules.context import RulesContext
from tabletop.state.document import StandRow, centre
from tabletop.table import Base, base_polygon, bearing, overlapping
from tabletop.table.measure import heading

SAMPLE_STEP = 0.25  # inches between the points checked for terrain along a move
EDGE = 1e-9


def angle_between(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def moved(base: Base, bearing_deg: float, inches: float) -> Base:
    dx, dy = heading(bearing_deg)
    return Base(
        base.id, base.x + dx * inches, base.y + dy * inches, base.width, base.depth, base.facing
    )


@mutable_dataclass
class Ground:
    """What a retreating (or pursuing) stand must keep clear of on the table."""

    ctx: RulesContext
    stand: StandRow
    fought: Sequence[StandRow]  # the enemy stands it fights: never back toward them
    enemies: Sequence[StandRow]  # every enemy stand on the table: never into them
    friends: Sequence[StandRow]  # its own side's stands: not to end on top of them
    sector: float  # half the angle between two directions

    @property
    def base(self) -> Base:
        return base_of(self.stand)

    def forbidden(
        self, bearing_deg: float, inches: float, *, start: Base | None = None
    ) -> list[str]:
        """Why a move of ``inches`` along ``bearing_deg`` is not allowed (empty if it is)."""
        start = start or self.base
        reasons = []
        for foe in self.fought:
            toward = bearing(start.x, start.y, *centre(foe))
            if angle_between(toward, bearing_deg) <= self.sector + EDGE:
                reasons.append(f"toward {foe['id']} (bearing {toward:.0f}), the enemy it fights")
        end = moved(start, bearing_deg, inches)
        reasons += self._off_table(end)
        reasons += self._into_enemies(start, end)
        reasons += self._onto_friends(end)
        reasons += self._terrain(start, end)
        return reasons

    def _off_table(self, end: Base) -> list[str]:
        width, depth = self.ctx.scenario.table.width, self.ctx.scenario.table.depth
        x0, y0, x1, y1 = base_polygon(end).bounds
        if x0 < -EDGE or y0 < -EDGE or x1 > width + EDGE or y1 > depth + EDGE:
            return ["off the table"]
        return []

    def _tolerance(self) -> float:
        return max(self.ctx.charts.params(TableParams).base_overlap_tolerance, 1e-6)

    def _into_enemies(self, start: Base, end: Base) -> list[str]:
        """The path may not run into an enemy base; an enemy it is fighting only may not be
        where it ends (the bearing toward it is already barred, and a base touching it
        would otherwise bar every bearing that slides past its corner)."""

        swept = convex_hull(union(base_polygon(start), base_polygon(end)))
        landing = base_polygon(end)
        fought = {foe["id"] for foe in self.fought}
        hits = []
        for enemy in self.enemies:
            theirs = base_polygon(base_of(enemy))
            area = landing if enemy["id"] in fought else swept
            if area.intersects(theirs) and area.intersection(theirs).area > self._tolerance():
                hits.append(f"into enemy {enemy['id']}")
        return hits

    def _onto_friends(self, end: Base) -> list[str]:
        others = [base_of(f) for f in self.friends if f["id"] != self.stand["id"]]
        return [f"onto friendly {s}" for s in overlapping(end, others, self._tolerance())]

    def _terrain(self, start: Base, end: Base) -> list[str]:
        charts = self.ctx.charts
        mobility = charts.stand_kinds[self.stand["kind"]].mobility
        if mobility == "static":
            return [f"a {self.stand['kind']} cannot move"]
        column = TERRAIN_COLUMN[mobility]
        length = math.hypot(end.x - start.x, end.y - start.y)
        count = max(1, math.ceil(length / SAMPLE_STEP))
        for i in range(1, count + 1):
            x = start.x + (end.x - start.x) * i / count
            y = start.y + (end.y - start.y) * i / count
            blocked = impassable_at(self.ctx, column, x, y)
            if blocked:
                return [f"across {blocked}, impassable to {column} stands"]
        return []


def impassable_at(ctx: RulesContext, column: str, x: float, y: float) -> str | None:
    """The piece at (x, y) a stand moving by ``column`` cannot enter; roads and bridges carry
    it over anything beneath them."""
    if not ctx.table.on_table(x, y):
        return None
    pieces = ctx.table.pieces_at(x, y)
    kinds = ctx.charts.terrain
    if any(kinds[p.kind].road is not None or p.kind == "bridge" for p in pieces):
        return None
    for piece in pieces:
        move = kinds[piece.kind].move
        if move is not None and getattr(move, column) is None:
            return f"{piece.id} ({piece.kind})"
    return None


def near_route(ctx: RulesContext, stand: StandRow) -> bool:
    """Whether a stand's base touches a road, railway, river or stream (AGG Ambush)."""

    shape = base_polygon(base_of(stand))
    kinds = ctx.charts.terrain
    for index in ctx.table.tree.query(shape, predicate="intersects"):
        piece = ctx.table.pieces[int(index)]
        if kinds[piece.kind].road is not None or piece.kind in ("river", "stream", "bridge"):
            return True
    return False
