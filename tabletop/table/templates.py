"""Templates laid on the table (HE bursts, smoke strips, searchlight beams) and what they cover."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon

from tabletop.core.errors import BadInput
from tabletop.table._clip import clip
from tabletop.table._trace import canonical, endpoint_data, layers, trace
from tabletop.table.measure import base_polygon, heading
from tabletop.table.model import Base
from tabletop.table.terrain import Table

QUAD_SEGS = 16  # 64 sides: area within 0.2% of a true circle, plenty at table scale
_BISECT_STEPS = 60  # halves a 100" interval below 1e-16": as exact as floats allow


def _positive(name: str, value: float) -> float:
    if not value > 0:
        raise BadInput(f"template {name} must be positive, got {value!r}")
    return float(value)


def circle(x: float, y: float, diameter: float) -> Polygon:
    """A round template (HE burst, illumination) of `diameter` inches centred on (x, y)."""
    radius = _positive("diameter", diameter) / 2
    return shapely.buffer(shapely.points(x, y), radius, quad_segs=QUAD_SEGS)


def strip(x: float, y: float, bearing_deg: float, width: float, length: float) -> Polygon:
    """A width x length rectangle whose near short edge is centred on (x, y).

    It extends `length` inches along `bearing_deg` (smoke drifting downwind, a beam).
    """
    half = _positive("width", width) / 2
    length = _positive("length", length)
    fx, fy = heading(bearing_deg)
    rx, ry = fy, -fx
    return Polygon(
        [
            (x - half * rx, y - half * ry),
            (x + half * rx, y + half * ry),
            (x + half * rx + length * fx, y + half * ry + length * fy),
            (x - half * rx + length * fx, y - half * ry + length * fy),
        ]
    )


def beam(
    x: float,
    y: float,
    bearing_deg: float,
    width: float,
    length: float,
    table: Table | None = None,
) -> Polygon:
    """A strip that stops where its centre line can no longer be seen from (x, y).

    With a table, the beam is cut at the first point along its centre line that the origin
    cannot see under the line-of-sight rules, counting only pieces that do not cover the
    origin (a searchlight in a wood shines out of it). Cut at the origin itself, the beam is
    an empty polygon.
    """
    _positive("width", width)
    _positive("length", length)
    if table is None:
        return strip(x, y, bearing_deg, width, length)
    reach = _reach(table, (float(x), float(y)), heading(bearing_deg), float(length))
    if reach <= 0:
        return Polygon()
    return strip(x, y, bearing_deg, width, reach)


def coverage(template: Polygon, bases: Sequence[Base]) -> list[tuple[str, float]]:
    """(id, fraction of the base under the template) for each base it covers with some area.

    Bases are reported in input order; bases merely touching the template's edge are left out.
    """
    if not bases:
        return []
    polygons = np.array([base_polygon(b) for b in bases], dtype=object)
    under = shapely.area(shapely.intersection(polygons, template))
    fractions = np.minimum(under / shapely.area(polygons), 1.0)
    return [(b.id, float(f)) for b, u, f in zip(bases, under, fractions, strict=True) if u > 0]


def _reach(
    table: Table, origin: tuple[float, float], direction: tuple[float, float], length: float
) -> float:
    """How far along the centre line the origin sees before the first blocked point.

    Between consecutive events (where the centre line crosses a piece's edge, or reaches
    the see-into depth of a piece) the target's level and the pieces covering it stay the
    same, and each piece's blocking can only switch once, the same way throughout (the
    sight line's level over a fixed piece is monotonic in the target's distance). So an
    interval is clear throughout when both its ends are clear, blocked from its start when
    its start is, and otherwise switches once, found by bisection.
    """
    lay = layers(table)
    ox, oy = origin
    dx, dy = direction
    end = (ox + length * dx, oy + length * dy)
    _, origin_covers = endpoint_data(table, lay, np.array([origin]))
    ignore = origin_covers[0]
    events = _events(table, ignore, origin, end, length)

    def blocked(distances: np.ndarray) -> np.ndarray:
        targets = np.column_stack([ox + distances * dx, oy + distances * dy])
        points = np.vstack([[origin], targets])
        levels, covers = endpoint_data(table, lay, points)
        start, stop = canonical(points, np.zeros(len(targets), np.intp), np.arange(1, len(points)))
        traces = trace(lay, points, levels, covers, start, stop, ignore=ignore)
        out = np.zeros(len(targets), dtype=bool)
        out[traces.seg[traces.blocks]] = True
        return out

    lo, hi = events[:-1], events[1:]
    nudge = np.minimum(1e-9 * max(length, 1.0), (hi - lo) / 4)
    first = blocked(lo + nudge)
    last = blocked(hi - nudge)
    for k in range(len(lo)):
        if first[k]:
            return float(lo[k])
        if last[k]:
            clear_at, blocked_at = lo[k] + nudge[k], hi[k] - nudge[k]
            for _ in range(_BISECT_STEPS):
                mid = (clear_at + blocked_at) / 2
                if blocked(np.array([mid]))[0]:
                    blocked_at = mid
                else:
                    clear_at = mid
            return float(clear_at)
    return length


def _events(
    table: Table,
    ignore: np.ndarray,
    origin: tuple[float, float],
    end: tuple[float, float],
    length: float,
) -> np.ndarray:
    """Sorted distances along the centre line where the rules' inputs can change."""
    hits = table.tree.query(shapely.linestrings([origin, end]), predicate="intersects")
    p = np.repeat(np.array([origin], dtype=float), len(hits), axis=0)
    d = np.repeat(np.array([end], dtype=float) - np.array([origin]), len(hits), axis=0)
    row, t0, t1 = clip(p, d, hits, table.edges)
    start, stop = t0 * length, t1 * length
    # Past `see_into` inches inside a piece, a target standing in it is no longer seen.
    piece = hits[row]
    run = np.cumsum(stop - start) - (stop - start)  # inches inside anything before a stretch
    depth_before = run - run[np.searchsorted(row, row, side="left")]  # ... inside this piece
    limit = table.see_into[piece]
    reached = (
        table.can_block[piece]
        & ~table.is_ground[piece]
        & ~ignore[piece]
        & (depth_before < limit)
        & (limit < depth_before + (stop - start))
    )
    see_into = start[reached] + limit[reached] - depth_before[reached]
    marks = np.concatenate([[0.0, length], start, stop, see_into])
    return np.unique(np.clip(marks, 0.0, length))
