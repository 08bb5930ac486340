"""The figure both maps share: its size and layout, what the title block and the notes say,
where stand labels go, and the geometry helpers the painters use.

``draw`` paints a scene with matplotlib (SVG), ``png`` with Pillow (PNG); both take from here
what is written and where, so the two pictures say the same things in the same places.
Sizes are figure inches (``Layout``); a PNG is 130 pixels to the inch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tabletop.core.frozen import frozen_dataclass
from tabletop.core.words import possessive
from tabletop.render import style as st
from tabletop.render.labels import Item, Placed, place
from tabletop.render.scene import Ring, Scene, StandShape
from tabletop.rules.cd.compass import point_name

FORMATS = ("svg", "png")
STAGES = ("terrain", "minefields and templates", "stands and labels", "writing")

# Figure inches; see ``Layout``.
LEFT, GAP, PANEL, RIGHT = 0.65, 0.55, 2.9, 0.2
TOP, BOTTOM = 1.35, 0.5
MIN_PANEL_HEIGHT = 7.0
PNG_DPI = 130
GRID_STEP = 6  # inches between grid lines (CD tables are laid out in feet and half-feet)

# The codes a stand's label carries after its id.
STATUS_CODES = {"eliminated": "elim", "forced back": "fb", "forced-back": "fb"}
MARKER_CODES = {"suppressed": "sup", "forced-back": "fb", "forced back": "fb", "pinned": "pin"}

Progress = Callable[[str], None]

# Legend sections, in the order they are listed.
G_STANDS, G_LOS, G_BANDS, G_TEMPLATES, G_HIDDEN, G_TERRAIN = range(6)


@frozen_dataclass
class Layout:
    """Sizes in figure inches; ``scale`` is figure inches per table inch."""

    scale: float
    fig_w: float
    fig_h: float
    table_w: float
    table_h: float

    @classmethod
    def for_scene(cls, scene: Scene) -> Layout:
        # About 20 figure inches across for a big table, larger scale for a small one, so a
        # stand stays big enough to read and a label about half an inch of table high.
        scale = min(0.3, max(0.15, 20.0 / max(scene.width, 1.0)))
        table_w, table_h = scene.width * scale, scene.depth * scale
        fig_w = LEFT + table_w + GAP + PANEL + RIGHT
        fig_h = TOP + max(table_h, MIN_PANEL_HEIGHT) + BOTTOM
        return cls(scale, fig_w, fig_h, table_w, table_h)

    def points_per_inch(self) -> float:
        """Typographic points per table inch."""
        return self.scale * 72.0

    @property
    def label_points(self) -> float:
        return max(5.5, min(9.0, 0.5 * self.points_per_inch()))


# --- what both pictures say --------------------------------------------------------------------


def title_lines(scene: Scene) -> tuple[str, str, str]:
    """The title block: the game and moment, the conditions, the view and the table."""
    c = scene.conditions
    head = f"{scene.name}: turn {scene.turn}, {scene.phase} phase"
    weather = f"{c['light']}, {c['weather']}{', dusty' if c.get('dusty') else ''}"
    wind = f"wind from {point_name(c['wind_from'])} ({c['wind_from']}), {c['wind_force']}"
    line2 = f"{weather}; {wind}; ground {c['ground']}"
    view = (
        "Referee's view: everything, hidden information included"
        if scene.is_referee
        else f"{possessive(scene.view)} view: what {scene.view} may know"
    )
    size = (scene.width, scene.depth)
    line3 = f'{view}. Table {size[0]:g}" x {size[1]:g}", grid every {GRID_STEP}"; north is up.'
    return head, line2, line3


def panel_notes(scene: Scene) -> list[str]:
    """The lines under the legend: label codes, stands off the table, the sight verdict."""
    notes = [
        "Label codes: (sup) suppressed, (fb) forced back,",
        "(dep) a weapon out of ammunition, (elim) eliminated.",
    ]
    if scene.off_table:
        shown = ", ".join(scene.off_table[:8])
        more = len(scene.off_table) - 8
        notes.append(f"Not on the table: {shown}" + (f" and {more} more" if more > 0 else ""))
    line = scene.sight
    if line is not None:
        verdict = "clear" if line.clear else "BLOCKED by " + ", ".join(line.blocked_by)
        notes.append(f"{line.a} to {line.b}: sight {verdict}")
    return notes


def stand_labels(scene: Scene, lay: Layout) -> list[tuple[StandShape, Placed, str]]:
    """Every stand's label text and where it goes (``labels.place``), in drawing order."""
    pts = lay.label_points
    per_inch = lay.points_per_inch()
    items, texts = [], {}
    for s in scene.stands:
        text = stand_label(s)
        texts[s.id] = text
        xs = [p[0] for p in s.corners]
        ys = [p[1] for p in s.corners]
        items.append(
            Item(
                s.id,
                (min(xs), min(ys), max(xs), max(ys)),
                width=0.6 * pts * len(text) / per_inch + 0.15,
                height=1.15 * pts / per_inch,
            )
        )
    bounds = (0.0, 0.0, scene.width, scene.depth)
    by_id = {s.id: s for s in scene.stands}
    return [(by_id[p.id], p, texts[p.id]) for p in place(items, bounds, gap=0.08)]


