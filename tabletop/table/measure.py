"""Range and bearing between stands' bases (SPEC 2: edge to edge unless `measure: centre`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon

from tabletop.core.errors import BadInput
from tabletop.table.model import Base

MEASURES = ("edge", "centre")


def _check_measure(measure: str) -> None:
    if measure not in MEASURES:
        raise BadInput(f"unknown measure: {measure!r} (use 'edge' or 'centre')")


def heading(bearing_deg: float) -> tuple[float, float]:
    """Unit vector (east, north) pointing along a bearing (degrees clockwise from north)."""
    rad = math.radians(bearing_deg)
    return math.sin(rad), math.cos(rad)


def _corners(base: Base) -> list[tuple[float, float]]:
    """The base's four corners: width across its facing, depth along it."""
    fx, fy = heading(base.facing)
    rx, ry = fy, -fx  # a quarter turn clockwise from the facing: the stand's right
    w, d = base.width / 2, base.depth / 2
    return [
        (base.x + u * w * rx + v * d * fx, base.y + u * w * ry + v * d * fy)
        for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]


def base_polygon(base: Base) -> Polygon:
    """The base as a rectangle: width across its facing, depth along it."""
    return Polygon(_corners(base))


def base_polygons(bases: Sequence[Base]) -> np.ndarray:
    """``base_polygon`` of many bases, as an array of polygons with the same corners.

    One shapely call builds them all: a ``Polygon`` at a time cost more in calls than the
    corners themselves (the overlap test sets every stand on the table against the one
    moved; a large game has 150).
    """
    corners = np.array([_corners(b) for b in bases], dtype=float).reshape(-1, 4, 2)
    polygons: np.ndarray = shapely.polygons(corners)
    return polygons


def overlapping(base: Base, others: Sequence[Base], tolerance: float) -> list[str]:
    """Ids of the bases in ``others`` that overlap ``base``: share more than ``tolerance``
    square inches (bases may touch; a sliver from measuring by hand is not an overlap).

    The one overlap test, for every rule that sets a base down (placing, moving, unloading,
    towing, landing, retreating), all against the table chart's one tolerance.
    """
    if not others:
        return []
    mine = base_polygon(base)
    shared = shapely.area(shapely.intersection(mine, base_polygons(others)))
    limit = max(tolerance, 1e-6)
    return [o.id for o, area in zip(others, shared, strict=True) if area > limit]


def distance(a: Base, b: Base, measure: str = "edge") -> float:
    """Range in inches: shortest gap between the bases (0 if they touch), or centre to centre."""
    _check_measure(measure)
    if measure == "centre":
        return math.hypot(b.x - a.x, b.y - a.y)
    return float(shapely.distance(base_polygon(a), base_polygon(b)))


def within(a: Base, b: Base, inches: float, measure: str = "edge") -> bool:
    """Whether b is within `inches` of a (inclusive): for rules such as resupply within 6"."""
    _check_measure(measure)
    if measure == "centre":
        return math.hypot(b.x - a.x, b.y - a.y) <= inches
    return bool(shapely.dwithin(base_polygon(a), base_polygon(b), inches))


def point_distance(a: Base, xy: tuple[float, float]) -> float:
    """Inches from the edge of a base to a point; 0 when the point is on or inside the base."""
    return float(shapely.distance(base_polygon(a), shapely.points(xy)))


def bearing(x1: float, y1: float, x2: float, y2: float) -> float:
    """Bearing from (x1, y1) to (x2, y2): degrees clockwise from north in [0, 360).

    The same point twice gives 0.0.
    """
    if x1 == x2 and y1 == y2:
        return 0.0
    deg = math.degrees(math.atan2(x2 - x1, y2 - y1)) % 360.0
    # A tiny negative angle modulo 360 rounds up to 360.0, outside the range.
    return 0.0 if deg >= 360.0 else deg
