"""A base carried along a path past a convex shape: where it touches it and where it is on it.

A base moved without turning touches a convex shape exactly when its centre lies in the
Minkowski sum of the shape and the base mirrored through its centre. Clipping each leg of
the path to that sum's half-planes (Cyrus-Beck) gives, in inches along the path, the
stretches where the base touches the shape and those where it overlaps it by more than a
sliver. No sampling: the answer is exact up to ``tolerance``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from shapely import MultiPoint, Polygon
from shapely.geometry.polygon import orient

from tabletop.core.frozen import frozen_dataclass

Stretch = tuple[float, float]


@frozen_dataclass
class Sweep:
    """Where along the path (inches from its start) the moving base meets the shape."""

    length: float
    touching: tuple[Stretch, ...]  # the base touches or overlaps the shape
    overlapping: tuple[Stretch, ...]  # the base overlaps it by more than the tolerance
    ends_overlapping: bool  # at the path's end the base still lies on the shape


def sweep(
    path: Sequence[tuple[float, float]], base: Polygon, shape: Polygon, tolerance: float
) -> Sweep:
    """How ``base`` (placed with its centre at ``path[0]``) meets convex ``shape`` on the way."""
    cx, cy = path[0]
    mirrored = [(cx - x, cy - y) for x, y in base.exterior.coords[:-1]]
    corners = [(sx + ox, sy + oy) for sx, sy in shape.exterior.coords[:-1] for ox, oy in mirrored]
    hull = MultiPoint(corners).convex_hull
    if not isinstance(hull, Polygon) or hull.area <= 0:
        raise ValueError("a base and a shape with no area cannot be swept")
    planes = _half_planes(orient(hull, 1.0))
    legs = list(itertools.pairwise(path))
    starts = [0.0]
    for a, b in legs:
        starts.append(starts[-1] + math.dist(a, b))
    touching: list[Stretch] = []
    overlapping: list[Stretch] = []
    for (a, b), s0 in zip(legs, starts, strict=False):
        size = math.dist(a, b)
        if size <= 0:
            continue
        for out, slack, strict in ((touching, tolerance, False), (overlapping, -tolerance, True)):
            clip = _clip(planes, a, b, slack)
            if clip is None or (strict and clip[1] - clip[0] <= 0):
                continue
            _extend(out, (s0 + clip[0] * size, s0 + clip[1] * size))
    end = path[-1]
    ends_overlapping = all(nx * end[0] + ny * end[1] < c - tolerance for nx, ny, c in planes)
    return Sweep(starts[-1], tuple(touching), tuple(overlapping), ends_overlapping)


def _half_planes(hull: Polygon) -> list[tuple[float, float, float]]:
    """Each edge of a counter-clockwise polygon as (nx, ny, c): inside when nx*x + ny*y <= c."""
    coords = list(hull.exterior.coords)
    planes = []
    for (ax, ay), (bx, by) in itertools.pairwise(coords):
        ex, ey = bx - ax, by - ay
        size = math.hypot(ex, ey)
        if size <= 0:
            continue
        nx, ny = ey / size, -ex / size  # the outward normal of a counter-clockwise ring
        planes.append((nx, ny, nx * ax + ny * ay))
    return planes


def _clip(
    planes: list[tuple[float, float, float]],
    a: tuple[float, float],
    b: tuple[float, float],
    slack: float,
) -> tuple[float, float] | None:
    """The part (t0, t1) of the segment a-b inside every plane moved out by ``slack``."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for nx, ny, c in planes:
        room = c + slack - (nx * a[0] + ny * a[1])
        rate = nx * dx + ny * dy
        if rate == 0:
            if room < 0:
                return None
            continue
        t = room / rate
        if rate > 0:
            t1 = min(t1, t)
        else:
            t0 = max(t0, t)
        if t0 > t1:
            return None
    return (t0, t1)


def _extend(stretches: list[Stretch], new: Stretch) -> None:
    """Add a stretch, joining it to the last one when the path runs on from one leg to the next."""
    if stretches and new[0] <= stretches[-1][1] + 1e-9:
        stretches[-1] = (stretches[-1][0], max(stretches[-1][1], new[1]))
    else:
        stretches.append(new)