# --- geometry helpers -----------------------------------------------------------------------


def terrain_in_order(scene: Scene) -> list[tuple[Any, list[Ring] | None]]:
    """The terrain in the order both pictures paint it: the ground by height, each hill with
    the higher hills that cover it, then the features by their look's layer. ``None`` for a
    feature (it covers nothing)."""
    hills = [t for t in scene.terrain if t.ground and t.polygon]
    pieces = sorted(
        scene.terrain,
        key=lambda t: (0, t.height) if t.ground else (1, st.terrain_look(t.kind).zorder),
    )
    return [
        (p, [h.polygon for h in hills if h.polygon and h.height > p.height] if p.ground else None)
        for p in pieces
    ]


def marks(length: float, step: int) -> list[float]:
    """0, step, 2 step, ... up to the length, and the far edge itself when it falls between."""
    out = [float(v) for v in range(0, math.floor(length) + 1, step)]
    if length - out[-1] > 1e-9 and step == 1:
        out.append(float(length))
    return out


def on_step(value: float) -> bool:
    return abs(value / GRID_STEP - round(value / GRID_STEP)) < 1e-9


def stand_label(s: StandShape) -> str:
    codes: list[str] = []
    for marker in s.markers:
        code = MARKER_CODES.get(marker)
        if code and code not in codes:
            codes.append(code)
    status = STATUS_CODES.get(s.status)
    if status and status not in codes:
        codes.append(status)
    if s.depleted:
        codes.append("dep")
    return s.id + (f" ({', '.join(codes)})" if codes else "")


def buffered(line: Ring | None, width: float) -> list[Ring]:
    """A line piece as the area it covers (flat ends, as the geometry package sees it)."""
    import shapely

    assert line is not None
    shape = shapely.buffer(shapely.linestrings(line), max(width, 0.05) / 2, cap_style="flat")
    parts = list(getattr(shape, "geoms", [shape]))
    return [[(float(x), float(y)) for x, y in p.exterior.coords] for p in parts if not p.is_empty]


def area(ring: Ring) -> float:
    total = 0.0
    for (x1, y1), (x2, y2) in zip(ring, [*ring[1:], ring[0]], strict=True):
        total += x1 * y2 - x2 * y1
    return abs(total) / 2


def centroid(ring: Ring) -> tuple[float, float]:
    xs = [p[0] for p in ring]
    ys = [p[1] for p in ring]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def label_point(ring: Ring, avoid: list[Ring] | None = None) -> tuple[float, float]:
    """A point inside the shape, clear of the ``avoid`` shapes drawn over it (a hill's label
    stays off the higher ground on top of it): the centre when it will do."""
    import shapely

    polygon = shapely.polygons(ring)
    for other in avoid or []:
        rest = polygon.difference(shapely.polygons(other))
        if not rest.is_empty:
            polygon = rest
    if polygon.geom_type == "Polygon" and polygon.contains(polygon.centroid):
        point = polygon.centroid
    else:
        parts = list(getattr(polygon, "geoms", [polygon]))
        point = max(parts, key=lambda p: p.area).point_on_surface()
    return float(point.x), float(point.y)


def left_of(start: tuple[float, float], end: tuple[float, float]) -> tuple[float, float, str]:
    """The unit normal on the left of the line from start to end, and the text alignment
    that keeps a label on that side."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    return nx, ny, "right" if nx < -0.3 else "left" if nx > 0.3 else "center"


def text_angle(x1: float, y1: float, x2: float, y2: float) -> float:
    angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
    if angle > 90:
        angle -= 180
    elif angle < -90:
        angle += 180
    return angle
