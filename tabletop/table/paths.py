"""A path of straight legs split where it enters and leaves shapes.

``split_path`` walks the legs in order and returns stretches, in inches along the path,
each with the indices of the shapes that cover it. Shapes come from an STRtree (the table's
terrain) and an optional short list of extra shapes (flood margins, built bridges, gaps),
numbered after the tree's. Exact up to floating point: no sampling.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import shapely
from shapely import LineString
from shapely.geometry.base import BaseGeometry

from tabletop.core.frozen import frozen_dataclass

EPS = 1e-9

Point = tuple[float, float]


@frozen_dataclass
class Stretch:
    """``start``-``end`` inches along the path, covered by the shapes ``cover`` (indices)."""

    start: float
    end: float
    cover: tuple[int, ...]

    @property
    def length(self) -> float:
        return self.end - self.start


def path_length(points: Sequence[Point]) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points))


def point_along(points: Sequence[Point], along: float) -> Point:
    """The point ``along`` inches from the path's start (clamped to its ends)."""
    walked = 0.0
    for a, b in itertools.pairwise(points):
        size = math.dist(a, b)
        if size > 0 and walked + size >= along - EPS:
            t = max(0.0, min(1.0, (along - walked) / size))
            return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        walked += size
    return points[-1]


def _intervals(leg: LineString, shape: BaseGeometry) -> list[tuple[float, float]]:
    """Where a straight leg lies inside ``shape``, as fractions 0..1 of the leg."""
    inside = leg.intersection(shape)
    parts = getattr(inside, "geoms", [inside])
    out = []
    size = leg.length
    for part in parts:
        if part.is_empty or part.geom_type not in ("LineString", "LinearRing"):
            continue  # a touch at a point takes no length
        ts = [leg.project(shapely.Point(c)) / size for c in part.coords]
        lo, hi = min(ts), max(ts)
        if hi - lo > EPS:
            out.append((lo, hi))
    return out


def split_path(
    points: Sequence[Point],
    tree: shapely.STRtree | None,
    geometries: Any,
    extra: Sequence[BaseGeometry] = (),
) -> list[Stretch]:
    """The path cut wherever the set of covering shapes changes, in path order.

    Indices below ``len(geometries)`` are the tree's shapes; ``extra[j]`` is
    ``len(geometries) + j``. Neighbouring stretches with the same cover are joined.
    """
    out: list[Stretch] = []
    walked = 0.0
    base = len(geometries)
    for a, b in itertools.pairwise(points):
        size = math.dist(a, b)
        if size <= EPS:
            continue
        leg = LineString([a, b])
        found: dict[int, list[tuple[float, float]]] = {}
        candidates = [] if tree is None else tree.query(leg, predicate="intersects")
        for i in candidates:
            spans = _intervals(leg, geometries[int(i)])
            if spans:
                found[int(i)] = spans
        for j, shape in enumerate(extra):
            if shape.is_empty or not shape.intersects(leg):
                continue
            spans = _intervals(leg, shape)
            if spans:
                found[base + j] = spans
        cuts = sorted({0.0, 1.0, *(t for spans in found.values() for s in spans for t in s)})
        for t0, t1 in itertools.pairwise(cuts):
            if t1 - t0 <= EPS:
                continue
            mid = (t0 + t1) / 2
            cover = tuple(
                sorted(i for i, spans in found.items() if any(lo <= mid <= hi for lo, hi in spans))
            )
            start, end = walked + t0 * size, walked + t1 * size
            if out and out[-1].cover == cover and abs(out[-1].end - start) <= EPS:
                out[-1] = Stretch(out[-1].start, end, cover)
            else:
                out.append(Stretch(start, end, cover))
        walked += size
    return out
