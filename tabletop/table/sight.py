"""Line of sight between two points on the table (stand centres).

The rules, as implemented (every verdict and its explanation come from `_trace.trace`):

1. Eye height is 0: the sight line is the straight 3D segment from (a, level_a) to
   (b, level_b), where each level is `Table.ground_level` at that end (the greatest height of
   the hills covering it, else 0). Raising eyes would let every stand see over every hedge
   of its own height; the rules measure from the ground the stand is on.
2. Tops: a hill (`ground=True`) tops out at its `height`. Any other piece tops out at the
   ground level at its representative point plus its `height`, so a level-1 wood on a
   level-2 hill reaches level 3.
3. A piece rises above the sight line when, on some part of the segment inside it (boundary
   included, positive length only: touching a corner or an edge at one point is not a
   crossing), its top is strictly greater than the line's level there. The line is straight,
   so the lowest level over each part is at one of its ends; `Crossing.line_level` is the
   lowest over all parts.
4. Hills block when they rise above the line, except a hill covering a or b: a stand sees
   off the hill it stands on and is seen on it (plateau convention). A hill that the line
   merely crosses at or below its top, e.g. seen over from a higher hill, does not block.
5. Another piece blocks when its `blocks` flag is set and it rises above the line, except
   when it covers a or b (boundary included) and the line's total length inside it is at
   most its `see_into`: a stand sees into, not through, the wood or town it stands in, and
   a target standing in one at its edge is seen.
6. Smoke polygons block whenever the segment passes through them with positive length,
   whatever the levels (their top is reported as infinite); their ids join `blocked_by`.
7. Every piece crossed with positive length is reported as a `Crossing`, blocking or not,
   with a reason; crossings are ordered by the distance of their entry from a.
8. The verdict is symmetric: both directions are traced with the same floating-point
   operations (the pair is put in a fixed order first), so a and b can be swapped freely.
   When a and b are the same point the line is clear and crosses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop.table._trace import Layers, Smoke, Traces, canonical, endpoint_data, layers, trace
from tabletop.table.model import Crossing, SightLine
from tabletop.table.terrain import Table


def line_of_sight(
    table: Table,
    a: tuple[float, float],
    b: tuple[float, float],
    smoke: Smoke = (),
) -> SightLine:
    """Whether a stand at `a` sees one at `b`, with every piece crossed and why it matters.

    `smoke` lists (id, polygon points) of smoke screens in place now.
    """
    lay = layers(table, smoke)
    points = np.array([a, b], dtype=float)
    levels, covers = endpoint_data(table, lay, points)
    level_a, level_b = float(levels[0]), float(levels[1])
    if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1]:
        return SightLine(True, (), (), level_a, level_b)
    start, end = canonical(points, np.array([0]), np.array([1]))
    swapped = bool(start[0] == 1)
    traces = trace(lay, points, levels, covers, start, end)
    crossings = _crossings(lay, traces, points, swapped)
    blocked_by = tuple(c.piece_id for c in crossings if c.blocks)
    return SightLine(not blocked_by, blocked_by, crossings, level_a, level_b)


def sight_matrix(
    table: Table, points: Sequence[tuple[float, float]], smoke: Smoke = ()
) -> np.ndarray:
    """All-pairs line of sight: an (N, N) bool array, True where the pair see each other.

    Agrees exactly with `line_of_sight` for every pair (same code path); the diagonal, and
    pairs at the same point, are True.
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    n = len(pts)
    clear = np.ones((n, n), dtype=bool)
    if n < 2:
        return clear
    lay = layers(table, smoke)
    levels, covers = endpoint_data(table, lay, pts)
    i, j = np.triu_indices(n, k=1)
    distinct = (pts[i] != pts[j]).any(axis=1)
    i, j = canonical(pts, i[distinct], j[distinct])
    traces = trace(lay, pts, levels, covers, i, j)
    blocked = np.zeros(len(i), dtype=bool)
    blocked[traces.seg[traces.blocks]] = True
    clear[i[blocked], j[blocked]] = False
    clear[j[blocked], i[blocked]] = False
    return clear


