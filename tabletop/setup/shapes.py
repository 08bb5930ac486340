"""Terrain pieces from shapes measured with a tape (SPEC 3, ``scenario terrain``).

A referee measures a piece from the table's south-west corner: the centre and size of a
rectangle or an oval, the centre and radius of a round wood, the corners of anything else,
the points along a road. This module turns such a measurement into the ``polygon`` or
``line`` a scenario file holds (SPEC 6), and gives the area and bounds ``scenario show``
lists. Curves become polygons whose corners lie on the true curve and whose edges stray
from it by at most ``CURVE_TOLERANCE``.

A piece that runs off the table's edge is cut at the edge (tables are edged, terrain cloths
are not); one with no part on the table is refused. A shape that is not a valid polygon
(its edges cross) is passed on unchanged, so the scenario checks name its fault.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import shapely
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from tabletop.core.errors import BadInput

Point = tuple[float, float]

# An oval or round piece is drawn as a polygon whose edges lie within this of the curve.
CURVE_TOLERANCE = 0.02
# Coordinates are written to the thousandth of an inch: finer than any tape, and the file
# stays readable. Rounding moves a point at most 0.0007", inside the tolerance's margin.
DECIMALS = 3
_MARGIN = 0.001  # of the tolerance kept for rounding


def number(value: float) -> int | float:
    """A coordinate as written in the file: whole numbers without ``.0``."""
    rounded = round(value, DECIMALS) + 0.0  # -0.0 becomes 0.0
    return int(rounded) if rounded.is_integer() else rounded


def _written(points: Sequence[Point]) -> list[list[int | float]]:
    return [[number(x), number(y)] for x, y in points]


def _turned(points: Sequence[Point], centre: Point, angle: float) -> list[Point]:
    """``points`` turned clockwise (north up, as a bearing) by ``angle`` degrees about
    ``centre``."""
    if angle % 360 == 0:
        return list(points)
    a = math.radians(angle)
    cos, sin = math.cos(a), math.sin(a)
    cx, cy = centre
    out = []
    for x, y in points:
        dx, dy = x - cx, y - cy
        out.append((cx + dx * cos + dy * sin, cy - dx * sin + dy * cos))
    return out


def _positive(what: str, **sizes: float) -> None:
    for name, value in sizes.items():
        if not (math.isfinite(value) and value > 0):
            raise BadInput(f"{what}: the {name} is {value:g}; it must be more than 0 inches")


def rect(x: float, y: float, width: float, depth: float, angle: float = 0.0) -> list[Point]:
    """The corners of a ``width`` x ``depth`` rectangle centred on (x, y), its width running
    east-west before it is turned ``angle`` degrees clockwise."""
    _positive("--rect", width=width, depth=depth)
    w, d = width / 2, depth / 2
    corners = [(x - w, y - d), (x + w, y - d), (x + w, y + d), (x - w, y + d)]
    return _turned(corners, (x, y), angle)


def curve_points(major: float) -> int:
    """How many corners keep an oval whose longer half-axis is ``major`` inches within the
    tolerance: an oval is a squeezed circle, and no chord strays from it by more than
    ``major * (1 - cos(pi / n))``."""
    allowed = CURVE_TOLERANCE - _MARGIN
    if major <= allowed:
        return 8
    return max(8, math.ceil(math.pi / math.acos(1 - allowed / major)))


def ellipse(x: float, y: float, width: float, depth: float, angle: float = 0.0) -> list[Point]:
    """An oval ``width`` across and ``depth`` deep centred on (x, y), turned ``angle``
    degrees clockwise, as a polygon with its corners on the curve."""
    _positive("--ellipse", width=width, depth=depth)
    a, b = width / 2, depth / 2
    n = curve_points(max(a, b))
    points = [
        (x + a * math.cos(2 * math.pi * i / n), y + b * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]
    return _turned(points, (x, y), angle)


def circle(x: float, y: float, radius: float) -> list[Point]:
    _positive("--circle", radius=radius)
    return ellipse(x, y, 2 * radius, 2 * radius)


def parse_points(text: str, option: str) -> list[Point]:
    """``"X,Y X,Y ..."`` as points."""
    points = []
    for word in text.replace(";", " ").split():
        parts = word.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            px, py = float(parts[0]), float(parts[1])
        except ValueError:
            raise BadInput(
                f"{option} {text!r}: {word!r} is not a point; write X,Y pairs separated by "
                'spaces, like "10,12 20,12 20,18"'
            ) from None
        if not (math.isfinite(px) and math.isfinite(py)):
            raise BadInput(f"{option} {text!r}: {word!r} is not a point on a table")
        points.append((px, py))
    if not points:
        raise BadInput(f'{option}: no points given; write X,Y pairs like "10,12 20,12 20,18"')
    return points


def parse_numbers(text: str, option: str, names: Sequence[str]) -> list[float]:
    """``"X,Y,W,D"`` as numbers, one for each of ``names``."""
    parts = [p.strip() for p in text.split(",")]
    shape = ",".join(names)
    if len(parts) != len(names):
        raise BadInput(f"{option} {text!r}: give {shape} ({len(names)} numbers)")
    out = []
    for name, part in zip(names, parts, strict=True):
        try:
            value = float(part.rstrip('"'))
        except ValueError:
            raise BadInput(f"{option} {text!r}: {name} {part!r} is not a number") from None
        if not math.isfinite(value):
            raise BadInput(f"{option} {text!r}: {name} {part!r} is not a finite number")
        out.append(value)
    return out


@dataclass(frozen=True)
class Trimmed:
    """A shape after cutting it at the table's edge."""

    points: list[list[int | float]]
    trimmed: bool  # whether part of it lay off the table


