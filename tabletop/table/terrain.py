"""The table: its size and terrain pieces as prepared shapely geometries in an STRtree."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from tabletop.core.errors import BadInput
from tabletop.table._clip import Edges, ring_edges
from tabletop.table.model import Path, Piece


def piece_geometries(pieces: Sequence[Piece]) -> np.ndarray:
    """The area each piece covers, in order: its polygon, or its line buffered with flat caps.

    Built with one shapely call per kind of shape over all pieces, not one per piece: each
    shapely call costs about 10 microseconds of overhead, which for a 65-piece table was
    over a millisecond of every command that looks at the terrain. The shapes are the same
    as building each piece alone (same coordinates, same buffer).
    """
    geometries = np.empty(len(pieces), dtype=object)
    areas = [i for i, p in enumerate(pieces) if p.polygon is not None]
    lines = [i for i, p in enumerate(pieces) if p.polygon is None]
    if areas:
        coords, owner = _coords_and_owner([pieces[i].polygon for i in areas])
        geometries[areas] = shapely.polygons(shapely.linearrings(coords, indices=owner))
    if lines:
        coords, owner = _coords_and_owner([pieces[i].line for i in lines])
        strings = shapely.linestrings(coords, indices=owner)
        widths = np.array([pieces[i].width for i in lines], dtype=float)
        # Flat caps: a road ends where its line ends, it does not bulge past it.
        geometries[lines] = shapely.buffer(strings, widths / 2, cap_style="flat")
    return geometries


def _coords_and_owner(paths: Sequence[Path | None]) -> tuple[np.ndarray, np.ndarray]:
    """All the paths' points as one (N, 2) array, and which path each point belongs to (the
    ``indices`` shapely's creation functions take to build many geometries at once)."""
    coords = np.array([point for path in paths if path for point in path], dtype=float)
    owner = np.repeat(np.arange(len(paths)), [len(path or ()) for path in paths])
    return coords, owner


class Table:
    """The table and its terrain, ready for many geometric queries.

    Build it with `build_table`. `pieces` keeps scenario order; `geometries[i]` is the
    prepared shape of `pieces[i]` and `tree` indexes them. `tops[i]` is the level of the
    top of piece i: a hill's `height`, or for any other piece the ground level at its
    representative point plus its `height` (a wood on a level-2 hill tops out at 2 + 1).
    """

    def __init__(
        self,
        width: float,
        depth: float,
        pieces: Sequence[Piece],
        geometries: np.ndarray | None = None,
    ) -> None:
        self.width = float(width)
        self.depth = float(depth)
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        # ``build_table`` hands in the shapes it has just checked, so they are built once.
        self.geometries: np.ndarray = (
            piece_geometries(self.pieces) if geometries is None else geometries
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
    geometries = piece_geometries(pieces)
    # Checked for all pieces at once (see piece_geometries); a reason only for a bad one.
    valid = shapely.is_valid(geometries)
    areas = shapely.area(geometries)
    for i, piece in enumerate(pieces):
        if piece.id in seen:
            problems.append(f"terrain id {piece.id!r} is used twice")
        seen.add(piece.id)
        if not valid[i]:
            problems.append(
                f"terrain {piece.id!r}: invalid shape ({shapely.is_valid_reason(geometries[i])})"
            )
        elif areas[i] <= 0:
            problems.append(f"terrain {piece.id!r}: its shape covers no area")
    if problems:
        raise BadInput("; ".join(problems))
    return Table(width, depth, pieces, geometries)
