"""The one computation behind every sight-line verdict: many segments against many pieces.

`line_of_sight`, `sight_matrix` and the beam template all call `trace`, so a single answer
and the all-pairs matrix cannot disagree, and the explanation comes from the same numbers
as the verdict. The rules themselves are documented in `tabletop.table.sight`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from tabletop.core.errors import BadInput
from tabletop.core.frozen import frozen_dataclass
from tabletop.table._clip import Edges, clip, concat_edges, ring_edges
from tabletop.table.terrain import Table

Smoke = Sequence[tuple[str, Sequence[tuple[float, float]]]]


@frozen_dataclass
class Layers:
    """The table's pieces followed by this call's smoke screens, as flat arrays."""

    ids: tuple[str, ...]
    kinds: tuple[str, ...]
    geometries: np.ndarray
    tree: shapely.STRtree
    edges: Edges
    tops: np.ndarray
    is_smoke: np.ndarray
    is_ground: np.ndarray
    can_block: np.ndarray
    see_into: np.ndarray


def layers(table: Table, smoke: Smoke = ()) -> Layers:
    """Stack the table's pieces and the smoke polygons; smoke never has a top to see over."""
    smoke_ids = tuple(str(sid) for sid, _ in smoke)
    smoke_geoms = [_smoke_polygon(str(sid), ring) for sid, ring in smoke]
    n = len(smoke_ids)
    if n:
        geometries = np.concatenate([table.geometries, np.array(smoke_geoms, dtype=object)])
        shapely.prepare(geometries)
        tree = shapely.STRtree(geometries)
        edges = concat_edges(table.edges, ring_edges(np.array(smoke_geoms, dtype=object)))
    else:
        geometries, tree, edges = table.geometries, table.tree, table.edges
    return Layers(
        ids=tuple(p.id for p in table.pieces) + smoke_ids,
        kinds=tuple(p.kind for p in table.pieces) + ("smoke",) * n,
        geometries=geometries,
        tree=tree,
        edges=edges,
        tops=np.concatenate([table.tops, np.full(n, np.inf)]),
        is_smoke=np.concatenate([np.zeros(len(table.pieces), bool), np.ones(n, bool)]),
        is_ground=np.concatenate([table.is_ground, np.zeros(n, bool)]),
        can_block=np.concatenate([table.can_block, np.ones(n, bool)]),
        see_into=np.concatenate([table.see_into, np.zeros(n)]),
    )


def _smoke_polygon(sid: str, ring: Sequence[tuple[float, float]]) -> shapely.Polygon:
    try:
        polygon = shapely.polygons([(float(x), float(y)) for x, y in ring])
    except (TypeError, ValueError, shapely.errors.GEOSException) as exc:
        raise BadInput(f"smoke {sid!r}: not a polygon ({exc})") from None
    if not shapely.is_valid(polygon):
        raise BadInput(f"smoke {sid!r}: invalid shape ({shapely.is_valid_reason(polygon)})")
    return polygon


@frozen_dataclass
class Traces:
    """One row per (segment, layer) pair whose intersection has positive length.

    `t_in` / `t_out` are the first entry and last exit as fractions of the segment from its
    start `p` to its end `q`; `inside` is inches inside; `line_level` the lowest sight-line
    level over the layer; `at_p` / `at_q` whether the layer covers the start / end point.
    """

    seg: np.ndarray
    layer: np.ndarray
    t_in: np.ndarray
    t_out: np.ndarray
    inside: np.ndarray
    line_level: np.ndarray
    rises: np.ndarray
    at_p: np.ndarray
    at_q: np.ndarray
    blocks: np.ndarray


def _empty_traces() -> Traces:
    i, f, b = np.zeros(0, np.intp), np.zeros(0), np.zeros(0, bool)
    return Traces(i, i, f, f, f, f, b, b, b, b)


def canonical(points: np.ndarray, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order each pair so the lexicographically smaller point comes first.

    Tracing A->B and B->A through the very same floating-point operations makes the verdict
    exactly symmetric, even when the sight line grazes a top.
    """
    a, b = points[i], points[j]
    swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
    return np.where(swap, j, i), np.where(swap, i, j)


def trace(
    lay: Layers,
    points: np.ndarray,
    levels: np.ndarray,
    covers: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    ignore: np.ndarray | None = None,
) -> Traces:
    """Trace segments points[i] -> points[j] (distinct points) through every layer.

    `levels` are the ground levels of `points`; `covers[n, k]` says whether layer k covers
    point n. Layers flagged in `ignore` are traced but never block.
    """
    if len(i) == 0:
        return _empty_traces()
    p, q = points[i], points[j]
    d = q - p
    length2 = np.einsum("ij,ij->i", d, d)
    segments = shapely.linestrings(np.stack([p, q], axis=1))
    # One STRtree query for all segments: candidates whose shapes really touch.
    seg, layer = lay.tree.query(segments, predicate="intersects")
    owner, t0, t1 = clip(p[seg], d[seg], layer, lay.edges)
    if len(owner) == 0:
        return _empty_traces()

    # The sight line is straight, so over each stretch its lowest level is at an end.
    level_p = levels[i][seg[owner]]
    level_q = levels[j][seg[owner]]
    low = np.minimum(level_p + t0 * (level_q - level_p), level_p + t1 * (level_q - level_p))

    # Stretches come sorted by candidate, so each candidate's are contiguous.
    rows, first = np.unique(owner, return_index=True)
    seg, layer = seg[rows], layer[rows]
    t_in = np.minimum.reduceat(t0, first)
    t_out = np.maximum.reduceat(t1, first)
    inside = np.add.reduceat(t1 - t0, first) * np.sqrt(length2[seg])
    line_level = np.minimum.reduceat(low, first)

    rises = lay.tops[layer] > line_level
    at_p = covers[i[seg], layer]
    at_q = covers[j[seg], layer]
    at_end = at_p | at_q
    hill = lay.is_ground[layer]
    seen_into = at_end & (inside <= lay.see_into[layer])
    blocks = lay.is_smoke[layer] | (
        lay.can_block[layer] & rises & np.where(hill, ~at_end, ~seen_into)
    )
    if ignore is not None:
        blocks &= ~ignore[layer]
    return Traces(seg, layer, t_in, t_out, inside, line_level, rises, at_p, at_q, blocks)


def endpoint_data(table: Table, lay: Layers, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ground levels of the points and which layers cover them (smoke included)."""
    levels = table.ground_levels(points)
    covers = np.zeros((len(points), len(lay.ids)), dtype=bool)
    if len(lay.ids):
        at, layer = lay.tree.query(shapely.points(points), predicate="intersects")
        covers[at, layer] = True
    return levels, covers
