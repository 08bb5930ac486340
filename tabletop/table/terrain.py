"""The table: its size and terrain pieces as prepared shapely geometries in an STRtree."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from tabletop.core.errors import BadInput
from tabletop.table._clip import Edges, ring_edges
from tabletop.table.model import Piece


def piece_geometry(piece: Piece) -> BaseGeometry:
    """The area a piece covers: its polygon, or its line buffered with flat caps."""
    if piece.polygon is not None:
        return shapely.polygons(piece.polygon)
    assert piece.line is not None  # Piece guarantees exactly one of the two
    # Flat caps: a road ends where its line ends, it does not bulge past it.
    return shapely.buffer(shapely.linestrings(piece.line), piece.width / 2, cap_style="flat")


class Table:
    """The table and its terrain, ready for many geometric queries.

    Build it with `build_table`. `pieces` keeps scenario order; `geometries[i]` is the
    prepared shape of `pieces[i]` and `tree` indexes them. `tops[i]` is the level of the
    top of piece i: a hill's `height`, or for any other piece the ground level at its
    representative point plus its `height` (a wood on a level-2 hill tops out at 2 + 1).
    """

    def __init__(self, width: float, depth: float, pieces: Sequence[Piece]) -> None:
        self.width = float(width)
        self.depth = float(depth)
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self.geometries: np.ndarray = np.array(
            [piece_geometry(p) for p in self.pieces], dtype=object
        )
        shapely.prepare(self.geometries)
        self.tree = shapely.STRtree(self.geometries)
        self.edges: Edges = ring_edges(self.geometries)
        self._index = {p.id: i for i, p in enumerate(self.pieces)}
        self.is_ground = np.array([p.ground for p in self.pieces], dtype=bool)
        # A hill always counts as an obstacle; other pieces only when they say so.
        self.can_block = np.array([p.ground or p.blocks for p in self.pieces], dtype=bool)
        self.heights = np.array([p.height for p in self.pieces], dtype=float)
        self.see_into = np.array([p.see_into for p in self.pieces], dtype=float)
        anchors = shapely.get_coordinates(shapely.point_on_surface(self.geometries))
        self.tops = np.where(
            self.is_ground, self.heights, self.ground_levels(anchors) + self.heights
        )

    def __repr__(self) -> str:
        return f"Table({self.width:g} x {self.depth:g}, {len(self.pieces)} pieces)"

    def index(self, piece_id: str) -> int:
        """Position of a piece in scenario order; KeyError naming the id if unknown."""
        try:
            return self._index[piece_id]
        except KeyError:
            raise KeyError(f"unknown terrain piece: {piece_id!r}") from None

    def geometry(self, piece_id: str) -> BaseGeometry:
        """The (prepared) shapely geometry of a piece, for templates and maps."""
        return self.geometries[self.index(piece_id)]

    def on_table(self, x: float, y: float) -> bool:
        """Whether (x, y) lies on the table, edges included."""
        return 0.0 <= x <= self.width and 0.0 <= y <= self.depth

    def pieces_at(self, x: float, y: float) -> list[Piece]:
        """The pieces covering (x, y), boundary included, in scenario order."""
        hits = self.tree.query(shapely.points(x, y), predicate="intersects")
        return [self.pieces[i] for i in np.sort(hits)]

    def ground_level(self, x: float, y: float) -> float:
        """The greatest height of the hills covering (x, y) (boundary included), else 0.0."""
        return float(self.ground_levels(np.array([[x, y]], dtype=float))[0])

    def ground_levels(self, points: np.ndarray) -> np.ndarray:
        """`ground_level` for an (N, 2) array of points at once."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        levels = np.full(len(points), -np.inf)
        if len(self.pieces):
            at, piece = self.tree.query(shapely.points(points), predicate="intersects")
            hill = self.is_ground[piece]
            np.maximum.at(levels, at[hill], self.heights[piece[hill]])
        levels[np.isneginf(levels)] = 0.0
        return levels


def build_table(width: float, depth: float, pieces: Iterable[Piece]) -> Table:
    """Check the table size and terrain, then build a `Table`.

    Raises BadInput (a ValueError) naming every problem found: a non-positive size,
    repeated ids, and polygons that are invalid (self-crossing, ...) or cover no area.
    """
    pieces = tuple(pieces)
    problems: list[str] = []
    if not (width > 0 and depth > 0):
        problems.append(f"table size must be positive, got {width!r} x {depth!r}")
    seen: set[str] = set()
    for piece in pieces:
        if piece.id in seen:
            problems.append(f"terrain id {piece.id!r} is used twice")
        seen.add(piece.id)
        geometry = piece_geometry(piece)
        if not shapely.is_valid(geometry):
            problems.append(
                f"terrain {piece.id!r}: invalid shape ({shapely.is_valid_reason(geometry)})"
            )
        elif shapely.area(geometry) <= 0:
            problems.append(f"terrain {piece.id!r}: its shape covers no area")
    if problems:
        raise BadInput("; ".join(problems))
    return Table(width, depth, pieces)