def sight_pairs(
    table: Table,
    a: Sequence[tuple[float, float]],
    b: Sequence[tuple[float, float]],
    smoke: Smoke = (),
) -> np.ndarray:
    """Line of sight for many separate pairs at once: a bool per pair, True where a[n] and
    b[n] see each other.

    Agrees exactly with `line_of_sight(table, a[n], b[n], smoke).clear` for every pair: the
    same end data and the same `trace`, each pair put in the same canonical order, so a
    caller with many unrelated lines (the candidates for opportunity fire) pays for one
    vectorised pass rather than one call per line. Pairs at the same point are clear.
    """
    a_pts = np.asarray(a, dtype=float).reshape(-1, 2)
    b_pts = np.asarray(b, dtype=float).reshape(-1, 2)
    n = len(a_pts)
    if len(b_pts) != n:
        raise ValueError(f"sight_pairs: {n} first ends but {len(b_pts)} second ends")
    clear = np.ones(n, dtype=bool)
    if n == 0:
        return clear
    pts = np.concatenate([a_pts, b_pts])
    lay = layers(table, smoke)
    levels, covers = endpoint_data(table, lay, pts)
    i, j = np.arange(n), np.arange(n, 2 * n)
    distinct = (pts[i] != pts[j]).any(axis=1)
    i, j = canonical(pts, i[distinct], j[distinct])
    traces = trace(lay, pts, levels, covers, i, j)
    blocked = np.zeros(len(i), dtype=bool)
    blocked[traces.seg[traces.blocks]] = True
    clear[np.flatnonzero(distinct)[blocked]] = False
    return clear


def _crossings(
    lay: Layers, traces: Traces, points: np.ndarray, swapped: bool
) -> tuple[Crossing, ...]:
    """Turn trace rows (in the canonical direction) into crossings as seen from a."""
    a_xy, span = points[0], points[1] - points[0]
    out: list[tuple[float, int, Crossing]] = []
    for row in range(len(traces.seg)):
        k = int(traces.layer[row])
        t_in, t_out = float(traces.t_in[row]), float(traces.t_out[row])
        at_a, at_b = bool(traces.at_p[row]), bool(traces.at_q[row])
        if swapped:
            # Entry from a is the exit seen from b, and the other way round.
            t_in, t_out = 1.0 - t_out, 1.0 - t_in
            at_a, at_b = at_b, at_a
        entry = a_xy + t_in * span
        exit_ = a_xy + t_out * span
        blocks = bool(traces.blocks[row])
        crossing = Crossing(
            piece_id=lay.ids[k],
            kind=lay.kinds[k],
            entry=(float(entry[0]), float(entry[1])),
            exit=(float(exit_[0]), float(exit_[1])),
            inside=float(traces.inside[row]),
            top=float(lay.tops[k]),
            line_level=float(traces.line_level[row]),
            blocks=blocks,
            reason=_reason(lay, k, traces, row, at_a, at_b),
        )
        out.append((t_in, k, crossing))
    out.sort(key=lambda item: (item[0], item[1]))
    return tuple(c for _, _, c in out)


def _num(value: float) -> str:
    """Levels and inches to two decimals at most, one at least: 1.0, 0.38, 2.5."""
    text = f"{value:.2f}"
    return text[:-1] if text.endswith("0") else text


def _reason(lay: Layers, k: int, traces: Traces, row: int, at_a: bool, at_b: bool) -> str:
    inside = f'{_num(float(traces.inside[row]))}" inside'
    if lay.is_smoke[k]:
        return f"smoke blocks sight whatever the levels; {inside}"
    if not lay.can_block[k]:
        return f"{lay.kinds[k]} does not block sight; {inside}"
    top, level = _num(float(lay.tops[k])), _num(float(traces.line_level[row]))
    if not traces.rises[row]:
        if float(traces.line_level[row]) == float(lay.tops[k]):
            return f"sight line at {level} just clears its top {top}; {inside}"
        return f"sight line at {level} passes over its top {top}; {inside}"
    rising = f"rises to level {top} above the sight line at {level}"
    who = " and ".join(name for name, here in (("A", at_a), ("B", at_b)) if here)
    verb = "stand" if at_a and at_b else "stands"
    if lay.is_ground[k]:
        if who:
            # Plateau convention: the hill under a stand neither hides it nor blinds it.
            return f"{who} {verb} on this hill, which does not block ({rising})"
        return f"{rising}; {inside}"
    see = _num(float(lay.see_into[k]))
    if not who:
        return f"{rising}; {inside}"
    if traces.blocks[row]:
        return f'{rising}; {inside}, more than the {see}" a stand can see into it'
    return f'{who} {verb} inside it; the sight line runs {inside}, within the see-into depth {see}"'