def _on_table(shape: BaseGeometry, width: float, depth: float) -> tuple[BaseGeometry, bool]:
    table = box(0, 0, width, depth)
    if shape.within(table):
        return shape, False
    return shape.intersection(table), True


def area_on_table(points: Sequence[Point], width: float, depth: float, what: str) -> Trimmed:
    """The polygon's corners, cut at the edges of a ``width`` x ``depth`` table."""
    shape = Polygon(points) if len(points) >= 3 else None
    if shape is None or not shape.is_valid or shape.area <= 0:
        return Trimmed(_written(points), False)  # the scenario checks say what is wrong
    cut, trimmed = _on_table(shape, width, depth)
    if isinstance(cut, MultiPolygon):
        cut = max(cut.geoms, key=lambda g: g.area)
    if not isinstance(cut, Polygon) or cut.area <= 1e-9:
        raise BadInput(f"{what}: no part of it lies on the {width:g} x {depth:g} table")
    if not trimmed:
        return Trimmed(_written(points), False)
    ring = list(shapely.normalize(cut.simplify(0)).exterior.coords)[:-1]
    return Trimmed(_written([(float(x), float(y)) for x, y in ring]), True)


def line_on_table(points: Sequence[Point], width: float, depth: float, what: str) -> Trimmed:
    """The line's points, cut at the edges of a ``width`` x ``depth`` table."""
    if len(points) < 2:
        return Trimmed(_written(points), False)  # the scenario checks say what is wrong
    cut, trimmed = _on_table(LineString(points), width, depth)
    if isinstance(cut, MultiLineString):
        raise BadInput(
            f"{what}: it leaves the {width:g} x {depth:g} table and comes back; "
            "give each stretch on the table as a piece of its own"
        )
    if not isinstance(cut, LineString) or cut.length <= 1e-9:
        raise BadInput(f"{what}: no part of it lies on the {width:g} x {depth:g} table")
    if not trimmed:
        return Trimmed(_written(points), False)
    return Trimmed(_written([(float(x), float(y)) for x, y in cut.coords]), True)


def area_and_bounds(shape: BaseGeometry) -> tuple[float, list[float]]:
    """Square inches, and [min x, min y, max x, max y], to the thousandth of an inch."""
    minx, miny, maxx, maxy = shape.bounds
    return round(float(shape.area), DECIMALS) + 0.0, [
        float(number(v)) for v in (minx, miny, maxx, maxy)
    ]
